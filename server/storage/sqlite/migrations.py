"""Numbered, append-only schema migrations, recorded in PRAGMA user_version.

Each migration runs in its own BEGIN IMMEDIATE transaction together with the
version bump, so a crash leaves the store at the previous version, and several
processes starting at once apply each migration exactly once. Never edit a
migration that has shipped: add the next one.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from server.storage.sqlite.db import Database

log = logging.getLogger(__name__)

#: The keyword index's tokenizer: porter stemming over unicode61, diacritics folded ("café" == "cafe").
#: textindex prepares the text it reads (identifier parts); query terms are words it tokenises alike.
FTS_TOKENIZER = "porter unicode61 remove_diacritics 2"


@dataclass(frozen=True)
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
    from server.storage.sqlite.store import turn_context
    from server.textindex import index_text

    rows = conn.execute(
        "SELECT id, content, file_key IS NOT NULL, file_section FROM memories WHERE deleted_at IS NULL "
        "AND (content GLOB '*[A-Za-z0-9]-[A-Za-z0-9]*' OR kind = 'turn')"
    ).fetchall()
    for memory_id, content, is_file_unit, section in rows:
        text = index_text(content, (section or None) if is_file_unit else None)
        conn.execute("DELETE FROM memory_fts WHERE rowid = ?", (memory_id,))
        conn.execute(
            "INSERT INTO memory_fts(rowid, text, context) VALUES (?, ?, ?)", (memory_id, text, turn_context(conn, memory_id))
        )


MIGRATIONS: tuple[Callable[[Any, SchemaContext], None], ...] = (
    m001_core, m002_files_threads, m003_curator, m004_plain_vectors, m005_api_tokens, m006_principal,
    m007_hyphenated_terms,
)


def migrate(db: Database, ctx: SchemaContext) -> int:
    """Bring the store up to the newest schema; returns the version it is at."""
    target = len(MIGRATIONS)
    current = db.conn.execute("PRAGMA user_version").fetchone()[0]
    if current > target:
        from server.errors import SetupError

        raise SetupError(
            f"This store has schema version {current}, newer than this memvault understands ({target}). "
            "Upgrade memvault (pip install -U memvault) before opening it."
        )
    while current < target:
        with db.write() as conn:
            # Re-read inside the lock: another process may have migrated meanwhile.
            current = conn.execute("PRAGMA user_version").fetchone()[0]
            if current >= target:
                break
            migration = MIGRATIONS[current]
            log.info("applying migration %s", migration.__name__)
            migration(conn, ctx)
            conn.execute(f"PRAGMA user_version = {current + 1}")
            current += 1
    return current
