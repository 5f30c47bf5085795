"""Handing an injection to a running memvault server, so the hook process skips the heavy part.

A hook process spends most of its time importing memvault (numpy, pydantic, the store)
before it can run a recall of a few milliseconds. Claude Code and Cursor usually have a
memvault MCP server running already, with all of that loaded (and the embedding model,
so its recall is hybrid, not keyword-only). Each `memvault serve` therefore listens on a
Unix socket under the data directory (`hooks/relay/<pid>.sock`, private to the user); a
hook connects, sends the event, and prints the answer; a capture is handed over the same
way and runs on a thread of the server (whose backfill then embeds what it stored at once).
No extra process is started: if no server answers the connection at once, the hook does the
work itself, as before.

The socket answers only for the same store (home, namespace and database); a request
takes one JSON line and gets one back. Windows Pythons without AF_UNIX skip the relay.
"""

from __future__ import annotations

import copy
import json
import logging
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from server.config import Settings
from server.hooks.protocol import CAPTURE_EVENTS, EVENTS, HookInput, session_key
from server.hooks.settings import HookSettings
from server.hooks.work import capture_with, hooks_dir, inject_with, log_line

if TYPE_CHECKING:
    import socket

    import numpy as np

    from server.embedding.embedders import Embedder
    from server.service import MemoryService

log = logging.getLogger(__name__)

#: How long a hook waits to be accepted before doing the work itself.
CONNECT_SECONDS = 0.15
MAX_REQUEST = 1024 * 1024
# AF_UNIX paths are limited to ~104 bytes (macOS) / 108 (Linux).
MAX_PATH = 100


def relay_dir(settings: Settings) -> Path:
    return hooks_dir(settings) / "relay"


def store_id(settings: Settings) -> str:
    """Which store a process serves: a relay answers only hooks of the same one."""
    return f"{settings.database_url or settings.db_path}#{settings.namespace}"


# -- the hook's side -------------------------------------------------------------


def ask(settings: Settings, hook_settings: HookSettings, hook: HookInput, thread: str | None) -> str | None:
    """The injected text from a running server, or None when none answered (then the hook works alone)."""
    answer = _exchange(settings, hook_settings, hook, thread, {})
    return answer["text"] if answer is not None and isinstance(answer.get("text"), str) else None


def hand_off(settings: Settings, hook_settings: HookSettings, hook: HookInput, thread: str | None) -> bool:
    """Whether a running server took the capture (it runs it in the background); False: capture here."""
    answer = _exchange(settings, hook_settings, hook, thread, {"transcript_path": str(hook.transcript_path or "")})
    return answer is not None and answer.get("accepted") is True


