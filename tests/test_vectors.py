"""Vector search over the in-process matrix: migration from vec0, filters, other processes' writes, recall@10."""

from __future__ import annotations

import numpy as np
import pytest

from server.storage.sqlite.db import Database
from server.embedding.embedders import HashEmbedder
from server.storage.sqlite.migrations import m006_principal, MIGRATIONS, SchemaContext, migrate
from server.service import MemoryService
from server.config import Settings
from server.storage.protocol import KeywordQuery, NewMemory, Scope
from server.storage.sqlite.store import Store
from server.storage.sqlite import vectors as vecindex

DIMS = 16


def _unit(seed: int, dims: int = DIMS) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(dims).astype(np.float32)
    return v / np.linalg.norm(v)


def _insert(store: Store, conn, thread: str, text: str, kind: str = "note", created: int = 1000,
            tags: tuple[str, ...] = ()) -> int:
    return store.insert_memory(
        conn,
        NewMemory(thread=thread, content=text, kind=kind, source="test", origin=None, importance=0.5, tags=tags,
                  content_hash=text, created_at=created, updated_at=created, index_text=text),
    )


def _old_store(path) -> tuple[Database, dict[int, np.ndarray], int]:
    """A store written by schema version 3 (vectors in vec0), with a forgotten memory and a pending one."""
    db = Database(path)
    ctx = SchemaContext(dimensions=DIMS)
    with db.write() as conn:
        for migration in MIGRATIONS[:3]:
            migration(conn, ctx)
        conn.execute("PRAGMA user_version = 3")
        # Today's insert_memory (used below to write version-3 rows) also fills the two
        # nullable columns m006 adds; m006 checks for them first, so adding them up front
        # changes nothing about what m004, the migration under test, sees.
        m006_principal(conn, ctx)
    store = Store(db, "default")
    vectors: dict[int, np.ndarray] = {}
    with db.write() as conn:
        for n in range(40):
            mid = _insert(store, conn, f"t{n % 4}", f"memory {n}", created=1000 + n)
            vectors[mid] = _unit(n)
            # What version 3's store_vectors wrote: the vec0 row, the queue row removed.
            conn.execute(
                "INSERT INTO memory_vectors(memory_id, embedding, namespace, thread, kind, deleted, created_at) "
                "VALUES (?, ?, 'default', ?, 'note', 0, ?)", (mid, vectors[mid], f"t{n % 4}", 1000 + n))
            conn.execute("DELETE FROM pending_embeddings WHERE memory_id = ?", (mid,))
        forgotten = next(iter(vectors))
        conn.execute("UPDATE memories SET deleted_at = 5 WHERE id = ?", (forgotten,))
        store.fts_delete(conn, forgotten)
        conn.execute("UPDATE memory_vectors SET deleted = 1 WHERE memory_id = ?", (forgotten,))
        _insert(store, conn, "t0", "not embedded yet")
    return db, vectors, forgotten


def test_migration_moves_vec0_vectors_over_without_reembedding(tmp_path):
    db, vectors, forgotten = _old_store(tmp_path / "old.db")
    assert migrate(db, SchemaContext(dimensions=DIMS)) == len(MIGRATIONS)
    conn = db.conn
    assert conn.execute("SELECT sql FROM sqlite_master WHERE name = 'memory_vectors'").fetchone()[0].startswith(
        "CREATE TABLE")
    assert not conn.execute("SELECT name FROM sqlite_master WHERE name LIKE 'memory_vectors_%'").fetchall()
    moved = {mid: np.frombuffer(blob, dtype=np.float32) for mid, blob in
             conn.execute("SELECT memory_id, embedding FROM memory_vectors")}
    assert moved.keys() == vectors.keys()
    for mid, vector in vectors.items():
        assert np.array_equal(moved[mid], vector)
    assert conn.execute("SELECT count(*) FROM pending_embeddings").fetchone()[0] == 1  # only the new one
    store = Store(db, "default")
    assert not store.index_drift(conn)
    # Search finds the moved vectors at once; the forgotten memory stays out.
    target = list(vectors)[7]
    assert list(store.knn(vectors[target], 1, Scope())) == [target]
    assert forgotten not in store.knn(vectors[forgotten], 40, Scope())
    db.close()


