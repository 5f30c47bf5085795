"""Tenant isolation on PostgreSQL: two tenants with near-identical content, zero leaks through any tool,
resource, prompt, export or curator action; and row-level security checked at the SQL level."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from pgharness import tenant_settings
from server.app import build_server
from server.embedding.embedders import HashEmbedder
from server.service import MemoryService

psycopg = pytest.importorskip("psycopg", reason="the test extra installs it")

pytestmark = pytest.mark.anyio

# Same thread names, tags, prompt names, kinds and wording; only the marker differs.
FACTS = [
    ("The deploy key for project Orion is {m}-KEY", "orion", ["deploy"]),
    ("Orion's database password lives in vault path secret/{m}", "orion", ["secrets"]),
    ("We decided to ship Orion on Fridays ({m} team)", "orion", ["process"]),
    ("Global rule: the {m} team reviews every migration", None, ["process"]),
    ("Orion uses Postgres 18 with pgvector for the {m} memories", "orion", ["stack"]),
]
CALLS = [
    ("recall", {"query": "deploy key Orion", "thread": "*", "k": 50}),
    ("recall", {"query": "Orion password vault", "k": 50}),
    ("recall", {"query": "team reviews migration", "thread": "orion", "k": 50, "tags": ["process"]}),
    ("thread_prompt", {"thread": "orion", "query": "deploy key and password"}),
    ("global_prompts", {"action": "list"}),
    ("curate_memory", {"action": "stats"}),
    ("curate_memory", {"action": "dedupe", "threshold": 0.5}),
    ("curate_memory", {"action": "retention"}),
    ("curate_memory", {"action": "promote"}),
    ("curate_memory", {"action": "forget-list"}),
    ("curate_memory", {"action": "compress"}),
]


def _open(settings, clock):
    return MemoryService.open(settings, embedder=HashEmbedder(), clock=clock)


async def _fill(service, marker):
    async with Client(build_server(service, start_background=False)) as client:
        for text, thread, tags in FACTS:
            args = {"content": text.format(m=marker), "tags": tags, "kind": "decision"}
            if thread:
                args["thread"] = thread
            result = await client.call_tool("remember", args)
            assert not result.is_error, result
        await client.call_tool("thread_prompt", {"thread": "orion", "set_system_prompt": f"You are on {marker}.",
                                                 "add_messages": [{"role": "user", "content": f"hello from {marker}"}]})
        await client.call_tool("global_prompts", {"action": "set", "name": "style", "content": f"{marker} style."})
        await client.call_tool("remember", {"content": f"forget me {marker}", "thread": "orion"})
        await client.call_tool("forget", {"id": 6})


async def _everything_seen(service) -> str:
    """Every text tenant A's client can get back: tools, resources, prompts, an export archive."""
    seen: list[str] = []
    async with Client(build_server(service, start_background=False)) as client:
        for tool, args in CALLS:
            result = await client.call_tool(tool, args)
            assert not result.is_error, (tool, args, result)
            seen.append(json.dumps(result.structured_content) + "".join(c.text for c in result.content))
        resources = [str(r.uri) for r in (await client.list_resources()).resources]
        resources += ["memory://threads/orion", "memory://global-prompts/style"]
        for uri in resources:
            seen.extend(c.text for c in (await client.read_resource(uri)).contents)
        daily = (await client.read_resource("memory://daily")).contents[0].text
        for line in daily.splitlines():
            if "memory://daily/" in line:
                uri = line[line.index("memory://daily/"):].split()[0].strip("()<>`")
                seen.extend(c.text for c in (await client.read_resource(uri)).contents)
        prompt = await client.get_prompt("thread_prompt", {"thread": "orion", "query": "deploy key"})
        seen.extend(m.content.text for m in prompt.messages)
        exported = await client.call_tool("curate_memory", {"action": "export", "dry_run": False})
        [detail] = exported.structured_content["details"]
        seen.append((service.settings.archives_dir / detail["archive"]).read_text())
    return "\n".join(seen)


async def test_two_tenants_with_near_identical_content_never_see_each_other(settings, clock, tmp_path):
    a = _open(settings, clock)
    b = _open(tenant_settings(settings.with_(home=tmp_path / "b-home"), settings.database_url), clock)
    try:
        await _fill(a, "ALPHA")
        await _fill(b, "BRAVO")
        a.indexer.run_once(limit=100)
        b.indexer.run_once(limit=100)
        # Both tenants number from 1: the same ids, different memories.
        assert a.store.get([1])[1].content.endswith("ALPHA-KEY")
        assert b.store.get([1])[1].content.endswith("BRAVO-KEY")

        seen_by_a = await _everything_seen(a)
        seen_by_b = await _everything_seen(b)
        assert "ALPHA" in seen_by_a and "BRAVO" in seen_by_b  # the checks can fail: each sees its own
        assert "BRAVO" not in seen_by_a
        assert "ALPHA" not in seen_by_b

        # Curator actions that write stay in their tenant: A purges, pins and supersedes its id 1..3.
        async with Client(build_server(a, start_background=False)) as client:
            for args in (
                {"action": "purge", "ids": [6], "dry_run": False},
                {"action": "pin", "ids": [1], "dry_run": False},
                {"action": "supersede", "ids": [2], "replacement_id": 3, "dry_run": False},
                {"action": "forget-matching", "source": "remember", "dry_run": False},
            ):
                result = await client.call_tool("curate_memory", args)
                assert not result.is_error, (args, result)
            forgotten = await client.call_tool("forget", {"id": 4})
            assert forgotten.structured_content["status"] == "already_forgotten"
        assert a.store.count()["live"] == 0
        counts = b.store.count()
        assert (counts["live"], counts["deleted"]) == (5, 1)
        rows = b.store.get([1, 2, 6])
        assert not rows[1].pinned and rows[2].superseded_by is None and rows[6].deleted_at is not None
        with b.db.read() as conn:
            assert b.store.promoted(conn) == set()
        assert "BRAVO" not in (await _everything_seen(a))  # still nothing after A's writes
    finally:
        a.close()
        b.close()