def _exchange(
    settings: Settings, hook_settings: HookSettings, hook: HookInput, thread: str | None, extra: dict
) -> dict | None:
    try:
        candidates = sorted(relay_dir(settings).glob("*.sock"), key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return None
    if not candidates:
        return None
    # lazy: socket (with selectors, array), ~2.5 ms of CPU that a hook with no server to ask never needs
    import socket

    if not hasattr(socket, "AF_UNIX"):
        return None
    request = json.dumps({
        "store": store_id(settings), "thread": thread,
        "hook": {"host": hook.host, "event": hook.event, "session_id": hook.session_id, "cwd": str(hook.cwd),
                 "prompt": hook.prompt, "source": hook.source, **extra},
        "settings": {"start_tokens": hook_settings.start_tokens, "prompt_tokens": hook_settings.prompt_tokens,
                     "min_score": hook_settings.min_score, "off": sorted(hook_settings.off)},
    }).encode() + b"\n"
    for path in candidates[:4]:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            conn.settimeout(CONNECT_SECONDS)
            try:
                conn.connect(str(path))
            except (ConnectionRefusedError, FileNotFoundError):
                _remove_stale(path)
                continue
            except OSError:
                continue
            # Accepted: this server answers, within the hook's deadline (a timeout is the
            # hook's failure, logged by the caller; working alone now would only add time).
            conn.settimeout(hook_settings.deadline_seconds)
            conn.sendall(request)
            answer = json.loads(_read_line(conn) or b"{}")
        finally:
            conn.close()
        if isinstance(answer, dict) and "error" not in answer:
            return answer
    return None


def _remove_stale(path: Path) -> None:
    """A socket nobody listens on is what a killed server left behind."""
    try:
        path.unlink()
    except OSError:
        pass


def _read_line(conn: socket.socket) -> bytes:
    chunks, size = [], 0
    while True:
        chunk = conn.recv(65536)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if b"\n" in chunk or size > MAX_REQUEST:
            break
    return b"".join(chunks).split(b"\n", 1)[0]


# -- the server's side -----------------------------------------------------------


class _NoWait:
    """The server's embedder, except that a hook never waits for the model to finish loading."""

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder
        self.model_id = embedder.model_id
        self.dimensions = embedder.dimensions

    @property
    def error(self) -> str | None:
        return self._embedder.error

    @property
    def state(self) -> str:
        return self._embedder.state

    def start(self, delay: float = 0.0) -> None:
        self._embedder.start(delay)

    def loaded(self) -> bool:
        return self._embedder.loaded()

    def wait_ready(self, timeout: float) -> bool:
        return self._embedder.wait_ready(0)

    def embed(self, texts: list[str]) -> np.ndarray:
        return self._embedder.embed(texts)

    def embed_urgent(self, texts: list[str]) -> np.ndarray:
        return self._embedder.embed_urgent(texts)


class Relay:
    """Answers hooks for one server process until closed."""

    def __init__(self, service: MemoryService, settings: Settings) -> None:
        self.settings = settings
        self.view = copy.copy(service)  # same store and files; only the embedder differs
        self.view.embedder = _NoWait(service.embedder)
        self.path = relay_dir(settings) / f"{os.getpid()}.sock"
        self._socket: socket.socket | None = None

    def start(self) -> bool:
        import socket  # lazy: as in _exchange (a hook process imports this module for ask and hand_off)

        if not hasattr(socket, "AF_UNIX") or len(str(self.path)) > MAX_PATH:
            log.info("hook relay off (%s)", "no AF_UNIX sockets here" if not hasattr(socket, "AF_UNIX") else "socket path too long")
            return False
        self.path.parent.mkdir(parents=True, exist_ok=True)
        os.chmod(self.path.parent, 0o700)
        _remove_stale(self.path)
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(str(self.path))
        os.chmod(self.path, 0o600)
        server.listen(16)
        self._socket = server
        threading.Thread(target=self._accept, name="memvault-hook-relay", daemon=True).start()
        return True

    def close(self) -> None:
        if self._socket is not None:
            self._socket.close()
            self._socket = None
            _remove_stale(self.path)

    def _accept(self) -> None:
        while self._socket is not None:
            try:
                conn, _ = self._socket.accept()
            except OSError:
                return  # closed
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        try:
            conn.settimeout(5)
            request = json.loads(_read_line(conn) or b"{}")
            conn.sendall(json.dumps(self.handle(request)).encode() + b"\n")
        except Exception as exc:  # noqa: BLE001 - one bad request must not touch the server
            log.warning("hook relay: %s: %s", type(exc).__name__, exc)
        finally:
            conn.close()

    def handle(self, request: dict) -> dict:
        if request.get("store") != store_id(self.settings):
            return {"error": "another store"}
        raw, options = request.get("hook") or {}, request.get("settings") or {}
        if raw.get("event") not in EVENTS:
            return {"error": "unknown event"}
        transcript = raw.get("transcript_path")
        hook = HookInput(
            host=str(raw.get("host")), event=raw["event"], session_id=session_key(str(raw.get("session_id"))),
            cwd=Path(str(raw.get("cwd"))), prompt=raw.get("prompt"), source=raw.get("source"),
            transcript_path=Path(transcript) if transcript else None,
        )
        hook_settings = HookSettings(
            start_tokens=int(options.get("start_tokens", 800)), prompt_tokens=int(options.get("prompt_tokens", 300)),
            min_score=float(options.get("min_score", 0.5)), off=frozenset(options.get("off") or ()),
        )
        if hook.event in CAPTURE_EVENTS:
            threading.Thread(target=self._capture, args=(hook, hook_settings, request.get("thread")),
                             name="memvault-hook-capture", daemon=True).start()
            return {"accepted": True}
        return {"text": inject_with(self.view, self.settings, hook_settings, hook, request.get("thread"))}

    def _capture(self, hook: HookInput, hook_settings: HookSettings, thread: str | None) -> None:
        try:
            message = capture_with(self.view, self.settings, hook_settings, hook, thread)
        except Exception as exc:  # noqa: BLE001 - logged like any hook failure; the server goes on
            message = f"{type(exc).__name__}: {exc} — nothing captured"
        log_line(self.settings, f"{hook.event} {hook.host} {hook.session_id} (by the server): {message}")


def start(service: MemoryService, settings: Settings) -> Relay | None:
    """Start answering hooks from this server; None if it cannot (the hooks then work alone)."""
    try:
        relay = Relay(service, settings)
        return relay if relay.start() else None
    except Exception as exc:  # noqa: BLE001 - the relay is an optimisation; the server serves without it
        log.warning("hook relay not started: %s: %s", type(exc).__name__, exc)
        return None
