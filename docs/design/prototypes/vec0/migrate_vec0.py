"""Migration of today's schema (plain `memory_vectors` table) to a vec0 table, resumable after kill -9.

The plan measured here (docs/design/vec0-index.md, "Migration"):
  step 0  (one transaction) create `vec_memories` (vec0) and the cursor row meta('vec0_cursor', 0);
          remember the change-log position meta('vec0_from_seq', max(vector_changes.seq)).
  step 1+ (one transaction each, BEGIN IMMEDIATE) read the cursor, copy the next BATCH vectors in
          memory_id order with their memory's search fields (INSERT INTO vec0 ... SELECT ... JOIN
          memories), move the cursor. A kill -9 loses at most the open batch, which rolls back;
          any process can take the next batch (the cursor is read inside the write lock).
  last    (one transaction) re-copy every memory the change log names after vec0_from_seq (writes
          by processes that were still running the old version), check counts, drop the plain
          table and its log triggers, install the triggers that keep vec0's metadata in step, and
          bump user_version.
Vectors are copied as the bytes they are (never re-embedded) and compared byte for byte at the end.

    python migrate_vec0.py --rows 1000000                  # build the old store, migrate, verify
    python migrate_vec0.py --rows 1000000 --kill-at 0.5    # kill -9 the migrating process half-way first
"""

from __future__ import annotations

import argparse
import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from common import DIMS, SCRATCH, connect, write_result

BATCH = 10_000

VEC0 = (f"CREATE VIRTUAL TABLE vec_memories USING vec0(memory_id INTEGER PRIMARY KEY, "
        f"embedding FLOAT[{DIMS}] distance_metric=cosine, namespace TEXT PARTITION KEY, thread TEXT, kind TEXT, "
        "deleted INTEGER, created_at INTEGER)")
COPY = ("INSERT INTO vec_memories(memory_id, embedding, namespace, thread, kind, deleted, created_at) "
        "SELECT v.memory_id, v.embedding, m.namespace, m.thread, m.kind, m.deleted_at IS NOT NULL, m.created_at "
        "FROM memory_vectors v JOIN memories m ON m.id = v.memory_id WHERE v.memory_id > ? "
        "ORDER BY v.memory_id LIMIT ?")
# After the migration: vec0's copy of the search fields follows `memories` (what vector_changes did).
TRIGGERS = (
    "CREATE TRIGGER vec_memory_fields AFTER UPDATE OF namespace, thread, kind, created_at, deleted_at ON memories "
    "BEGIN UPDATE vec_memories SET thread = new.thread, kind = new.kind, created_at = new.created_at, "
    "deleted = new.deleted_at IS NOT NULL WHERE memory_id = new.id; END",
    "CREATE TRIGGER vec_memory_erased AFTER DELETE ON memories BEGIN "
    "DELETE FROM vec_memories WHERE memory_id = old.id; END",
)


def build_old(path: Path, n: int) -> float:
    """Today's schema (migrations m001-m006) with n memories and their vectors, in bulk."""
    from server.storage.sqlite.db import Database
    from server.storage.sqlite.migrations import SchemaContext, migrate

    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    db = Database(path)
    migrate(db, SchemaContext(dimensions=DIMS))
    rng = np.random.default_rng(3)
    t0 = time.perf_counter()
    for start in range(1, n + 1, 20_000):
        ids = range(start, min(start + 20_000, n + 1))
        vecs = rng.standard_normal((len(ids), DIMS)).astype(np.float32)
        with db.write() as conn:
            conn.executemany(
                "INSERT INTO memories(id, namespace, thread, content, kind, content_hash, created_at, updated_at, "
                "deleted_at) VALUES (?, 'default', ?, 'x', 'note', ?, ?, ?, ?)",
                [(i, f"project-{i % 200}", str(i), i * 1000, i * 1000, i if i % 97 == 3 else None) for i in ids])
            conn.executemany("INSERT INTO memory_vectors(memory_id, embedding) VALUES (?, ?)",
                             [(i, v.tobytes()) for i, v in zip(ids, vecs)])
            conn.execute("DELETE FROM vector_changes")
    db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return time.perf_counter() - t0


