"""`memvault serve --http` end to end: a spawned server, the SDK's streamable HTTP client, real tokens.

One server (and one data directory) serves the module's tests; each test uses
tenants and threads of its own, so the order they run in does not matter.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import httpx2
import pytest
from mcp.shared.exceptions import MCPError
from http_spawn import HttpServer, cli, connect, token

from server.storage.sqlite.db import Database
from server.http.tokens import TokenStore

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

INIT = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return tmp_path_factory.mktemp("http") / "home"


@pytest.fixture(scope="module")
def server(home):
    token(home, "warmup")  # creates the store before the server starts, as an operator would
    srv = HttpServer(home, MEMVAULT_HTTP_MAX_BODY_BYTES="65536", MEMVAULT_HTTP_ALLOWED_ORIGINS="https://app.example.com")
    srv.wait_listening()
    yield srv
    assert srv.stop() == 0, srv.stderr.decode(errors="replace")[-3000:]
    assert srv.stdout == b""  # HTTP mode logs to stderr only, like stdio mode


def post(url: str, bearer: str | None = None, body: bytes | None = None, **headers: str) -> httpx2.Response:
    sent = {**ACCEPT, **headers}
    if bearer:
        sent["Authorization"] = f"Bearer {bearer}"
    return httpx2.post(url, content=body if body is not None else json.dumps(INIT).encode(), headers=sent, timeout=30)


def assert_401(response: httpx2.Response, presented: bool = True) -> None:
    """A 401 naming the problem; no OAuth metadata for a client to chase (see server/http/guards.py)."""
    assert response.status_code == 401, response.text
    challenge = response.headers["www-authenticate"]
    assert challenge.startswith('Bearer realm="memvault"') and "resource_metadata" not in challenge
    if presented:
        assert 'error="invalid_token"' in challenge
        assert response.json()["error_description"].startswith("invalid or revoked token")
    else:
        assert "error=" not in challenge  # RFC 6750 3.1: no credentials sent, no error code


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_tools_work_over_http_and_writes_record_the_tokens_user_and_agent(server, home, mode):
    """2025 clients (initialize + session) and 2026 clients (discover) both work; origin is the token's identity."""
    tok = token(home, f"tools-{mode}", "--user", "alice", "--agent", "claude-code")
    async with connect(server.url, tok, mode) as client:
        assert {t.name for t in (await client.list_tools()).tools} >= {"remember", "recall", "thread_prompt"}
        stored = await client.call_tool("remember", {"content": "Billing runs on PostgreSQL 16", "thread": "infra"})
        assert not stored.is_error and stored.structured_content["status"] == "stored"
        found = await client.call_tool("recall", {"query": "which database does billing use", "thread": "infra"})
        top = found.structured_content["memories"][0]
        assert top["content"] == "Billing runs on PostgreSQL 16" and top["origin"] == "alice/claude-code via http"
        bad = await client.call_tool("recall", {"query": "", "thread": "infra"})
        assert bad.is_error and "`query` was \"\"" in bad.content[0].text  # bad input: an error result, the server carries on
        again = await client.call_tool("recall", {"query": "billing", "thread": "infra"})
        assert not again.is_error and again.structured_content["memories"]


async def test_missing_wrong_expired_and_revoked_tokens_get_401_with_www_authenticate(server, home):
    assert_401(post(server.url), presented=False)
    assert_401(post(server.url, "mvt_" + "x" * 43))
    assert_401(post(server.url, "not-even-a-memvault-token"))
    assert_401(post(server.url, body=b"{}", Authorization="Basic dXNlcjpwYXNz"), presented=False)

    # A token made an hour ago that lived 30 minutes (written to the server's database directly).
    db = Database(home / "memvault.db")
    try:
        expired, info = TokenStore(db, clock=lambda: datetime.now(timezone.utc) - timedelta(hours=1)).create(
            "expiry", expires="30m")
    finally:
        db.close()
    assert info.expires_at is not None
    assert_401(post(server.url, expired))

    revoked = token(home, "revoke-me")
    listed = json.loads(cli(home, "token", "list").stdout)
    revoked_id = next(t["id"] for t in listed if t["tenant"] == "revoke-me")
    statuses: list[int] = []
    async with connect(server.url, revoked, statuses=statuses) as client:
        assert not (await client.call_tool("recall", {"query": "anything"})).is_error
        assert cli(home, "token", "revoke", str(revoked_id)).returncode == 0
        # The open session dies with its token: the next message is refused, not served.
        with pytest.raises(MCPError, match="error response"):
            await client.call_tool("recall", {"query": "anything"})
    assert 401 in statuses
    assert_401(post(server.url, revoked))
    assert post(server.url, token(home, "still-fine")).status_code == 200  # the server kept serving


