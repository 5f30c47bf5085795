"""The SQLite store: schema, persistence, and filters applied inside the vector search."""

from __future__ import annotations

import numpy as np
import pytest

from server.storage.sqlite.db import Database, integrity_errors
from server.errors import ModelMismatch, SetupError
from server.embedding.embedders import HashEmbedder
from server.storage.sqlite.migrations import MIGRATIONS, SchemaContext, migrate
from server.service import MemoryService
from server.storage.protocol import GLOBAL, NewMemory, Scope
from server.storage.sqlite.store import Store


def _tables(db: Database) -> set[str]:
    return {r[0] for r in db.conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}


def test_migrations_from_empty_create_every_table(tmp_path):
    db = Database(tmp_path / "m.db")
    assert migrate(db, SchemaContext(dimensions=8)) == len(MIGRATIONS)
    assert db.conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    assert {"meta", "threads", "memories", "memory_tags", "global_prompts", "pending_embeddings",
            "vec_memories", "vector_rows", "memory_fts"} <= _tables(db)
    assert "memory_vectors" not in _tables(db)
    assert db.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert integrity_errors(db.conn) == []
    db.close()


def test_migrate_twice_is_a_no_op(tmp_path):
    db = Database(tmp_path / "m.db")
    migrate(db, SchemaContext(dimensions=8))
    before = db.conn.execute("SELECT sql FROM sqlite_master ORDER BY name").fetchall()
    assert migrate(db, SchemaContext(dimensions=8)) == len(MIGRATIONS)
    assert db.conn.execute("SELECT sql FROM sqlite_master ORDER BY name").fetchall() == before
    db.close()


def test_a_store_from_a_newer_memvault_is_refused(tmp_path):
    db = Database(tmp_path / "m.db")
    db.conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    with pytest.raises(SetupError, match="newer than this memvault"):
        migrate(db, SchemaContext(dimensions=8))
    db.close()


def test_memories_persist_across_reconnects(settings, clock):
    svc = MemoryService.open(settings, embedder=HashEmbedder(), clock=clock)
    stored = svc.remember("The deploy script lives in ops/deploy.sh", kind="fact", thread="infra")
    svc.close()
    again = MemoryService.open(settings, embedder=HashEmbedder(), clock=clock)
    try:
        hits = again.recall("where is the deploy script", thread="infra").memories
        assert [m.id for m in hits] == [stored.id]
        assert hits[0].content == "The deploy script lives in ops/deploy.sh"
    finally:
        again.close()


def test_a_store_keeping_one_possible_update_per_memory_migrates_to_several_keeping_it(settings, clock):
    """m013 kept one possible update per memory (its primary key); m016 keeps several (issue 32), the
    recorded one carried over."""
    from server.storage.protocol import PossibleUpdate
    from server.storage.sqlite.migrations import m013_possible_updates

    svc = MemoryService.open(settings, embedder=HashEmbedder(), clock=clock)
    old, other, new = (svc.remember(text, thread="t").id for text in ("Builds run on Jenkins", "Builds take 40 minutes",
                                                                      "CI is GitHub Actions"))
    with svc.db.write() as conn:  # the store as schema 15 left it (m013's one possible update per memory)
        conn.execute("DROP TABLE possible_updates")
        m013_possible_updates(conn, SchemaContext(dimensions=8))
        conn.execute("INSERT INTO possible_updates VALUES (?, ?, 0.25)", (new, old))
        conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) - 1}")
    svc.close()
    again = MemoryService.open(settings, embedder=HashEmbedder(), clock=clock)
    try:
        assert again.store.possible_updates_of([new]) == {new: PossibleUpdate(old, 0.25)}
        again.store.record_possible_updates({new: [PossibleUpdate(old, 0.25), PossibleUpdate(other, 0.125)]})
        with again.db.read() as conn:
            assert again.store.possible_updates_all(conn) == {new: [PossibleUpdate(old, 0.25), PossibleUpdate(other, 0.125)]}
            assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
            assert integrity_errors(conn) == []
    finally:
        again.close()


def test_a_different_embedding_model_is_refused_with_the_fix(settings, clock):
    MemoryService.open(settings, embedder=HashEmbedder(), clock=clock).close()
    with pytest.raises(ModelMismatch, match="memvault reembed"):
        MemoryService.open(settings, embedder=HashEmbedder(dimensions=16), clock=clock)


# -- filters inside the KNN ---------------------------------------------------

