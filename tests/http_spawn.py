"""Start `memvault serve --http` of *this* checkout on a free port, and talk to it as an HTTP MCP client would."""

from __future__ import annotations

import re
import signal
import subprocess
import threading
import time
from contextlib import asynccontextmanager
from pathlib import Path
from typing import AsyncIterator

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from spawn import ROOT, command, server_env

LISTENING = re.compile(rb"listening on (http://\S+/mcp)")


def token(home: Path, tenant: str, *extra: str, **env: str) -> str:
    """`memvault token create --tenant TENANT ...`: the token it prints on stdout."""
    proc = subprocess.run(
        command("token", "create", "--tenant", tenant, *extra), capture_output=True, text=True, timeout=60,
        cwd=ROOT, env=server_env(home, **env),
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def cli(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        command(*args), capture_output=True, text=True, timeout=60, cwd=ROOT, env=server_env(home, **env)
    )


class HttpServer:
    """A spawned `memvault serve --http --port 0`; `url` once it says it is listening."""

    def __init__(self, home: Path, *args: str, **env: str) -> None:
        self.proc = subprocess.Popen(
            command("serve", "--http", "--port", "0", *args), cwd=ROOT, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=server_env(home, **env),
        )
        self.stdout = bytearray()
        self.stderr = bytearray()
        self._listening = threading.Event()
        self.url = ""

        def pump_err() -> None:
            for line in iter(self.proc.stderr.readline, b""):
                self.stderr += line
                found = LISTENING.search(line)
                if found and not self.url:
                    self.url = found.group(1).decode()
                    self._listening.set()
            self._listening.set()

        def pump_out() -> None:
            for chunk in iter(lambda: self.proc.stdout.read1(65536), b""):
                self.stdout += chunk

        self._threads = [threading.Thread(target=pump_err, daemon=True), threading.Thread(target=pump_out, daemon=True)]
        for t in self._threads:
            t.start()

    def wait_listening(self, timeout: float = 60) -> str:
        self._listening.wait(timeout)
        assert self.url, f"server did not start; stderr:\n{self.stderr.decode(errors='replace')[-3000:]}"
        return self.url

    @property
    def origin(self) -> str:
        return self.url.removesuffix("/mcp")

    def stop(self, timeout: float = 20) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self._close_pipes()
        return self.proc.returncode

    def _close_pipes(self) -> None:
        for t in self._threads:
            t.join(timeout=5)
        for pipe in (self.proc.stdout, self.proc.stderr):
            pipe.close()

    def wait_exit(self, timeout: float = 60) -> int:
        code = self.proc.wait(timeout=timeout)
        self._close_pipes()
        return code


@asynccontextmanager
async def connect(
    url: str, bearer: str | None, mode: str = "legacy", statuses: list[int] | None = None
) -> AsyncIterator[Client]:
    """An MCP client over streamable HTTP sending `Authorization: Bearer <bearer>`.

    `statuses` collects the HTTP status of every response: the SDK's client reports a refused
    request only as "Server returned an error response", without the status.
    """
    headers = {"Authorization": f"Bearer {bearer}"} if bearer else {}

    async def record(response: httpx2.Response) -> None:
        if statuses is not None:
            statuses.append(response.status_code)

    async with httpx2.AsyncClient(
        headers=headers, timeout=httpx2.Timeout(30, read=60), event_hooks={"response": [record]}
    ) as http:
        async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:  # type: ignore[arg-type]
            yield client


def wait_until(predicate, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)
