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
