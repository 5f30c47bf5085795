"""Vector search on vec0 and the shared sidecar: migration from the plain table (batched, interrupted,
with a previous version writing meanwhile), filters on both routes, other processes' writes, passages,
a lost or stale sidecar, recall@10 of the sidecar's approximate search against exact search."""

from __future__ import annotations

import numpy as np
import pytest

from server.config import Settings
from server.embedding.embedders import HashEmbedder
from server.embedding.passages import MAX_PASSAGES
from server.service import MemoryService
from server.storage.protocol import KeywordQuery, NewMemory, Scope
from server.storage.sqlite import migrations as mig
from server.storage.sqlite import sidecar as sidecar_mod
from server.storage.sqlite import vectors as vecindex
from server.storage.sqlite.db import Database
from server.storage.sqlite.migrations import MIGRATIONS, PASSAGE_SLOTS, SchemaContext, migrate
from server.storage.sqlite.store import Store

DIMS = 16
PLAIN_VERSION = 6  # m001-m006: vectors in the plain table memory_vectors
#: The version just before the vec0 migration (the migrations between run first).
BEFORE_VEC0 = MIGRATIONS.index(next(m for m in MIGRATIONS if isinstance(m, mig.M010Vec0)))


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


def _plain_store(path, n: int = 40) -> tuple[Database, dict[int, np.ndarray], int]:
    """A store written by schema version 6 (vectors in the plain table), a forgotten memory and a pending one."""
    db = Database(path)
    ctx = SchemaContext(dimensions=DIMS)
    with db.write() as conn:
        for migration in MIGRATIONS[:PLAIN_VERSION]:
            migration(conn, ctx)
        conn.execute(f"PRAGMA user_version = {PLAIN_VERSION}")
    vectors: dict[int, np.ndarray] = {}
    with db.write() as conn:
        for i in range(n):
            mid = conn.execute(
                "INSERT INTO memories(namespace, thread, content, kind, content_hash, created_at, updated_at) "
                "VALUES ('default', ?, ?, 'note', ?, ?, ?)", (f"t{i % 4}", f"memory {i}", f"h{i}", 1000 + i, 1000 + i),
            ).lastrowid
            conn.execute("INSERT INTO memory_fts(rowid, text) VALUES (?, ?)", (mid, f"memory {i}"))
            vectors[mid] = _unit(i)
            conn.execute("INSERT INTO memory_vectors(memory_id, embedding) VALUES (?, ?)", (mid, vectors[mid].tobytes()))
        forgotten = next(iter(vectors))
        conn.execute("UPDATE memories SET deleted_at = 5 WHERE id = ?", (forgotten,))
        conn.execute("DELETE FROM memory_fts WHERE rowid = ?", (forgotten,))
        pending = conn.execute(
            "INSERT INTO memories(namespace, thread, content, kind, content_hash, created_at, updated_at) "
            "VALUES ('default', 't0', 'not embedded yet', 'note', 'hp', 2000, 2000)").lastrowid
        conn.execute("INSERT INTO memory_fts(rowid, text) VALUES (?, 'not embedded yet')", (pending,))
        conn.execute("INSERT INTO pending_embeddings(memory_id) VALUES (?)", (pending,))
    return db, vectors, forgotten


def _assert_migrated(db: Database, vectors: dict[int, np.ndarray], forgotten: int) -> Store:
    conn = db.conn
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    assert conn.execute("SELECT name FROM sqlite_master WHERE name = 'memory_vectors'").fetchone() is None
    store = Store(db, "default")
    with db.read() as c:
        moved = store.vectors(c, list(vectors))
    assert moved.keys() == vectors.keys()
    for mid, vector in vectors.items():  # byte-identical, as passage 0
        assert moved[mid].shape == (1, DIMS) and moved[mid][0].tobytes() == vector.tobytes()
    assert conn.execute("SELECT deleted FROM vec_memories WHERE row_id = ?", (forgotten * PASSAGE_SLOTS,)).fetchone() == (1,)
    assert conn.execute("SELECT count(*) FROM pending_embeddings").fetchone()[0] == 1  # only the new one
    assert not conn.execute("SELECT 1 FROM meta WHERE key LIKE 'm010%'").fetchall()
    assert not store.index_drift(conn)
    target = list(vectors)[7]
    assert list(store.knn(vectors[target], 1, Scope())) == [target]
    assert forgotten not in store.knn(vectors[forgotten], 40, Scope())
    return store


