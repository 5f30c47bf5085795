"""`memvault migrate` as a person runs it: the real command, spawned, between SQLite and PostgreSQL.

The source is built through the service with the curator's actions done on it (compress,
pin, supersede, forget, promote, global prompts, threads with system prompts, messages),
in two namespaces, part of it embedded and part still waiting for its vector.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from server.storage import copy as migrate
from server.storage.opener import make_store
from server.storage.protocol import PossibleUpdate
from server.config import Settings
from server.curation.curator import Curator
from server.storage.sqlite.db import Database
from server.embedding.embedders import HashEmbedder
from server.service import MemoryService
from spawn import ROOT, command, server_env

pytestmark = [pytest.mark.e2e]

_names = itertools.count()


def _ns() -> tuple[str, str]:
    """Two namespace names no other test uses (PostgreSQL tenants live for the whole session)."""
    n = next(_names)
    return f"mig{os.getpid()}n{n}a", f"mig{os.getpid()}n{n}b"


def _settings(home: Path, namespace: str) -> Settings:
    settings = Settings(home=home, embedder="hash", model_wait_seconds=5, namespace=namespace)
    settings.files_dir.mkdir(parents=True, exist_ok=True)
    for name in ("SOUL", "MEMORY"):
        (settings.files_dir / f"{name}.md").write_text(f"# {name}\n\n- {namespace} keeps notes in English\n")
    return settings


def build_source(home: Path, namespaces: tuple[str, str], extra: int = 0) -> Path:
    """A SQLite store with every kind of data in two namespaces; returns the file."""
    first, second = namespaces
    # The second namespace first: SQLite's backfill serves the whole file.
    other = MemoryService.open(_settings(home, second), embedder=HashEmbedder())
    try:
        other.remember("The second team deploys with Argo", thread="deploy", tags=["k8s"])
        other.indexer.run_once()
    finally:
        other.close()
    svc = MemoryService.open(_settings(home, first), embedder=HashEmbedder())
    try:
        a = svc.remember("Jobs run on Celery", kind="decision", thread="api", tags=["queue", "infra"]).id
        b = svc.remember("Jobs run on Dramatiq", kind="decision", thread="api", tags=["queue"]).id
        gone = svc.remember("The old VPN is vpn.example.com", thread="ops").id
        pinned = svc.remember("Never deploy on Fridays", importance=0.9).id
        svc.remember(("We moved the build to GitHub Actions because the Jenkins box ran out of disk. " * 6).strip(),
                     created_at="2025-01-01", thread="ops")
        svc.remember("how do I restart the worker?", kind="turn", thread="api")
        svc.remember("systemctl restart worker", kind="turn", thread="api")
        for i in range(extra):
            svc.remember(f"Bulk fact number {i} about service {i % 17}", thread=f"t{i % 5}", tags=[f"k{i % 3}"])
        svc.recall("Dramatiq")  # recall counts
        svc.indexer.run_once(limit=6)  # some vectors now; the rest stay queued
        svc.forget(gone)
        curator = Curator(svc)
        curator.run("supersede", ids=[a], replacement_id=b, dry_run=False)
        curator.run("pin", ids=[pinned], dry_run=False)
        curator.run("compress", dry_run=False)  # re-queues the compressed memory; its old vector stays
        curator.run("promote", dry_run=False)
        svc.threads.configure("api", title="API", system_prompt="Answer with code first.")
        svc.threads.add_messages("api", [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}])
        svc.global_prompts.run("set", name="style", content="Be brief.", priority=5)
        svc.global_prompts.run("set", name="off", content="Unused.")
        svc.global_prompts.run("deactivate", name="off")
        svc.remember("Staging lives in eu-west-1", thread="ops")  # still waiting for its vector
        # A long text in a burst (the backfill has a queue) waits for the backfill's vector to be judged: its
        # update check stays marked (a short statement is judged at write time, linker.SHORT_STATEMENT).
        svc.remember(("The staging cluster sits behind the shared load balancer in eu-west-1. " * 10).strip(),
                     thread="ops")
        # A possible update (the update model's hint for recall's order; the hash embedder makes none itself).
        guess = svc.remember("The build runs on GitHub Actions runners now", thread="api").id
        with svc.db.write() as conn:
            svc.store.set_possible_update(conn, guess, PossibleUpdate(a, 0.27))
        daily = svc.settings.files_dir / "daily"
        daily.rename(daily.with_name("daily.away"))
        daily.write_text("not a folder")  # the daily-log append fails: the line stays queued
        svc.remember("The on-call rota is in PagerDuty", thread="ops")
        daily.unlink()
        daily.with_name("daily.away").rename(daily)
    finally:
        svc.close()
    return home / "memvault.db"


def _migrate(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(command("migrate", *args), cwd=ROOT, env=server_env(tmp_path / "cli", **env),
                          capture_output=True, text=True, timeout=180)


def _fingerprints(location: str, namespaces: tuple[str, ...]) -> dict[str, dict]:
    if location.startswith("postgresql"):
        from server.storage.pg.db import PgDatabase

        db = PgDatabase(location, tenant="", pool_size=1)
        try:
            return {ns: migrate.fingerprint(make_store(db.for_tenant(ns), ns)) for ns in namespaces}
        finally:
            db.close()
    db = Database(location)
    try:
        return {ns: migrate.fingerprint(make_store(db, ns)) for ns in namespaces}
    finally:
        db.close()


def _rows(location: str, ns: str) -> tuple[list, dict, list]:
    """Every memory row (all fields), every vector and the thread list, read without the migrate module."""
    if location.startswith("postgresql"):
        from server.storage.pg.db import PgDatabase

        db = PgDatabase(location, tenant=ns, pool_size=1)
    else:
        db = Database(location)
    store = make_store(db, ns)
    try:
        with db.read() as conn:
            rows = store.rows(conn, deleted=None)
            vectors = {k: v.tolist() for k, v in store.vectors(conn, [r.id for r in rows]).items()}
            return rows, vectors, store.threads(conn)
    finally:
        db.close()


def test_sqlite_to_postgres_to_sqlite_is_exact(pg_url, tmp_path):
    names = _ns()
    source = build_source(tmp_path / "src", names)
    there = _migrate(tmp_path, "--from", str(source), "--to", pg_url)
    assert there.returncode == 0, there.stderr
    report = json.loads(there.stdout)
    assert report["verified"] is True and set(report["namespaces"]) == set(names)
    counts = report["namespaces"][names[0]]["counts"]
    assert counts["forgotten"] == 1 and counts["superseded"] == 1 and counts["pinned"] >= 1
    assert counts["originals"] == 1 and counts["system_prompts"] == 1 and counts["messages"] == 2
    assert counts["global_prompts"] == 2 and counts["promotions"] >= 1 and counts["vectors"] >= 6
    assert counts["pending_embeddings"] >= 1 and counts["daily_log_queue"] >= 1
    assert counts["update_checks"] >= 1  # writes whose update check waits for their vector still wait
    assert counts["possible_updates"] == 1
    assert "memories copied" in there.stderr and "verified" in there.stderr

    back = tmp_path / "back" / "memvault.db"
    home = _migrate(tmp_path, "--from", pg_url, "--to", str(back), *sum((["--namespace", n] for n in names), []))
    assert home.returncode == 0, home.stderr
    # Independently of the command's own check: every row, vector and thread is what it was.
    for ns in names:
        assert _rows(str(back), ns) == _rows(str(source), ns)
        assert _rows(pg_url, ns) == _rows(str(source), ns)
    assert _fingerprints(str(back), names) == _fingerprints(str(source), names)

    again = _migrate(tmp_path, "--from", str(source), "--to", pg_url)  # the same migration: a no-op
    assert again.returncode == 0, again.stderr
    assert {r["status"] for r in json.loads(again.stdout)["namespaces"].values()} == {"already copied"}


def test_every_tenant_of_a_postgres_source_goes_to_another_database(pg_server, pg_url, tmp_path):
    """With a superuser's URL to list them, every tenant is copied (here into a second database)."""
    from server.storage.pg.bootstrap import InitPlan, app_url
    from server.storage.pg.db import list_tenants

    names = _ns()
    source = build_source(tmp_path / "src", names)
    assert _migrate(tmp_path, "--from", str(source), "--to", pg_url).returncode == 0
    database = f"copy{os.getpid()}"
    init = subprocess.run(command("db", "init", "--admin-url", pg_server.uri, "--database", database), cwd=ROOT,
                          env=server_env(tmp_path / "cli"), capture_output=True, text=True, timeout=120)
    assert init.returncode == 0, init.stderr
    admin = pg_server.uri.replace("/postgres?", "/memvault?")
    tenants = list_tenants(admin, migrate.TENANT_TABLES)
    assert set(names) <= set(tenants)
    other = app_url(pg_server.uri, InitPlan(database=database))
    done = _migrate(tmp_path, "--from", pg_url, "--to", other, "--admin-url", admin)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert sorted(report["namespaces"]) == tenants and report["verified"] is True
    assert _fingerprints(other, names) == _fingerprints(str(source), names)


