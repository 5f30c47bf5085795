"""Writing and removing memvault's entries in a host's hook configuration.

Claude Code reads hooks from settings.json (`~/.claude/settings.json` for the user,
`.claude/settings.json` in a project): `{"hooks": {"EventName": [{"matcher": ...,
"hooks": [{"type": "command", "command": ..., "timeout": ...}]}]}}`. Cursor reads
`~/.cursor/hooks.json` or `.cursor/hooks.json`: `{"version": 1, "hooks": {"eventName":
[{"command": ...}]}}`. Installing merges into what is there (other hooks and settings are
kept as they are), replaces memvault's own entries (so a second install changes nothing),
and backs the file up under $MEMVAULT_HOME/hooks/backups first. Commands use the absolute
path of this installation's `memvault`, so neither PATH nor another runtime is needed.

Commands also name the store (`--home`, and `--namespace` when not the default): a host
gives its MCP server the `env` block of the server's entry, but runs hooks with its own
environment, so a MEMVAULT_HOME set only for the server would leave the hooks filling
another store. The store is MEMVAULT_HOME where install runs, else the one the host's
memvault server entry sets, else the default data directory (`resolve_store`).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from server.config import Settings, default_home
from server.errors import SetupError
from server.files.atomic import atomic_write
from server.hooks.protocol import HOST_EVENTS
from server.hooks.work import hooks_dir

#: Seconds each host waits. Injection has its own, shorter deadline (MEMVAULT_HOOK_DEADLINE);
#: capture detaches at once. Generous numbers only guard against a stuck process.
TIMEOUTS = {"session-start": 10, "prompt": 10, "pre-compact": 30, "stop": 30, "session-end": 30}
# Recognises a handler memvault wrote, whatever path the command had then.
_OURS = re.compile(r"(?:memvault|server\.hooks)\S*\"?\s+(?:hook\s+)?(?:session-start|prompt|pre-compact|stop|session-end)\b")


@dataclass(frozen=True)
class Store:
    """Which data directory (and namespace) a hook command or an MCP server entry uses."""

    home: Path
    namespace: str = "default"
    why: str = ""  # where it was found, for the install message and doctor

    def same(self, other: Store) -> bool:
        return _norm(self.home) == _norm(other.home) and self.namespace == other.namespace

    def __str__(self) -> str:
        return str(self.home) + ("" if self.namespace == "default" else f" (namespace {self.namespace})")


def _norm(path: Path) -> str:
    try:
        return os.path.normcase(str(path.expanduser().resolve()))
    except OSError:
        return os.path.normcase(str(path))


def mcp_configs(host: str, project: Path) -> list[Path]:
    """The host's MCP server configurations that exist (user-wide and the project's)."""
    home = Path.home()
    if host == "claude-code":
        candidates = [home / ".claude.json", project / ".mcp.json"]
    else:
        candidates = [home / ".cursor" / "mcp.json", project / ".cursor" / "mcp.json"]
    return [p for p in candidates if p.is_file()]


def server_stores(host: str, project: Path) -> list[Store]:
    """The store of each memvault MCP server entry in the host's configurations (unreadable files skipped)."""
    found = []
    for path in mcp_configs(host, project):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for name, entry in _server_entries(data):
            if "memvault" not in name + str(entry.get("command", "")) + " ".join(map(str, entry.get("args") or [])):
                continue
            env = entry.get("env") if isinstance(entry.get("env"), dict) else {}
            home = str(env.get("MEMVAULT_HOME") or "")
            found.append(Store(
                Path(home).expanduser() if home else default_home(),
                str(env.get("MEMVAULT_NAMESPACE") or "default"),
                f"the MCP server {name!r} in {path}",
            ))
    return found


def _server_entries(data: Any) -> list[tuple[str, dict[str, Any]]]:
    """(name, entry) of every MCP server entry, wherever the file nests them (~/.claude.json: per project too)."""
    found: list[tuple[str, dict[str, Any]]] = []
    if isinstance(data, dict):
        block = data.get("mcpServers")
        if isinstance(block, dict):
            found += [(str(n), e) for n, e in block.items() if isinstance(e, dict)]
        for key, value in data.items():
            if key != "mcpServers" and isinstance(value, dict):
                found += _server_entries(value)
    return found


