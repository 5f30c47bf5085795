"""End to end: the installed `memvault` command over stdio, exactly as Claude Desktop runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

MEMVAULT = str(Path(sys.executable).with_name("memvault"))


def _params(home: Path, **env: str) -> StdioServerParameters:
    full = {**os.environ, "MEMVAULT_HOME": str(home), "MEMVAULT_EMBEDDER": "hash", **env}
    return StdioServerParameters(command=MEMVAULT, args=[], env=full, cwd=str(home))


def test_the_memvault_command_is_installed():
    assert Path(MEMVAULT).exists(), "install the package first: pip install '.[test]'"


async def test_remember_survives_a_killed_process_and_recall_finds_it(tmp_path):
    async with Client(_params(tmp_path)) as client:
        tools = {t.name for t in (await client.list_tools()).tools}
        assert {"remember", "recall", "forget"} <= tools
        stored = await client.call_tool(
            "remember", {"content": "Releases are cut from the main branch every Tuesday", "thread": "web"}
        )
        assert stored.structured_content["status"] == "stored"
    # a second process, on the same data directory
    async with Client(_params(tmp_path)) as client:
        found = await client.call_tool("recall", {"query": "when are releases cut", "thread": "web"})
        hit = found.structured_content["memories"][0]
        assert hit["id"] == stored.structured_content["id"]


def _rpc(method: str, params: dict | None = None, id: int | None = None) -> str:
    message: dict = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    if id is not None:
        message["id"] = id
    return json.dumps(message) + "\n"


def _spawn(home: Path, **env: str) -> subprocess.Popen:
    return subprocess.Popen(
        [MEMVAULT], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "MEMVAULT_HOME": str(home), "MEMVAULT_EMBEDDER": "hash", **env},
    )


INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}


def test_kill_9_mid_session_then_restart_keeps_every_acknowledged_write(tmp_path):
    lines = [_rpc("initialize", INIT, 1), _rpc("notifications/initialized")]
    lines += [_rpc("tools/call", {"name": "remember", "arguments": {"content": f"fact number {i}"}}, 10 + i) for i in range(20)]
    acked = []
    with _spawn(tmp_path) as proc:
        proc.stdin.write("".join(lines).encode())
        proc.stdin.flush()
        while len(acked) < 20:
            reply = json.loads(proc.stdout.readline())
            if reply.get("id", 0) >= 10:
                acked.append(reply["result"]["structuredContent"]["id"])
        proc.kill()  # SIGKILL: no clean shutdown
        proc.wait(timeout=10)
    out = subprocess.run(
        [MEMVAULT, "info"], capture_output=True, text=True, timeout=60,
        env={**os.environ, "MEMVAULT_HOME": str(tmp_path), "MEMVAULT_EMBEDDER": "hash"},
    )
    info = json.loads(out.stdout)
    assert info["live"] == 20 and len(set(acked)) == 20


def test_stdout_carries_only_json_rpc_and_malformed_lines_do_not_kill_the_server(tmp_path):
    script = [
        _rpc("initialize", INIT, 1),
        _rpc("notifications/initialized"),
        "this is not json\n",
        '{"jsonrpc": "2.0", "id": 2, "method": \n',
        json.dumps({"jsonrpc": "2.0", "id": 3, "method": "no/such/method"}) + "\n",
        json.dumps([1, 2, 3]) + "\n",
        _rpc("tools/call", {"name": "remember", "arguments": {"content": 5}}, 4),
        _rpc("tools/call", {"name": "nope", "arguments": {}}, 5),
        _rpc("tools/call", {"name": "remember", "arguments": {"content": "still serving"}}, 6),
    ]
    replies = {}

    def read_until(ids: set[int]) -> None:
        # A host reads its replies before it hangs up (requests run concurrently: any order).
        while not ids <= replies.keys():
            line = proc.stdout.readline()
            assert line, "server closed stdout early"
            message = json.loads(line)  # every stdout line is JSON ...
            assert message.get("jsonrpc") == "2.0"  # ... and JSON-RPC
            if "id" in message:
                replies[message["id"]] = message

    with _spawn(tmp_path, MEMVAULT_LOG_LEVEL="DEBUG") as proc:
        proc.stdin.write("".join(script).encode())
        proc.stdin.flush()
        read_until({1, 3, 4, 5, 6})
        # Read after write: the recall goes out once the remember has answered, as a host's would.
        proc.stdin.write(_rpc("tools/call", {"name": "recall", "arguments": {"query": "serving"}}, 7).encode())
        proc.stdin.flush()
        read_until({7})
        proc.stdin.close()
        rest, err = proc.stdout.read(), proc.stderr.read()
        assert proc.wait(timeout=30) == 0, err.decode()
    assert rest == b""
    assert replies[1]["result"]["serverInfo"]["name"] == "memvault"
    assert "error" in replies[3]
    assert replies[4]["result"]["isError"] is True
    assert replies[5]["error"]["code"] == -32602  # an unknown tool is a protocol error (2026-07-28 spec)
    assert replies[6]["result"]["structuredContent"]["status"] == "stored"
    assert replies[7]["result"]["structuredContent"]["memories"][0]["content"] == "still serving"
    assert b"memvault" in err  # logs went to stderr


@pytest.mark.model  # the server starts the real model (and its one-time export) in the background
def test_the_server_exits_promptly_when_stdin_closes(tmp_path):
    # the real model starts loading in the background: exit must not wait for it
    with _spawn(tmp_path, MEMVAULT_EMBEDDER="minilm") as proc:
        proc.stdin.write(_rpc("initialize", INIT, 1).encode())
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == 1
        started = time.monotonic()
        proc.stdin.close()
        assert proc.wait(timeout=15) == 0
        assert time.monotonic() - started < 10


def test_a_store_made_with_another_model_fails_at_start_with_the_fix(tmp_path):
    first = subprocess.run([MEMVAULT], input=b"", env={**os.environ, "MEMVAULT_HOME": str(tmp_path),
                           "MEMVAULT_EMBEDDER": "hash"}, capture_output=True, timeout=60)
    assert first.returncode == 0 and first.stdout == b""
    import sqlite3

    conn = sqlite3.connect(tmp_path / "memvault.db")
    assert conn.execute("UPDATE meta SET value = 'someone/else' WHERE key = 'embedding_model'").rowcount == 1
    conn.commit()
    conn.close()
    proc = subprocess.run([MEMVAULT], input=b"", capture_output=True, timeout=60,
                          env={**os.environ, "MEMVAULT_HOME": str(tmp_path), "MEMVAULT_EMBEDDER": "hash"})
    assert proc.returncode == 2
    assert b"memvault reembed" in proc.stderr and proc.stdout == b""


def test_initialize_and_tools_list_never_wait_for_torch(tmp_path):
    """The model loads after start-up: answering initialize and tools/list imports no torch (nor the stemmer)."""
    script = f"""
import sys, anyio
from pathlib import Path
from mcp import Client
from server.config import Settings
from server.compose import open_service
from server.app import build_server

async def main():
    service = open_service(Settings(home=Path({str(tmp_path)!r})))  # the real MiniLM embedder
    async with Client(build_server(service, start_background=False)) as client:
        assert {{t.name for t in (await client.list_tools()).tools}} >= {{"remember", "recall"}}
    assert "torch" not in sys.modules and "sentence_transformers" not in sys.modules, "heavy import at start-up"
    # The stemmer is for comparing memories (update links): loaded on the first write, not at start.
    assert not any("snowballstemmer" in m for m in sys.modules), "stemmer imported at start-up"
    print("ok")

anyio.run(main)
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                         cwd=str(Path(__file__).resolve().parent.parent))
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]
