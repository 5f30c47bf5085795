"""The real `memvault` command on PostgreSQL: db init, serving over stdio as a tenant, info."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from server.storage.pg.migrations import LATEST
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from spawn import ROOT, command, server_env

psycopg = pytest.importorskip("psycopg", reason="the test extra installs it")

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


def _run(home, *args, **env):
    return subprocess.run(command(*args), cwd=ROOT, env=server_env(home, **env), capture_output=True, text=True,
                          timeout=120)


def test_db_init_is_idempotent_and_print_sql_is_the_same_schema(pg_server, pg_url, tmp_path):
    again = _run(tmp_path, "db", "init", "--admin-url", pg_server.uri)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["migrations_applied"] == []
    migrate = _run(tmp_path, "db", "migrate", "--admin-url", pg_server.uri.replace("/postgres?", "/memvault?"))
    assert migrate.returncode == 0 and json.loads(migrate.stdout) == {"migrations_applied": []}, migrate.stderr
    sql = _run(tmp_path, "db", "init", "--print-sql").stdout
    for needle in ("CREATE EXTENSION IF NOT EXISTS vector", "FORCE ROW LEVEL SECURITY",
                   "NOBYPASSRLS", "USING hnsw (embedding vector_cosine_ops)", "WITH (m = 16, ef_construction = 64)"):
        assert needle in sql
    # The printed script builds the same schema on a fresh database.
    with psycopg.connect(pg_server.uri, autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS by_hand")
        conn.execute("CREATE DATABASE by_hand OWNER memvault_owner")
    script = sql.split("\\c memvault\n", 1)[1].replace('"memvault"', '"by_hand"')
    by_hand = pg_server.uri.replace("/postgres?", "/by_hand?")
    with psycopg.connect(by_hand, autocommit=True) as conn:
        conn.execute(script)
        assert conn.execute("SELECT max(version) FROM schema_migrations").fetchone()[0] == LATEST
    assert "LEAKPROOF" not in sql  # a cluster-wide change only on request
    assert "ALTER FUNCTION ts_match_vq(tsvector, tsquery) LEAKPROOF;" in _run(
        tmp_path, "db", "init", "--print-sql", "--leakproof-fts").stdout
    missing = _run(tmp_path, "db", "init")
    assert missing.returncode == 2 and "--admin-url" in missing.stderr


async def test_serve_over_stdio_as_a_tenant_records_user_and_agent(pg_url, tmp_path):
    tenant = f"e2e{os.getpid()}"
    env = server_env(tmp_path, MEMVAULT_DATABASE_URL=pg_url, MEMVAULT_NAMESPACE=tenant,
                     MEMVAULT_USER="ana", MEMVAULT_AGENT="claude-code")
    params = StdioServerParameters(command=sys.executable, args=["-m", "server"], env=env, cwd=str(ROOT))
    async with Client(params) as client:
        stored = await client.call_tool("remember", {"content": "Builds are cached in S3 bucket ci-cache"})
        assert stored.structured_content["id"] == 1
        found = await client.call_tool("recall", {"query": "where are builds cached"})
        assert found.structured_content["memories"][0]["content"] == "Builds are cached in S3 bucket ci-cache"
        gone = await client.call_tool("forget", {"id": 1})
        assert gone.structured_content["status"] == "forgotten"
    with psycopg.connect(pg_url) as conn:
        conn.execute("SELECT set_config('app.tenant', %s, true)", (tenant,))
        row = conn.execute("SELECT user_id, agent, deleted_at IS NOT NULL FROM memories WHERE source = 'remember'").fetchall()
        # SOUL.md is identity, delivered whole: its template's bullets are not indexed as memories
        units = conn.execute("SELECT count(*) FROM memories WHERE source LIKE 'file:%%'").fetchone()[0]
    assert row == [("ana", "claude-code", True)] and units == 0
    info = _run(tmp_path, "info", MEMVAULT_DATABASE_URL=pg_url, MEMVAULT_NAMESPACE=tenant)
    assert info.returncode == 0, info.stderr
    report = json.loads(info.stdout)
    assert (report["database"], report["live"], report["deleted"]) == (pg_url, 0, 1)


def test_a_bad_database_url_is_a_clear_setup_error(tmp_path):
    wrong = _run(tmp_path, "info", MEMVAULT_DATABASE_URL="mysql://x@y/z")
    assert wrong.returncode == 2 and "postgresql://" in wrong.stderr
