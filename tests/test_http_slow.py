"""Slow or greedy HTTP clients cannot hold the server: header and body deadlines, connections per client.

A spawned `serve --http` with short limits, spoken to over raw sockets (an HTTP client
library would not send half a request).
"""

from __future__ import annotations

import json
import socket
import time
from urllib.parse import urlparse

import pytest
from http_spawn import HttpServer
from spawn import INIT

LIMITS = {"MEMVAULT_HTTP_HEADER_TIMEOUT_SECONDS": "1", "MEMVAULT_HTTP_BODY_TIMEOUT_SECONDS": "1",
          "MEMVAULT_HTTP_CONNECTIONS_PER_CLIENT": "4"}


def _request(host: str, port: int, body: bytes) -> bytes:
    return (f"POST /mcp HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body


def _answer(sock: socket.socket, timeout: float = 10) -> bytes:
    """Everything the server sends until it closes the connection (or `timeout` passes)."""
    sock.settimeout(timeout)
    data = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            break
        if not chunk:
            break
        data += chunk
    return data


@pytest.fixture
def server(tmp_path):
    srv = HttpServer(tmp_path, "--auth", "none", **LIMITS)
    try:
        url = urlparse(srv.wait_listening())
        yield srv, url.hostname, url.port
    finally:
        srv.stop()


@pytest.mark.e2e
def test_unfinished_headers_and_a_trickled_body_are_cut_off_with_408(server):
    srv, host, port = server
    started = time.monotonic()
    with socket.create_connection((host, port)) as headers_only, socket.create_connection((host, port)) as trickle:
        headers_only.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and nothing more
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT}).encode()
        trickle.sendall(_request(host, port, body)[:-len(body)] + body[:5])  # the rest never comes
        first, second = _answer(headers_only), _answer(trickle)
    assert first.startswith(b"HTTP/1.1 408 ") and b"MEMVAULT_HTTP_HEADER_TIMEOUT_SECONDS" in first
    assert second.startswith(b"HTTP/1.1 408 ") and b"MEMVAULT_HTTP_BODY_TIMEOUT_SECONDS" in second
    assert time.monotonic() - started < 8
    assert "Traceback" not in srv.stderr.decode(errors="replace")


@pytest.mark.e2e
def test_one_client_holds_at_most_its_connections_and_others_are_served(server):
    srv, host, port = server
    held = [socket.create_connection((host, port)) for _ in range(4)]
    try:
        for sock in held:
            sock.sendall(b"POST /mcp HTTP/1.1\r\n")  # each holds its place until its deadline
        time.sleep(0.3)
        with socket.create_connection((host, port)) as fifth:
            refused = _answer(fifth, timeout=5)
        assert refused.startswith(b"HTTP/1.1 503 ") and b"MEMVAULT_HTTP_CONNECTIONS_PER_CLIENT" in refused
    finally:
        for sock in held:
            sock.close()
    time.sleep(0.3)  # the places are given back when the connections close
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT}).encode()
    with socket.create_connection((host, port)) as again:
        again.sendall(_request(host, port, body))
        assert _answer(again, timeout=3).startswith(b"HTTP/1.1 200 ")


def test_the_slow_client_settings_are_validated():
    from server.config import Settings
    from server.errors import SetupError

    s = Settings.from_env(LIMITS)
    assert (s.http_header_timeout_seconds, s.http_body_timeout_seconds, s.http_connections_per_client) == (1.0, 1.0, 4)
    for key, value in (("MEMVAULT_HTTP_HEADER_TIMEOUT_SECONDS", "0"), ("MEMVAULT_HTTP_BODY_TIMEOUT_SECONDS", "nan"),
                       ("MEMVAULT_HTTP_CONNECTIONS_PER_CLIENT", "0")):
        with pytest.raises(SetupError, match=key):
            Settings.from_env({key: value})
