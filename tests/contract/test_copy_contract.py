"""The store methods `memvault migrate` copies with, on SQLite and on PostgreSQL alike.

A namespace dumped from one store and loaded into an empty one of the same backend
reads back identical, field for field (the cross-backend copy is tested end to end in
tests/pg/test_migrate.py).
"""

from __future__ import annotations

import pytest

from server.curation.curator import Curator
from server.embedding.embedders import HashEmbedder
from server.service import MemoryService
from server.search import keyword_query
from server.storage.protocol import Original, PossibleUpdate, Promotion, Scope, ThreadMessage
from server.textindex import index_text


@pytest.fixture
def empty(other_settings, clock):
    """Another empty store of the same backend (a new SQLite file, or a new PostgreSQL tenant)."""
    service = MemoryService.open(other_settings, embedder=HashEmbedder(), clock=clock, check_model=False)
    yield service
    service.close()


def _everything(service):
    store = service.store
    with service.db.read() as conn:
        memories = store.dump_memories(conn, 0, 1000)
        return {
            "memories": memories,
            "vectors": {k: v.tolist() for k, v in store.vectors(conn, [m.id for m in memories]).items()},
            "messages": store.dump_messages(conn),
            "promotions": store.promotions(conn),
            "threads": store.threads(conn),
            "possible_updates": store.possible_updates(conn),
        }


def test_dump_then_load_copies_every_field_and_keeps_ids(svc, empty):
    a = svc.remember("Jobs run on Celery", kind="decision", thread="api", tags=["queue", "infra"]).id
    b = svc.remember("Jobs run on Dramatiq", kind="decision", thread="api", tags=["queue"]).id
    gone = svc.remember("The old VPN is vpn.example.com").id
    svc.remember("How do we rotate the signing keys?", kind="turn", thread="chat")
    svc.remember("Every ninety days, by the cron job.", kind="turn", thread="chat")
    svc.remember(("A long memory about moving the build off Jenkins. " * 12).strip(), created_at="2025-01-01")
    svc.indexer.run_once()
    svc.forget(gone)
    curator = Curator(svc)
    curator.run("supersede", ids=[a], replacement_id=b, dry_run=False)
    curator.run("pin", ids=[b], dry_run=False)
    curator.run("compress", dry_run=False)
    curator.run("promote", dry_run=False)
    svc.remember("Still waiting for its vector")
    svc.threads.add_messages("api", [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}])
    with svc.db.write() as conn:
        svc.store.hard_delete(conn, svc.remember("purged at once").id, None)  # its id stays retired
        svc.store.set_possible_update(conn, b, PossibleUpdate(gone, 0.3125))
    source, dst = svc.store, empty.store
    with svc.db.read() as conn:
        rows = source.dump_memories(conn, 0, 1000)
        vectors = source.vectors(conn, [r.id for r in rows])
        links = [(r.id, r.superseded_by) for r in source.rows(conn, deleted=None) if r.superseded_by]
        possible = source.possible_updates(conn)
        high = source.id_high_water(conn)
        assert svc.settings.namespace in source.namespaces(conn)
    assert possible == {b: PossibleUpdate(gone, 0.3125)}
    queued = {r.id for r in rows if r.queued}
    assert queued - set(vectors) and queued & set(vectors)  # waiting for a first vector; for a new one
    [compressed] = [r for r in rows if r.original]
    assert compressed.original == Original(compressed.original.content, compressed.updated_at)
    assert compressed.original.content == ("A long memory about moving the build off Jenkins. " * 12).strip()
    assert len(compressed.content) < len(compressed.original.content)
    assert {r.id for r in rows if r.deleted_at}
    first, second = rows[:3], rows[3:]  # two batches, as the command copies
    with empty.db.write() as conn:
        for batch in (first, second):
            texts = [None if r.deleted_at else index_text(r.content, r.file_section if r.file_key else None)
                     for r in batch]
            dst.load_memories(conn, batch, texts, {i: v for i, v in vectors.items() if i in {r.id for r in batch}})
        for memory_id, by in links:
            dst.link_superseded(conn, memory_id, by)
        for memory_id, update in possible.items():
            dst.set_possible_update(conn, memory_id, update)
        with svc.db.read() as sconn:
            threads, messages, promotions = source.threads(sconn), source.dump_messages(sconn), source.promotions(sconn)
        for thread in threads:
            dst.put_thread(conn, thread)
        dst.load_messages(conn, messages)
        for promotion in promotions:
            dst.record_promotion(conn, promotion.memory_id, promotion.section, promotion.promoted_at)
        dst.raise_id_high_water(conn, high)
    assert _everything(empty) == _everything(svc)
    assert [(m.thread, m.role, m.content) for m in messages] == [("api", "user", "hi"), ("api", "assistant", "hello")]
    assert all(isinstance(m, ThreadMessage) for m in messages)
    assert promotions and all(isinstance(p, Promotion) and p.memory_id in {r.id for r in rows} for p in promotions)
    # Searches see the copy as they see the original.
    vector = svc.embedder.embed(["Dramatiq jobs"])[0]
    for query in ("signing keys", "Dramatiq", "Jenkins build"):
        found = list(dst.keyword(keyword_query(query), 10, Scope()))
        assert found == list(source.keyword(keyword_query(query), 10, Scope())) and found, query
    assert list(dst.knn(vector, 5, Scope())) == list(source.knn(vector, 5, Scope()))
    with empty.db.read() as conn:
        assert dst.id_high_water(conn) >= high
        assert not dst.index_drift(conn)
    assert empty.remember("after the copy").id == high + 1  # a purged id is never handed out again


def test_ids_taken_namespaces_and_meta(svc):
    kept = svc.remember("one fact").id
    with svc.db.read() as conn:
        assert svc.store.ids_taken(conn, [kept, 9999]) == {kept}
        assert svc.store.ids_taken(conn, []) == set()
        assert svc.settings.namespace in svc.store.namespaces(conn)
        assert svc.store.meta_items(conn)["embedding_dimensions"] == str(svc.embedder.dimensions)
