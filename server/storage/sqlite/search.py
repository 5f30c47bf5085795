"""The SQLite store's search role: keyword and vector search, turn neighbours, the embedding and judging queues, and index integrity.

store.py composes the roles into the Store; the SQL is SQLite's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Self

from server.models import CONVERSATION_KIND
from server.storage import shapes
from server.storage.protocol import (
    HealthCounts,
    IndexDrift,
    KeywordQuery,
    Neighbours,
    PendingEmbedding,
    PossibleUpdate,
    Scope,
    TurnRef,
)
from server.storage.sqlite.common import (
    _BM25,
    _in,
    _in_scope,
    _scope_filters,
    _windowed,
    fts5_match,
)
from server.storage.sqlite.impact_listed import SqliteImpactsListed
from server.storage.sqlite.vec0_schema import PASSAGE_SLOTS, vec0_ddl

if TYPE_CHECKING:  # NumPy and the vector modules load with the first vector operation: a hook
    import numpy as np  # process answering by keyword never imports them (bench/hooks.py)


#: Files with at least this many memories (by id) run a recall's keyword search beside its vector
#: search (Store.beside). Below, the search takes well under a millisecond. Measured with
#: bench/scale.py, pairs of runs on the same machine, over MCP stdio (p50/p95 ms, all threads):
#: 10k 9.9-11.8 / 12.7-15.3 beside against 14.3-14.9 / 19.0-19.5 in turn; 2k 10.5-11.1 against
#: 11.4-12.4 (in-process 8.1-8.4 against 10.0-10.5).
BESIDE_FROM = 1_000
#: Files with at least this many memories (by id) rank a search in threads without the scope token in
#: its MATCH where they can (SqliteSearch._keyword_in_threads); below, its doclist walk costs little.
RANK_IN_THREADS_FROM = 10_000


#: The most a cosine distance from the sidecar's float16 rows differs from vec0's float32 one: rounding each
#: component to float16 moves a unit vector's cosine by at most ~2 x 2^-11 (~1e-3); 5e-4 seen at 1M
#: (22 queries of bench/scale.py, shortlists of 116 in a thread of 5,000).
F16_SLACK = 0.002


class SqliteSearch(SqliteImpactsListed):
    # -- search index -------------------------------------------------------------
    def beside(self) -> Self | None:
        """This namespace's search index on a second connection (Database.aside); None in a file of
        fewer than BESIDE_FROM memories, where the keyword search costs less than the hand-off."""
        if self.db.path == ":memory:":
            return None
        with self.db.read() as conn:
            top = conn.execute("SELECT max(id) FROM memories").fetchone()[0] or 0
        db = self.db.aside() if top >= BESIDE_FROM else None  # a small store opens no second connection
        return type(self)(db, self.namespace) if db is not None else None

    def match_count(self, query: KeywordQuery, cap: int, scope: Scope = Scope()) -> int:
        """FTS5 rows matching `query` in the scope's threads (every namespace of the file when
        threads is None), counted up to `cap`."""
        expression = fts5_match(query)
        if expression is None:
            return 0
        expression = _in_scope(expression, self.namespace, scope.threads)
        # Without bm25 a match costs a doclist step (~0.05 us), and LIMIT stops the walk.
        sql = "SELECT count(*) FROM (SELECT 1 FROM memory_fts WHERE memory_fts MATCH ? LIMIT ?)"
        with self.db.read() as conn:
            return conn.execute(sql, (expression, cap)).fetchone()[0]

    def keyword(self, query: KeywordQuery, limit: int, scope: Scope) -> dict[int, float]:
        """FTS5 matches ranked by bm25 (more negative is better, as SQLite reports it).

        A turn's context column counts CONTEXT_COLUMN_WEIGHT as much as its own words.
        With `query.newest`, only the newest matches in scope are ranked: FTS5 walks
        a doclist newest first natively and computes bm25 only for the rows it returns.
        """
        expression, window = fts5_match(query), query.newest
        if expression is None:
            return {}
        terms = expression
        # In threads, FTS5 itself keeps to the scope (scope_token): only the scope's matches are ranked.
        expression = _in_scope(expression, self.namespace, scope.threads)
        if scope.threads is not None and scope == Scope(threads=scope.threads):
            top = self._keyword_in_threads(terms, expression, limit, window, scope.threads)
            if top is not None:
                return top
        if scope == Scope(threads=scope.threads):  # no kind, time or tag filter: the index alone can tell
            top = self._keyword_unscoped(expression, limit, window, scope.threads)
            if top is not None:
                return top
        where = ["memory_fts MATCH ?", "m.namespace = ?", "m.deleted_at IS NULL"]
        params: list[Any] = [expression, self.namespace]
        _scope_filters(scope, "m.", where, params)
        if scope.tags:
            where.append(f"m.id IN (SELECT memory_id FROM memory_tags WHERE tag IN {_in(scope.tags)})")
            params.extend(scope.tags)
        sql = (
            f"SELECT f.rowid, {_BM25} AS rank FROM memory_fts f "
            "JOIN memories m ON m.id = f.rowid WHERE "
            + " AND ".join(where)
        )
        sql, extra = _windowed(sql, "f.rowid", window)
        params += [*extra, limit]
        with self.db.read() as conn:
            return {r[0]: r[1] for r in conn.execute(sql, params)}

    def _keyword_unscoped(
        self, expression: str, limit: int, window: int | None, threads: Sequence[str] | None = None
    ) -> dict[int, float] | None:
        """The top matches of a search over every thread or over `threads` alone (the expression
        already holds their scope token), or None when the cheap plan cannot tell.

        Joining `memories` to check namespace and deleted_at reads one row per match
        (thousands for a common word), which cost as much as the full-text search
        itself at 10k memories. Forgotten memories have no keyword row, so in a
        one-namespace file nearly every match passes (in threads, the scope token names
        the namespace too: every match passes): rank the index alone, then check
        only the best 2 x limit. If fewer than `limit` of them pass, the joined query decides.
        In a thread of 100k memories (a hook's prompt, bench/hooks.py) that cut the ranking
        of 20,000 matches by about a third.
        """
        fetch = 2 * limit
        sql, extra = _windowed(
            f"SELECT rowid, {_BM25} AS rank FROM memory_fts WHERE memory_fts MATCH ?",
            "rowid",
            window,
        )
        with self.db.read() as conn:
            ranked = conn.execute(sql, (expression, *extra, fetch)).fetchall()
            if not ranked:
                return {}
            ids = [r[0] for r in ranked]
            where, params = [f"id IN {_in(ids)}", "+namespace = ?", "deleted_at IS NULL"], [*ids, self.namespace]
            _scope_filters(Scope(threads=threads), "+", where, params)
            passing = {r[0] for r in conn.execute(f"SELECT id FROM memories WHERE {' AND '.join(where)}", params)}
        kept = [(r[0], r[1]) for r in ranked if r[0] in passing]
        if len(kept) >= limit or len(ranked) < fetch:
            return dict(kept[:limit])
        return None

    def _keyword_in_threads(self, terms: str, expression: str, limit: int, window: int | None,
                            threads: Sequence[str]) -> dict[int, float] | None:
        """The top matches in the threads (among their newest `window`), ranked without the scope token in
        the MATCH where the threads hold most of the file's matches since the oldest of theirs ranked;
        None when they do not, or the file is small (under RANK_IN_THREADS_FROM memories).

        bm25 walks the whole doclist of every phrase of the MATCH for its document count, once per
        query: the scope token's doclist is every memory of the thread, so in a thread of 100k
        memories that walk was ~15 ms of each ~24 ms search (every write's update check runs one or
        two). Its column weight is 0 (_BM25) and its count enters no other phrase's score, so a match
        ranks the same without it: the newest window's lowest rowid (a walk without bm25) bounds
        the search instead, and each match there is checked for its thread. When other threads hold
        most matches in that range the checks would cost more than the walk: the scoped search runs.
        """
        with self.db.read() as conn:
            if (conn.execute("SELECT max(id) FROM memories").fetchone()[0] or 0) < RANK_IN_THREADS_FROM:
                return None
            # Unwindowed, every match counts: walked in rowid order (FTS5 walks a doclist backwards by
            # loading it whole, the scope token's too -- ~3 ms a write's search in a thread of 100k).
            low = conn.execute(
                "SELECT min(rowid), count(*) FROM (SELECT rowid FROM memory_fts WHERE memory_fts MATCH ? "
                "ORDER BY rowid DESC LIMIT ?)", (expression, window)).fetchone() if window is not None else \
                conn.execute("SELECT min(rowid), count(*) FROM memory_fts WHERE memory_fts MATCH ?", (expression,)).fetchone()
            if not low[1]:
                return {}
            # Matches of any thread since then, counted no further than twice the window's.
            beside = conn.execute(
                "SELECT count(*) FROM (SELECT 1 FROM memory_fts WHERE memory_fts MATCH ? AND rowid >= ? LIMIT ?)",
                (terms, low[0], 2 * low[1])).fetchone()[0]
            if beside >= 2 * low[1]:
                return None
            sql = (f"SELECT rowid, {_BM25} AS rank FROM memory_fts WHERE memory_fts MATCH ? AND rowid >= ? "
                   f"AND EXISTS (SELECT 1 FROM memories m WHERE m.id = memory_fts.rowid AND m.namespace = ? "
                   f"AND m.thread IN {_in(threads)}) ORDER BY rank, rowid LIMIT ?")
            return {r[0]: r[1] for r in conn.execute(sql, (terms, low[0], self.namespace, *threads, limit))}

    def document_frequency(self, query: KeywordQuery, scope: Scope) -> int:
        """How many live memories in `scope` match `query`."""
        expression = fts5_match(query)
        if expression is None:
            return 0
        if scope.threads is not None:
            # The index holds live memories only, and the scope token names the namespace: a
            # count of the scope's matches, whatever the store's size.
            with self.db.read() as conn:
                return conn.execute(
                    "SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ?",
                    (_in_scope(expression, self.namespace, scope.threads),),
                ).fetchone()[0]
        # The matches are materialised once (one pass over the term's doclist) and the
        # namespace's rows probed against them.
        sql = (
            "SELECT count(*) FROM memories m WHERE m.namespace = ? AND m.deleted_at IS NULL "
            "AND m.id IN (SELECT rowid FROM memory_fts WHERE memory_fts MATCH ?)"
        )
        with self.db.read() as conn:
            return conn.execute(sql, (self.namespace, expression)).fetchone()[0]

    def scope_size(self, scope: Scope, cap: int | None = None) -> int:
        """Live memories a search over `scope` covers (kind/time/tag filters ignored), up to `cap` when given."""
        # The live-content index holds exactly the live rows, so the count never reads the table;
        # left to itself the planner walks memories_by_time and reads every row for deleted_at
        # (at 100k memories in one thread: 70-110 ms against 16-21 ms, paid by every hook prompt).
        sql = "SELECT count(*) FROM memories INDEXED BY memories_live_content WHERE namespace = ? AND deleted_at IS NULL"
        params: list[Any] = [self.namespace]
        if scope.threads is not None:
            sql += f" AND thread IN {_in(scope.threads)}"
            params.extend(scope.threads)
        if cap is not None:  # LIMIT stops the index walk at `cap` rows
            sql = f"SELECT count(*) FROM ({sql.replace('count(*)', '1', 1)} LIMIT ?)"
            params.append(cap)
        with self.db.read() as conn:
            return conn.execute(sql, params).fetchone()[0]

    def knn(self, vector: np.ndarray, k: int, scope: Scope, exact: bool = True) -> dict[int, float]:
        """Nearest live memories by cosine distance (1 - cosine) of their best passage, every filter
        applied before the top-k cut: exact up to VEC0_SCOPE_MAX rows (vec0's scan up to VEC0_SCOPE_FAST,
        above it the sidecar's shortlist re-scored from vec0, unless not `exact`), else the sidecar; its
        candidates are re-checked against `memories`."""
        # lazy: vectors (NumPy), ~0.22 s that a hook process (keyword recall) never needs
        from server.storage.sqlite import vectors as vec

        if not vector.any():  # a zero vector has no cosine distance to anything
            return {}
        index = self._vectors
        with self.db.read() as conn:
            ids = None
            if scope.tags:
                # Tags are many-valued: the tagged ids become one more filter of the scan.
                ids = set(self._tagged_ids(conn, scope.tags))
                if not ids:
                    return {}
            side = self._sidecar(conn)
            rows = index.scope_rows(conn, scope.threads) if side is not None and scope.threads is not None else None
            # (inside a write transaction the sidecar may lack its rows: vec0 scans them)
            scan = rows is not None and rows <= vec.VEC0_SCOPE_MAX and (rows <= vec.VEC0_SCOPE_FAST or self._nested())
            if side is None or scan:
                return dict(index.vec0_knn(conn, vector, k, scope.threads, scope.kinds, scope.since, scope.until, ids))
            # Up to VEC0_SCOPE_MAX rows the sidecar scores every row (float16); its best 2k + 16 are
            # re-scored from vec0's float32 rows, so the answer is vec0's at a fraction of its scan --
            # but for a caller that takes float16's (not `exact`): ~76 point lookups in vec0, 2-4 ms.
            shortlist = exact and rows is not None and rows <= vec.VEC0_SCOPE_MAX
            wanted = 2 * k + 16 if shortlist else 2 * k
            found = index.sidecar_knn(side, vector, wanted, scope.threads, scope.kinds, scope.since, scope.until, ids)
            if not found:
                return {}
            where = ["+namespace = ?", "deleted_at IS NULL", f"id IN {_in(found)}"]
            params: list[Any] = [self.namespace, *(m for m, _ in found)]
            _scope_filters(scope, "", where, params)
            passing = {r[0] for r in conn.execute(f"SELECT id FROM memories WHERE {' AND '.join(where)}", params)}
            if shortlist:
                # Of the shortlist (nearest first), only those float16 puts within twice F16_SLACK of its k-th can
                # be in float32's top k (each one's distance moves by at most F16_SLACK): ~55 point lookups of 116.
                kept = [(m, d) for m, d in found if m in passing]
                bar = kept[k - 1][1] + 2 * F16_SLACK if len(kept) > k else float("inf")
                return dict(index.vec0_rescored(conn, vector, [m for m, d in kept if d <= bar], k))
        return dict([(m, d) for m, d in found if m in passing][:k])

    def _sidecar(self, conn: Any):  # noqa: ANN202 - Sidecar | None
        """The namespace's sidecar brought up to date; inside someone's write transaction (whose
        changes may yet roll back) the file as it is, without applying anything."""
        if self._nested():
            return self._vectors._current() if self._vectors.path is not None else None
        return self._vectors.sync(conn)

    def _nested(self) -> bool:
        # Database.read() joined a write transaction open on this connection (its changes may still be
        # rolled back). A read joining an outer read (server.recall's one snapshot) is not nested here.
        return self.db.in_write()

    def _tagged_ids(self, conn: Any, tags: Sequence[str]) -> list[int]:
        rows = conn.execute(
            f"SELECT DISTINCT t.memory_id FROM memory_tags t JOIN memories m ON m.id = t.memory_id "
            f"WHERE t.tag IN {_in(tags)} AND m.namespace = ? AND m.deleted_at IS NULL",
            (*tags, self.namespace),
        ).fetchall()
        return [r[0] for r in rows]

    def cosines(self, vector: np.ndarray, ids: Sequence[int]) -> dict[int, float]:
        """Cosine similarity of the query to these memories' best passage (those that have a vector):
        the sidecar's float16 rows (error < 1e-4), vec0's for what it does not hold yet."""
        # lazy: NumPy, ~0.38 s that a hook process (keyword recall) never needs
        import numpy as np

        query = np.asarray(vector, dtype=np.float32)
        qnorm = float(np.linalg.norm(query))
        with self.db.read() as conn:
            side = self._sidecar(conn)
            out = self._vectors.sidecar_cosines(side, query, ids) if side is not None else {}
            rest = [i for i in ids if i not in out]
            for memory_id, matrix in self._vectors.vec0_rows(conn, rest).items() if rest else ():
                norms = np.linalg.norm(matrix, axis=1) * qnorm
                if len(matrix) and matrix.shape[1] == len(query) and norms.max() > 0:
                    with np.errstate(divide="ignore", invalid="ignore"):
                        out[memory_id] = float(np.nanmax(np.where(norms > 0, (matrix @ query) / norms, np.nan)))
        return out

    def neighbours(self, ids: Sequence[int]) -> dict[int, Neighbours]:
        """For each conversation turn: the live turn just before and just after it."""
        if not ids:
            return {}
        around = (
            "SELECT n.id || ':' || n.created_at FROM memories n WHERE n.namespace = m.namespace AND n.thread = m.thread "
            "AND n.deleted_at IS NULL AND n.kind = m.kind AND "
        )
        sql = (
            f"SELECT m.id, ({around}(n.created_at, n.id) < (m.created_at, m.id) ORDER BY n.created_at DESC, n.id DESC LIMIT 1), "
            f"({around}(n.created_at, n.id) > (m.created_at, m.id) ORDER BY n.created_at, n.id LIMIT 1) "
            f"FROM memories m WHERE +m.namespace = ? AND m.kind = '{CONVERSATION_KIND}' AND m.id IN {_in(ids)}"
        )

        def turn(text: str | None) -> TurnRef | None:
            if text is None:
                return None
            a, b = text.split(":")
            return TurnRef(int(a), int(b))

        with self.db.read() as conn:
            return {r[0]: Neighbours(turn(r[1]), turn(r[2])) for r in conn.execute(sql, (self.namespace, *ids))}

    def pending(self, limit: int, threads: Sequence[str] | None = None) -> list[PendingEmbedding]:
        """Memories (of every namespace: the backfill serves the whole file) still without a vector;
        with `threads`, only those of threads so named."""
        where, params = "", []
        if threads is not None:
            # The queue drives the join (CROSS JOIN): it is what is small, next to the memories.
            where = f"WHERE m.thread IN {_in(threads)} "
            params = list(threads)
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT m.id, m.content FROM pending_embeddings p CROSS JOIN memories m ON m.id = p.memory_id "
                f"{where}ORDER BY p.memory_id LIMIT ?",
                (*params, limit),
            ).fetchall()
        return [PendingEmbedding(r[0], r[1]) for r in rows]

    def pending_of(self, ids: Sequence[int]) -> list[PendingEmbedding]:
        """Those of these memories still waiting for a vector, in the order of `ids`."""
        if not ids:
            return []
        with self.db.read() as conn:
            found = dict(conn.execute(
                f"SELECT m.id, m.content FROM pending_embeddings p CROSS JOIN memories m ON m.id = p.memory_id "
                f"WHERE p.memory_id IN {_in(ids)}",
                list(ids),
            ).fetchall())
        return [PendingEmbedding(i, found[i]) for i in ids if i in found]

    def has_pending(self) -> bool:
        with self.db.read() as conn:
            return conn.execute("SELECT 1 FROM pending_embeddings LIMIT 1").fetchone() is not None

    def unjudged(self, limit: int) -> list[int]:
        """The namespace's memories whose update check waits (NewMemory.judge_later) and whose
        vector is stored now, oldest first (as they were written)."""
        with self.db.read() as conn:
            return [r[0] for r in conn.execute(
                # CROSS JOIN keeps the (small) mark table outside: SQLite has no statistics for it and
                # otherwise walks the namespace's memories (75 ms at a million).
                "SELECT u.memory_id FROM update_checks u CROSS JOIN memories m ON m.id = u.memory_id "
                "WHERE m.namespace = ? AND u.memory_id NOT IN (SELECT memory_id FROM pending_embeddings) "
                "ORDER BY m.created_at, m.id LIMIT ?",
                (self.namespace, limit),
            )]

    def judged(self, conn: Any, ids: Sequence[int]) -> None:
        """Their update checks are done."""
        conn.executemany("DELETE FROM update_checks WHERE memory_id = ?", [(i,) for i in ids])

    def set_possible_update(self, conn: Any, memory_id: int,
                            possible: PossibleUpdate | Sequence[PossibleUpdate] | None) -> None:
        """Record the earlier memories this one possibly updates, unlinked, in place of what was recorded
        for it (one or several; None or none clears them)."""
        conn.execute("DELETE FROM possible_updates WHERE memory_id = ?", (memory_id,))
        for maybe in shapes.possible_list(possible):
            # Both memories must still be there (one may have been purged since it was judged).
            conn.execute(
                "INSERT INTO possible_updates(memory_id, older, probability) SELECT ?, ?, ? WHERE "
                "(SELECT COUNT(*) FROM memories WHERE id IN (?, ?)) = 2",
                (memory_id, maybe.older, maybe.probability, memory_id, maybe.older),
            )

    def possible_update_rows(self, conn: Any, ids: Sequence[int] | None = None,
                             older: int | None = None) -> list[tuple[int, PossibleUpdate]]:
        """(newer id, possible update) recorded for these memories (None: every one of the namespace), or
        with `older`, those naming that memory; by newer id, each newer's most probable first."""
        order = " ORDER BY memory_id, probability DESC, older"
        if older is not None:
            rows = conn.execute(
                "SELECT memory_id, older, probability FROM possible_updates WHERE older = ?" + order, (older,)
            ).fetchall()
        elif ids is None:
            rows = conn.execute(
                "SELECT p.memory_id, p.older, p.probability FROM possible_updates p "
                "JOIN memories m ON m.id = p.memory_id WHERE m.namespace = ? "
                "ORDER BY p.memory_id, p.probability DESC, p.older",
                (self.namespace,),
            ).fetchall()
        else:
            rows = []
            for start in range(0, len(ids), 500):
                chunk = list(ids[start : start + 500])
                rows += conn.execute(
                    f"SELECT memory_id, older, probability FROM possible_updates WHERE memory_id IN {_in(chunk)}"
                    + order, chunk
                ).fetchall()
            rows.sort(key=lambda r: (r[0], -r[2], r[1]))
        return [(r[0], PossibleUpdate(r[1], r[2])) for r in rows]

    possible_updates = shapes.possible_updates
    possible_updates_all = shapes.possible_updates_all

    def set_analyses(self, conn: Any, analyses: Mapping[int, tuple[str, str]], version: str) -> None:
        # Only for a memory still there (one may have been purged since it was judged).
        conn.executemany(
            "INSERT INTO statement_analyses(memory_id, version, text_key, analysis) SELECT ?, ?, ?, ? "
            "WHERE EXISTS (SELECT 1 FROM memories WHERE id = ?) ON CONFLICT(memory_id) DO UPDATE SET "
            "version = excluded.version, text_key = excluded.text_key, analysis = excluded.analysis",
            [(i, version, key, analysis, i) for i, (key, analysis) in analyses.items()],
        )

    def analyses(self, ids: Sequence[int], version: str) -> dict[int, tuple[str, str]]:
        found: dict[int, tuple[str, str]] = {}
        with self.db.read() as conn:
            for start in range(0, len(ids), 500):
                chunk = list(ids[start : start + 500])
                found.update((r[0], (r[1], r[2])) for r in conn.execute(
                    f"SELECT memory_id, text_key, analysis FROM statement_analyses WHERE memory_id IN {_in(chunk)} "
                    "AND version = ?", [*chunk, version]))
        return found

    def pending_count(self, scope: Scope, cap: int | None = None) -> int:
        """Live memories of the namespace in `scope`'s threads still waiting for a vector (up to `cap`)."""
        # The queue first (CROSS JOIN fixes the order): without ANALYZE statistics SQLite walked
        # the namespace's memories instead, 0.67 s per recall over all threads at 100k with an
        # empty queue; the queue is what is small.
        sql = (
            "SELECT 1 FROM pending_embeddings p CROSS JOIN memories m ON m.id = p.memory_id "
            "WHERE +m.namespace = ? AND m.deleted_at IS NULL"
        )
        params: list[Any] = [self.namespace]
        if scope.threads is not None:
            sql += f" AND m.thread IN {_in(scope.threads)}"
            params.extend(scope.threads)
        if cap is not None:
            sql += " LIMIT ?"
            params.append(cap)
        with self.db.read() as conn:
            return conn.execute(f"SELECT count(*) FROM ({sql})", params).fetchone()[0]

    def store_vectors(self, vectors: Mapping[int, np.ndarray]) -> int:
        """Write vectors (one row, or a passages x dims matrix) of memories that still await them.

        Each memory's rows are written in the transaction that removes its queue row, so a
        crash leaves either both or neither. Idempotent: a memory another process already
        embedded is left alone, so two processes backfilling the same store never double-insert.
        Rows go to vec0 grouped by partition (namespace, thread); after the commit this process
        appends them to the shared sidecar (vectors.py), unless it is inside a caller's
        transaction (then the next search applies them).
        """
        # lazy: NumPy and vectors, ~0.38 s that a hook process (keyword recall) never needs
        import numpy as np

        # lazy: vectors (NumPy), ~0.22 s that a hook process (keyword recall) never needs
        from server.storage.sqlite.vectors import prune_changes

        written: dict[int, np.ndarray] = {}
        with self.db.write() as conn:
            queued = [m for m in vectors if conn.execute(
                "DELETE FROM pending_embeddings WHERE memory_id = ?", (m,)).rowcount]
            states: dict[int, tuple] = {}
            for start in range(0, len(queued), 500):
                chunk = queued[start : start + 500]
                for row in conn.execute(
                    f"SELECT id, namespace, thread, kind, deleted_at IS NOT NULL, created_at FROM memories "
                    f"WHERE id IN {_in(chunk)}", chunk,
                ):
                    states[row[0]] = row
            for memory_id in sorted(states, key=lambda m: (states[m][1], states[m][2], m)):
                _, namespace, thread, kind, deleted, created_at = states[memory_id]
                matrix = np.atleast_2d(np.asarray(vectors[memory_id], dtype="<f4"))[:PASSAGE_SLOTS]
                conn.execute("DELETE FROM vector_rows WHERE memory_id = ?", (memory_id,))  # a re-embedding
                conn.executemany(
                    "INSERT INTO vec_memories(row_id, embedding, namespace, thread, kind, deleted, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [(memory_id * PASSAGE_SLOTS + p, np.ascontiguousarray(row).tobytes(), namespace, thread, kind,
                      int(deleted), created_at) for p, row in enumerate(matrix)],
                )
                conn.execute("INSERT INTO vector_rows(memory_id, passages) VALUES (?, ?)", (memory_id, len(matrix)))
                written[memory_id] = matrix
            if written:
                prune_changes(conn)
        if written and not self.db._depth:
            with self.db.read() as conn:
                self._vectors.sync(conn, fresh=written, wait=True)
        return len(written)

    def reset_vectors(self, conn: Any, dimensions: int) -> int:
        """Drop every vector (all namespaces) and queue every memory for embedding again."""
        conn.execute("DELETE FROM vector_rows")  # triggers remove their vec0 rows
        (ddl,) = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'vec_memories'").fetchone()
        if f"FLOAT[{int(dimensions)}]" not in ddl.upper():  # another model: a table of its dimensions
            conn.execute("DROP TABLE vec_memories")
            conn.execute(vec0_ddl(dimensions))
        # lazy: vectors (NumPy), ~0.22 s that a hook process (keyword recall) never needs
        from server.storage.sqlite.vectors import prune_changes

        prune_changes(conn)
        conn.execute("INSERT OR IGNORE INTO pending_embeddings(memory_id) SELECT id FROM memories")
        return conn.execute("SELECT count(*) FROM pending_embeddings").fetchone()[0]

    # -- integrity ----------------------------------------------------------------
    def index_drift(self, conn: Any) -> IndexDrift:
        """Compare the keyword index, vectors and queue with `memories` (whole file, every namespace)."""

        def ids(sql: str) -> tuple[int, ...]:
            return tuple(r[0] for r in conn.execute(sql))

        return IndexDrift(
            missing_text=ids(
                "SELECT id FROM memories WHERE deleted_at IS NULL AND id NOT IN (SELECT rowid FROM memory_fts) ORDER BY id"
            ),
            stale_text=ids(
                "SELECT rowid FROM memory_fts WHERE rowid NOT IN (SELECT id FROM memories WHERE deleted_at IS NULL) "
                "ORDER BY rowid"
            ),
            unqueued=ids(
                "SELECT id FROM memories WHERE deleted_at IS NULL "
                "AND id NOT IN (SELECT memory_id FROM pending_embeddings) "
                "AND id NOT IN (SELECT memory_id FROM vector_rows) ORDER BY id"
            ),
            orphan_vectors=ids(
                "SELECT memory_id FROM vector_rows WHERE memory_id NOT IN (SELECT id FROM memories) ORDER BY memory_id"
            ),
            orphan_queue=ids(
                "SELECT memory_id FROM pending_embeddings WHERE memory_id NOT IN (SELECT id FROM memories) "
                "ORDER BY memory_id"
            ),
        )

    def repair_index(self, conn: Any, drift: IndexDrift, text_of: Callable[[str], str]) -> None:
        """Bring the index back in step with `memories`; `text_of` turns content into indexed text."""
        for memory_id in drift.missing_text:
            (content,) = conn.execute("SELECT content FROM memories WHERE id = ?", (memory_id,)).fetchone()
            self.fts_insert(conn, memory_id, text_of(content))
        for memory_id in drift.stale_text:
            conn.execute("DELETE FROM memory_fts WHERE rowid = ?", (memory_id,))
        conn.executemany(
            "INSERT OR IGNORE INTO pending_embeddings(memory_id) VALUES (?)", [(i,) for i in drift.unqueued]
        )
        for memory_id in drift.orphan_vectors:
            conn.execute("DELETE FROM vector_rows WHERE memory_id = ?", (memory_id,))
        conn.executemany("DELETE FROM pending_embeddings WHERE memory_id = ?", [(i,) for i in drift.orphan_queue])

    def integrity_errors(self, conn: Any, quick: bool = True) -> list[str]:
        """What SQLite's own check finds wrong with the file (empty when healthy)."""
        rows = conn.execute("PRAGMA quick_check" if quick else "PRAGMA integrity_check").fetchall()
        return [r[0] for r in rows if r[0] != "ok"]

    def health_counts(self, conn: Any) -> HealthCounts:
        """Live, forgotten, and live still waiting for a vector, over every namespace of the file."""
        live, deleted = conn.execute(
            "SELECT count(*) FILTER (WHERE deleted_at IS NULL), count(*) FILTER (WHERE deleted_at IS NOT NULL) "
            "FROM memories"
        ).fetchone()
        pending = conn.execute(
            "SELECT count(*) FROM pending_embeddings p JOIN memories m ON m.id = p.memory_id WHERE m.deleted_at IS NULL"
        ).fetchone()[0]
        return HealthCounts(live, deleted, pending)
