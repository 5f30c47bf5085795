"""Raw JSON-RPC over real stdio: malformed, hostile and odd lines never stop the server or dirty its stdout.

(tests/test_e2e.py covers the basic malformed lines; this adds wrong-typed ids and
params, multi-megabyte lines, binary garbage, invalid UTF-8, batches, stray
responses and notifications, garbage before initialize, and the exit time.)
"""

from __future__ import annotations

import json
import time

import pytest
from spawn import INIT, RawSession, call, rpc, spawn

pytestmark = pytest.mark.e2e

MB = 1024 * 1024

MALFORMED: list[bytes] = [
    b"not json at all\n",
    b'{"jsonrpc": "2.0", "id": 2, "method": "tools/li\n',  # truncated
    b"\n",
    b"   \t  \n",
    b"null\n",
    b"42\n",
    b'"a string"\n',
    b"[]\n",
    b'[{"jsonrpc": "2.0", "id": 100, "method": "tools/list"}, {"jsonrpc": "2.0", "id": 101, "method": "ping"}]\n',
    b'{"jsonrpc": "2.0", "id": {"nested": 1}, "method": "tools/list"}\n',
    b'{"jsonrpc": "2.0", "id": [1], "method": "tools/list"}\n',
    b'{"jsonrpc": "2.0", "id": true, "method": "tools/list"}\n',
    b'{"jsonrpc": "2.0", "id": 1.5, "method": "tools/list"}\n',
    b'{"jsonrpc": "2.0", "id": null, "method": "tools/list"}\n',
    b'{"jsonrpc": "2.0", "id": 1208925819614629174706176, "method": "tools/list"}\n',
    b'{"jsonrpc": "2.0", "id": 103, "method": 12}\n',
    b'{"jsonrpc": "2.0", "id": 104, "method": null}\n',
    b'{"jsonrpc": "2.0", "id": 105, "method": "tools/call", "params": "string params"}\n',
    b'{"jsonrpc": "2.0", "id": 106, "method": "tools/call", "params": [1, 2, 3]}\n',
    b'{"jsonrpc": "2.0", "id": 107, "method": "tools/call", "params": {"name": 123}}\n',
    b'{"jsonrpc": "2.0", "id": 108, "method": "tools/call", "params": {"name": "remember", "arguments": "x"}}\n',
    b'{"jsonrpc": "2.0", "id": 109, "method": "tools/call", "params": {"name": "remember", "arguments": null}}\n',
    b'{"jsonrpc": "1.0", "id": 110, "method": "tools/list"}\n',
    b'{"id": 111, "method": "tools/list"}\n',
    b'{"jsonrpc": "2.0", "id": 112}\n',
    b'{"jsonrpc": "2.0", "id": 113, "method": "no/such/method"}\n',
    b'{"jsonrpc": "2.0", "method": "notifications/no_such_thing", "params": {"x": 1}}\n',
    b'{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99999}}\n',
    b'{"jsonrpc": "2.0", "id": 777, "result": {}}\n',  # a response to nothing the server asked
    b'{"jsonrpc": "2.0", "id": 778, "error": {"code": -1, "message": "stray"}}\n',
    b'{"jsonrpc": "2.0", "id": 114, "method": "resources/read", "params": {"uri": "file:///etc/passwd"}}\n',
    b'{"jsonrpc": "2.0", "id": 115, "method": "resources/read", "params": {"uri": "../../etc/passwd"}}\n',
    b'{"jsonrpc": "2.0", "id": 116, "method": "prompts/get", "params": {"name": "../../x"}}\n',
    b'\xff\xfe\xfd invalid utf-8 \xc3\x28\n',
    b'{"jsonrpc": "2.0", "id": 117, "method": "tools/call", "params": {"name": "remember", "arguments": {"content": "bad \xff byte"}}}\n',
    bytes(range(256)).replace(b"\n", b"") + b"\n",  # binary garbage
    b"[" * 100_000 + b"]" * 100_000 + b"\n",  # nesting far past any parser's depth
    b'{"jsonrpc": "2.0", "id": 118, "method": "tools/call", "params": {"name": "remember", "arguments": {"content": "'
    + b"x" * (6 * MB) + b'"}}}\n',  # a valid 6 MB request: refused by the content limit
    b"y" * (4 * MB) + b"\n",  # a 4 MB line of garbage
    b'{"jsonrpc": "2.0", "id": 119, "method": "tools/call", "params": {"name": "recall", "arguments": {"query": "'
    + b"\\u0000" * 1000 + b'"}}}\n',
]


