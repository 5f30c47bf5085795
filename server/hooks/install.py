"""Writing and removing memvault's entries in a host's hook configuration.

Claude Code reads hooks from settings.json (`~/.claude/settings.json` for the user,
`.claude/settings.json` in a project): `{"hooks": {"EventName": [{"matcher": ...,
"hooks": [{"type": "command", "command": ..., "timeout": ...}]}]}}`. Cursor reads
`~/.cursor/hooks.json` or `.cursor/hooks.json`: `{"version": 1, "hooks": {"eventName":
[{"command": ...}]}}`. Installing merges into what is there (other hooks and settings are
kept as they are), replaces memvault's own entries (so a second install changes nothing),
and backs the file up under $MEMVAULT_HOME/hooks/backups first. Commands use the absolute
path of this installation's `memvault`, so neither PATH nor another runtime is needed.
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from server.errors import SetupError
from server.hooks.protocol import HOST_EVENTS

#: Seconds each host waits. Injection has its own, shorter deadline (MEMVAULT_HOOK_DEADLINE);
#: capture detaches at once. Generous numbers only guard against a stuck process.
TIMEOUTS = {"session-start": 10, "prompt": 10, "pre-compact": 30, "stop": 30, "session-end": 30}
# Recognises a handler memvault wrote, whatever path the command had then.
_OURS = re.compile(r"(?:memvault|server\.hooks)\S*\"?\s+(?:hook\s+)?(?:session-start|prompt|pre-compact|stop|session-end)\b")


@dataclass
class Change:
    host: str
    path: Path
    before: str | None  # the file's text (None: no file)
    text: str  # what it becomes ("" with remove=True and nothing else left: the file is deleted)
    backup: Path | None = None

    @property
    def changes(self) -> bool:
        return (self.before or "") != self.text


def config_path(host: str, scope: str, project: Path) -> Path:
    if host == "claude-code":
        return (Path.home() / ".claude" if scope == "user" else project.resolve() / ".claude") / "settings.json"
    return (Path.home() / ".cursor" if scope == "user" else project.resolve() / ".cursor") / "hooks.json"


def command_line(event: str, host: str) -> str:
    """The shell command a host runs: the absolute `memvault` of this installation (forward slashes)."""
    folder = Path(sys.executable).parent
    for name in ("memvault", "memvault.exe"):
        exe = folder / name
        if exe.is_file():
            return f'"{exe.as_posix()}" hook {event} --host {host}'
    # No console script beside the interpreter (an unusual install): run the module.
    return f'"{Path(sys.executable).as_posix()}" -m server.hooks {event} --host {host}'


def _load(path: Path) -> tuple[str | None, dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, {}
    try:
        data = json.loads(text) if text.strip() else {}
    except ValueError as exc:
        raise SetupError(f"{path} is not valid JSON ({exc}); fix it or move it away, then run this again") from None
    if not isinstance(data, dict):
        raise SetupError(f"{path} does not hold a JSON object; fix it or move it away, then run this again")
    return text, data


def _without_ours(hooks: dict[str, Any], host: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, groups in hooks.items():
        if not isinstance(groups, list):
            out[name] = groups
            continue
        kept = []
        for group in groups:
            if host == "cursor":
                if not (isinstance(group, dict) and _OURS.search(str(group.get("command", "")))):
                    kept.append(group)
                continue
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                kept.append(group)
                continue
            handlers = [h for h in group["hooks"] if not (isinstance(h, dict) and _OURS.search(str(h.get("command", ""))))]
            if handlers:
                kept.append({**group, "hooks": handlers})
        if kept:
            out[name] = kept
    return out


def _ours(host: str) -> dict[str, list[dict[str, Any]]]:
    names = {ours: theirs for theirs, ours in HOST_EVENTS[host].items()}
    if host == "cursor":
        return {names[e]: [{"command": command_line(e, host)}] for e in TIMEOUTS}
    out: dict[str, list[dict[str, Any]]] = {}
    for event, timeout in TIMEOUTS.items():
        handler: dict[str, Any] = {"type": "command", "command": command_line(event, host), "timeout": timeout}
        if event in ("stop", "pre-compact"):
            handler["async"] = True  # capture never holds the turn (it also detaches itself)
        out[names[event]] = [{"matcher": "", "hooks": [handler]}] if event != "stop" else [{"hooks": [handler]}]
    return out


def plan(host: str, path: Path, remove: bool = False) -> Change:
    before, data = _load(path)
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise SetupError(f'{path}: "hooks" is not an object; fix it by hand, then run this again')
    merged = _without_ours(hooks, host)
    if not remove:
        for name, groups in _ours(host).items():
            merged[name] = [*merged.get(name, []), *groups]
    result = dict(data)
    if merged:
        result["hooks"] = merged
    else:
        result.pop("hooks", None)
    if host == "cursor" and merged and "version" not in result:
        result = {"version": 1, **result}
    if remove and before is not None and not merged and set(result) <= {"version"}:
        return Change(host, path, before, "")  # nothing but our hooks was there: the file goes
    if before is not None and result == data:
        return Change(host, path, before, before)
    return Change(host, path, before, json.dumps(result, indent=2) + "\n")


def apply(change: Change, backups: Path | None = None) -> bool:
    """Write the change (after a backup of the old file); False when there was nothing to change."""
    if not change.changes:
        return False
    from server.files.atomic import atomic_write

    if change.before is not None:
        folder = backups or _backups()
        folder.mkdir(parents=True, exist_ok=True)
        stamp = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H%M%S%f")
        target = folder / f"{change.host}-{change.path.parent.name.lstrip('.')}-{change.path.name}.{stamp}"
        target.write_text(change.before, encoding="utf-8")
        change.backup = target
    if change.text == "" and change.before is not None:
        os.remove(change.path)
        return True
    change.path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(change.path, change.text)
    return True


def status(host: str, path: Path) -> dict[str, Any]:
    before, data = _load(path)
    hooks = data.get("hooks", {}) if isinstance(data.get("hooks"), dict) else {}
    found = []
    for name, groups in hooks.items():
        for group in groups if isinstance(groups, list) else []:
            handlers = group.get("hooks", []) if host == "claude-code" and isinstance(group, dict) else [group]
            found += [f"{name}: {h.get('command')}" for h in handlers if isinstance(h, dict) and _OURS.search(str(h.get("command", "")))]
    return {"host": host, "config": str(path), "exists": before is not None, "memvault_hooks": found}


def _backups() -> Path:
    from server.config import Settings
    from server.hooks.work import hooks_dir

    return hooks_dir(Settings.from_env()) / "backups"
