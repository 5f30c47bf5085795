"""`memvault serve --http` on PostgreSQL: tokens live in the database, each token's tenant is
confined by row-level security, writes record the token's user and agent, backfill runs per tenant."""

from __future__ import annotations

import json

import pytest
from http_spawn import HttpServer, cli, connect, token

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]


@pytest.fixture
def home(tmp_path):
    return tmp_path / "home"


async def test_two_tenants_over_http_on_postgres_never_see_each_other(home, pg_url, pg_server):
    env = {"MEMVAULT_DATABASE_URL": pg_url}
    alice = token(home, "pg-http-a", "--user", "alice", "--agent", "cursor", **env)
    bob = token(home, "pg-http-b", "--user", "bob", **env)
    listed = json.loads(cli(home, "token", "list", **env).stdout)
    assert {t["tenant"] for t in listed} >= {"pg-http-a", "pg-http-b"}
    assert all(alice not in json.dumps(t) for t in listed)
    assert not (home / "memvault.db").exists()  # tokens went to PostgreSQL, not a local file

    srv = HttpServer(home, **env)
    try:
        srv.wait_listening()
        async with connect(srv.url, alice) as a, connect(srv.url, bob) as b:
            stored = await a.call_tool("remember", {"content": "Deploy key rotation happens every Monday", "thread": "ops"})
            assert not stored.is_error, stored.content
            await b.call_tool("remember", {"content": "Deploy key rotation happens every Friday", "thread": "ops"})
            found_a = (await a.call_tool("recall", {"query": "deploy key rotation", "thread": "*"})).structured_content
            found_b = (await b.call_tool("recall", {"query": "deploy key rotation", "thread": "*"})).structured_content
            # (Other hits are the memory-file templates' bullets, indexed for each tenant.)
            assert found_a["memories"][0]["content"] == "Deploy key rotation happens every Monday"
            assert found_b["memories"][0]["content"] == "Deploy key rotation happens every Friday"
            assert "Friday" not in json.dumps(found_a) and "Monday" not in json.dumps(found_b)
            assert found_a["memories"][0]["origin"] == "alice/cursor via http"
            still = (await a.call_tool("recall", {"query": "deploy key rotation Monday", "thread": "*"})).structured_content
            assert still["memories"][0]["content"] == "Deploy key rotation happens every Monday"
    finally:
        assert srv.stop() == 0, srv.stderr.decode(errors="replace")[-3000:]
    import psycopg

    from server.storage.pg.bootstrap import InitPlan

    with psycopg.connect(pg_server.uri.replace("/postgres?", f"/{InitPlan().database}?")) as admin:
        rows = admin.execute(
            "SELECT tenant, user_id, agent FROM memories WHERE content LIKE 'Deploy key rotation%' ORDER BY tenant"
        ).fetchall()
    assert rows == [("pg-http-a", "alice", "cursor"), ("pg-http-b", "bob", None)]