def test_migration_moves_plain_vectors_into_vec0_without_reembedding(tmp_path):
    db, vectors, forgotten = _plain_store(tmp_path / "old.db")
    assert migrate(db, SchemaContext(dimensions=DIMS)) == len(MIGRATIONS)
    _assert_migrated(db, vectors, forgotten)
    db.close()


def test_an_interrupted_migration_resumes_where_its_last_batch_committed(tmp_path, monkeypatch):
    monkeypatch.setattr(mig, "BATCH_ROWS", 7)
    db, vectors, forgotten = _plain_store(tmp_path / "old.db")
    real_step, steps = mig.M010Vec0.step, []

    def dying_step(self, conn, ctx):
        if len(steps) == 3:
            raise KeyboardInterrupt("killed")  # the open batch rolls back, as under kill -9
        steps.append(1)
        return real_step(self, conn, ctx)

    monkeypatch.setattr(mig.M010Vec0, "step", dying_step)
    with pytest.raises(KeyboardInterrupt):
        migrate(db, SchemaContext(dimensions=DIMS))
    conn = db.conn
    assert conn.execute("PRAGMA user_version").fetchone()[0] == BEFORE_VEC0
    cursor = int(conn.execute("SELECT value FROM meta WHERE key = 'm010_cursor'").fetchone()[0])
    copied = conn.execute("SELECT count(*) FROM vector_rows").fetchone()[0]
    assert copied == 21 and cursor == sorted(vectors)[20]  # three batches of seven, nothing of the fourth
    # Meanwhile a process of the previous version writes a vector of a copied memory: copied again at the end.
    changed = sorted(vectors)[2]
    vectors[changed] = _unit(777)
    with db.write() as c:
        c.execute("UPDATE memory_vectors SET embedding = ? WHERE memory_id = ?", (vectors[changed].tobytes(), changed))
    monkeypatch.setattr(mig.M010Vec0, "step", real_step)
    db.close()
    db = Database(tmp_path / "old.db")
    assert migrate(db, SchemaContext(dimensions=DIMS)) == len(MIGRATIONS)
    _assert_migrated(db, vectors, forgotten)
    db.close()


def test_migrated_store_opens_in_the_service_and_recalls(tmp_path):
    home = tmp_path / "home"
    db, _, _ = _plain_store(home / "memvault.db")
    db.close()
    service = MemoryService.open(Settings(home=home, embedder="hash"), embedder=HashEmbedder(dimensions=DIMS),
                                 check_model=False)
    try:
        service.indexer.run_once()
        hits = service.recall("not embedded yet", thread="t0").memories
        assert hits and hits[0].content == "not embedded yet" and hits[0].match == "both"
    finally:
        service.close()


@pytest.fixture(params=["vec0", "sidecar", "shortlist"])
def route(request, monkeypatch):
    """Every search test runs on each route: vec0 partitions, the sidecar (forced for any scope), and
    the sidecar's shortlist re-scored in vec0 (forced for any thread's scope)."""
    if request.param == "sidecar":
        monkeypatch.setattr("server.storage.sqlite.vectors.VEC0_SCOPE_MAX", -1)
    if request.param == "shortlist":
        monkeypatch.setattr("server.storage.sqlite.vectors.VEC0_SCOPE_FAST", -1)
    return request.param


@pytest.fixture
def store(tmp_path, route):
    db = Database(tmp_path / "s.db")
    migrate(db, SchemaContext(dimensions=DIMS))
    yield Store(db, "default")
    db.close()


def _add(store: Store, thread: str, vector: np.ndarray, **kw) -> int:
    with store.db.write() as conn:
        mid = _insert(store, conn, thread, f"{thread} {vector.tobytes().hex()[:24]} {kw}", **kw)
    assert store.store_vectors({mid: vector}) == 1
    return mid


