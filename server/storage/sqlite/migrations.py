"""Numbered, append-only schema migrations, recorded in PRAGMA user_version.

Each migration runs in its own BEGIN IMMEDIATE transaction together with the
version bump, so a crash leaves the store at the previous version, and several
processes starting at once apply each migration exactly once. Never edit a
migration that has shipped: add the next one.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from server.errors import SetupError
from server.frozen import record
from server.storage.sqlite import fts
from server.storage.sqlite.db import Database
from server.storage.sqlite.vec0_schema import PASSAGE_SLOTS, VEC0_TABLES, VEC0_TRIGGERS, vec0_ddl
from server.textindex import index_text

log = logging.getLogger(__name__)

#: The keyword index's tokenizer: porter stemming over unicode61, diacritics folded ("café" == "cafe").
#: textindex prepares the text it reads (identifier parts); query terms are words it tokenises alike.
FTS_TOKENIZER = "porter unicode61 remove_diacritics 2"


@record
class SchemaContext:
    dimensions: int


def vectors_ddl(dimensions: int) -> str:
    """The vec0 table of schema versions 1-3 (m004 replaces it; kept so old stores can be built in tests)."""
    # Every filter recall applies is a partition key or metadata column, so it
    # is applied inside the KNN scan rather than after the top-k cut.
    return f"""CREATE VIRTUAL TABLE memory_vectors USING vec0(
            memory_id INTEGER PRIMARY KEY,
            embedding FLOAT[{dimensions}] distance_metric=cosine,
            namespace TEXT PARTITION KEY,
            thread TEXT,
            kind TEXT,
            deleted INTEGER,
            created_at INTEGER
        )"""


def m001_core(conn: Any, ctx: SchemaContext) -> None:
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.execute(
        """CREATE TABLE threads (
            namespace TEXT NOT NULL,
            id TEXT NOT NULL,
            title TEXT,
            system_prompt TEXT,
            archived INTEGER NOT NULL DEFAULT 0,
            created_at INTEGER NOT NULL,
            last_active_at INTEGER NOT NULL,
            PRIMARY KEY (namespace, id)
        ) WITHOUT ROWID"""
    )
    # AUTOINCREMENT: ids appear in daily logs and archives, so a purged id must
    # never be handed to a new memory.
    conn.execute(
        """CREATE TABLE memories (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            namespace TEXT NOT NULL,
            thread TEXT NOT NULL DEFAULT '',          -- '' = global, shared by all threads
            content TEXT NOT NULL,
            kind TEXT NOT NULL,
            source TEXT NOT NULL DEFAULT 'remember',  -- how it arrived: remember, import, ...
            origin TEXT,                              -- which client wrote it
            importance REAL NOT NULL DEFAULT 0.5,
            tags TEXT NOT NULL DEFAULT '[]',          -- JSON array; memory_tags indexes it
            content_hash TEXT NOT NULL,
            created_at INTEGER NOT NULL,              -- ms since epoch, UTC
            updated_at INTEGER NOT NULL,
            deleted_at INTEGER,                       -- soft delete
            superseded_by INTEGER REFERENCES memories(id),
            recall_count INTEGER NOT NULL DEFAULT 0,
            last_recalled_at INTEGER
        )"""
    )
    conn.execute(
        "CREATE UNIQUE INDEX memories_live_content ON memories(namespace, thread, content_hash) "
        "WHERE deleted_at IS NULL"
    )
    conn.execute("CREATE INDEX memories_by_time ON memories(namespace, thread, created_at)")
    conn.execute(
        """CREATE TABLE memory_tags (
            memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
            tag TEXT NOT NULL,
            PRIMARY KEY (tag, memory_id)
        ) WITHOUT ROWID"""
    )
    conn.execute("CREATE INDEX memory_tags_by_memory ON memory_tags(memory_id)")
    conn.execute(
        """CREATE TABLE global_prompts (
            namespace TEXT NOT NULL,
            name TEXT NOT NULL,
            content TEXT NOT NULL,
            active INTEGER NOT NULL DEFAULT 1,
            priority INTEGER NOT NULL DEFAULT 0,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            PRIMARY KEY (namespace, name)
        ) WITHOUT ROWID"""
    )
    # Memories whose vector is not computed yet. Written in the same transaction
    # as the memory, removed in the same transaction as the vector: a crash in
    # between leaves the row here and the backfill resumes at start-up.
    conn.execute(
        "CREATE TABLE pending_embeddings (memory_id INTEGER PRIMARY KEY REFERENCES memories(id) ON DELETE CASCADE)"
    )
    conn.execute(vectors_ddl(ctx.dimensions))
    # Contentless: the text lives in memories; the index only needs its terms.
    conn.execute(
        # `context`: for a conversation turn, the turns just before it (see
        # ranking.CONTEXT_*), so a short reply is found by the words it answers.
        f"CREATE VIRTUAL TABLE memory_fts USING fts5(text, context, content='', contentless_delete=1, "
        f"tokenize='{FTS_TOKENIZER}')"
    )


def m002_files_threads(conn: Any, ctx: SchemaContext) -> None:
    # Bullets of SOUL.md / MEMORY.md and a person's own notes in daily logs are
    # indexed as memories (source 'file:<name>'), keyed by files.markdown.Unit.key so an
    # edit re-indexes only what changed.
    conn.execute("ALTER TABLE memories ADD COLUMN file_key TEXT")
    conn.execute("ALTER TABLE memories ADD COLUMN file_line INTEGER")
    conn.execute("ALTER TABLE memories ADD COLUMN file_section TEXT")
    conn.execute(
        "CREATE UNIQUE INDEX memories_file_unit ON memories(namespace, source, file_key) WHERE file_key IS NOT NULL"
    )
    # The recent-message window of each thread (short-term memory).
    conn.execute(
        """CREATE TABLE thread_messages (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            namespace TEXT NOT NULL,
            thread TEXT NOT NULL,
            role TEXT NOT NULL,
            content TEXT NOT NULL,
            created_at INTEGER NOT NULL
        )"""
    )
    conn.execute("CREATE INDEX thread_messages_by_thread ON thread_messages(namespace, thread, id)")
    # Memories whose line is not in the daily log yet. Written with the memory;
    # removed once the line is appended, so a failed or interrupted append is
    # visible and retried rather than silently lost.
    conn.execute(
        """CREATE TABLE daily_log_queue (
            memory_id INTEGER PRIMARY KEY REFERENCES memories(id) ON DELETE CASCADE,
            queued_at INTEGER NOT NULL
        )"""
    )


def m003_curator(conn: Any, ctx: SchemaContext) -> None:
    # An explicit pin ("important" by the user): exempt from compression, always promoted.
    conn.execute("ALTER TABLE memories ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0")
    # NULL = full text; otherwise the compression tier of the current content.
    conn.execute("ALTER TABLE memories ADD COLUMN compression TEXT")
    # The exact text a compressed memory had before its first compression. content_hash
    # of the memory stays the hash of this original, so restore can be verified.
    conn.execute(
        """CREATE TABLE memory_originals (
            memory_id INTEGER PRIMARY KEY REFERENCES memories(id) ON DELETE CASCADE,
            content TEXT NOT NULL,
            compressed_at INTEGER NOT NULL
        )"""
    )
    # Which memories are already in MEMORY.md: promoting twice adds nothing, and an
    # entry a person deleted from the file is not put back.
    conn.execute(
        """CREATE TABLE promotions (
            namespace TEXT NOT NULL,
            memory_id INTEGER NOT NULL,
            section TEXT NOT NULL,
            promoted_at INTEGER NOT NULL,
            PRIMARY KEY (namespace, memory_id)
        ) WITHOUT ROWID"""
    )


VECTORS_TABLE = (
    # The durable record of each memory's vector (float32, little-endian). Search
    # runs over an in-process matrix of these (vecindex.py); a point lookup by
    # memory_id reads one row.
    "CREATE TABLE memory_vectors (memory_id INTEGER PRIMARY KEY REFERENCES memories(id) ON DELETE CASCADE, "
    "embedding BLOB NOT NULL)"
)

VECTOR_CHANGES = (
    # Every change that can move a memory into, out of or within vector search, in
    # commit order: each process's matrix applies the entries after the last one it
    # saw. Triggers, so no write path (or other process, or older code) can forget it.
    "CREATE TABLE vector_changes (seq INTEGER PRIMARY KEY AUTOINCREMENT, memory_id INTEGER NOT NULL)",
    "CREATE TRIGGER vector_added AFTER INSERT ON memory_vectors BEGIN "
    "INSERT INTO vector_changes(memory_id) VALUES (new.memory_id); END",
    "CREATE TRIGGER vector_changed AFTER UPDATE ON memory_vectors BEGIN "
    "INSERT INTO vector_changes(memory_id) VALUES (old.memory_id); "
    "INSERT INTO vector_changes(memory_id) SELECT new.memory_id WHERE new.memory_id != old.memory_id; END",
    "CREATE TRIGGER vector_removed AFTER DELETE ON memory_vectors BEGIN "
    "INSERT INTO vector_changes(memory_id) VALUES (old.memory_id); END",
    # recall_count and the other columns a recall touches are not search metadata:
    # those writes leave every matrix as it is.
    "CREATE TRIGGER memory_search_fields AFTER UPDATE OF namespace, thread, kind, created_at, deleted_at "
    "ON memories BEGIN INSERT INTO vector_changes(memory_id) VALUES (new.id); END",
    "CREATE TRIGGER memory_erased AFTER DELETE ON memories BEGIN "
    "INSERT INTO vector_changes(memory_id) VALUES (old.id); END",
)


def m004_plain_vectors(conn: Any, ctx: SchemaContext) -> None:
    """vec0 -> a plain table searched in memory; the existing float vectors move over as they are."""
    conn.execute(VECTORS_TABLE.replace("memory_vectors", "memory_vectors_m004"))
    # Vectors of memories that are gone would violate the foreign key: leave them.
    conn.execute(
        "INSERT INTO memory_vectors_m004(memory_id, embedding) SELECT v.memory_id, v.embedding "
        "FROM memory_vectors v WHERE v.memory_id IN (SELECT id FROM memories)"
    )
    conn.execute("DROP TABLE memory_vectors")
    conn.execute("ALTER TABLE memory_vectors_m004 RENAME TO memory_vectors")
    for statement in VECTOR_CHANGES:
        conn.execute(statement)


def m005_api_tokens(conn: Any, ctx: SchemaContext) -> None:
    # Bearer tokens of the HTTP transport (server/http/tokens.py; SQL in tokens.py). Only a hash of each
    # token is kept; the token itself is shown once, when it is created. Not
    # namespaced: a token *selects* the namespace (its tenant).
    conn.execute(
        """CREATE TABLE IF NOT EXISTS api_tokens (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            token_hash TEXT NOT NULL UNIQUE,
            tenant TEXT NOT NULL,
            user_name TEXT,              -- "user" is a reserved word in PostgreSQL
            agent_name TEXT,
            label TEXT,
            created_at INTEGER NOT NULL,
            expires_at INTEGER,
            revoked_at INTEGER,
            last_used_at INTEGER
        )"""
    )


def m006_principal(conn: Any, ctx: SchemaContext) -> None:
    # Who wrote a memory (server.models.Principal: MEMVAULT_USER / MEMVAULT_AGENT, or a
    # token's identity over HTTP). Nullable: older memories and unset settings have none.
    have = {r[1] for r in conn.execute("PRAGMA table_info(memories)").fetchall()}
    for column in ("user_id", "agent"):
        if column not in have:
            conn.execute(f"ALTER TABLE memories ADD COLUMN {column} TEXT")


def m007_hyphenated_terms(conn: Any, ctx: SchemaContext) -> None:
    # Hyphenated ids (SHOP-142, orders-api) are now indexed joined as well (shop142,
    # ordersapi): re-index the live memories whose keyword text holds one -- their own
    # text, or for a conversation turn the turns before it -- as a write does today.
    rows = conn.execute(
        "SELECT id, content, file_key IS NOT NULL, file_section FROM memories WHERE deleted_at IS NULL "
        "AND (content GLOB '*[A-Za-z0-9]-[A-Za-z0-9]*' OR kind = 'turn')"
    ).fetchall()
    for memory_id, content, is_file_unit, section in rows:
        text = index_text(content, (section or None) if is_file_unit else None)
        conn.execute("DELETE FROM memory_fts WHERE rowid = ?", (memory_id,))
        conn.execute(
            "INSERT INTO memory_fts(rowid, text, context) VALUES (?, ?, ?)",
            (memory_id, text, fts.turn_context(conn, memory_id)),
        )


#: Rows copied per transaction by the batched migrations (a kill -9 loses one batch's work at most).
BATCH_ROWS = 10_000


class Batched:
    """A migration too big for one transaction: `begin`, then `step` until it returns True, then
    `finish` with the version bump. Every part runs in its own BEGIN IMMEDIATE transaction and
    keeps its cursor in `meta`, so a kill -9 loses one batch, and any process can take the
    next step (the cursor is read under the write lock)."""

    __name__ = "batched"

    def begin(self, conn: Any, ctx: SchemaContext) -> None: ...
    def step(self, conn: Any, ctx: SchemaContext) -> bool: ...
    def finish(self, conn: Any, ctx: SchemaContext) -> None: ...


def _meta(conn: Any, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def _set_meta(conn: Any, key: str, value: object) -> None:
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, str(value)))


class M010Vec0(Batched):
    """The plain `memory_vectors` table -> vec0 (`vec_memories`), every vector kept as it is.

    Existing vectors become each memory's passage 0 (no re-embedding; `memvault reembed`
    adds the passages of long memories). Batches of BATCH_ROWS in memory-id order, sorted by
    partition inside a batch (vec0 appends a partition's rows to its open chunk). Vectors that
    processes still running the previous version write meanwhile are in vector_changes after
    `vec0_from_seq`; the last step copies them again.
    """

    __name__ = "m010_vec0"

    def begin(self, conn: Any, ctx: SchemaContext) -> None:
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'vec_memories'").fetchone() is None:
            conn.execute(vec0_ddl(ctx.dimensions))
            _set_meta(conn, "m010_cursor", 0)
            seq = conn.execute("SELECT coalesce(max(seq), 0) FROM vector_changes").fetchone()[0]
            _set_meta(conn, "m010_from_seq", seq)
        for statement in VEC0_TABLES:
            conn.execute(statement)

    def step(self, conn: Any, ctx: SchemaContext) -> bool:
        cursor = int(_meta(conn, "m010_cursor") or 0)
        rows = conn.execute(
            "SELECT v.memory_id, v.embedding, m.namespace, m.thread, m.kind, m.deleted_at IS NOT NULL, m.created_at "
            "FROM memory_vectors v JOIN memories m ON m.id = v.memory_id WHERE v.memory_id > ? "
            "ORDER BY v.memory_id LIMIT ?",
            (cursor, BATCH_ROWS),
        ).fetchall()
        if not rows:
            return True
        _copy_vectors(conn, rows, ctx.dimensions)
        _set_meta(conn, "m010_cursor", rows[-1][0])
        return False

    def finish(self, conn: Any, ctx: SchemaContext) -> None:
        conn.execute("ALTER TABLE vector_changes ADD COLUMN vectors INTEGER NOT NULL DEFAULT 0")
        for statement in VEC0_TRIGGERS:
            conn.execute(statement)
        since = int(_meta(conn, "m010_from_seq") or 0)
        changed = [r[0] for r in conn.execute(
            "SELECT DISTINCT memory_id FROM vector_changes WHERE seq > ? ORDER BY memory_id", (since,))]
        for start in range(0, len(changed), 500):  # written by the previous version meanwhile: copy again
            chunk = changed[start : start + 500]
            marks = ",".join("?" * len(chunk))
            conn.execute(f"DELETE FROM vector_rows WHERE memory_id IN ({marks})", chunk)
            rows = conn.execute(
                "SELECT v.memory_id, v.embedding, m.namespace, m.thread, m.kind, m.deleted_at IS NOT NULL, "
                f"m.created_at FROM memory_vectors v JOIN memories m ON m.id = v.memory_id WHERE v.memory_id IN ({marks})",
                chunk,
            ).fetchall()
            _copy_vectors(conn, rows, ctx.dimensions)
        conn.execute("DROP TABLE memory_vectors")  # its triggers go with it
        conn.execute("DELETE FROM meta WHERE key IN ('m010_cursor', 'm010_from_seq')")


def _copy_vectors(conn: Any, rows: list, dimensions: int) -> None:
    """Insert (memory_id, blob, namespace, thread, kind, deleted, created_at) rows as passage 0."""
    size = 4 * dimensions
    good = sorted((r for r in rows if len(r[1]) == size), key=lambda r: (r[2], r[3], r[0]))
    conn.executemany(
        "INSERT INTO vec_memories(row_id, embedding, namespace, thread, kind, deleted, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(r[0] * PASSAGE_SLOTS, r[1], r[2], r[3], r[4], int(r[5]), r[6]) for r in good],
    )
    conn.executemany("INSERT INTO vector_rows(memory_id, passages) VALUES (?, 1)", [(r[0],) for r in good])
    # A vector of another size (another model's) never matched anything: embed it again.
    conn.executemany(
        "INSERT OR IGNORE INTO pending_embeddings(memory_id) VALUES (?)", [(r[0],) for r in rows if len(r[1]) != size]
    )


class M011FtsScope(Batched):
    """The keyword index gains a `scope` column (a memory's namespace and thread as one word, weight
    0 in bm25; fts.scope_token), so that a search in a thread is cut to the thread inside FTS5.

    Contentless: the index cannot be copied, so it is rebuilt from `memories` into a new table
    (batches of BATCH_ROWS live memories in id order, the text prepared as every write prepares
    it), which replaces the old one in the last step. Memories changed meanwhile by processes of
    the previous version (updated_at since the start) are indexed again at the end.
    """

    __name__ = "m011_fts_scope"

    def begin(self, conn: Any, ctx: SchemaContext) -> None:
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'memory_fts_m011'").fetchone() is None:
            conn.execute(
                "CREATE VIRTUAL TABLE memory_fts_m011 USING fts5(text, context, scope, content='', "
                f"contentless_delete=1, tokenize='{FTS_TOKENIZER}')"
            )
            _set_meta(conn, "m011_cursor", 0)
            started = conn.execute("SELECT CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)").fetchone()[0]
            _set_meta(conn, "m011_started", started)

    def step(self, conn: Any, ctx: SchemaContext) -> bool:
        cursor = int(_meta(conn, "m011_cursor") or 0)
        ids = [r[0] for r in conn.execute(
            "SELECT id FROM memories WHERE id > ? AND deleted_at IS NULL ORDER BY id LIMIT ?", (cursor, BATCH_ROWS))]
        if not ids:
            return True
        _index_again(conn, ids)
        _set_meta(conn, "m011_cursor", ids[-1])
        return False

    def finish(self, conn: Any, ctx: SchemaContext) -> None:
        started = int(_meta(conn, "m011_started") or 0)
        changed = [r[0] for r in conn.execute("SELECT id FROM memories WHERE updated_at >= ?", (started,))]
        conn.executemany("DELETE FROM memory_fts_m011 WHERE rowid = ?", [(i,) for i in changed])
        _index_again(conn, [r[0] for r in conn.execute(
            f"SELECT id FROM memories WHERE deleted_at IS NULL AND id IN ({','.join('?' * len(changed))})", changed,
        )] if changed else [])
        conn.execute("DROP TABLE memory_fts")
        conn.execute("ALTER TABLE memory_fts_m011 RENAME TO memory_fts")
        conn.execute("DELETE FROM meta WHERE key IN ('m011_cursor', 'm011_started')")


def _index_again(conn: Any, ids: list[int]) -> None:
    """Index these live memories into memory_fts_m011 as a write would (Store.fts_insert)."""
    for memory_id, content, file_key, section in conn.execute(
        f"SELECT id, content, file_key, file_section FROM memories WHERE id IN ({','.join('?' * len(ids))})", ids
    ).fetchall():
        fts.insert(conn, "memory_fts_m011", memory_id, index_text(content, section or None) if file_key is not None else index_text(content))


def m012_update_checks(conn: Any, ctx: SchemaContext) -> None:
    # Memories whose update check (server/linker.py) waits for their vector: written where no
    # model was at hand (a hook process, a burst of writes). Kept in the file, not in the writing
    # process, so whichever server embeds them judges them, even after the writer has exited.
    conn.execute(
        "CREATE TABLE IF NOT EXISTS update_checks "
        "(memory_id INTEGER PRIMARY KEY REFERENCES memories(id) ON DELETE CASCADE)"
    )


def m013_possible_updates(conn: Any, ctx: SchemaContext) -> None:
    # The earlier memory each memory most likely updates when the update model was not sure enough to
    # link them (server/linker.py): recall's newer-first order reads it. Gone with either memory.
    conn.execute(
        "CREATE TABLE IF NOT EXISTS possible_updates "
        "(memory_id INTEGER PRIMARY KEY REFERENCES memories(id) ON DELETE CASCADE, "
        "older INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE, probability REAL NOT NULL)"
    )
    conn.execute("CREATE INDEX IF NOT EXISTS possible_updates_older ON possible_updates(older)")


def m014_statement_analyses(conn: Any, ctx: SchemaContext) -> None:
    # Each memory's statement analysis (server.updates.analyses.encode), stored by the update check
    # that made it so the next ones read it instead of analysing again; `version` names the analyser
    # (an older one's is re-derived), `text_key` the text (a compressed memory's is re-derived too).
    # Derived data: an archive or a copy leaves it behind, and a store without it re-derives it.
    conn.execute(
        "CREATE TABLE IF NOT EXISTS statement_analyses "
        "(memory_id INTEGER PRIMARY KEY REFERENCES memories(id) ON DELETE CASCADE, "
        "version TEXT NOT NULL, text_key TEXT NOT NULL, analysis TEXT NOT NULL)"
    )


def m015_keyword_impacts(conn: Any, ctx: SchemaContext) -> None:
    # Per common term, its best memories by its own bm25 and what proves them (storage/sqlite/impacts.py):
    # recall's exact keyword top past the budget. Derived: built as queries need them, checked at every use.
    conn.execute(
        "CREATE TABLE IF NOT EXISTS keyword_impact_terms (term TEXT PRIMARY KEY, floor REAL NOT NULL, "
        "matches INTEGER NOT NULL, rows INTEGER NOT NULL, tokens INTEGER NOT NULL, watermark INTEGER NOT NULL)"
    )
    conn.execute(
        "CREATE TABLE IF NOT EXISTS keyword_impacts (term TEXT NOT NULL, memory_id INTEGER NOT NULL, "
        "f REAL NOT NULL, PRIMARY KEY (term, memory_id)) WITHOUT ROWID"
    )
    conn.execute("CREATE TABLE IF NOT EXISTS keyword_impact_touched (memory_id INTEGER PRIMARY KEY)")


def m016_several_possible_updates(conn: Any, ctx: SchemaContext) -> None:
    # Several earlier memories per newer one (issue 32): an update often reads like two earlier memories of
    # its subject, and with one record per memory the one it replaces was missed. SQLite cannot change a
    # primary key in place: the table is built again, its rows kept.
    conn.execute(
        "CREATE TABLE possible_updates_m016 "
        "(memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE, "
        "older INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE, probability REAL NOT NULL, "
        "PRIMARY KEY (memory_id, older)) WITHOUT ROWID"
    )
    conn.execute("INSERT INTO possible_updates_m016 SELECT memory_id, older, probability FROM possible_updates")
    conn.execute("DROP TABLE possible_updates")
    conn.execute("ALTER TABLE possible_updates_m016 RENAME TO possible_updates")
    conn.execute("CREATE INDEX IF NOT EXISTS possible_updates_older ON possible_updates(older)")

MIGRATIONS: tuple[Callable[[Any, SchemaContext], None] | Batched, ...] = (
    m001_core, m002_files_threads, m003_curator, m004_plain_vectors, m005_api_tokens, m006_principal,
    m007_hyphenated_terms,
    # Versions 8, 9 and 10 (named for the design note's numbering; the version is the position here).
    M010Vec0(), M011FtsScope(), m012_update_checks, m013_possible_updates, m014_statement_analyses,
    m015_keyword_impacts, m016_several_possible_updates,
)


def migrate(db: Database, ctx: SchemaContext) -> int:
    """Bring the store up to the newest schema; returns the version it is at."""
    target = len(MIGRATIONS)
    current = db.conn.execute("PRAGMA user_version").fetchone()[0]
    if current > target:
        raise SetupError(
            f"This store has schema version {current}, newer than this memvault understands ({target}). "
            "Upgrade memvault (pip install -U memvault) before opening it."
        )
    while current < target:
        migration = MIGRATIONS[current]
        if isinstance(migration, Batched):
            current = _run_batched(db, ctx, migration, current)
            continue
        with db.write() as conn:
            # Re-read inside the lock: another process may have migrated meanwhile.
            current = conn.execute("PRAGMA user_version").fetchone()[0]
            if current >= target:
                break
            migration = MIGRATIONS[current]
            if isinstance(migration, Batched):
                continue
            log.info("applying migration %s", migration.__name__)
            migration(conn, ctx)
            conn.execute(f"PRAGMA user_version = {current + 1}")
            current += 1
    return current


def _run_batched(db: Database, ctx: SchemaContext, migration: Batched, version: int) -> int:
    """Run a batched migration from wherever it stands; the version the store is at afterwards."""

    def still(conn: Any) -> bool:  # another process may have finished it meanwhile
        return conn.execute("PRAGMA user_version").fetchone()[0] == version

    with db.write() as conn:
        if not still(conn):
            return conn.execute("PRAGMA user_version").fetchone()[0]
        log.info("applying migration %s (in batches)", migration.__name__)
        migration.begin(conn, ctx)
    batches = 0
    while True:
        with db.write() as conn:
            if not still(conn):
                return conn.execute("PRAGMA user_version").fetchone()[0]
            done = migration.step(conn, ctx)
        batches += 1
        if batches % 10 == 0:
            log.info("migration %s: %d batches done", migration.__name__, batches)
        if done:
            break
    with db.write() as conn:
        if not still(conn):
            return conn.execute("PRAGMA user_version").fetchone()[0]
        migration.finish(conn, ctx)
        conn.execute(f"PRAGMA user_version = {version + 1}")
    return version + 1
