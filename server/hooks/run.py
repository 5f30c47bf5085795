"""`memvault hook EVENT`: read the host's JSON on stdin, answer on stdout, and never fail the host.

Fail open, always: whatever goes wrong — garbage on stdin, a missing or locked store, a
missing transcript, a bug — the hook exits 0 with nothing on stdout (or Cursor's bare
`{"continue": true}`) and writes one line to `$MEMVAULT_HOME/hooks/hooks.log`. An
injecting hook also gives up after MEMVAULT_HOOK_DEADLINE seconds (a watchdog thread
ends the process), because the host waits for it before sending the prompt.

Capture events are handed to a running server of the same store (relay.py), or else
detach: the hook starts a copy of itself in a new session (process group), hands it the
input and exits at once, so a long transcript never holds the host (and
Claude Code's 1.5 s SessionEnd budget does not cut a capture short). `--foreground`
captures in-process (the detached copy runs that way; tests and debugging too).

An injection is first offered to a running memvault server of the same store (relay.py);
when none answers, the process opens the store lightly: no embedding model (a keyword-only
embedder that is never ready, so recall answers by keyword search), no drift check, no
model check — the server does those when it starts.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, TextIO

from server.hooks import protocol
from server.hooks.protocol import CAPTURE_EVENTS, HookInput

if TYPE_CHECKING:
    from server.config import Settings
    from server.hooks.settings import HookSettings
    from server.service import MemoryService

#: The most of stdin a hook reads (a prompt is a few KB; anything bigger is not a hook event).
MAX_STDIN = 4 * 1024 * 1024
LOG_NAME = "hooks.log"
#: hooks.log is cut to its last half when it grows past this.
MAX_LOG_BYTES = 1024 * 1024


class KeywordOnly:
    """An embedder that is never ready: recall answers from keyword search, no model is loaded.

    It names the configured model so nothing mistakes the store for another model's.
    """

    error = "the hook answers by keyword search (no embedding model in a hook process)"

    def __init__(self, model_id: str, dimensions: int) -> None:
        self.model_id = model_id
        self.dimensions = dimensions

    def wait_ready(self, timeout: float) -> bool:
        return False

    def embed(self, texts: list[str]):  # noqa: ANN201 - never called: wait_ready is False
        raise RuntimeError(self.error)


def hooks_dir(settings: Settings) -> Path:
    if settings.namespace == "default":
        return settings.home / "hooks"
    return settings.home / "namespaces" / settings.namespace / "hooks"


def log_line(settings: Settings | None, message: str) -> None:
    """One line in hooks.log (never raises: the log is best effort)."""
    try:
        from server.config import default_home

        folder = hooks_dir(settings) if settings is not None else default_home() / "hooks"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / LOG_NAME
        stamp = datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
        line = f"{stamp} {' '.join(message.split())[:1000]}\n"
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(line)
        if path.stat().st_size > MAX_LOG_BYTES:
            data = path.read_bytes()[-MAX_LOG_BYTES // 2 :]
            path.write_bytes(data[data.find(b"\n") + 1 :])
    except Exception:  # noqa: BLE001 - nowhere left to report to; the host must not notice
        pass


def open_light(settings: Settings, create: bool) -> MemoryService | None:
    """The service without model, drift check or model check; None when there is no store and `create` is False."""
    from server.embedding.embedders import make_embedder
    from server.service import MemoryService
    from server.storage.opener import open_database

    if not settings.database_url and not create and not settings.db_path.exists():
        return None
    base = make_embedder(settings.embedder, settings.embed_threads, settings.embed_runtime, settings.model_cache)
    embedder = KeywordOnly(base.model_id, base.dimensions)
    db = open_database(settings, embedder.dimensions)
    try:
        return MemoryService(db, embedder, settings)
    except BaseException:
        db.close()
        raise


def thread_for(settings: Settings, hook: HookInput) -> str | None:
    """The server's rule: MEMVAULT_THREAD, else the git repository of the session's cwd, else none (global)."""
    from server.config import repo_thread

    return settings.default_thread or repo_thread(hook.cwd)


def main(
    event: str,
    host: str | None = None,
    foreground: bool = False,
    stdin: BinaryIO | None = None,
    stdout: TextIO | None = None,
) -> int:
    """Run one hook; always returns 0."""
    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout
    settings = None
    started = time.perf_counter()
    try:
        from server.config import Settings
        from server.hooks.settings import HookSettings

        settings = Settings.from_env()
        raw = stdin.read(MAX_STDIN)
        hook = protocol.parse(raw, event, host)
        hook_settings = HookSettings.from_env()
        if event in CAPTURE_EVENTS:
            if not (hook_settings.enabled("capture") and hook_settings.enabled(event)):
                return 0
            if not foreground:
                from server.hooks import relay

                if not relay.hand_off(settings, hook_settings, hook, thread_for(settings, hook)):
                    _detach(event, hook.host, raw)
                return 0
            message = _capture(settings, hook_settings, hook)
            log_line(settings, f"{event} {hook.host} {hook.session_id}: {message} "
                               f"({(time.perf_counter() - started) * 1000:.0f} ms)")
            return 0
        watchdog = _watchdog(settings, event, hook_settings.deadline_seconds)
        try:
            text = _inject(settings, hook_settings, hook)
        finally:
            watchdog.cancel()  # in-process callers (the benchmark, tests) live on after the hook
        out = protocol.render(hook.host, event, text)
        if out:
            stdout.write(out + "\n")
            stdout.flush()
    except BaseException as exc:  # noqa: BLE001 - fail open: the host never sees an error
        if isinstance(exc, KeyboardInterrupt):
            return 0
        log_line(settings, f"{event}: {type(exc).__name__}: {exc} — nothing injected or captured")
        if event == "prompt" and (host == "cursor"):
            stdout.write('{"continue": true}\n')
    return 0


def log_warnings_to_file() -> None:
    """In a hook process: warnings of the code it runs (the service, the store) go to hooks.log,
    not to the host's terminal. (Not for in-process callers: it takes over the root logger.)"""

    class ToHookLog(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            try:
                from server.config import Settings

                settings = Settings.from_env()
            except Exception:  # noqa: BLE001 - a bad setting: log_line falls back to the default home
                settings = None
            log_line(settings, f"{record.name}: {record.getMessage()}")

    root = logging.getLogger()
    root.handlers[:] = [ToHookLog(logging.WARNING)]
    root.setLevel(logging.WARNING)


def _inject(settings: Settings, hook_settings: HookSettings, hook: HookInput) -> str:
    switch = "session-start" if hook.event == "session-start" else "prompt"
    if not hook_settings.enabled(switch):
        return ""
    thread = thread_for(settings, hook)
    from server.hooks import relay

    answer = relay.ask(settings, hook_settings, hook, thread)
    if answer is not None:
        return answer  # a running memvault server answered: no imports, no store to open here
    service = open_light(settings, create=False)
    if service is None:
        return ""  # nothing remembered yet: nothing to say
    try:
        _short_busy_wait(service, hook_settings.deadline_seconds)
        return inject_with(service, settings, hook_settings, hook, thread)
    finally:
        service.close()


def inject_with(
    service: MemoryService, settings: Settings, hook_settings: HookSettings, hook: HookInput, thread: str | None
) -> str:
    """The injection for one event, with a service already open (this process's, or a server's through the relay)."""
    from server.hooks import inject
    from server.hooks.privacy import strip_private, wants_no_memory
    from server.hooks.sessions import Sessions

    sessions = Sessions(hooks_dir(settings) / "sessions")
    with sessions.locked(hook.host, hook.session_id) as state:
        if hook.event == "session-start":
            if hook.source in ("clear", "compact"):
                state.injected = []  # what was injected before is gone from the model's context
            found = inject.session_context(service, thread, hook_settings.start_tokens)
        else:
            prompt = strip_private(hook.prompt or "")
            if wants_no_memory(prompt) and not state.nomem and hook_settings.enabled("capture"):
                from server.hooks.capture import stop_capture  # rare: kept off the per-prompt imports

                stop_capture(service, state)
            found = inject.prompt_context(
                service, thread, prompt, hook_settings.prompt_tokens, hook_settings.min_score, set(state.injected)
            )
        state.injected.extend(i for i in found.ids if i not in state.injected)
        state.tokens_injected += found.tokens
    if hook.event == "session-start":
        sessions.prune()
    return found.text


def _capture(settings: Settings, hook_settings: HookSettings, hook: HookInput) -> str:
    service = open_light(settings, create=True)
    assert service is not None
    try:
        return capture_with(service, settings, hook_settings, hook, thread_for(settings, hook))
    finally:
        service.close()


def capture_with(
    service: MemoryService, settings: Settings, hook_settings: HookSettings, hook: HookInput, thread: str | None
) -> str:
    """Capture with a service already open (this process's, or a server's through the relay); a summary line."""
    from server.hooks.capture import capture
    from server.hooks.sessions import Sessions

    report = capture(service, hook, thread, Sessions(hooks_dir(settings) / "sessions"), turns=hook_settings.enabled("turns"))
    if report.skipped:
        return f"nothing captured: {report.skipped}"
    kinds = ", ".join(f"{n} {k}" for k, n in sorted(report.kinds.items()))
    return (f"{report.lines} transcript lines: {report.turns} turns, {report.statements} statements"
            f"{f' ({kinds})' if kinds else ''}, {report.duplicates} already known, {report.rejected} rejected")


def _short_busy_wait(service: MemoryService, deadline: float) -> None:
    """A locked SQLite store makes the hook give up within its deadline instead of waiting 10 s."""
    conn = getattr(service.db, "conn", None)
    if conn is not None:
        conn.execute(f"PRAGMA busy_timeout = {int(deadline * 1000 * 0.6)}")


def _watchdog(settings: Settings, event: str, seconds: float) -> threading.Timer:
    def expire() -> None:
        log_line(settings, f"{event}: gave up after the {seconds:g} s deadline (MEMVAULT_HOOK_DEADLINE); nothing injected")
        os._exit(0)

    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    timer.start()
    return timer


def _detach(event: str, host: str, raw: bytes) -> None:
    """Run the capture in a new process that outlives this one; hand it stdin."""
    argv = [sys.executable, "-m", "server.hooks", event, "--host", host, "--foreground"]
    options: dict = {"stdin": subprocess.PIPE, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL,
                     "close_fds": True}
    if os.name == "nt":  # pragma: no cover - Windows
        options["creationflags"] = subprocess.DETACHED_PROCESS | subprocess.CREATE_NEW_PROCESS_GROUP
    else:
        options["start_new_session"] = True
    child = subprocess.Popen(argv, **options)
    assert child.stdin is not None
    child.stdin.write(raw)
    child.stdin.close()