def resolve_store(host: str, project: Path, env: dict[str, str] | None = None) -> Store:
    """The store the hooks should use: MEMVAULT_HOME here, else the host's memvault server's, else the default."""
    env = dict(os.environ) if env is None else env
    namespace = env.get("MEMVAULT_NAMESPACE") or ""
    if env.get("MEMVAULT_HOME"):
        return Store(Path(env["MEMVAULT_HOME"]).expanduser(), namespace or "default", "MEMVAULT_HOME")
    servers = server_stores(host, project)
    distinct = {(_norm(s.home), s.namespace): s for s in servers}
    if len(distinct) == 1:
        server = servers[0]
        return Store(server.home, namespace or server.namespace, server.why)
    return Store(default_home(), namespace or "default", "the default data directory")


def command_line(event: str, host: str, store: Store | None = None) -> str:
    """The shell command a host runs: the absolute `memvault` of this installation (forward slashes), and the store."""
    folder = Path(sys.executable).parent
    where = ""
    if store is not None:
        where = f" --home {_quote(store.home.as_posix())}"
        if store.namespace != "default":
            where += f" --namespace {_quote(store.namespace)}"
    for name in ("memvault", "memvault.exe"):
        exe = folder / name
        if exe.is_file():
            return f'"{exe.as_posix()}" hook {event} --host {host}{where}'
    # No console script beside the interpreter (an unusual install): run the module.
    return f'"{Path(sys.executable).as_posix()}" -m server.hooks {event} --host {host}{where}'


def _quote(text: str) -> str:
    """Double quotes, as for the program (Git Bash on Windows reads them too); shlex's for odd characters."""
    if any(c in text for c in '"$`\\!'):
        return shlex.quote(text)
    return f'"{text}"'


_HOME_ARG = re.compile(r"""--home\s+(?:"([^"]*)"|'([^']*)'|(\S+))""")
_NAMESPACE_ARG = re.compile(r"""--namespace\s+(?:"([^"]*)"|'([^']*)'|(\S+))""")


def hook_store(command: str) -> Store | None:
    """The store an installed hook command names; None when it names none (it then follows the host's environment)."""
    home = _HOME_ARG.search(command)
    if home is None:
        return None
    namespace = _NAMESPACE_ARG.search(command)
    return Store(Path(next(g for g in home.groups() if g is not None)),
                 next(g for g in namespace.groups() if g is not None) if namespace else "default")


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


def _ours(host: str, store: Store | None) -> dict[str, list[dict[str, Any]]]:
    names = {ours: theirs for theirs, ours in HOST_EVENTS[host].items()}
    if host == "cursor":
        return {names[e]: [{"command": command_line(e, host, store)}] for e in TIMEOUTS}
    out: dict[str, list[dict[str, Any]]] = {}
    for event, timeout in TIMEOUTS.items():
        handler: dict[str, Any] = {"type": "command", "command": command_line(event, host, store), "timeout": timeout}
        if event in ("stop", "pre-compact"):
            handler["async"] = True  # capture never holds the turn (it also detaches itself)
        out[names[event]] = [{"matcher": "", "hooks": [handler]}] if event != "stop" else [{"hooks": [handler]}]
    return out


def plan(host: str, path: Path, remove: bool = False, store: Store | None = None) -> Change:
    before, data = _load(path)
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise SetupError(f'{path}: "hooks" is not an object; fix it by hand, then run this again')
    merged = _without_ours(hooks, host)
    if not remove:
        for name, groups in _ours(host, store).items():
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
    named = hook_store(found[0].split(": ", 1)[1]) if found else None
    store = str(named) if named else ("the host's environment (MEMVAULT_HOME, else the default)" if found else None)
    return {"host": host, "config": str(path), "exists": before is not None, "memvault_hooks": found, "store": store}


def _backups() -> Path:
    return hooks_dir(Settings.from_env()) / "backups"