def _unit(seed: int, dims: int = 8) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(dims).astype(np.float32)
    return v / np.linalg.norm(v)


@pytest.fixture
def store(tmp_path):
    db = Database(tmp_path / "s.db")
    migrate(db, SchemaContext(dimensions=8))
    yield Store(db, "default")
    db.close()


def _add(store: Store, thread: str, vector: np.ndarray, kind: str = "note", created: int = 1000, tags=()) -> int:
    with store.db.write() as conn:
        mid = store.insert_memory(
            conn,
            NewMemory(thread=thread, content=f"m {thread} {created} {vector[0]}", kind=kind, source="test",
                      origin=None, importance=0.5, tags=tuple(tags), content_hash=str(vector.tobytes()) + thread,
                      created_at=created, updated_at=created, index_text="x"),
        )
    store.store_vectors({mid: vector})
    return mid


def test_knn_never_returns_a_nearer_memory_from_another_thread(store):
    query = _unit(1)
    near_other = _add(store, "other", query)  # identical vector, wrong thread
    mine = [_add(store, "mine", _unit(100 + i)) for i in range(3)]
    hits = store.knn(query, k=3, scope=Scope(threads=("mine", GLOBAL)))
    assert near_other not in hits
    assert sorted(hits) == sorted(mine)


def test_knn_returns_k_results_when_other_threads_are_closer(store):
    query = _unit(1)
    for i in range(30):  # many closer vectors elsewhere
        _add(store, "noise", query + 0.01 * _unit(200 + i))
    mine = [_add(store, "mine", _unit(300 + i)) for i in range(5)]
    hits = store.knn(query, k=5, scope=Scope(threads=("mine",)))
    assert sorted(hits) == sorted(mine)


def test_knn_filters_kind_time_tags_and_deleted_inside_the_scan(store):
    query = _unit(7)
    decision = _add(store, "t", query + 0.05 * _unit(1), kind="decision", created=5000, tags=("db",))
    _add(store, "t", query, kind="note", created=5000)
    old = _add(store, "t", query + 0.01 * _unit(2), kind="decision", created=10)
    assert list(store.knn(query, 5, Scope(kinds=("decision",), since=1000))) == [decision]
    assert list(store.knn(query, 5, Scope(until=100))) == [old]
    assert list(store.knn(query, 5, Scope(tags=("db",)))) == [decision]
    with store.db.write() as conn:
        store.soft_delete(conn, decision, 9999)
    assert decision not in store.knn(query, 5, Scope())
    assert store.knn(query, 5, Scope(tags=("db",))) == {}


def test_store_vectors_is_idempotent(store):
    mid = _add(store, "t", _unit(3))
    assert store.store_vectors({mid: _unit(4)}) == 0  # no longer pending: left alone
    assert store.db.conn.execute("SELECT count(*) FROM vec_memories").fetchone()[0] == 1


def test_namespaces_never_see_each_other(tmp_path):
    db = Database(tmp_path / "n.db")
    migrate(db, SchemaContext(dimensions=8))
    a, b = Store(db, "a"), Store(db, "b")
    query = _unit(5)
    in_a = _add(a, GLOBAL, query)
    assert b.knn(query, 5, Scope()) == {}
    assert list(a.knn(query, 5, Scope())) == [in_a]
    assert b.get([in_a]) == {}
    db.close()


def test_the_waiting_update_checks_are_read_without_walking_the_memories(tmp_path):
    """Every recall asks for marked memories (Store.unjudged). With a million memories' statistics
    and none for the (small, often empty) mark table, SQLite walked the namespace's memories first:
    75 ms a recall at 1M (bench/scale.py). The mark table must be the outer loop."""
    settings_home = tmp_path / "home"
    from server.config import Settings

    svc = MemoryService.open(Settings(home=settings_home, embedder="hash"), embedder=HashEmbedder())
    svc.remember("one note")
    svc.close()
    db = Database(settings_home / "memvault.db")
    db.conn.execute("ANALYZE")
    db.conn.execute("DELETE FROM sqlite_stat1")
    db.conn.executemany(  # what ANALYZE wrote on the 1M store of bench/scale.py
        "INSERT INTO sqlite_stat1(tbl, idx, stat) VALUES ('memories', ?, ?)",
        [("memories_by_time", "1000000 2001 2001 1"), ("memories_live_content", "1000000 2001 2001 1"),
         ("memories_file_unit", "0 0 0 0")],
    )
    db.close()
    db = Database(settings_home / "memvault.db")  # statistics are read when a connection opens
    seen: list[str] = []
    db.conn.set_trace_callback(seen.append)
    assert Store(db, "default").unjudged(8) == []
    db.conn.set_trace_callback(None)
    [sql] = [s for s in seen if "update_checks" in s]
    plan = [r[3] for r in db.conn.execute("EXPLAIN QUERY PLAN " + sql)]
    assert plan[0].startswith("SCAN u"), plan
    db.close()


