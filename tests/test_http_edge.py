"""The HTTP edge in-process: exact Host/Origin parsing, the 401 a plain bearer-token server sends,
idle session expiry, the per-token session cap, and `token create --expires` errors."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime, timezone

import anyio
import pytest
from spawn import ROOT
from test_http_app import http_app

from server.errors import InvalidInput
from server.http.guards import Allowed, parse_host, parse_origin
from server.http.tokens import TokenStore, parse_expiry

INIT = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.mark.parametrize(("raw", "parsed"), [
    ("localhost:8765", ("localhost", 8765)),
    ("LOCALHOST:8765", ("localhost", 8765)),
    ("127.0.0.1", ("127.0.0.1", None)),
    ("[::1]:80", ("[::1]", 80)),
    ("Mem.Internal", ("mem.internal", None)),
    ("localhost:8765@evil.com", None),
    ("user@localhost:8765", None),
    ("localhost:8765/path", None),
    ("localhost:8765:1", None),
    ("localhost:99999", None),
    ("localhost: 8765", None),
    (" localhost:8765", None),
    ("", None),
    ("..:80", None),
])
def test_hosts_are_parsed_by_their_grammar(raw, parsed):
    found = parse_host(raw)
    assert (None if found is None else (found.name, found.port)) == parsed


@pytest.mark.parametrize(("raw", "parsed"), [
    ("http://localhost:8765", ("http", "localhost", 8765)),
    ("HTTP://LOCALHOST:8765", ("http", "localhost", 8765)),
    ("https://app.example.com", ("https", "app.example.com", None)),
    ("http://localhost:1@evil.com", None),
    ("http://user:pw@localhost:8765", None),
    ("http://localhost:8765/", None),
    ("null", None),
    ("localhost:8765", None),
])
def test_origins_are_parsed_by_their_grammar(raw, parsed):
    found = parse_origin(raw)
    assert (None if found is None else (found.scheme, found.name, found.port)) == parsed


def test_allowed_patterns_match_ports_exactly_or_any():
    hosts = Allowed(["localhost:*", "mem.internal:8765"], origins=False)
    assert hosts.allows(parse_host("LocalHost:1")) and hosts.allows(parse_host("localhost"))
    assert hosts.allows(parse_host("mem.internal:8765")) and not hosts.allows(parse_host("mem.internal:8766"))
    assert not hosts.allows(parse_host("localhost.evil.com:80"))
    with pytest.raises(ValueError):
        Allowed(["http://x@y"], origins=True)


@pytest.mark.anyio
async def test_host_and_origin_headers_are_matched_exactly(service, clock):
    token, _ = TokenStore(service.db, clock).create("team-a")
    auth = {**HEADERS, "Authorization": f"Bearer {token}"}
    body = json.dumps(INIT).encode()
    async with http_app(service) as http:
        assert (await http.post("/mcp", content=body, headers={**auth, "Host": "localhost:8765@evil.com"})).status_code == 421
        assert (await http.post("/mcp", content=body, headers={**auth, "Host": "evil.com#localhost:8765"})).status_code == 421
        assert (await http.post("/mcp", content=body, headers={**auth, "Host": ""})).status_code == 421  # empty: refused
        assert (await http.post("/mcp", content=body, headers={**auth, "Host": "LOCALHOST:8765"})).status_code == 200
        assert (await http.post("/mcp", content=body, headers={**auth, "Origin": "http://localhost:1@evil.com"})).status_code == 403
        assert (await http.post("/mcp", content=body, headers={**auth, "Origin": "http://localhost.evil.com:80"})).status_code == 403
        assert (await http.post("/mcp", content=body, headers={**auth, "Origin": "HTTP://LOCALHOST:8765"})).status_code == 200
        refused = await http.post("/mcp", content=body, headers={**auth, "Host": "localhost:8765@evil.com"})
        assert "MEMVAULT_HTTP_ALLOWED_HOSTS" in refused.json()["error_description"]


@pytest.mark.anyio
async def test_a_401_says_what_is_wrong_and_offers_no_oauth_to_chase(service, clock):
    async with http_app(service) as http:
        wrong = await http.post("/mcp", content=json.dumps(INIT).encode(),
                                headers={**HEADERS, "Authorization": "Bearer mvt_" + "x" * 43})
        assert wrong.status_code == 401
        assert wrong.headers["www-authenticate"] == (
            'Bearer realm="memvault", error="invalid_token", error_description="invalid or revoked token"')
        assert wrong.json()["error"] == "invalid_token"
        assert wrong.json()["error_description"].startswith("invalid or revoked token")
        assert "Authentication required" not in wrong.text

        missing = await http.post("/mcp", content=json.dumps(INIT).encode(), headers=HEADERS)
        assert missing.status_code == 401
        # RFC 6750 3.1: no error code when no credentials were sent; no resource_metadata (no OAuth here)
        assert missing.headers["www-authenticate"] == 'Bearer realm="memvault"'
        assert "memvault token create" in missing.json()["error_description"]

        # Nothing for a client's OAuth discovery to find: it cannot start a flow it could not complete.
        for path in ("/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp",
                     "/.well-known/oauth-authorization-server"):
            assert (await http.get(path)).status_code == 404, path


async def _open_session(http, token: str) -> tuple[int, str | None]:
    r = await http.post("/mcp", content=json.dumps(INIT).encode(), headers={**HEADERS, "Authorization": f"Bearer {token}"})
    return r.status_code, r.headers.get("mcp-session-id")


@pytest.mark.anyio
async def test_each_token_holds_at_most_the_configured_number_of_sessions(service, clock):
    tokens = TokenStore(service.db, clock)
    a, _ = tokens.create("team-a")
    b, _ = tokens.create("team-b")
    async with http_app(service, http_sessions_per_token=2) as http:
        first = await _open_session(http, a)
        second = await _open_session(http, a)
        assert first[0] == second[0] == 200 and first[1] != second[1]
        third = await http.post("/mcp", content=json.dumps(INIT).encode(), headers={**HEADERS, "Authorization": f"Bearer {a}"})
        assert third.status_code == 429
        assert "MEMVAULT_HTTP_SESSIONS_PER_TOKEN" in third.json()["error_description"]
        assert (await _open_session(http, b))[0] == 200  # another token is not held back
        closed = await http.delete("/mcp", headers={"Authorization": f"Bearer {a}", "mcp-session-id": first[1]})
        assert closed.status_code < 300
        assert (await _open_session(http, a))[0] == 200  # room again once one is closed


@pytest.mark.anyio
async def test_idle_sessions_expire_and_free_their_place(service, clock):
    token, _ = TokenStore(service.db, clock).create("team-a")
    auth = {**HEADERS, "Authorization": f"Bearer {token}"}
    ping = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping"}).encode()
    async with http_app(service, http_session_idle_seconds=0.5, http_sessions_per_token=1) as http:
        status, sid = await _open_session(http, token)
        assert status == 200 and sid
        live = await http.post("/mcp", content=ping, headers={**auth, "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25"})
        assert live.status_code == 200
        assert (await _open_session(http, token))[0] == 429  # the cap of 1 is taken
        await anyio.sleep(1.2)
        gone = await http.post("/mcp", content=ping, headers={**auth, "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25"})
        assert gone.status_code == 404  # closed by the server after 0.5 s idle
        assert (await _open_session(http, token))[0] == 200


def test_expires_too_far_or_malformed_is_a_clear_error():
    now = datetime(2026, 5, 1, tzinfo=timezone.utc)
    with pytest.raises(InvalidInput, match="too far in the future"):
        parse_expiry("999999y", now)
    with pytest.raises(InvalidInput, match="30d"):
        parse_expiry("30days", now)
    assert parse_expiry("30d", now) == int(datetime(2026, 5, 31, tzinfo=timezone.utc).timestamp() * 1000)


@pytest.mark.e2e
def test_token_create_with_an_absurd_expiry_exits_with_a_message_not_a_traceback(tmp_path):
    env = {"MEMVAULT_HOME": str(tmp_path / "home"), "MEMVAULT_EMBEDDER": "hash", "PATH": "/usr/bin:/bin"}
    run = subprocess.run([sys.executable, "-m", "server", "token", "create", "--tenant", "t", "--expires", "999999y"],
                         capture_output=True, text=True, cwd=ROOT, env=env, timeout=60)
    assert run.returncode == 2 and run.stdout == ""
    assert "too far in the future" in run.stderr and "Traceback" not in run.stderr
    helped = subprocess.run([sys.executable, "-m", "server", "token", "create", "--help"],
                            capture_output=True, text=True, cwd=ROOT, env=env, timeout=60)
    assert "30d" in helped.stdout and "12h" in helped.stdout and "ISO-8601" in helped.stdout


@pytest.mark.anyio
async def test_concurrent_openers_cannot_overshoot_the_cap(service, clock):
    """A place is held while a new session's request is served, so ten at once get exactly three."""
    token, _ = TokenStore(service.db, clock).create("team-a")
    async with http_app(service, http_sessions_per_token=3) as http:
        results = []

        async def opener() -> None:
            results.append(await _open_session(http, token))

        async with anyio.create_task_group() as tg:
            for _ in range(10):
                tg.start_soon(opener)
    assert sorted(status for status, _ in results) == [200] * 3 + [429] * 7


def test_session_settings_are_validated():
    from server.config import Settings
    from server.errors import SetupError

    s = Settings.from_env({"MEMVAULT_HTTP_SESSION_IDLE_SECONDS": "90", "MEMVAULT_HTTP_SESSIONS_PER_TOKEN": "4"})
    assert (s.http_session_idle_seconds, s.http_sessions_per_token) == (90.0, 4)
    for key, value in (("MEMVAULT_HTTP_SESSION_IDLE_SECONDS", "0"), ("MEMVAULT_HTTP_SESSION_IDLE_SECONDS", "inf"),
                       ("MEMVAULT_HTTP_SESSIONS_PER_TOKEN", "0"), ("MEMVAULT_HTTP_SESSIONS_PER_TOKEN", "many")):
        with pytest.raises(SetupError, match=key):
            Settings.from_env({key: value})