def step(conn) -> int:
    """One batch; returns how many vectors it copied (0: nothing left)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        cursor = int(conn.execute("SELECT value FROM meta WHERE key = 'vec0_cursor'").fetchone()[0])
        copied = conn.execute(COPY, (cursor, BATCH)).rowcount
        if copied > 0:
            top = conn.execute("SELECT max(memory_id) FROM (SELECT memory_id FROM memory_vectors WHERE memory_id > ? "
                               "ORDER BY memory_id LIMIT ?)", (cursor, BATCH)).fetchone()[0]
            conn.execute("UPDATE meta SET value = ? WHERE key = 'vec0_cursor'", (str(top),))
        conn.execute("COMMIT")
        return max(copied, 0)
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def migrate(path: Path) -> dict:
    conn = connect(path, cache_mb=64)
    t0 = time.perf_counter()
    conn.execute("BEGIN IMMEDIATE")
    if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'vec_memories'").fetchone() is None:
        conn.execute(VEC0)
        conn.execute("INSERT INTO meta(key, value) VALUES ('vec0_cursor', '0')")
        seq = conn.execute("SELECT coalesce(max(seq), 0) FROM vector_changes").fetchone()[0]
        conn.execute("INSERT INTO meta(key, value) VALUES ('vec0_from_seq', ?)", (str(seq),))
    conn.execute("COMMIT")
    batches = 0
    while step(conn):
        batches += 1
        if os.environ.get("VEC0_SLOW"):  # lets the kill test land mid-way on a small store
            time.sleep(float(os.environ["VEC0_SLOW"]))
    copy_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    conn.execute("BEGIN IMMEDIATE")
    since = int(conn.execute("SELECT value FROM meta WHERE key = 'vec0_from_seq'").fetchone()[0])
    changed = [r[0] for r in conn.execute("SELECT DISTINCT memory_id FROM vector_changes WHERE seq > ?", (since,))]
    for memory_id in changed:  # written meanwhile by an old-version process: copy again
        conn.execute("DELETE FROM vec_memories WHERE memory_id = ?", (memory_id,))
        conn.execute(COPY.replace("v.memory_id > ?", "v.memory_id = ?"), (memory_id, 1))
    plain = conn.execute("SELECT count(*) FROM memory_vectors WHERE memory_id IN (SELECT id FROM memories)").fetchone()[0]
    moved = conn.execute("SELECT count(*) FROM vec_memories").fetchone()[0]
    assert plain == moved, (plain, moved)
    conn.execute("DROP TABLE memory_vectors")  # its triggers go with it
    for name in ("memory_search_fields", "memory_erased"):
        conn.execute(f"DROP TRIGGER IF EXISTS {name}")
    conn.execute("DROP TABLE vector_changes")
    for sql in TRIGGERS:
        conn.execute(sql)
    conn.execute("DELETE FROM meta WHERE key IN ('vec0_cursor', 'vec0_from_seq')")
    conn.execute("PRAGMA user_version = 7")
    conn.execute("COMMIT")
    finish_s = time.perf_counter() - t1
    conn.close()
    return {"batches_this_run": batches, "copy_s": round(copy_s, 1), "finish_s": round(finish_s, 2),
            "rows": moved, "replayed_from_log": len(changed)}


def digest(conn, sql: str) -> tuple[int, str]:
    h = hashlib.sha256()
    n = 0
    for memory_id, blob in conn.execute(sql):
        h.update(memory_id.to_bytes(8, "little") + blob)
        n += 1
    return n, h.hexdigest()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--kill-at", type=float, default=None, help="kill -9 the migrating child after this share")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(migrate(Path(args.child)), flush=True)
        return
    path = SCRATCH / f"migrate-{args.rows}.db"
    SCRATCH.mkdir(parents=True, exist_ok=True)
    build_s = build_old(path, args.rows)
    conn = connect(path)
    before = digest(conn, "SELECT memory_id, embedding FROM memory_vectors ORDER BY memory_id")
    conn.close()
    result: dict = {"rows": args.rows, "batch": BATCH, "build_old_s": round(build_s, 1),
                    "old_file_bytes": path.stat().st_size}
    if args.kill_at is not None:
        child = subprocess.Popen([sys.executable, __file__, "--child", str(path)])
        watch = connect(path)
        while True:
            time.sleep(0.05)
            row = watch.execute("SELECT value FROM meta WHERE key = 'vec0_cursor'").fetchone()
            if row and int(row[0]) >= args.kill_at * args.rows:
                os.kill(child.pid, signal.SIGKILL)
                break
        child.wait()
        cursor = int(watch.execute("SELECT value FROM meta WHERE key = 'vec0_cursor'").fetchone()[0])
        in_vec0 = watch.execute("SELECT count(*) FROM vec_memories").fetchone()[0]
        watch.close()
        result["killed"] = {"cursor": cursor, "rows_in_vec0": in_vec0, "consistent": in_vec0 == cursor}
        print("killed", result["killed"], flush=True)
    t = time.perf_counter()
    result["run"] = migrate(path)
    result["migrate_wall_s"] = round(time.perf_counter() - t, 1)
    conn = connect(path)
    after = digest(conn, "SELECT memory_id, embedding FROM vec_memories ORDER BY memory_id")
    result["every_vector_identical"] = before == after
    deleted = conn.execute("SELECT count(*) FROM vec_memories WHERE deleted = 1").fetchone()[0]
    result["deleted_flags"] = deleted
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    result["new_file_bytes"] = path.stat().st_size
    result["integrity"] = conn.execute("PRAGMA quick_check").fetchone()[0]
    conn.close()
    print(result)
    print(write_result(f"migrate_vec0-{args.rows}" + ("-killed" if args.kill_at is not None else ""), result))


if __name__ == "__main__":
    main()