def test_a_scope_is_counted_from_the_live_index_without_reading_the_memories(tmp_path):
    """Every hook prompt counts its thread (search.scope_size, for the common-term cut). Through
    memories_by_time SQLite read every row for deleted_at: 70-110 ms at 100k memories in a thread
    (bench/hooks.py); the live-content index holds exactly the live rows."""
    from server.config import Settings

    settings_home = tmp_path / "home"
    svc = MemoryService.open(Settings(home=settings_home, embedder="hash"), embedder=HashEmbedder())
    svc.remember("one note", thread="api")
    svc.remember("another note", thread="api")
    svc.close()
    db = Database(settings_home / "memvault.db")
    db.conn.execute("ANALYZE")
    db.conn.execute("DELETE FROM sqlite_stat1")
    db.conn.executemany(  # what PRAGMA optimize wrote on the 100k + 100k store of bench/hooks.py
        "INSERT INTO sqlite_stat1(tbl, idx, stat) VALUES ('memories', ?, ?)",
        [("memories_by_time", "200000 2001 2001 1"), ("memories_live_content", "200000 2001 2001 1"),
         ("memories_file_unit", "0 0 0 0")],
    )
    db.close()
    db = Database(settings_home / "memvault.db")  # statistics are read when a connection opens
    store = Store(db, "default")
    seen: list[str] = []
    db.conn.set_trace_callback(seen.append)
    assert store.scope_size(Scope(threads=("api",))) == 2
    assert store.scope_size(Scope()) == 2
    db.conn.set_trace_callback(None)
    counts = [s for s in seen if "count(*)" in s]
    assert len(counts) == 2
    for sql in counts:
        # As the store runs it: with bound parameters (the trace shows them inlined, and with literal
        # values SQLite picks the partial index by itself).
        params = [v for v in ("default", "api") if f"'{v}'" in sql]
        sql = sql.replace("'default'", "?").replace("'api'", "?")
        plan = " ".join(r[3] for r in db.conn.execute("EXPLAIN QUERY PLAN " + sql, params))
        assert "memories_live_content" in plan, plan
    db.close()


class _LockedAtFirst:
    """A connection whose switch to WAL finds the file locked `times` times, as a server starting at
    the same moment as others on a new store does (SQLite's busy handler does not wait for it)."""

    def __init__(self, conn, module, times):
        self._conn, self._module, self.times = conn, module, times

    def execute(self, sql, *args):
        if "journal_mode = WAL" in sql and self.times:
            self.times -= 1
            raise self._module.OperationalError("database is locked")
        return self._conn.execute(sql, *args)

    def __getattr__(self, name):
        return getattr(self._conn, name)


def _driver_locked_at_first(monkeypatch, times):
    from types import SimpleNamespace

    from server.storage.sqlite import db as sqlite_db

    real = sqlite_db.driver()
    fake = SimpleNamespace(**{k: getattr(real, k) for k in dir(real) if not k.startswith("__")})
    fake.connect = lambda *a, **kw: _LockedAtFirst(real.connect(*a, **kw), real, times)
    monkeypatch.setattr(sqlite_db, "driver", lambda: fake)


def test_a_store_opened_while_others_open_it_waits_for_the_switch_to_wal(tmp_path, monkeypatch):
    """Several windows started together on a new store: one server used to exit with "database is
    locked" before its first request (1 in 25 rounds of six processes; none in 40 with the wait)."""
    _driver_locked_at_first(monkeypatch, times=3)
    db = Database(tmp_path / "m.db")
    assert db.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()


def test_a_store_locked_for_longer_than_the_busy_timeout_still_fails_with_the_lock(tmp_path, monkeypatch):
    from server.storage.sqlite import db as sqlite_db

    monkeypatch.setattr(sqlite_db, "BUSY_TIMEOUT_MS", 200)
    _driver_locked_at_first(monkeypatch, times=10_000)
    with pytest.raises(Exception, match="database is locked"):
        Database(tmp_path / "m.db")