def test_a_threads_search_past_the_scan_size_is_vec0s_answer_without_vec0s_scan(tmp_path, monkeypatch):
    # A write's vector candidates in a 10k thread: vec0's scan of every row cost ~20 ms a write.
    db = Database(tmp_path / "s.db")
    migrate(db, SchemaContext(dimensions=DIMS))
    store = Store(db, "default")
    ids = [_add(store, "t", _unit(n), kind="decision" if n % 3 else "note") for n in range(60)]
    _add(store, "other", _unit(1))
    with store.db.write() as conn:
        store.soft_delete(conn, ids[7], 2000)
    monkeypatch.setattr(vecindex, "VEC0_SCOPE_FAST", 10)
    scans: list[int] = []
    scan = store._vectors.vec0_knn
    monkeypatch.setattr(store._vectors, "vec0_knn", lambda *a, **kw: scans.append(1) or scan(*a, **kw))
    for n, scope in enumerate([Scope(threads=("t",)), Scope(threads=("t",), kinds=("decision",))] * 5):
        query = _unit(500 + n)
        found = store.knn(query, 5, scope)
        with store.db.read() as conn:
            exact = dict(scan(conn, query, 5, scope.threads, scope.kinds, None, None, None))
        exact.pop(ids[7], None)  # vec0's rows of a deleted memory stay (undelete): knn leaves it out
        assert found == dict(list(exact.items())[: len(found)]) and len(found) == 5
    assert not scans
    db.close()


def test_a_search_that_takes_float16s_distances_skips_vec0s_rescoring(tmp_path, monkeypatch):
    # A write's vector candidates (linker: exact=False): ~76 point lookups in vec0 were 2-4 ms of every write in a
    # thread of 2,000-20,000 rows, which a 1k thread never pays; float16's distances are within ~1e-4.
    db = Database(tmp_path / "s.db")
    migrate(db, SchemaContext(dimensions=DIMS))
    store = Store(db, "default")
    for n in range(60):
        _add(store, "t", _unit(n))
    monkeypatch.setattr(vecindex, "VEC0_SCOPE_FAST", 10)
    rescores: list[int] = []
    rescore = store._vectors.vec0_rescored
    monkeypatch.setattr(store._vectors, "vec0_rescored", lambda *a, **kw: rescores.append(1) or rescore(*a, **kw))
    for n in range(5):
        query = _unit(500 + n)
        exact = store.knn(query, 5, Scope(threads=("t",)))
        assert rescores and rescores.pop()
        rough = store.knn(query, 5, Scope(threads=("t",)), exact=False)
        assert not rescores
        assert list(rough) == list(exact) and all(abs(rough[i] - exact[i]) < 1e-3 for i in exact)
    db.close()


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
    assert list(store.knn(query, 10, Scope(threads=("elsewhere", "mine"), tags=("db",)))) == [tagged]
    assert store.knn(query, 10, Scope(threads=("nobody",))) == {}


def test_other_processes_writes_are_seen_at_the_next_search(tmp_path, route):
    path = tmp_path / "shared.db"
    first, second = Database(path), Database(path)  # two processes' connections
    migrate(first, SchemaContext(dimensions=DIMS))
    a, b = Store(first, "default"), Store(second, "default")
    query = _unit(5)
    assert a.knn(query, 5, Scope()) == {}
    written = _add(b, "t", query)
    assert list(a.knn(query, 5, Scope())) == [written]
    with second.write() as conn:
        b.soft_delete(conn, written, 9)
    assert a.knn(query, 5, Scope()) == {} and a.knn(query, 5, Scope(threads=("t",))) == {}
    with second.write() as conn:
        b.undelete(conn, written, 10, "text")
    assert list(a.knn(query, 5, Scope())) == [written]
    # A changed vector (a compressed memory re-embedded) replaces the old one.
    with second.write() as conn:
        conn.execute("INSERT INTO pending_embeddings(memory_id) VALUES (?)", (written,))
    b.store_vectors({written: -query})
    assert list(a.knn(query, 1, Scope()).values()) == [pytest.approx(2.0, abs=1e-3)]
    assert a.cosines(query, [written]) == {written: pytest.approx(-1.0, abs=1e-3)}
    with second.write() as conn:
        b.hard_delete(conn, written, None)
    assert a.knn(query, 5, Scope()) == {} and a.cosines(query, [written]) == {}
    assert first.conn.execute("SELECT count(*) FROM vec_memories").fetchone()[0] == 0
    first.close()
    second.close()