def _kill_after(args: list[str], tmp_path: Path, lines: int) -> str:
    """Start the command and SIGKILL it once it has reported `lines` committed batches."""
    proc = subprocess.Popen(command("migrate", *args), cwd=ROOT, env=server_env(tmp_path / "cli"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen = []
    try:
        for line in proc.stderr:
            seen.append(line)
            if sum("memories copied" in s for s in seen) >= lines:
                break
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stdout.close()
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL, "".join(seen)
    return "".join(seen)


@pytest.mark.parametrize("direction", ["to-postgres", "to-sqlite"])
def test_killed_mid_copy_then_resumed_is_exact(pg_url, tmp_path, direction):
    names = _ns()
    source = build_source(tmp_path / "src", names, extra=240)
    if direction == "to-postgres":
        src, dst = str(source), pg_url
    else:  # first put the store on PostgreSQL, then copy it back out under kills
        assert _migrate(tmp_path, "--from", str(source), "--to", pg_url).returncode == 0
        src, dst = pg_url, str(tmp_path / "out" / "memvault.db")
    args = ["--from", src, "--to", dst, "--batch-size", "7", "--namespace", names[0], "--namespace", names[1]]
    _kill_after(args, tmp_path, 1)
    partial = _fingerprints(dst, names)[names[0]]
    assert 0 < partial["memories"]["count"] < 240
    _kill_after(args, tmp_path, 12)
    later = _fingerprints(dst, names)[names[0]]
    assert partial["memories"]["count"] < later["memories"]["count"] < 240
    done = _migrate(tmp_path, *args)
    assert done.returncode == 0, done.stderr
    statuses = {ns: r["status"] for ns, r in json.loads(done.stdout)["namespaces"].items()}
    assert statuses[names[0]] == "resumed"
    assert _fingerprints(dst, names) == _fingerprints(str(source), names)
    for ns in names:
        assert _rows(dst, ns) == _rows(str(source), ns)


def test_refusals_say_what_to_do(pg_server, pg_url, tmp_path):
    names = _ns()
    source = build_source(tmp_path / "src", names)
    wrong = _migrate(tmp_path, "--from", str(source), "--to", "mysql://u:secret@db/x")
    assert wrong.returncode == 2 and "unknown scheme 'mysql'" in wrong.stderr and "secret" not in wrong.stderr
    missing = _migrate(tmp_path, "--from", str(tmp_path / "nope.db"), "--to", pg_url)
    assert missing.returncode == 2 and "no such SQLite file" in missing.stderr
    (tmp_path / "notes.txt").write_text("not a database " * 100)
    garbage = _migrate(tmp_path, "--from", str(tmp_path / "notes.txt"), "--to", pg_url)
    assert garbage.returncode == 2 and "not a memvault SQLite store" in garbage.stderr, garbage.stderr
    folder = _migrate(tmp_path, "--from", str(source), "--to", str(tmp_path))
    assert folder.returncode == 2 and "cannot open or create a SQLite store there" in folder.stderr, folder.stderr
    down = _migrate(tmp_path, "--from", str(source), "--to", "postgresql://memvault_app:pw@127.0.0.1:9/memvault")
    assert down.returncode == 2 and "Could not connect to PostgreSQL at" in down.stderr and ":pw@" not in down.stderr
    hidden = _migrate(tmp_path, "--from", pg_url, "--to", str(tmp_path / "x.db"))
    assert hidden.returncode == 2 and "--namespace" in hidden.stderr and "--admin-url" in hidden.stderr
    assert _migrate(tmp_path, "--from", str(source), "--to", pg_url).returncode == 0
    # Every tenant (listed with a superuser's URL) into one SQLite file: a tenant written on PostgreSQL
    # numbers its memories from 1 as the copied ones do, and ids are kept.
    native = MemoryService.open(_settings(tmp_path / "native", names[0] + "c").with_(database_url=pg_url),
                                embedder=HashEmbedder())
    assert native.remember("A memory written on PostgreSQL").id == 1
    native.close()
    admin = pg_server.uri.replace("/postgres?", "/memvault?")
    overlap = _migrate(tmp_path, "--from", pg_url, "--to", str(tmp_path / "x.db"), "--admin-url", admin)
    assert overlap.returncode == 2 and "cannot share one file" in overlap.stderr, overlap.stderr
    assert not (tmp_path / "x.db").exists() or _fingerprints(str(tmp_path / "x.db"), names)[names[0]]["memories"][
        "count"] == 0

    # A target that already holds other data for the namespace is refused, and left as it was.
    other = tmp_path / "other"
    svc = MemoryService.open(_settings(other, names[0]), embedder=HashEmbedder())
    svc.remember("Someone else's memory")
    svc.close()
    before = _fingerprints(str(other / "memvault.db"), names)
    clash = _migrate(tmp_path, "--from", str(source), "--to", str(other / "memvault.db"))
    assert clash.returncode == 2 and "already holds data for namespace" in clash.stderr
    assert _fingerprints(str(other / "memvault.db"), names) == before

    # A finished copy altered afterwards fails verification when the command is run again.
    from server.storage.pg.db import PgDatabase

    argo = next(r.id for r in _rows(pg_url, names[1])[0] if r.content == "The second team deploys with Argo")
    db = PgDatabase(pg_url, tenant=names[1], pool_size=1)
    with db.write() as conn:
        make_store(db, names[1]).link_superseded(conn, argo, None)  # a no-op: still exact
        make_store(db, names[1]).set_pinned(conn, argo, True, 1)
    db.close()
    changed = _migrate(tmp_path, "--from", str(source), "--to", pg_url)
    assert changed.returncode == 1, changed.stderr
    assert "verification failed" in changed.stderr
    assert f"namespace '{names[1]}': memories: 1 in the source, 1 in the target (hashes differ)" in changed.stderr
    assert f"namespace '{names[1]}': pinned: 0 in the source, 1 in the target (counts differ)" in changed.stderr


@pytest.mark.anyio
async def test_the_migrated_store_serves_recall_over_stdio(pg_url, tmp_path):
    names = _ns()
    source = build_source(tmp_path / "src", names)
    assert _migrate(tmp_path, "--from", str(source), "--to", pg_url).returncode == 0
    rows, _, _ = _rows(str(source), names[0])
    dramatiq = next(r.id for r in rows if r.content == "Jobs run on Dramatiq")
    env = server_env(tmp_path / "serve", MEMVAULT_DATABASE_URL=pg_url, MEMVAULT_NAMESPACE=names[0])
    _settings(tmp_path / "serve", names[0])
    params = StdioServerParameters(command=sys.executable, args=["-m", "server"], env=env, cwd=str(ROOT))
    async with Client(params) as client:
        found = await client.call_tool("recall", {"query": "which job queue do we use", "thread": "api"})
        ids = [m["id"] for m in found.structured_content["memories"]]
        assert dramatiq in ids  # the id it had in SQLite
        stored = await client.call_tool("remember", {"content": "Workers scale with KEDA", "thread": "api"})
        assert stored.structured_content["id"] > max(r.id for r in rows)  # ids continue above the copied ones


def test_the_progress_bar_redraws_in_place_on_a_terminal():
    import io

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    ticks = iter([0.0, 1.0, 2.0])
    screen = Terminal()
    bar = migrate.Progress(200, screen, clock=lambda: next(ticks))
    bar.skip("acme", 50)  # copied by an interrupted run: done, but not part of this run's rate
    bar.advance("acme", 150)
    assert screen.getvalue().split("\r")[1:] == [
        "migrate acme: [#######.......................] 50/200 memories, 0/s ",
        "migrate acme: [##############################] 200/200 memories, 75/s ",
    ]