async def test_bad_host_and_bad_origin_are_rejected(server, home):
    tok = token(home, "hosts")
    assert post(server.url, tok, Host="evil.example:80").status_code == 421  # DNS rebinding: a foreign Host
    assert post(server.url, tok, Origin="http://evil.example").status_code == 403
    assert post(server.url, tok, Origin="https://app.example.com").status_code == 200  # MEMVAULT_HTTP_ALLOWED_ORIGINS
    assert post(server.url, tok, Origin=server.origin).status_code == 200  # the server's own loopback origin
    assert post(server.url, tok).status_code == 200  # non-browser clients send no Origin


async def test_an_oversized_body_gets_a_clear_413_and_the_server_keeps_serving(server, home):
    tok = token(home, "sizes")
    big = json.dumps({**INIT, "padding": "x" * 70_000}).encode()
    refused = post(server.url, tok, big)
    assert refused.status_code == 413
    assert "MEMVAULT_HTTP_MAX_BODY_BYTES" in refused.json()["error_description"]

    def chunks():  # no Content-Length: the limit still holds for a streamed body
        for _ in range(20):
            yield b"x" * 8192

    streamed = httpx2.post(server.url, content=chunks(), headers={**ACCEPT, "Authorization": f"Bearer {tok}"})
    assert streamed.status_code == 413
    statuses: list[int] = []
    # The client sees the 413 as a failed call (an MCPError, wrapped by the client's task groups).
    with pytest.raises(Exception, match="unhandled errors|error response"):
        async with connect(server.url, tok, statuses=statuses) as client:
            await client.call_tool("remember", {"content": "y" * 70_000})
    assert 413 in statuses  # (the session is closed with a DELETE afterwards)
    async with connect(server.url, tok) as client:
        found = (await client.call_tool("recall", {"query": "y" * 50, "k": 50})).structured_content["memories"]
        assert not any("yyyy" in m["content"] for m in found)  # nothing of the refused call was stored
        assert not (await client.call_tool("remember", {"content": "small enough"})).is_error
        assert len((await client.call_tool("recall", {"query": "small enough"})).structured_content["memories"]) >= 1


async def test_a_session_cannot_be_used_with_another_tenants_token(server, home):
    owner, intruder = token(home, "owner"), token(home, "intruder")
    opened = post(server.url, owner)
    session = opened.headers["mcp-session-id"]
    listing = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).encode()
    hijack = post(server.url, intruder, listing, **{"mcp-session-id": session, "mcp-protocol-version": "2025-11-25"})
    assert hijack.status_code == 404


async def read_all(client, day: str | None) -> str:
    uris = ["memory://threads", "memory://threads/roadmap", "memory://global-prompts", "memory://global-prompts/style",
            "memory://daily", "memory://memory", "memory://soul"]
    if day:
        uris.append(f"memory://daily/{day}")
    texts = []
    for uri in uris:
        try:
            texts.append((await client.read_resource(uri)).contents[0].text)
        except Exception as exc:  # noqa: BLE001 - a not-found is an answer too; it must not leak either
            texts.append(str(exc))
    return "\n".join(texts)


async def test_two_tenants_with_near_identical_content_never_see_each_other(server, home):
    """Through every tool, resource and prompt: tenant A's markers never reach tenant B, and ids do not cross."""
    a_tok, b_tok = token(home, "tenant-a", "--user", "ann"), token(home, "tenant-b", "--user", "ben")
    a_ids = []
    async with connect(server.url, a_tok) as a:
        for i in range(8):
            r = await a.call_tool("remember", {"content": f"ALPHA-SECRET roadmap item {i}: ship billing v{i}", "thread": "roadmap"})
            a_ids.append(r.structured_content["id"])
        await a.call_tool("remember", {"content": "ALPHA-SECRET global note on billing", "thread": "global"})
        await a.call_tool("global_prompts", {"action": "set", "name": "style", "content": "ALPHA-SECRET prompt"})
        await a.call_tool("thread_prompt", {"thread": "roadmap", "set_system_prompt": "ALPHA-SECRET system prompt",
                                            "add_messages": [{"role": "user", "content": "ALPHA-SECRET message"}]})
        exported = await a.call_tool("curate_memory", {"action": "export", "dry_run": False})
        assert not exported.is_error, exported.content[0].text
        a_archive = exported.structured_content["details"][0]["archive"]
        a_text = await read_all(a, None)
        assert "ALPHA-SECRET" in a_text  # the markers are there to be found by their own tenant

    async with connect(server.url, b_tok) as b:
        for i in range(8):
            await b.call_tool("remember", {"content": f"BETA roadmap item {i}: ship billing v{i}", "thread": "roadmap"})
        seen = []
        recall = await b.call_tool("recall", {"query": "ALPHA-SECRET roadmap item ship billing", "thread": "*", "k": 50})
        seen.append(json.dumps(recall.structured_content))
        assert len(recall.structured_content["memories"]) >= 8
        tp = await b.call_tool("thread_prompt", {"thread": "roadmap", "query": "ALPHA-SECRET billing roadmap"})
        seen.append(tp.structured_content["text"])
        prompt = await b.get_prompt("thread_prompt", {"thread": "roadmap", "query": "ALPHA-SECRET billing"})
        seen.append(prompt.messages[0].content.text)
        stats = await b.call_tool("curate_memory", {"action": "stats"})
        seen.append(json.dumps(stats.structured_content))
        for tool, args in [
            ("forget", {"id": a_ids[0]}),
            ("curate_memory", {"action": "pin", "ids": a_ids[:2], "dry_run": False}),
            ("curate_memory", {"action": "restore", "ids": a_ids[:1], "dry_run": False}),
            ("curate_memory", {"action": "supersede", "ids": a_ids[:1], "replacement_id": a_ids[1], "dry_run": False}),
            ("curate_memory", {"action": "import", "archive": a_archive, "dry_run": True}),
        ]:
            refused = await b.call_tool(tool, args)
            assert refused.is_error, (tool, refused)  # another tenant's ids and archives do not exist here
            seen.append(refused.content[0].text)
        # After the import attempt: an export in the same second as A's has the same file name in B's own
        # folder, and importing that is not a leak.
        exported = await b.call_tool("curate_memory", {"action": "export", "dry_run": False})
        assert not exported.is_error
        seen.append(exported.content[0].text)
        seen.append(await read_all(b, datetime.now().date().isoformat()))
        for action in ("retention", "forget-list", "dedupe"):
            seen.append(json.dumps((await b.call_tool("curate_memory", {"action": action})).structured_content))
    leaked = "\n".join(seen)
    assert "ALPHA-SECRET" not in leaked and "ann/" not in leaked

    async with connect(server.url, a_tok) as a:  # and B's attempts changed nothing of A's
        mine = await a.call_tool("recall", {"query": "ALPHA-SECRET roadmap item", "thread": "roadmap", "k": 50})
        got = {m["id"]: m for m in mine.structured_content["memories"]}
        assert set(a_ids) <= set(got) and not any(got[i]["label"] for i in a_ids)
        assert "BETA" not in json.dumps(mine.structured_content)


