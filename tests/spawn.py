"""Start the server of *this* checkout as a subprocess (`python -m server`), as a host would over stdio.

Tests that spawn servers import this: it does not depend on which copy of memvault
is installed in the environment, so CI and a developer's worktree test their own code.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}


def server_env(home: Path, **extra: str) -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path, "MEMVAULT_HOME": str(home), "MEMVAULT_EMBEDDER": "hash", **extra}


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "server", *args]


def spawn(home: Path, **extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        command(),
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=server_env(home, **extra),
    )


def rpc(method: str, params: dict | None = None, id: int | None = None) -> bytes:
    message: dict = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    if id is not None:
        message["id"] = id
    return (json.dumps(message) + "\n").encode()


def handshake() -> bytes:
    return rpc("initialize", INIT, 0) + rpc("notifications/initialized")


def call(name: str, arguments: dict, id: int) -> bytes:
    return rpc("tools/call", {"name": name, "arguments": arguments}, id)


class RawSession:
    """A spawned server spoken to line by line; stdout and stderr are drained on threads (no pipe deadlock)."""

    def __init__(self, home: Path, **extra: str) -> None:
        import queue
        import threading

        self.proc = spawn(home, **extra)
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.stdout: list[bytes] = []
        self.stderr = bytearray()
        self.replies: dict[object, dict] = {}

        def pump_out() -> None:
            for line in iter(self.proc.stdout.readline, b""):
                self.stdout.append(line)
                self.lines.put(line)
            self.lines.put(b"")

        def pump_err() -> None:
            for chunk in iter(lambda: self.proc.stderr.read1(65536), b""):
                self.stderr += chunk

        self.threads = [threading.Thread(target=pump_out, daemon=True), threading.Thread(target=pump_err, daemon=True)]
        for t in self.threads:
            t.start()

    def send(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def reply(self, id: object, timeout: float = 30) -> dict:
        """The reply carrying this id (replies read meanwhile are kept for later calls)."""
        import time as _time

        deadline = _time.monotonic() + timeout
        while id not in self.replies:
            line = self.lines.get(timeout=max(0.01, deadline - _time.monotonic()))
            if not line:
                raise EOFError(f"server closed stdout waiting for id {id!r}; stderr: {self.stderr[-2000:].decode(errors='replace')}")
            message = json.loads(line)
            if isinstance(message, dict) and ("result" in message or "error" in message):
                self.replies.setdefault(message.get("id"), message)
        return self.replies[id]

    def close(self, timeout: float = 10) -> int:
        """Close stdin (a host hanging up) and wait for the exit code."""
        self.proc.stdin.close()
        code = self.proc.wait(timeout=timeout)
        for t in self.threads:
            t.join(timeout=5)
        return code

    def kill(self) -> None:
        """Make sure the process is gone and every pipe closed (call in a finally)."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        for t in self.threads:
            t.join(timeout=5)
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                pipe.close()
            except (OSError, ValueError):
                pass