def test_migrated_store_opens_in_the_service_and_recalls(tmp_path):
    home = tmp_path / "home"
    db, _, _ = _old_store(home / "memvault.db")
    db.close()
    service = MemoryService.open(Settings(home=home, embedder="hash"), embedder=HashEmbedder(dimensions=DIMS),
                                 check_model=False)
    try:
        assert service.store.count()["pending_embeddings"] == 1
        service.indexer.run_once()
        hits = service.recall("not embedded yet", thread="t0").memories
        assert hits and hits[0].content == "not embedded yet" and hits[0].match == "both"
    finally:
        service.close()


@pytest.fixture
def store(tmp_path):
    db = Database(tmp_path / "s.db")
    migrate(db, SchemaContext(dimensions=DIMS))
    yield Store(db, "default")
    db.close()


def _add(store: Store, thread: str, vector: np.ndarray, **kw) -> int:
    with store.db.write() as conn:
        mid = _insert(store, conn, thread, f"{thread} {vector.tobytes().hex()[:24]} {kw}", **kw)
    assert store.store_vectors({mid: vector}) == 1
    return mid


def test_a_selective_filter_still_returns_k(store):
    query = _unit(1)
    for i in range(300):  # every nearer vector is in another thread, kind or time
        _add(store, f"noise{i % 3}", query + 0.02 * _unit(1000 + i))
        _add(store, "mine", query + 0.02 * _unit(2000 + i), kind="decision")
        _add(store, "mine", query + 0.02 * _unit(3000 + i), created=10)
    far = [_add(store, "mine", _unit(10 + i)) for i in range(12)]
    hits = store.knn(query, 10, Scope(threads=("mine",), kinds=("note",), since=500))
    assert len(hits) == 10 and set(hits) <= set(far)
    tagged = _add(store, "elsewhere", _unit(99), tags=("db",))
    assert list(store.knn(query, 10, Scope(tags=("db",)))) == [tagged]
    assert store.knn(query, 10, Scope(threads=("nobody",))) == {}


def test_other_processes_writes_are_seen_at_the_next_search(tmp_path):
    path = tmp_path / "shared.db"
    first, second = Database(path), Database(path)  # two processes' connections
    migrate(first, SchemaContext(dimensions=DIMS))
    a, b = Store(first, "default"), Store(second, "default")
    query = _unit(5)
    assert a.knn(query, 5, Scope()) == {}  # a's matrix is loaded (empty)
    written = _add(b, "t", query)
    assert list(a.knn(query, 5, Scope())) == [written]
    with second.write() as conn:
        b.soft_delete(conn, written, 9)
    assert a.knn(query, 5, Scope()) == {}
    with second.write() as conn:
        b.undelete(conn, written, 10, "text")
    assert list(a.knn(query, 5, Scope())) == [written]
    # A changed vector (a compressed memory re-embedded) replaces the old one.
    with second.write() as conn:
        conn.execute("INSERT INTO pending_embeddings(memory_id) VALUES (?)", (written,))
    b.store_vectors({written: -query})
    assert list(a.knn(query, 1, Scope()).values()) == [pytest.approx(2.0, abs=1e-5)]
    assert a.cosines(query, [written]) == {written: pytest.approx(-1.0, abs=1e-5)}
    with second.write() as conn:
        b.hard_delete(conn, written, None)
    assert a.knn(query, 5, Scope()) == {} and a.cosines(query, [written]) == {}
    first.close()
    second.close()


def test_a_reader_that_fell_behind_the_pruned_log_reloads(tmp_path, monkeypatch):
    monkeypatch.setattr(vecindex, "CHANGES_KEPT", 3)
    path = tmp_path / "shared.db"
    first, second = Database(path), Database(path)
    migrate(first, SchemaContext(dimensions=DIMS))
    a, b = Store(first, "default"), Store(second, "default")
    assert a.knn(_unit(0), 5, Scope()) == {}
    ids = [_add(b, "t", _unit(n)) for n in range(20)]
    assert first.conn.execute("SELECT count(*) FROM vector_changes").fetchone()[0] <= 4
    assert sorted(a.knn(_unit(0), 50, Scope())) == sorted(ids)
    first.close()
    second.close()