def test_a_writer_that_died_before_appending_is_caught_up_by_a_reader(tmp_path, monkeypatch):
    path = tmp_path / "shared.db"
    first, second = Database(path), Database(path)
    migrate(first, SchemaContext(dimensions=DIMS))
    a, b = Store(first, "default"), Store(second, "default")
    monkeypatch.setattr("server.storage.sqlite.vectors.VEC0_SCOPE_MAX", -1)
    assert a.knn(_unit(0), 5, Scope()) == {}
    monkeypatch.setattr(b._vectors, "sync", lambda *args, **kw: None)  # committed, never appended
    ids = [_add(b, "t", _unit(n)) for n in range(5)]
    assert a._vectors._current().applied < first.conn.execute("SELECT max(seq) FROM vector_changes").fetchone()[0]
    assert list(a.knn(_unit(3), 1, Scope())) == [ids[3]]  # a read the rows from vec0 and appended them
    assert a._vectors._current().count == 5
    first.close()
    second.close()


def test_a_sidecar_behind_the_pruned_log_or_lost_is_rebuilt_from_vec0(tmp_path, monkeypatch):
    monkeypatch.setattr(vecindex, "CHANGES_KEPT", 3)
    monkeypatch.setattr("server.storage.sqlite.vectors.VEC0_SCOPE_MAX", -1)
    path = tmp_path / "shared.db"
    first, second = Database(path), Database(path)
    migrate(first, SchemaContext(dimensions=DIMS))
    a, b = Store(first, "default"), Store(second, "default")
    assert a.knn(_unit(0), 5, Scope()) == {}
    monkeypatch.setattr(b._vectors, "sync", lambda *args, **kw: None)
    ids = [_add(b, "t", _unit(n)) for n in range(20)]
    assert first.conn.execute("SELECT count(*) FROM vector_changes").fetchone()[0] <= 4
    assert sorted(a.knn(_unit(0), 50, Scope())) == sorted(ids)
    side = a._vectors._current()
    side.path.write_bytes(b"garbage")  # a damaged file: rebuilt as well
    assert sorted(a.knn(_unit(0), 50, Scope())) == sorted(ids)
    side.path.unlink()
    assert sorted(a.knn(_unit(0), 50, Scope())) == sorted(ids)
    first.close()
    second.close()


def test_a_search_inside_a_rolled_back_transaction_leaves_no_trace(store):
    query = _unit(3)
    kept = _add(store, "t", query)
    assert next(iter(store.knn(query, 5, Scope()))) == kept
    with pytest.raises(RuntimeError), store.db.write() as conn:
        store.soft_delete(conn, kept, 9)
        assert kept not in store.knn(query, 5, Scope(threads=("t",)))  # vec0 sees the transaction's own change
        raise RuntimeError("roll back")
    assert next(iter(store.knn(query, 5, Scope()))) == kept
    assert next(iter(store.knn(query, 5, Scope(threads=("t",))))) == kept


def test_a_memory_is_ranked_by_its_best_passage_and_leaves_with_all_of_them(store):
    query = _unit(11)
    with store.db.write() as conn:
        long_one = _insert(store, conn, "t", "a long memory")
        others = [_insert(store, conn, "t", f"short {n}") for n in range(5)]
    passages = np.stack([_unit(500), _unit(501), query + 0.01 * _unit(502)])  # the fact is in the third passage
    store.store_vectors({long_one: passages, **{m: _unit(600 + n) for n, m in enumerate(others)}})
    assert store.db.conn.execute("SELECT passages FROM vector_rows WHERE memory_id = ?", (long_one,)).fetchone() == (3,)
    hits = store.knn(query, 3, Scope())
    assert next(iter(hits)) == long_one and list(hits).count(long_one) == 1
    best = float(passages[2] @ query / np.linalg.norm(passages[2]))
    assert hits[long_one] == pytest.approx(1 - best, abs=1e-3)
    assert store.cosines(query, [long_one]) == {long_one: pytest.approx(best, abs=1e-3)}
    with store.db.read() as conn:
        assert np.array_equal(store.vectors(conn, [long_one])[long_one], passages)
    with store.db.write() as conn:
        store.soft_delete(conn, long_one, 9)
    assert long_one not in store.knn(query, 3, Scope()) and long_one not in store.knn(query, 3, Scope(threads=("t",)))
    with store.db.write() as conn:
        store.hard_delete(conn, long_one, None)
    assert store.db.conn.execute("SELECT count(*) FROM vec_memories").fetchone()[0] == len(others)


