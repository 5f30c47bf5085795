"""The PostgreSQL store's browsing role: what a person lists and opens (`memvault list|show|stats|edit`, the web page).

store.py composes the roles into the Store; the SQL is PostgreSQL's.
"""

from __future__ import annotations

from typing import Any

from server import ranking
from server.storage.protocol import (
    MemoryFilter,
    Scope,
    ThreadFigures,
    TimelineRow,
)

# Weights of ts_rank_cd for labels {D, C, B, A}: own text is A, a turn's context D.
_WEIGHTS = "{%s, 0, 0, 1}" % ranking.CONTEXT_COLUMN_WEIGHT
from server.storage import shapes
from server.storage.pg.common import PgStoreBase, _scope_filters


class PgBrowsing(PgStoreBase):
    # -- browsing (server/browse.py: memvault list|show|stats|edit, the web page) ---------
    def _browse_where(self, where: MemoryFilter) -> tuple[str, list[Any]]:
        sql: list[str] = ["true"]
        params: list[Any] = []
        _scope_filters(Scope(threads=where.threads, kinds=where.kinds, since=where.since, until=where.until),
                       "", sql, params)
        for column, wanted in (("deleted_at", where.forgotten), ("superseded_by", where.superseded)):
            if wanted is not None:
                sql.append(f"{column} IS {'NOT ' if wanted else ''}NULL")
        if where.pinned is not None:
            sql.append("pinned = %s")
            params.append(bool(where.pinned))
        if where.replaced_by is not None:
            sql.append("superseded_by = %s")
            params.append(where.replaced_by)
        if where.files is not None:
            sql.append(f"source {'' if where.files else 'NOT '}LIKE 'file:%%'")
        return " AND ".join(sql), params

    browse = shapes.browse

    browse_count = shapes.browse_count

    record = shapes.record

    def thread_figures(self, conn: Any) -> list[ThreadFigures]:
        kinds: dict[str, dict[str, int]] = {}
        for thread, kind, n in conn.execute(
            "SELECT thread, kind, count(*) FROM memories WHERE deleted_at IS NULL AND source NOT LIKE 'file:%' "
            "GROUP BY 1, 2 ORDER BY 1, 2"
        ):
            kinds.setdefault(thread, {})[kind] = n
        live = "deleted_at IS NULL AND source NOT LIKE 'file:%'"
        rows = conn.execute(
            f"SELECT thread, count(*) FILTER (WHERE {live}), "
            f"coalesce(sum(length(content)) FILTER (WHERE {live}), 0), max(created_at) FILTER (WHERE {live}), "
            f"count(*) FILTER (WHERE {live} AND embed_pending), "
            f"count(*) FILTER (WHERE {live} AND superseded_by IS NOT NULL), count(*) FILTER (WHERE {live} AND pinned), "
            f"count(*) FILTER (WHERE {live} AND compression IS NOT NULL), count(*) FILTER (WHERE deleted_at IS NOT NULL), "
            "count(*) FILTER (WHERE deleted_at IS NULL AND source LIKE 'file:%') "
            "FROM memories GROUP BY 1 ORDER BY 1"
        )
        return [ThreadFigures(r[0], kinds.get(r[0], {}), *(int(v) if v is not None else None for v in r[1:]))
                for r in rows]

    def timeline(self, conn: Any, width: int, offset: int = 0) -> list[TimelineRow]:
        counts: dict[tuple[int, str, str], list[int]] = {}
        for column, slots, condition in (
            ("created_at", (0, 1), "true"), ("deleted_at", (2,), "deleted_at IS NOT NULL"),
            ("updated_at", (3,), "superseded_by IS NOT NULL"),
        ):
            for bucket, thread, kind, n, chars in conn.execute(
                f"SELECT ({column} + %s::bigint) / %s::bigint, thread, kind, count(*), sum(length(content)) "
                f"FROM memories WHERE source NOT LIKE 'file:%%' AND {condition} GROUP BY 1, 2, 3", (offset, width)
            ):
                figures = counts.setdefault((int(bucket) * width - offset, thread, kind), [0, 0, 0, 0])
                figures[slots[0]] = int(n)
                if len(slots) > 1:
                    figures[slots[1]] = int(chars)
        return [TimelineRow(start, thread, kind, *figures) for (start, thread, kind), figures in sorted(counts.items())]

    def set_details(
        self, conn: Any, memory_id: int, kind: str, tags: tuple[str, ...], importance: float, now: int
    ) -> None:
        conn.execute(
            "UPDATE memories SET kind = %s, tags = %s, importance = %s, updated_at = %s WHERE id = %s",
            (kind, list(tags), importance, now, memory_id),
        )