def test_a_search_inside_a_rolled_back_transaction_leaves_no_trace(store):
    query = _unit(3)
    kept = _add(store, "t", query)
    assert next(iter(store.knn(query, 5, Scope()))) == kept
    with pytest.raises(RuntimeError), store.db.write() as conn:
        store.soft_delete(conn, kept, 9)
        assert store.knn(query, 5, Scope()) == {}  # the transaction sees its own change
        raise RuntimeError("roll back")
    assert next(iter(store.knn(query, 5, Scope()))) == kept


def test_recall_at_10_against_exact_search_on_clustered_vectors(store):
    """The matrix search is exact: its top 10 equals a brute-force top 10 computed independently."""
    rng = np.random.default_rng(42)
    centres = rng.standard_normal((50, DIMS)).astype(np.float32)
    vectors = centres[rng.integers(0, 50, 2000)] + 0.4 * rng.standard_normal((2000, DIMS)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    ids = []
    with store.db.write() as conn:
        for n in range(len(vectors)):
            ids.append(_insert(store, conn, f"t{n % 200}", f"m{n}"))
    store.store_vectors(dict(zip(ids, vectors)))
    ids = np.asarray(ids)
    found = 0
    for q in range(50):
        query = vectors[rng.integers(0, 2000)] + 0.2 * rng.standard_normal(DIMS).astype(np.float32)
        exact = set(ids[np.argsort(-(vectors @ query), kind="stable")[:10]])
        found += len(exact & set(store.knn(query, 10, Scope())))
    assert found / 500 >= 0.95


def test_keyword_search_over_every_thread_matches_the_joined_plan(tmp_path):
    """The index-only plan for unscoped searches returns what the joined query returns, other namespaces aside."""
    db = Database(tmp_path / "k.db")
    migrate(db, SchemaContext(dimensions=DIMS))
    mine, other = Store(db, "a"), Store(db, "b")
    rng = np.random.default_rng(3)
    words = ["kafka", "redis", "queue", "billing", "deploy", "retry", "cache", "worker"]
    with db.write() as conn:
        for n in range(300):  # the other namespace holds the strongest matches
            _insert(other, conn, "t", "kafka kafka kafka " + " ".join(rng.choice(words, 2)) + f" o{n}")
        for n in range(120):
            _insert(mine, conn, f"t{n % 5}", " ".join(rng.choice(words, 6)) + f" m{n}")
        gone = _insert(mine, conn, "t0", "kafka kafka kafka forgotten")
        mine.soft_delete(conn, gone, 5)
    threads = tuple(f"t{n}" for n in range(5))
    for terms in (("kafka",), ("redis", "retry"), ("worker",), ("nothing",)):
        unscoped = mine.keyword(KeywordQuery(terms), 50, Scope())
        joined = mine.keyword(KeywordQuery(terms), 50, Scope(threads=threads))
        assert list(unscoped.items()) == list(joined.items())  # the same matches, ranks and order
        assert gone not in unscoped
    # The other namespace's 300 stronger matches fill the first page of the index: the plan falls back.
    having = sum(1 for (c,) in db.conn.execute(
        "SELECT content FROM memories WHERE namespace = 'a' AND deleted_at IS NULL") if "kafka" in c.split())
    assert len(mine.keyword(KeywordQuery(("kafka",)), 50, Scope())) == min(50, having) > 0
    db.close()


def test_reembed_replaces_every_vector_in_a_loaded_index(service, monkeypatch):
    monkeypatch.setattr(vecindex, "CHANGES_KEPT", 2)  # the reset prunes the log past what the index saw
    ids = [service.remember(f"kafka consumer group number {n}", thread="t").id for n in range(5)]
    service.indexer.run_once()
    before = service.recall("kafka consumer group", thread="t", k=10).memories
    assert {m.id for m in before} == set(ids) and service.store._vectors.size == len(ids)
    assert service.reembed() == len(ids)
    after = service.recall("kafka consumer group", thread="t", k=10).memories
    assert [(m.id, m.score, m.match) for m in after] == [(m.id, m.score, m.match) for m in before]
    assert service.store._vectors.size == len(ids)


@pytest.fixture
def prescanned(tmp_path, monkeypatch):
    """3,000 vectors of 64 dimensions near a 12-dimension subspace, like embeddings; pre-scan from 1,000."""
    monkeypatch.setattr(vecindex, "PRESCAN_DIMS", 16)
    monkeypatch.setattr(vecindex, "PRESCAN_MIN", 40)
    monkeypatch.setattr(vecindex, "PRESCAN_SHARE", 0.02)
    db = Database(tmp_path / "p.db")
    migrate(db, SchemaContext(dimensions=64))
    store = Store(db, "default", vector_prescan_from=1000)
    rng = np.random.default_rng(7)
    basis = rng.standard_normal((12, 64)).astype(np.float32)
    vectors = rng.standard_normal((3000, 12)).astype(np.float32) @ basis
    vectors += 0.3 * rng.standard_normal(vectors.shape).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    with db.write() as conn:
        ids = [_insert(store, conn, f"t{n % 5}", f"m{n}") for n in range(len(vectors))]
    store.store_vectors(dict(zip(ids, vectors)))
    yield store, np.asarray(ids), vectors, rng
    db.close()


def test_the_prescan_keeps_recall_at_10_and_scores_exactly(prescanned):
    store, ids, vectors, rng = prescanned
    found = 0
    for _ in range(50):
        query = vectors[rng.integers(0, len(vectors))] + 0.3 * rng.standard_normal(64).astype(np.float32)
        cosine = vectors @ query / np.linalg.norm(query)
        exact = set(ids[np.argsort(-cosine, kind="stable")[:10]])
        hits = store.knn(query, 10, Scope())
        found += len(exact & set(hits))
        by_id = dict(zip(ids.tolist(), cosine.tolist()))
        assert list(hits.values()) == pytest.approx([1 - by_id[m] for m in hits], abs=1e-5)  # re-scored exactly
    index = store._vectors
    assert index._basis is not None and index._basis.shape == (64, 16)  # the pre-scan ran
    assert found / 500 >= 0.95


def test_the_prescan_sees_writes_made_after_it_was_fitted(prescanned):
    store, ids, vectors, rng = prescanned
    store.knn(vectors[0], 10, Scope())  # fits the projection
    fitted = store._vectors._basis
    newcomer = _add(store, "t0", -vectors[0])  # far from everything it was fitted on
    assert list(store.knn(-vectors[0], 1, Scope())) == [newcomer]
    with store.db.write() as conn:
        store.soft_delete(conn, newcomer, 9)
        store.soft_delete(conn, int(ids[0]), 9)
    assert set(store.knn(vectors[0], 10, Scope())).isdisjoint({newcomer, int(ids[0])})
    assert store._vectors._basis is fitted  # no refit until the rows double


def test_below_the_limit_and_for_narrow_filters_search_stays_exact(prescanned, tmp_path):
    store, ids, vectors, rng = prescanned
    query = vectors[3]
    one_thread = store.knn(query, 10, Scope(threads=("t3",)))  # a fifth of the rows: gathered, exact
    in_thread = ids[3::5]
    exact = in_thread[np.argsort(-(vectors[3::5] @ query), kind="stable")[:10]]
    assert list(one_thread) == exact.tolist()
    exact_store = Store(store.db, "default", vector_prescan_from=0)
    assert list(exact_store.knn(query, 10, Scope())) == ids[np.argsort(-(vectors @ query), kind="stable")[:10]].tolist()
    assert exact_store._vectors._basis is None


def test_the_prescan_limit_is_a_setting():
    from server.errors import SetupError

    assert Settings.from_env({"MEMVAULT_VECTOR_PRESCAN_FROM": "0"}).vector_prescan_from == 0
    assert Settings.from_env({}).vector_prescan_from == vecindex.DEFAULT_PRESCAN_FROM
    with pytest.raises(SetupError, match="MEMVAULT_VECTOR_PRESCAN_FROM"):
        Settings.from_env({"MEMVAULT_VECTOR_PRESCAN_FROM": "-5"})
