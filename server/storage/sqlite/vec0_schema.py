"""The vec0 vector tables of record (schema m010 on): their DDL, row numbering, and the triggers that keep
them in step with the memories (used by the migrations and by the search role's rebuild)."""

from __future__ import annotations

#: A memory's vector rows in vec0 are numbered memory_id * PASSAGE_SLOTS + passage (0 = the whole
#: text as the model reads it; see server/embedding/passages.py, whose MAX_PASSAGES is this).
PASSAGE_SLOTS = 64


def vec0_ddl(dimensions: int) -> str:
    """The vectors of record (schema m010 on): one vec0 row per passage of a memory.

    namespace and thread are partition keys, so a search scoped to threads reads only those
    threads' chunks (its cost is the scope's size, not the store's); kind, deleted and
    created_at are metadata columns, filtered inside the KNN. chunk_size 64 rather than the
    default 1024: each partition allocates whole chunks (98 KB at 64, 1.5 MB at 1024, per
    thread: 200 threads took 300 MB at 1024 whatever their size), reading one row by id walks
    its chunk (0.03 ms at 64), and a 5,000-row partition searched as fast at 64 as at 256
    (9 ms, same run; 1024 was slower to look up and no faster to search in the design research).
    """
    return (
        "CREATE VIRTUAL TABLE vec_memories USING vec0("
        "row_id INTEGER PRIMARY KEY, "
        f"embedding FLOAT[{int(dimensions)}] distance_metric=cosine, "
        "namespace TEXT PARTITION KEY, thread TEXT PARTITION KEY, "
        "kind TEXT, deleted INTEGER, created_at INTEGER, chunk_size=64)"
    )


VEC0_TABLES = (
    # Which memories have vectors and how many rows (passages) each: the has-a-vector
    # check, and what a delete must remove from vec0, which takes no triggers itself.
    "CREATE TABLE IF NOT EXISTS vector_rows (memory_id INTEGER PRIMARY KEY REFERENCES memories(id) "
    "ON DELETE CASCADE, passages INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS passage_numbers (n INTEGER PRIMARY KEY)",
    f"INSERT OR IGNORE INTO passage_numbers(n) SELECT value FROM json_each('[{','.join(map(str, range(PASSAGE_SLOTS)))}]')",
    # Triggers cannot loop or touch vec0 rows by a range of ids: each row of this (empty)
    # view fires one point update or delete of a vec0 row (op 0/1: set `deleted`; 2: delete).
    "CREATE VIEW IF NOT EXISTS vec_row_ops(row_id, op) AS SELECT 0, 0 WHERE 0",
    "CREATE TRIGGER IF NOT EXISTS vec_row_op INSTEAD OF INSERT ON vec_row_ops BEGIN "
    "UPDATE vec_memories SET deleted = new.op WHERE new.op < 2 AND row_id = new.row_id; "
    "DELETE FROM vec_memories WHERE new.op = 2 AND row_id = new.row_id; END",
)

VEC0_TRIGGERS = (
    # A memory's rows go with its vector_rows entry (a re-embedding deletes then inserts;
    # erasing a memory cascades here). Each change is logged for the shared sidecar.
    "CREATE TRIGGER vector_rows_added AFTER INSERT ON vector_rows BEGIN "
    "INSERT INTO vector_changes(memory_id, vectors) VALUES (new.memory_id, 1); END",
    "CREATE TRIGGER vector_rows_removed AFTER DELETE ON vector_rows BEGIN "
    f"INSERT INTO vec_row_ops SELECT old.memory_id * {PASSAGE_SLOTS} + n, 2 FROM passage_numbers "
    "WHERE n < old.passages; "
    "INSERT INTO vector_changes(memory_id, vectors) VALUES (old.memory_id, 1); END",
    # Forgetting (and undoing it) flips the rows' metadata: the KNN skips them inside the scan.
    "CREATE TRIGGER vec_memory_deleted AFTER UPDATE OF deleted_at ON memories BEGIN "
    f"INSERT INTO vec_row_ops SELECT new.id * {PASSAGE_SLOTS} + n, new.deleted_at IS NOT NULL "
    "FROM passage_numbers WHERE n < coalesce((SELECT passages FROM vector_rows WHERE memory_id = new.id), 0); END",
    # Partition keys take no UPDATE: a memory that changes namespace or thread (nothing does
    # today) loses its vector and is queued again. kind and created_at never change.
    "CREATE TRIGGER vec_memory_moved AFTER UPDATE OF namespace, thread ON memories BEGIN "
    "DELETE FROM vector_rows WHERE memory_id = new.id; "
    "INSERT OR IGNORE INTO pending_embeddings(memory_id) VALUES (new.id); END",
)
