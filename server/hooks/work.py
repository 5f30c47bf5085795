"""What a hook does once it has a store: open it lightly, inject, capture, log.

Shared by the hook process (run.py, which opens the store itself) and a running server that
answers its store's hooks (relay.py, with the server's own service).
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from server.config import Settings, default_home, private_folder, repo_thread
from server.errors import StoreUnavailable
from server.hooks.privacy import strip_private, wants_no_memory
from server.storage.opener import open_database

if TYPE_CHECKING:
    from server.hooks.protocol import HookInput
    from server.hooks.sessions import Sessions
    from server.hooks.settings import HookSettings
    from server.service import MemoryService

LOG_NAME = "hooks.log"
#: hooks.log is cut to its last half when it grows past this.
MAX_LOG_BYTES = 1024 * 1024


class KeywordOnly:
    """An embedder that is never ready: recall answers from keyword search, no model is loaded.

    It names the configured model so nothing mistakes the store for another model's.
    """

    error = "the hook answers by keyword search (no embedding model in a hook process)"
    state = error

    def __init__(self, model_id: str, dimensions: int) -> None:
        self.model_id = model_id
        self.dimensions = dimensions

    def start(self, delay: float = 0.0) -> None:
        pass  # nothing to load: the hook must be done in milliseconds

    def loaded(self) -> bool:
        return False

    def wait_ready(self, timeout: float) -> bool:
        return False

    def embed(self, texts: list[str]):  # noqa: ANN201 - never called: wait_ready is False
        raise RuntimeError(self.error)

    def embed_urgent(self, texts: list[str]):  # noqa: ANN201 - never called: loaded is False
        raise RuntimeError(self.error)


def hooks_dir(settings: Settings) -> Path:
    if settings.namespace == "default":
        return settings.home / "hooks"
    return settings.home / "namespaces" / settings.namespace / "hooks"


def log_line(settings: Settings | None, message: str) -> None:
    """One line in hooks.log (never raises: the log is best effort)."""
    try:
        from server.guard.redact import redact  # lazy: ~20 ms, only when there is a line to log

        folder = hooks_dir(settings) if settings is not None else default_home() / "hooks"
        private_folder(folder)
        path = folder / LOG_NAME
        stamp = datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
        # An error's text can quote what failed (a thread id, a transcript line): the log is stored too.
        line = f"{stamp} {redact(' '.join(message.split())).text[:1000]}\n"
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(line)
        if path.stat().st_size > MAX_LOG_BYTES:
            data = path.read_bytes()[-MAX_LOG_BYTES // 2 :]
            path.write_bytes(data[data.find(b"\n") + 1 :])
    except Exception:  # noqa: BLE001 - nowhere left to report to; the host must not notice
        pass


def open_light(settings: Settings, create: bool) -> MemoryService | None:
    """The service without model, drift check or model check; None when there is no store and `create` is False."""
    # lazy: the service stack, ~0.14 s a hook that a running server answers (relay) never pays
    from server.compose import configured_embedder
    from server.service import MemoryService

    if not settings.database_url and not create and not settings.db_path.exists():
        return None
    base = configured_embedder(settings)
    embedder = KeywordOnly(base.model_id, base.dimensions)
    db = open_database(settings, embedder.dimensions)
    try:
        return MemoryService(db, embedder, settings)
    except BaseException:
        db.close()
        raise


def thread_for(settings: Settings, hook: HookInput) -> str | None:
    """The server's rule: MEMVAULT_THREAD, else the git repository of the session's cwd, else none (global)."""
    return settings.default_thread or repo_thread(hook.cwd)


def inject_with(
    service: MemoryService, settings: Settings, hook_settings: HookSettings, hook: HookInput, thread: str | None
) -> str:
    """The injection for one event, with a service already open (this process's, or a server's through the relay)."""
    # lazy: inject (~0.27 s, the service's results) and sessions (~22 ms), only where a store answers
    from server.hooks import inject
    from server.hooks.sessions import Sessions

    sessions = Sessions(hooks_dir(settings) / "sessions")
    with sessions.locked(hook.host, hook.session_id) as state:
        if hook.event == "session-start":
            if hook.source in ("clear", "compact"):
                state.injected = []  # what was injected before is gone from the model's context
            found = inject.session_context(service, thread, hook_settings.start_tokens)
        else:
            prompt = strip_private(hook.prompt or "", person=True)
            if wants_no_memory(prompt) and not state.nomem and hook_settings.enabled("capture"):
                # lazy: capture, ~0.14 s, rare: kept off the per-prompt imports
                from server.hooks.capture import stop_capture

                stop_capture(service, state)
            found = inject.prompt_context(
                service, thread, prompt, hook_settings.prompt_tokens, hook_settings.min_score, set(state.injected)
            )
        state.injected.extend(i for i in found.ids if i not in state.injected)
        state.tokens_injected += found.tokens
        if service.reads.hold_marks:  # a hook process's recall counts: written by the session's next capture
            state.recalled.extend([ids, at] for ids, at in service.reads.held_marks())
    if hook.event == "session-start":
        sessions.prune_daily()
    return found.text


def capture_with(
    service: MemoryService, settings: Settings, hook_settings: HookSettings, hook: HookInput, thread: str | None
) -> str:
    """Capture with a service already open (this process's, or a server's through the relay); a summary line."""
    from server.hooks.capture import capture  # lazy: ~55 ms (with sessions), only where a store captures
    from server.hooks.sessions import Sessions

    sessions = Sessions(hooks_dir(settings) / "sessions")
    count_recalls(service, sessions, hook)
    report = capture(service, hook, thread, sessions, turns=hook_settings.enabled("turns"))
    if report.skipped and not (report.turns or report.statements):
        return f"nothing captured: {report.skipped}"
    kinds = ", ".join(f"{n} {k}" for k, n in sorted(report.kinds.items()))
    return (f"{report.lines} transcript lines: {report.turns} turns, {report.statements} statements"
            f"{f' ({kinds})' if kinds else ''}, {report.duplicates} already known, {report.rejected} rejected"
            f"{f'; {report.skipped}' if report.skipped else ''}")


def count_recalls(service: MemoryService, sessions: Sessions, hook: HookInput) -> None:
    """Write the recall counts the session's injections held (inject_with): a capture writes anyway, and
    an injecting hook that wrote them made its store's close checkpoint the WAL while the host waited."""
    with sessions.locked(hook.host, hook.session_id) as state:
        held, state.recalled = state.recalled, []
    batches = [(ids, at) for ids, at in held if isinstance(ids, list) and isinstance(at, int)]
    if batches:
        try:
            service.store.mark_recalled_batches(batches)
        except StoreUnavailable:
            pass  # dropped: a retention score moves a little (recall.MAX_UNMARKED drops the same way)
