"""What each host sends a hook on stdin and expects back on stdout.

Claude Code (code.claude.com/docs/en/hooks): JSON on stdin with `session_id`,
`transcript_path`, `cwd`, `hook_event_name` (+ `prompt` for UserPromptSubmit, `source`
for SessionStart); context goes back as
`{"hookSpecificOutput": {"hookEventName": ..., "additionalContext": ...}}` on exit 0.
Cursor (cursor.com/docs/agent/hooks): camelCase event names, `conversation_id` (newer
builds also `session_id`), `workspace_roots`; `sessionStart` answers
`{"additional_context": ...}` and `beforeSubmitPrompt` `{"continue": true, ...}`.
docs/hooks.md lists the sources and what was relied on.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from server.frozen import record

#: The events `memvault hook` answers, in the words of its command line.
EVENTS = ("session-start", "prompt", "pre-compact", "stop", "session-end")
#: Events that capture the transcript (the rest inject context).
CAPTURE_EVENTS = frozenset({"pre-compact", "stop", "session-end"})
HOSTS = ("claude-code", "cursor")

#: Each host's event names, and ours.
HOST_EVENTS = {
    "claude-code": {
        "SessionStart": "session-start", "UserPromptSubmit": "prompt", "PreCompact": "pre-compact",
        "Stop": "stop", "SessionEnd": "session-end",
    },
    "cursor": {
        "sessionStart": "session-start", "beforeSubmitPrompt": "prompt", "preCompact": "pre-compact",
        "stop": "stop", "sessionEnd": "session-end",
    },
}

#: Every event name `memvault hook` accepts: ours and the hosts' own (a hand-written
#: configuration often copies the host's name, e.g. `memvault hook UserPromptSubmit`).
EVENT_NAMES = {**{e: e for e in EVENTS}, **HOST_EVENTS["claude-code"], **HOST_EVENTS["cursor"]}

_SAFE_ID = re.compile(r"[A-Za-z0-9._-]{1,100}")


class BadInput(ValueError):
    """The host's stdin is not a hook event we can use (logged; the hook still exits 0)."""


@record
class HookInput:
    host: str
    event: str
    session_id: str  # safe as a file name (see session_key)
    cwd: Path
    transcript_path: Path | None = None
    prompt: str | None = None
    # SessionStart: "startup", "resume", "clear" or "compact" (Claude Code).
    source: str | None = None


def event_name(name: str) -> str:
    """Our name for an event given in our words or a host's (`UserPromptSubmit`, `beforeSubmitPrompt`…)."""
    try:
        return EVENT_NAMES[name]
    except KeyError:
        raise BadInput(f"unknown hook event {name!r}; use one of {', '.join(EVENTS)} (or the host's own name)") from None


def session_key(raw: str) -> str:
    """A session id usable as a file name: itself when plain, else a hash of it."""
    if _SAFE_ID.fullmatch(raw) and raw not in (".", ".."):
        return raw
    import hashlib  # only for odd ids: OpenSSL's import is not free on every prompt
    return "h" + hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def detect_host(payload: dict) -> str:
    """claude-code unless the payload has Cursor's marks (camelCase events, workspace_roots)."""
    name = payload.get("hook_event_name")
    if name in HOST_EVENTS["cursor"] or "conversation_id" in payload or "workspace_roots" in payload:
        return "cursor"
    return "claude-code"


def parse(raw: str | bytes, event: str, host: str | None = None, env: dict[str, str] | None = None) -> HookInput:
    """The host's stdin as a HookInput; raises BadInput when it is not a JSON object."""
    env = dict(os.environ) if env is None else env
    event = event_name(event)
    try:
        payload = json.loads(raw or "{}")
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadInput(f"stdin is not JSON ({exc})") from None
    if not isinstance(payload, dict):
        raise BadInput(f"stdin is JSON but not an object ({type(payload).__name__})")
    host = host or detect_host(payload)
    if host not in HOSTS:
        raise BadInput(f"unknown host {host!r}; use one of {', '.join(HOSTS)}")
    session = _text(payload.get("session_id")) or _text(payload.get("conversation_id"))
    if not session:
        raise BadInput("no session_id (or conversation_id) in the hook input")
    transcript = _text(payload.get("transcript_path"))
    prompt = payload.get("prompt")
    return HookInput(
        host=host,
        event=event,
        session_id=session_key(session),
        cwd=_cwd(payload, env),
        transcript_path=Path(transcript).expanduser() if transcript else None,
        prompt=prompt if isinstance(prompt, str) else None,
        source=_text(payload.get("source")) or None,
    )


def _text(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


def _cwd(payload: dict, env: dict[str, str]) -> Path:
    """Where the session works: the payload's cwd, Cursor's first workspace root, the project dir, ours."""
    roots = payload.get("workspace_roots")
    for candidate in (
        _text(payload.get("cwd")),
        _text(roots[0]) if isinstance(roots, list) and roots else "",
        env.get("CLAUDE_PROJECT_DIR", ""),
        env.get("CURSOR_PROJECT_DIR", ""),
    ):
        if candidate:
            return Path(candidate).expanduser()
    return Path.cwd()


def render(host: str, event: str, context: str) -> str:
    """What to print on stdout for an injection (`context` may be empty: then nothing, or Cursor's continue)."""
    if host == "cursor":
        if event == "prompt":
            # beforeSubmitPrompt must never hold the prompt back; additional_context is
            # accepted by current builds (docs/hooks.md) and ignored by older ones.
            return json.dumps({"continue": True, **({"additional_context": context} if context else {})})
        return json.dumps({"additional_context": context}) if context else ""
    if not context:
        return ""
    name = {"session-start": "SessionStart", "prompt": "UserPromptSubmit"}[event]
    return json.dumps({"hookSpecificOutput": {"hookEventName": name, "additionalContext": context}})