def _well_formed(line: bytes) -> dict:
    message = json.loads(line)
    assert isinstance(message, dict) and message.get("jsonrpc") == "2.0", line[:200]
    assert ("id" in message and ("result" in message or "error" in message)) or "method" in message, line[:200]
    return message


def test_malformed_lines_never_stop_the_server_and_stdout_stays_json_rpc(tmp_path):
    session = RawSession(tmp_path)
    try:
        session.send(b"garbage before the handshake\n" + b"\x00\x01\x02\n")
        session.send(rpc("initialize", INIT, 1) + rpc("notifications/initialized"))
        assert session.reply(1)["result"]["serverInfo"]["name"] == "memvault"
        for n, line in enumerate(MALFORMED):
            session.send(line)
            # after every bad line a valid request on the same pipe still works
            probe = 10_000 + n
            session.send(rpc("ping", {}, probe))
            assert "result" in session.reply(probe), (n, line[:100])
        session.send(call("remember", {"content": "still serving after the garbage zq7"}, 2002))
        stored = session.reply(2002)["result"]["structuredContent"]
        assert stored["status"] == "stored"
        session.send(call("recall", {"query": "zq7", "k": 1}, 2003))
        [hit] = session.reply(2003)["result"]["structuredContent"]["memories"]
        assert hit["id"] == stored["id"]
        big = session.reply(118)
        assert big["result"]["isError"]
        assert "`content` is 6,291,456 characters long; allowed: text of 1 to 32768" in big["result"]["content"][0]["text"]
        started = time.monotonic()
        code = session.close()
        assert code == 0, session.stderr[-3000:].decode(errors="replace")
        assert time.monotonic() - started < 5, "exit on stdin EOF took too long"
    finally:
        session.kill()
    replies = [_well_formed(line) for line in session.stdout]
    assert replies, "no output at all"
    # nothing but newline-delimited JSON-RPC on stdout; logs went to stderr
    assert all(line.endswith(b"\n") for line in session.stdout)
    from server.storage import health

    report = health.check(tmp_path / "memvault.db")
    assert not report.problems()


def test_exit_on_stdin_eof_is_prompt_even_with_requests_in_flight(tmp_path):
    session = RawSession(tmp_path)
    try:
        session.send(rpc("initialize", INIT, 1) + rpc("notifications/initialized"))
        session.reply(1)
        session.send(b"".join(call("remember", {"content": f"in flight {i}"}, 100 + i) for i in range(50)))
        started = time.monotonic()
        code = session.close()
        elapsed = time.monotonic() - started
    finally:
        session.kill()
    assert code == 0, session.stderr[-3000:].decode(errors="replace")
    assert elapsed < 5, f"took {elapsed:.1f} s to exit after stdin closed"
    for line in session.stdout:
        _well_formed(line)


def test_a_host_that_vanishes_mid_reply_does_not_corrupt_the_store(tmp_path):
    """The host dies (its end of stdout closed) while the server answers: the server exits, the store stays whole."""
    from server.storage import health

    proc = spawn(tmp_path, MEMVAULT_LOG_LEVEL="WARNING")
    try:
        proc.stdin.write(rpc("initialize", INIT, 1) + rpc("notifications/initialized"))
        proc.stdin.write(b"".join(call("remember", {"content": f"orphaned write {i}"}, 100 + i) for i in range(30)))
        proc.stdin.flush()
        proc.stdout.readline()
        proc.stdout.readline()
        proc.stdout.close()  # nobody reads the replies any more: the server's writes fail with EPIPE
        proc.stdin.close()
        proc.wait(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        proc.stderr.close()
    report = health.check(tmp_path / "memvault.db")
    assert not report.problems()
    assert report.live >= 1
