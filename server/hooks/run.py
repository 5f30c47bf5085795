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
import sys
import threading
import time
from typing import BinaryIO, TextIO

from server.config import Settings
from server.hooks import protocol, relay
from server.hooks.protocol import CAPTURE_EVENTS, HookInput
from server.hooks.settings import HookSettings
from server.hooks.work import capture_with, inject_with, log_line, open_light, thread_for

#: The most of stdin a hook reads (a prompt is a few KB; anything bigger is not a hook event).
MAX_STDIN = 4 * 1024 * 1024


def main(
    event: str,
    host: str | None = None,
    foreground: bool = False,
    stdin: BinaryIO | None = None,
    stdout: TextIO | None = None,
) -> int:
    """Run one hook (`event` in our words or the host's); always returns 0."""
    event = protocol.EVENT_NAMES.get(event, event)
    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout
    settings = None
    started = time.perf_counter()
    try:
        raw, dropped = _read_stdin(stdin)  # first: whatever fails next, the host's pipe is drained
        settings = Settings.from_env()
        if dropped:
            raise protocol.BadInput(f"stdin is over {MAX_STDIN // (1024 * 1024)} MB ({dropped} bytes more were dropped)")
        hook = protocol.parse(raw, event, host)
        hook_settings = HookSettings.from_env()
        if event in CAPTURE_EVENTS:
            if not (hook_settings.enabled("capture") and hook_settings.enabled(event)):
                return 0
            if not foreground:
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


def _read_stdin(stdin: BinaryIO) -> tuple[bytes, int]:
    """Up to MAX_STDIN bytes, and how many more were read and dropped (so a host writing more never
    gets a broken pipe)."""
    raw = stdin.read(MAX_STDIN)
    dropped = 0
    if len(raw) == MAX_STDIN:
        while chunk := stdin.read(1 << 20):
            dropped += len(chunk)
    return raw, dropped


def log_warnings_to_file() -> None:
    """In a hook process: warnings of the code it runs (the service, the store) go to hooks.log,
    not to the host's terminal. (Not for in-process callers: it takes over the root logger.)"""

    class ToHookLog(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            try:
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
    answer = relay.ask(settings, hook_settings, hook, thread)
    if answer is not None:
        return answer  # a running memvault server answered: no imports, no store to open here
    service = open_light(settings, create=False)
    if service is None:
        return ""  # nothing remembered yet: nothing to say
    service.reads.hold_marks = True  # a read, with no write: the session's next capture counts the recall
    try:
        # A locked store makes the hook give up within its deadline instead of waiting the server's write wait.
        with service.db.waiting_at_most(hook_settings.deadline_seconds * 0.6):
            return inject_with(service, settings, hook_settings, hook, thread)
    finally:
        service.close()


def _capture(settings: Settings, hook_settings: HookSettings, hook: HookInput) -> str:
    service = open_light(settings, create=True)
    assert service is not None
    try:
        return capture_with(service, settings, hook_settings, hook, thread_for(settings, hook))
    finally:
        service.close()


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
    import subprocess  # lazy: ~3 ms of imports (selectors, signal) that the injecting hooks never need

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