async def test_token_cli_create_list_revoke_and_only_hashes_at_rest(server, home):
    tok = token(home, "cli", "--user", "cara", "--agent", "ci", "--label", "build bot", "--expires", "30d")
    assert tok.startswith("mvt_") and len(tok) > 40
    listed = cli(home, "token", "list")
    assert listed.returncode == 0 and tok not in listed.stdout and tok[4:20] not in listed.stdout
    mine = next(t for t in json.loads(listed.stdout) if t["tenant"] == "cli")
    assert (mine["user"], mine["agent"], mine["label"], mine["state"]) == ("cara", "ci", "build bot", "active")
    assert mine["expires_at"] is not None
    stored = [p for p in home.glob("memvault.db*") if p.is_file()]  # the database, its WAL and shared memory
    stored += [p for p in home.glob("memvault.db-vectors/*") if p.is_file()]  # and the vector sidecar's files
    assert home / "memvault.db" in stored
    for path in stored:
        assert tok.encode() not in path.read_bytes(), path
    revoked = cli(home, "token", "revoke", str(mine["id"]))
    assert revoked.returncode == 0 and json.loads(revoked.stdout)["state"] == "revoked"
    assert_401(post(server.url, tok))
    missing = cli(home, "token", "revoke", "999999")
    assert missing.returncode == 3 and "token list" in missing.stderr  # 3: no such token (docs/commands.md: Exit codes)
    bad = cli(home, "token", "create", "--tenant", "../etc")
    assert bad.returncode == 2 and "tenant" in bad.stderr and bad.stdout == ""


def test_a_non_loopback_bind_without_auth_is_refused_with_what_to_do(tmp_path):
    srv = HttpServer(tmp_path / "home", "--host", "0.0.0.0", "--auth", "none")
    assert srv.wait_exit() == 2
    err = srv.stderr.decode()
    assert "without authentication" in err and "memvault token create" in err and "127.0.0.1" in err
    srv = HttpServer(tmp_path / "home", "--host", "0.0.0.0")  # tokens, but no Host names to accept
    assert srv.wait_exit() == 2
    assert "MEMVAULT_HTTP_ALLOWED_HOSTS" in srv.stderr.decode()


async def test_loopback_without_auth_serves_the_configured_namespace(tmp_path):
    """--auth none (loopback only): one local user, exactly like stdio: no token needed, the default namespace."""
    srv = HttpServer(tmp_path / "home", "--auth", "none")
    try:
        url = srv.wait_listening()
        async with connect(url, None) as client:
            stored = await client.call_tool("remember", {"content": "local http note", "thread": "t"})
            assert stored.structured_content["status"] == "stored"
        assert post(url, Host="evil.example").status_code == 421  # still protected against DNS rebinding
    finally:
        assert srv.stop() == 0


def test_a_taken_port_is_reported_with_what_to_do(tmp_path):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        srv = HttpServer(tmp_path / "home", "--port", str(taken.getsockname()[1]))
        assert srv.wait_exit() == 2
    assert "could not listen" in srv.stderr.decode() and "--port" in srv.stderr.decode()
