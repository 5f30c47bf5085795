"""The SQLite store's browsing role: what a person lists and opens (`memvault list|show|stats|edit`, the web page).

store.py composes the roles into the Store; the SQL is SQLite's.
"""

from __future__ import annotations

import json
from typing import Any

from server.storage import shapes
from server.storage.protocol import (
    MemoryFilter,
    Scope,
    ThreadFigures,
    TimelineRow,
)
from server.storage.sqlite.common import SqliteStoreBase, _scope_filters


class SqliteBrowsing(SqliteStoreBase):
    # -- browsing (server/browse.py: memvault list|show|stats|edit, the web page) ---------
    def _browse_where(self, where: MemoryFilter) -> tuple[str, list[Any]]:
        sql: list[str] = ["namespace = ?"]
        params: list[Any] = [self.namespace]
        _scope_filters(Scope(threads=where.threads, kinds=where.kinds, since=where.since, until=where.until),
                       "", sql, params)
        for column, wanted in (("deleted_at", where.forgotten), ("superseded_by", where.superseded)):
            if wanted is not None:
                sql.append(f"{column} IS {'NOT ' if wanted else ''}NULL")
        if where.pinned is not None:
            sql.append("pinned = ?")
            params.append(int(where.pinned))
        if where.replaced_by is not None:
            sql.append("superseded_by = ?")
            params.append(where.replaced_by)
        if where.files is not None:
            sql.append(f"source {'' if where.files else 'NOT '}LIKE 'file:%'")
        return " AND ".join(sql), params

    browse = shapes.browse

    browse_count = shapes.browse_count

    record = shapes.record

    def thread_figures(self, conn: Any) -> list[ThreadFigures]:
        kinds: dict[str, dict[str, int]] = {}
        for thread, kind, n in conn.execute(
            "SELECT thread, kind, count(*) FROM memories WHERE namespace = ? AND deleted_at IS NULL "
            "AND source NOT LIKE 'file:%' GROUP BY 1, 2 ORDER BY 1, 2", (self.namespace,)
        ):
            kinds.setdefault(thread, {})[kind] = n
        live = "m.deleted_at IS NULL AND m.source NOT LIKE 'file:%'"
        rows = conn.execute(
            f"SELECT m.thread, count(*) FILTER (WHERE {live}), "
            f"coalesce(sum(length(m.content)) FILTER (WHERE {live}), 0), max(m.created_at) FILTER (WHERE {live}), "
            f"count(p.memory_id) FILTER (WHERE {live}), "
            f"count(*) FILTER (WHERE {live} AND m.superseded_by IS NOT NULL), count(*) FILTER (WHERE {live} AND m.pinned), "
            f"count(*) FILTER (WHERE {live} AND m.compression IS NOT NULL), count(*) FILTER (WHERE m.deleted_at IS NOT NULL), "
            "count(*) FILTER (WHERE m.deleted_at IS NULL AND m.source LIKE 'file:%') "
            "FROM memories m LEFT JOIN pending_embeddings p ON p.memory_id = m.id "
            "WHERE m.namespace = ? GROUP BY 1 ORDER BY 1", (self.namespace,)
        )
        return [ThreadFigures(r[0], kinds.get(r[0], {}), *r[1:]) for r in rows]

    def timeline(self, conn: Any, width: int, offset: int = 0) -> list[TimelineRow]:
        counts: dict[tuple[int, str, str], list[int]] = {}
        for column, slots, condition in (
            ("created_at", (0, 1), "1"), ("deleted_at", (2,), "deleted_at IS NOT NULL"),
            ("updated_at", (3,), "superseded_by IS NOT NULL"),
        ):
            for bucket, thread, kind, n, chars in conn.execute(
                f"SELECT ({column} + ?) / ?, thread, kind, count(*), sum(length(content)) FROM memories "
                f"WHERE namespace = ? AND source NOT LIKE 'file:%' AND {condition} GROUP BY 1, 2, 3", (offset, width, self.namespace)
            ):
                figures = counts.setdefault((bucket * width - offset, thread, kind), [0, 0, 0, 0])
                figures[slots[0]] = n
                if len(slots) > 1:
                    figures[slots[1]] = chars
        return [TimelineRow(start, thread, kind, *figures) for (start, thread, kind), figures in sorted(counts.items())]

    def set_details(
        self, conn: Any, memory_id: int, kind: str, tags: tuple[str, ...], importance: float, now: int
    ) -> None:
        conn.execute(
            "UPDATE memories SET kind = ?, tags = ?, importance = ?, updated_at = ? WHERE id = ? AND namespace = ?",
            (kind, json.dumps(list(tags), ensure_ascii=False), importance, now, memory_id, self.namespace),
        )
        conn.execute("DELETE FROM memory_tags WHERE memory_id = ?", (memory_id,))
        conn.executemany("INSERT OR IGNORE INTO memory_tags(memory_id, tag) VALUES (?, ?)", [(memory_id, t) for t in tags])
