"""A recall's path (server.recall): one pipeline the service calls once, and writes that are named and bounded."""

from __future__ import annotations

import ast
from pathlib import Path

from server.tenants import Tenants

ROOT = Path(__file__).resolve().parent.parent
STEPS = ("sync_files", "embed_own", "judge_pending", "mark_recalled")


def test_the_service_leaves_every_search_stage_to_the_read_path():
    """The service validates and builds the scope; it starts no part of the search (it used to start the
    keyword half and hand it back into search.search)."""
    tree = ast.parse((ROOT / "server" / "service.py").read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert "server.search" not in imported and "server.recall" in imported


def test_a_recall_writes_only_in_its_named_steps_and_never_waits_for_the_lock(service, monkeypatch):
    for i in range(12):  # a backlog in the recall's scope: no backfill runs in this test
        service.remember(f"The deploy script for service {i} lives in ops/deploy_{i}.sh", thread="ops")
    memory_file = service.settings.files_dir / "MEMORY.md"
    memory_file.write_text("# MEMORY\n\n- The deploy script is run from the ops folder.\n")
    writes: list[tuple[str | None, float]] = []
    step: list[str] = []
    begin = service.db._begin_write

    def recorded_begin(wait: float) -> None:
        writes.append((step[-1] if step else None, wait))
        begin(wait)

    monkeypatch.setattr(service.db, "_begin_write", recorded_begin)
    for name in STEPS:
        method = getattr(service.reads, name)

        def named(*args, _method=method, _name=name, **kwargs):
            step.append(_name)
            try:
                return _method(*args, **kwargs)
            finally:
                step.pop()

        monkeypatch.setattr(service.reads, name, named)

    found = service.find("where does the deploy script live?", thread="ops")

    assert found.hits and found.pending_embeddings is not None
    assert {name for name, _ in writes} >= {"sync_files", "embed_own", "mark_recalled"}
    assert [w for w in writes if w[0] is None] == [], "a recall wrote outside its named steps"
    assert {wait for _, wait in writes} == {0}, "a recall's write waited for another process's lock"


def test_a_tenant_recall_prefers_its_threads_in_the_shared_backfill(service):
    """Tenants of one SQLite file share one backfill: a tenant's recall steers that one (not an idle copy)."""
    tenant = Tenants(service, require_identity=True).get("a")
    assert tenant.reads.indexer is service.indexer
    tenant.recall("anything", thread="ledger")
    assert "ledger" in service.indexer._preferred

