"""The store methods whose SQL is the same in both dialects, written once.

Each function is a method of a backend's role class, listed there by name at its place in the
protocol's order (`get_meta = shapes.get_meta`), so a reader of either backend still finds every
method where the contract declares it. The SQL is written with `?` placeholders and
`dialect.in_namespace()`: SQLite names the namespace in every statement, PostgreSQL's row-level
security adds the tenant itself (storage/dialect.py). `self` is the backend's store, which
provides `db`, `namespace`, `dialect` and `memory_row` (its dialect's tags).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from server.storage.records import (
    FileUnit,
    GlobalPrompt,
    MemoryDump,
    MemoryFilter,
    MemoryRow,
    MemoryState,
    Message,
    PossibleUpdate,
    Promotion,
    PromptExport,
    Thread,
    ThreadExport,
    ThreadMessage,
)
from server.storage.rows import MEMORY_COLUMNS, THREAD_COLUMNS, thread_row


def _run(self: Any, conn: Any, sql: str, *params: Any) -> Any:
    return conn.execute(self.dialect.sql(sql), params)


# -- meta -----------------------------------------------------------------------------
def get_meta(self: Any, key: str) -> str | None:
    with self.db.read() as conn:
        row = _run(self, conn, "SELECT value FROM meta WHERE key = ?", key).fetchone()
    return row[0] if row else None


def meta_items(self: Any, conn: Any) -> dict[str, str]:
    """Every meta key (SQLite: one meta per file, shared by its namespaces; PostgreSQL: the tenant's)."""
    return dict(conn.execute("SELECT key, value FROM meta").fetchall())


# -- memories -------------------------------------------------------------------------
def find_live(self: Any, conn: Any, thread: str, content_hash: str) -> int | None:
    d = self.dialect
    row = _run(
        self, conn,
        f"SELECT id FROM memories WHERE {d.in_namespace()}thread = ? AND content_hash = ? AND deleted_at IS NULL",
        *d.namespace_params(self.namespace), thread, content_hash,
    ).fetchone()
    return row[0] if row else None


def recent_memories(self: Any, thread: str, limit: int) -> list[MemoryRow]:
    """The thread's newest live memories (not file units), newest first."""
    d = self.dialect
    with self.db.read() as conn:
        rows = _run(
            self, conn,
            f"SELECT {MEMORY_COLUMNS} FROM memories WHERE {d.in_namespace()}thread = ? AND deleted_at IS NULL "
            "AND file_key IS NULL ORDER BY created_at DESC, id DESC LIMIT ?",
            *d.namespace_params(self.namespace), thread, limit,
        ).fetchall()
    return [self.memory_row(r) for r in rows]


def nth_newest_time(self: Any, thread: str, n: int) -> int | None:
    """The creation time (ms) of the thread's n-th newest memory, forgotten ones counted: a walk of n entries
    of the time index (memories_by_time), which reads no row; None when the thread holds fewer than n."""
    d = self.dialect
    with self.db.read() as conn:
        row = _run(
            self, conn,
            f"SELECT created_at FROM memories WHERE {d.in_namespace()}thread = ? ORDER BY created_at DESC LIMIT 1 OFFSET ?",
            *d.namespace_params(self.namespace), thread, n - 1,
        ).fetchone()
    return None if row is None else row[0]


def memory_state(self: Any, conn: Any, memory_id: int) -> MemoryState | None:
    d = self.dialect
    row = _run(
        self, conn, f"SELECT content, compression, deleted_at FROM memories WHERE {d.in_namespace()}id = ?",
        *d.namespace_params(self.namespace), memory_id,
    ).fetchone()
    return MemoryState(row[0], row[1], row[2]) if row else None


def soft_delete(self: Any, conn: Any, memory_id: int, now: int) -> None:
    _run(self, conn, "UPDATE memories SET deleted_at = ?, updated_at = ? WHERE id = ?", now, now, memory_id)
    self.fts_delete(conn, memory_id)
    # The vector stays (undelete reuses it); it leaves vector search with the memory.


def link_superseded(self: Any, conn: Any, memory_id: int, by: int | None) -> None:
    """Point a memory at its replacement without touching updated_at (restoring an archived link)."""
    d = self.dialect
    _run(self, conn, f"UPDATE memories SET superseded_by = ? WHERE {d.in_namespace()}id = ?",
         by, *d.namespace_params(self.namespace), memory_id)


def unqueue_daily(self: Any, memory_id: int) -> None:
    with self.db.write() as conn:
        _run(self, conn, "DELETE FROM daily_log_queue WHERE memory_id = ?", memory_id)


# -- memory files ---------------------------------------------------------------------
def move_file_unit(
    self: Any, conn: Any, memory_id: int, line: int, section: str, key: str | None = None,
    content_hash: str | None = None,
) -> None:
    """A unit seen at another line (or, with `key`, under another section): same memory, same id."""
    _run(
        self, conn,
        "UPDATE memories SET file_line = ?, file_section = ?, file_key = coalesce(?, file_key), "
        "content_hash = coalesce(?, content_hash) WHERE id = ?",
        line, section, key, content_hash, memory_id,
    )


def file_units(self: Any, conn: Any, source: str) -> dict[str, FileUnit]:
    d = self.dialect
    rows = _run(
        self, conn,
        f"SELECT file_key, id, file_line, file_section FROM memories "
        f"WHERE {d.in_namespace()}source = ? AND file_key IS NOT NULL",
        *d.namespace_params(self.namespace), source,
    ).fetchall()
    return {r[0]: FileUnit(r[1], r[2], r[3]) for r in rows}


# -- threads --------------------------------------------------------------------------
def get_thread(self: Any, thread: str) -> Thread | None:
    d = self.dialect
    with self.db.read() as conn:
        row = _run(
            self, conn, f"SELECT {THREAD_COLUMNS} FROM threads WHERE {d.in_namespace()}id = ?",
            *d.namespace_params(self.namespace), thread,
        ).fetchone()
    return thread_row(row) if row else None


def list_threads(self: Any, include_archived: bool = False) -> list[Thread]:
    d = self.dialect
    where = d.where([] if include_archived else [d.is_false("archived")])
    with self.db.read() as conn:
        rows = _run(self, conn, f"SELECT {THREAD_COLUMNS} FROM threads{where} ORDER BY last_active_at DESC, id",
                    *d.namespace_params(self.namespace)).fetchall()
    return [thread_row(r) for r in rows]


def thread_ids(self: Any, include_archived: bool = False, among: Sequence[str] | None = None) -> list[str]:
    """list_threads' ids alone, in its order: what a recall over every thread looks for in the query (a Thread
    made of each row cost ~0.3 ms of every such recall at 200 threads). `among`: only the ids whose lower case
    is one of these (lower-case) words -- the query's, so that such a recall reads the few threads it names,
    not every id to test each in Python (~0.3 ms of its CPU at 200 threads)."""
    d = self.dialect
    conditions = [] if include_archived else [d.is_false("archived")]
    if among is not None:
        if not among:
            return []
        conditions.append(f"lower(id) IN ({', '.join('?' * len(among))})")  # ids are ASCII (THREAD_PATTERN)
    with self.db.read() as conn:
        rows = _run(self, conn, f"SELECT id FROM threads{d.where(conditions)} ORDER BY last_active_at DESC, id",
                    *d.namespace_params(self.namespace), *(among or ())).fetchall()
    return [r[0] for r in rows]


def update_thread(self: Any, conn: Any, thread: str, **fields: Any) -> None:
    allowed = {"title", "system_prompt", "archived"}
    assert set(fields) <= allowed, fields
    d = self.dialect
    if "archived" in fields:
        fields["archived"] = d.flag_value(fields["archived"])
    if fields:
        sets = ", ".join(f"{name} = ?" for name in fields)
        _run(self, conn, f"UPDATE threads SET {sets} WHERE {d.in_namespace()}id = ?",
             *fields.values(), *d.namespace_params(self.namespace), thread)


def recent_messages(self: Any, thread: str, limit: int) -> list[Message]:
    """The last `limit` messages of the thread, oldest first (newest last)."""
    d = self.dialect
    with self.db.read() as conn:
        rows = _run(
            self, conn,
            f"SELECT id, role, content, created_at FROM thread_messages WHERE {d.in_namespace()}thread = ? "
            "ORDER BY id DESC LIMIT ?",
            *d.namespace_params(self.namespace), thread, limit,
        ).fetchall()
    return [Message(*r) for r in reversed(rows)]


def global_prompts(self: Any, active_only: bool) -> list[GlobalPrompt]:
    d = self.dialect
    where = d.where([d.is_true("active")] if active_only else [])
    with self.db.read() as conn:
        rows = _run(
            self, conn,
            f"SELECT name, content, active, priority, created_at, updated_at FROM global_prompts{where} "
            "ORDER BY priority DESC, name",
            *d.namespace_params(self.namespace),
        ).fetchall()
    return [GlobalPrompt(r[0], r[1], bool(r[2]), r[3], r[4], r[5]) for r in rows]


def set_global_prompt(self: Any, conn: Any, name: str, now: int, **fields: Any) -> bool:
    assert set(fields) <= {"active", "priority"}, fields
    d = self.dialect
    if "active" in fields:
        fields["active"] = d.flag_value(fields["active"])
    sets = ", ".join(f"{k} = ?" for k in fields)
    cur = _run(self, conn, f"UPDATE global_prompts SET {sets}, updated_at = ? WHERE {d.in_namespace()}name = ?",
               *fields.values(), now, *d.namespace_params(self.namespace), name)
    return cur.rowcount > 0


def delete_global_prompt(self: Any, conn: Any, name: str) -> bool:
    d = self.dialect
    cur = _run(self, conn, f"DELETE FROM global_prompts WHERE {d.in_namespace()}name = ?",
               *d.namespace_params(self.namespace), name)
    return cur.rowcount > 0


# -- curation -------------------------------------------------------------------------
def rows(  # noqa: PLR0913
    self: Any,
    conn: Any,
    thread: str | None = None,
    deleted: bool | None = False,
    since: int | None = None,
    until: int | None = None,
) -> list[MemoryRow]:
    """Memories of the namespace, oldest first; `deleted` None means live and forgotten alike."""
    d = self.dialect
    where: list[str] = ["namespace = ?"] if d.names_namespace else ["true"]
    params: list[Any] = list(d.namespace_params(self.namespace))
    if thread is not None:
        where.append("thread = ?")
        params.append(thread)
    if deleted is not None:
        where.append("deleted_at IS NOT NULL" if deleted else "deleted_at IS NULL")
    if since is not None:
        where.append("created_at >= ?")
        params.append(since)
    if until is not None:
        where.append("created_at <= ?")
        params.append(until)
    sql = f"SELECT {MEMORY_COLUMNS} FROM memories WHERE {' AND '.join(where)} ORDER BY created_at, id"
    return [self.memory_row(r) for r in _run(self, conn, sql, *params)]


def set_superseded(self: Any, conn: Any, memory_id: int, by: int | None, now: int) -> None:
    d = self.dialect
    _run(
        self, conn, f"UPDATE memories SET superseded_by = ?, updated_at = ? WHERE {d.in_namespace()}id = ?",
        by, now, *d.namespace_params(self.namespace), memory_id,
    )


def set_pinned(self: Any, conn: Any, memory_id: int, pinned: bool, now: int) -> None:
    d = self.dialect
    _run(self, conn, f"UPDATE memories SET pinned = ?, updated_at = ? WHERE {d.in_namespace()}id = ?",
         d.flag_value(pinned), now, *d.namespace_params(self.namespace), memory_id)


def set_restored(self: Any, conn: Any, memory_id: int, original: str, now: int, text: str) -> None:
    _run(self, conn, "UPDATE memories SET content = ?, compression = NULL, updated_at = ? WHERE id = ?",
         original, now, memory_id)
    _run(self, conn, "DELETE FROM memory_originals WHERE memory_id = ?", memory_id)
    self._reindex(conn, memory_id, text)


def promoted(self: Any, conn: Any) -> set[int]:
    d = self.dialect
    return {r[0] for r in _run(self, conn, f"SELECT memory_id FROM promotions{d.where([])}",
                               *d.namespace_params(self.namespace))}


def threads(self: Any, conn: Any, only: str | None = None) -> list[ThreadExport]:
    d = self.dialect
    where = d.where([] if only is None else ["id = ?"])
    params = (*d.namespace_params(self.namespace), *(() if only is None else (only,)))
    sql = f"SELECT id, title, system_prompt, {d.flag('archived')}, created_at, last_active_at FROM threads{where}"
    return [
        ThreadExport(id=r[0], title=r[1], system_prompt=r[2], archived=r[3], created_at=r[4], last_active_at=r[5])
        for r in _run(self, conn, sql + " ORDER BY id", *params)
    ]


def export_global_prompts(self: Any, conn: Any) -> list[PromptExport]:
    d = self.dialect
    rows = _run(
        self, conn,
        f"SELECT name, content, {d.flag('active')}, priority, created_at, updated_at FROM global_prompts"
        f"{d.where([])} ORDER BY name",
        *d.namespace_params(self.namespace),
    )
    return [
        PromptExport(name=r[0], content=r[1], active=r[2], priority=r[3], created_at=r[4], updated_at=r[5])
        for r in rows
    ]


def find_identity(self: Any, conn: Any, thread: str, content_hash: str, created_at: int) -> int | None:
    """The memory that is this one (same thread, original text and creation time), forgotten or not."""
    d = self.dialect
    row = _run(
        self, conn,
        f"SELECT id FROM memories WHERE {d.in_namespace()}thread = ? AND content_hash = ? AND created_at = ? "
        "ORDER BY id LIMIT 1",
        *d.namespace_params(self.namespace), thread, content_hash, created_at,
    ).fetchone()
    return row[0] if row else None


def id_taken(self: Any, conn: Any, memory_id: int) -> bool:
    # SQLite: ids are unique in the file. PostgreSQL: per tenant (primary key (tenant, id)), and
    # row-level security shows only this tenant's: another tenant's id is no clash.
    return _run(self, conn, "SELECT 1 FROM memories WHERE id = ?", memory_id).fetchone() is not None


# -- copying --------------------------------------------------------------------------
def dump_messages(self: Any, conn: Any) -> list[ThreadMessage]:
    """Every recent-message window of the namespace, in order."""
    d = self.dialect
    rows = _run(self, conn, f"SELECT thread, role, content, created_at FROM thread_messages{d.where([])} ORDER BY id",
                *d.namespace_params(self.namespace))
    return [ThreadMessage(r[0], r[1], r[2], r[3]) for r in rows]


def promotions(self: Any, conn: Any) -> list[Promotion]:
    """Every memory promoted into MEMORY.md, by id."""
    d = self.dialect
    rows = _run(self, conn, f"SELECT memory_id, section, promoted_at FROM promotions{d.where([])} ORDER BY memory_id",
                *d.namespace_params(self.namespace))
    return [Promotion(r[0], r[1], r[2]) for r in rows]


# -- possible updates -------------------------------------------------------------------
# A newer memory may record several earlier ones it possibly updates (the update model's few most probable,
# server/updates/model.py): an update often reads like two earlier memories of its subject, and with one
# record per memory the one it replaces was missed in 6 of the 18 development questions the reader was
# shown stale (issue 32). Readers of one guess per memory (show, the page, a review) read the most probable.
def possible_list(possible: PossibleUpdate | Sequence[PossibleUpdate] | None) -> list[PossibleUpdate]:
    """set_possible_update's argument as the records to write: one per older memory, the most probable kept."""
    if possible is None:
        return []
    if isinstance(possible, PossibleUpdate):
        return [possible]
    best: dict[int, PossibleUpdate] = {}
    for maybe in possible:
        if maybe.older not in best or maybe.probability > best[maybe.older].probability:
            best[maybe.older] = maybe
    return list(best.values())


def possible_updates(self: Any, conn: Any, ids: Sequence[int] | None = None,
                     older: int | None = None) -> dict[int, PossibleUpdate]:
    """The most probable possible update recorded for each of these memories (None: every one of the
    namespace), or with `older`, those naming that memory as what they possibly update."""
    out: dict[int, PossibleUpdate] = {}
    for newer, maybe in self.possible_update_rows(conn, ids, older):
        out.setdefault(newer, maybe)
    return out


def possible_updates_all(self: Any, conn: Any, ids: Sequence[int] | None = None) -> dict[int, list[PossibleUpdate]]:
    """Every possible update recorded for each of these memories (None: every one of the namespace),
    most probable first."""
    out: dict[int, list[PossibleUpdate]] = {}
    for newer, maybe in self.possible_update_rows(conn, ids):
        out.setdefault(newer, []).append(maybe)
    return out


# -- browsing -------------------------------------------------------------------------
def browse(self: Any, conn: Any, where: MemoryFilter, limit: int, offset: int = 0) -> list[MemoryRow]:
    """A page of the memories `where` selects, newest first."""
    condition, params = self._browse_where(where)  # in the dialect already
    rows = conn.execute(
        f"SELECT {MEMORY_COLUMNS} FROM memories WHERE {condition} ORDER BY created_at DESC, id DESC "
        + self.dialect.sql("LIMIT ? OFFSET ?"),
        (*params, limit, offset),
    )
    return [self.memory_row(r) for r in rows]


def browse_count(self: Any, conn: Any, where: MemoryFilter) -> int:
    condition, params = self._browse_where(where)
    return conn.execute(f"SELECT count(*) FROM memories WHERE {condition}", params).fetchone()[0]


def record(self: Any, conn: Any, memory_id: int) -> MemoryDump | None:
    """Every stored field of one memory (dump_memories' row for this id)."""
    found = self.dump_memories(conn, memory_id - 1, 1)
    return found[0] if found and found[0].id == memory_id else None