@pytest.fixture
def app_conn(settings):
    """A raw connection as the application role, autocommit off (statements share a transaction)."""
    with psycopg.connect(settings.database_url) as conn:
        yield conn


def test_rls_fails_closed_without_a_tenant_and_refuses_other_tenants_rows(settings, clock, app_conn):
    service = _open(settings, clock)
    try:
        service.remember("a row that exists")
    finally:
        service.close()
    tenant = settings.namespace
    with app_conn.cursor() as cur:
        role = cur.execute("SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user").fetchone()
        assert role == (False, False)
        # No tenant set: nothing in any table, although rows exist.
        for table in ("memories", "threads", "meta", "global_prompts", "tenant_counters", "daily_log_queue"):
            assert cur.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0, table
        # An insert without a tenant setting is refused by the policy.
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            cur.execute(
                "INSERT INTO memories(id, tenant, content, kind, content_hash, created_at, updated_at) "
                "VALUES (1000, %s, 'x', 'note', 'h', 1, 1)", (tenant,))
        app_conn.rollback()
        # Tenant set for this transaction: its rows only; another tenant's rows cannot be written.
        cur.execute("SELECT set_config('app.tenant', %s, true)", (tenant,))
        assert cur.execute("SELECT count(*) FROM memories").fetchone()[0] == 1
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            cur.execute(
                "INSERT INTO memories(id, tenant, content, kind, content_hash, created_at, updated_at) "
                "VALUES (1000, 'someone-else', 'x', 'note', 'h', 1, 1)")
        app_conn.rollback()
        cur.execute("SELECT set_config('app.tenant', %s, true)", (tenant,))
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            cur.execute("UPDATE memories SET tenant = 'someone-else'")
        app_conn.rollback()
        # The setting was transaction-local: after the transaction, nothing again.
        cur.execute("SELECT set_config('app.tenant', %s, true)", (tenant,))
        app_conn.commit()
        assert cur.execute("SELECT count(*) FROM memories").fetchone()[0] == 0
        # The empty tenant can never hold rows (CHECK), so '' matches nothing either.
        app_conn.rollback()
        cur.execute("SELECT set_config('app.tenant', '', true)")
        with pytest.raises(psycopg.errors.CheckViolation):
            cur.execute(
                "INSERT INTO memories(id, tenant, content, kind, content_hash, created_at, updated_at) "
                "VALUES (1000, '', 'x', 'note', 'h', 1, 1)")
        app_conn.rollback()
        # The application role cannot switch the policy off or change the schema.
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            cur.execute("ALTER TABLE memories DISABLE ROW LEVEL SECURITY")
        app_conn.rollback()


def test_a_foreign_key_cannot_point_at_another_tenants_row(settings, clock, tmp_path, app_conn):
    a = _open(settings, clock)
    other = tenant_settings(settings.with_(home=tmp_path / "b"), settings.database_url)
    b = _open(other, clock)
    try:
        a.remember("tenant a memory")
        b_id = b.remember("tenant b memory").id
        b.remember("tenant b second memory")
    finally:
        a.close()
        b.close()
    with app_conn.cursor() as cur:
        cur.execute("SELECT set_config('app.tenant', %s, true)", (settings.namespace,))
        # A's memory 1 may only be superseded by A's own rows: B's id 2 does not exist for A.
        with pytest.raises(psycopg.errors.ForeignKeyViolation):
            cur.execute("UPDATE memories SET superseded_by = 2 WHERE id = 1")
        app_conn.rollback()
        cur.execute("SELECT set_config('app.tenant', %s, true)", (settings.namespace,))
        assert cur.execute("SELECT count(*) FROM memories WHERE id = %s", (b_id,)).fetchone()[0] == 1  # A's own id 1
        assert cur.execute("SELECT content FROM memories").fetchall() == [("tenant a memory",)]


def test_serving_as_a_role_that_bypasses_rls_is_refused(settings, clock, pg_server):
    from server.errors import SetupError

    superuser = settings.with_(database_url=pg_server.uri.replace("/postgres?", "/memvault?"))
    with pytest.raises(SetupError, match="bypasses row-level security"):
        _open(superuser, clock)


def test_a_database_without_the_schema_says_how_to_initialise_it(settings, clock, pg_server):
    from server.errors import SetupError

    with psycopg.connect(pg_server.uri, autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS bare")
        conn.execute("CREATE DATABASE bare")
        conn.execute("GRANT CONNECT ON DATABASE bare TO memvault_app")
    bare = settings.with_(database_url=settings.database_url.replace("/memvault?", "/bare?"))
    with pytest.raises(SetupError, match="memvault db init"):
        _open(bare, clock)


def test_tenant_views_share_one_pool_and_see_only_their_tenant(settings, clock):
    service = _open(settings, clock)
    try:
        service.remember("owned by the first tenant")
        other = service.db.for_tenant(settings.namespace + "-other")
        assert other.pool is service.db.pool
        from server.storage.pg.store import PgStore

        theirs = PgStore(other, other.tenant)
        assert theirs.count() == {"live": 0, "deleted": 0, "file_units": 0, "pending_embeddings": 0}
        assert theirs.get([1]) == {}
        assert service.store.count()["live"] == 1
    finally:
        service.close()