def test_passage_slots_match_the_embedders_passage_limit():
    assert MAX_PASSAGES == PASSAGE_SLOTS


def test_recall_at_10_of_the_sidecar_against_exact_search(tmp_path, monkeypatch):
    """The sidecar's approximate path (bits, asymmetric score, float16) keeps most of the exact top 10
    and re-scores exactly; the vec0 route is exact. Shares scaled so that the approximate path runs
    on 3,000 rows."""
    monkeypatch.setattr(sidecar_mod, "FLOOR", 150)
    monkeypatch.setattr(sidecar_mod, "EXACT_ROWS", 0)
    monkeypatch.setattr(sidecar_mod, "NARROW", 0.05)
    monkeypatch.setattr(sidecar_mod, "WIDE", 0.3)
    monkeypatch.setattr(sidecar_mod, "WIDE_ROWS", 0)
    dims = 128
    db = Database(tmp_path / "r.db")
    migrate(db, SchemaContext(dimensions=dims))
    store = Store(db, "default")
    rng = np.random.default_rng(7)
    basis = rng.standard_normal((48, dims)).astype(np.float32)  # near a subspace, like embeddings
    vectors = rng.standard_normal((3000, 48)).astype(np.float32) @ basis + 0.3 * rng.standard_normal((3000, dims)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    with db.write() as conn:
        ids = np.asarray([_insert(store, conn, f"t{n % 5}", f"m{n}") for n in range(len(vectors))])
    store.store_vectors(dict(zip(ids.tolist(), vectors)))
    found = 0
    for _ in range(50):
        query = vectors[rng.integers(0, len(vectors))] + 0.3 * rng.standard_normal(dims).astype(np.float32)
        cosine = vectors @ query / np.linalg.norm(query)
        exact = ids[np.argsort(-cosine, kind="stable")[:10]]
        hits = store.knn(query, 10, Scope())
        found += len(set(exact) & set(hits))
        by_id = dict(zip(ids.tolist(), cosine.tolist()))
        assert list(hits.values()) == pytest.approx([1 - by_id[m] for m in hits], abs=2e-3)  # float16 re-scoring
        in_thread = store.knn(query, 10, Scope(threads=("t3",)))  # 600 rows: vec0, exact
        assert list(in_thread) == ids[3::5][np.argsort(-cosine[3::5], kind="stable")[:10]].tolist()
    assert store._vectors._current().count == 3000
    # Gaussian vectors are the hard case for sign bits (bench/scale.py measures real MiniLM vectors,
    # where the same shares keep >= 0.98); with every row scored, the search is exact.
    assert found / 500 >= 0.85
    monkeypatch.setattr(sidecar_mod, "FLOOR", 3000)
    query = vectors[5]
    assert list(store.knn(query, 10, Scope())) == ids[np.argsort(-(vectors @ query), kind="stable")[:10]].tolist()
    db.close()


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


def test_reembed_replaces_every_vector(service, monkeypatch):
    monkeypatch.setattr(vecindex, "CHANGES_KEPT", 2)  # the reset prunes the log past what the sidecar saw
    monkeypatch.setattr("server.storage.sqlite.vectors.VEC0_SCOPE_MAX", -1)
    ids = [service.remember(f"kafka consumer group number {n}", thread="t").id for n in range(5)]
    service.indexer.run_once()
    before = service.recall("kafka consumer group", thread="t", k=10).memories
    assert {m.id for m in before} == set(ids)
    rows = service.db.conn.execute("SELECT count(*) FROM vec_memories").fetchone()[0]
    assert service.reembed() >= len(ids)
    after = service.recall("kafka consumer group", thread="t", k=10).memories
    assert [(m.id, m.score, m.match) for m in after] == [(m.id, m.score, m.match) for m in before]
    assert service.db.conn.execute("SELECT count(*) FROM vec_memories").fetchone()[0] == rows


def test_the_retired_prescan_setting_is_gone():
    assert not hasattr(Settings(), "vector_prescan_from")


def test_a_writer_killed_between_appending_and_publishing_leaves_no_duplicate(tmp_path, monkeypatch):
    path = tmp_path / "shared.db"
    first, second = Database(path), Database(path)
    migrate(first, SchemaContext(dimensions=DIMS))
    a, b = Store(first, "default"), Store(second, "default")
    monkeypatch.setattr(vecindex, "VEC0_SCOPE_MAX", -1)
    kept = _add(b, "t", _unit(1))
    real_publish = sidecar_mod.Sidecar.publish

    def killed(self, applied):
        raise KeyboardInterrupt("killed after writing rows, before publishing them")

    monkeypatch.setattr(sidecar_mod.Sidecar, "publish", killed)
    with b.db.write() as conn:
        new = _insert(b, conn, "t", "written, then its process died")
    with pytest.raises(KeyboardInterrupt):
        b.store_vectors({new: _unit(2)})  # committed in SQLite; the sidecar rows written, not published
    monkeypatch.setattr(sidecar_mod.Sidecar, "publish", real_publish)
    assert sorted(a.knn(_unit(2), 5, Scope())) == sorted([kept, new])
    side = a._vectors._current()
    assert side.count == 2 and side.applied == first.conn.execute("SELECT max(seq) FROM vector_changes").fetchone()[0]
    assert sorted(side.column("ids").tolist()) == sorted([kept * PASSAGE_SLOTS, new * PASSAGE_SLOTS])
    first.close()
    second.close()


def test_searches_see_a_new_or_forgotten_memory_though_the_masks_are_kept(store):
    # The sidecar keeps its live rows and each thread's rows between searches (Sidecar.live,
    # VectorIndex._matching): a memory written or forgotten since must count at once.
    a = [_add(store, "a", _unit(n)) for n in range(6)]
    b = [_add(store, "b", _unit(100 + n)) for n in range(6)]
    query = _unit(3)
    assert set(store.knn(query, 20, Scope(threads=("b",)))) == set(b)
    assert a[3] in store.knn(query, 20, Scope())
    new = _add(store, "b", _unit(3))
    assert set(store.knn(query, 20, Scope(threads=("b",)))) == {*b, new}
    with store.db.write() as conn:
        store.soft_delete(conn, a[3], 2000)
        store.soft_delete(conn, new, 2000)
    assert a[3] not in store.knn(query, 20, Scope())
    assert set(store.knn(query, 20, Scope(threads=("b",)))) == set(b)


def test_vec0_rescores_only_the_shortlist_float16_cannot_rule_out(tmp_path, monkeypatch):
    # A recall in a thread of a million-memory file: 116 point lookups in vec0 (~35 us each: a read into a
    # 1.5 MB chunk) re-scored float16's shortlist; those more than 2 x F16_SLACK past its k-th cannot be in the top k.
    from server.storage.sqlite import search as sqlite_search

    db = Database(tmp_path / "s.db")
    migrate(db, SchemaContext(dimensions=DIMS))
    store = Store(db, "default")
    rng = np.random.default_rng(3)
    for _ in range(200):
        v = rng.standard_normal(DIMS).astype(np.float32)
        _add(store, "t", v / np.linalg.norm(v))
    monkeypatch.setattr(vecindex, "VEC0_SCOPE_FAST", 10)
    asked: list[int] = []
    rescore = store._vectors.vec0_rescored
    monkeypatch.setattr(store._vectors, "vec0_rescored", lambda c, q, ids, k: asked.append(len(ids)) or rescore(c, q, ids, k))
    scan = store._vectors.vec0_knn
    for n in range(10):
        query = rng.standard_normal(DIMS).astype(np.float32)
        found = store.knn(query, 5, Scope(threads=("t",)))
        with store.db.read() as conn:
            exact = dict(scan(conn, query, 5, ("t",), None, None, None, None))
        assert found == exact
        with monkeypatch.context() as m:
            m.setattr(sqlite_search, "F16_SLACK", float("inf"))  # the whole shortlist re-scored: the same answer
            assert store.knn(query, 5, Scope(threads=("t",))) == found
    assert asked[::2] and max(asked[::2]) < 2 * 5 + 16 == min(asked[1::2])
    db.close()
