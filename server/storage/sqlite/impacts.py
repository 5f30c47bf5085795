"""Keyword impact lists: each common term's best memories by its own bm25, and the proof they hold a query's top.

Past the keyword budget (every query word in more than ranking.KEYWORD_MATCH_BUDGET memories: a million-memory
store) recall ranks a window of the matches and loses half of bm25's top 10. FTS5's bm25 of an OR query is the
sum over its terms of each term's own bm25, IDF(term) x f(frequency, length), so a memory in none of the query
terms' lists scores at most the sum of their floors (each list's first left-out memory's score). Scoring the
lists' union exactly and finding its k-th best above that sum proves the union's top k is the whole query's
(threshold algorithm / MaxScore; bench/keyword_impacts.py measured it at 1M: R = 2,000 held the top 10 for
19/19 queries, proved 18). A term's list in one thread holds all its matches there (impact_listed.py).

The lists are a derived index that verifies itself at every use, so a stale one is never wrong:
- A list stores f (bm25 without IDF) of its floor, and the term's match count, the index's rows and tokens and
  its largest rowid (the watermark) when it was built. At a query the floor's score is bounded from what changed
  since: FTS5's IDF is log((N - n + 0.5) / (n + 0.5)) (at least 1e-6), taken at the fewest matches the term can
  have now (built count minus every row that can have gone), and f grows by at most avgdl_now / avgdl_then when
  the average length grows (f's length term is dl / avgdl; a shorter average only lowers it).
- A memory written since (rowid above the watermark) is scored with the union: no write hook.
- A memory indexed again under an id at or below a watermark (an edit, a restore) is `touched` (fts_insert's
  hook below) and scored with the union from then on.
- A forgotten memory leaves the keyword index, so it is never scored; the floor still bounds every memory
  outside the list (a deletion only lowers what is left).
When the proof fails (a list missing, or the k-th best not above the bound), the caller keeps today's bounded
search. PostgreSQL has no lists (its keyword search is unchanged).

A recall never builds a list: one ranks all of a term's matches (0.3-1 s at 1M), and the first past-budget
queries over new common terms took 0.3-2.7 s while their recall built them. A recall records the terms it found
without a fresh list (`want`), and a server's background builder (service.start_background) builds them with
`build_wanted`, one term at a time, on a connection of its own (a build on the recalls' connection would hold
its lock, and every recall, for the whole ranking). A one-shot process (`memvault recall`, a hook) builds none:
its wants end with it, and the next server's recalls want the terms again.
"""

from __future__ import annotations

import heapq
import math
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from server.errors import StoreUnavailable
from server.storage.protocol import KeywordQuery, Scope
from server.storage.sqlite.common import _BM25, SqliteStoreBase, _in, _in_scope, _quote, _scope_filters, fts5_match
from server.storage.sqlite.impact_scores import _varint, gaps, members_of, resolve

#: Memories per term list: at 1M, 2,000 held and proved the top 10 for 18 of 19 queries (500: 12).
LIST_SIZE = 2_000
#: Terms waiting for the builder, per store file, at most (past it a recall's wants are dropped: it
#: wants them again at its next query once the builder caught up).
WANTED_MAX = 1_000
#: A list is built again once this many memories were written after it (they are scored with every
#: union until then: the cost grows, the answer stays exact).
STALE_AFTER = LIST_SIZE
#: How long the builder waits for the write lock to store a list it ranked (it runs beside the server's
#: own writes; giving up at once dropped lists whenever a backfill batch was being stored).
STORE_WAIT = 2.0
#: A list older than the index (anything written since) is built again when a recall needs it, at most
#: this often a term (at 1M a term costs the builder 0.3-1 s: 42 terms every 5 minutes is ~7 % of a core
#: under a steady stream of writes): until then the recall's proofs walk doclists.
REBUILD_DRIFTED = 300.0
#: More touched memories than this and every list is dropped (rebuilt as queries need them).
TOUCHED_MAX = LIST_SIZE
#: A term's list when a proof over it failed for its floors (their sum above the top, and too many memories
#: holding every term to score): at 1M, 'who reviews pull requests on Mondays' is proved at 5,000.
DEEP_SIZE = 5_000

#: The most union members whose missing terms are read from their own text (resolve) for one proof;
#: past it the proof gives up and today's bounded search answers (a cap on the proof's work).
RESOLVE_MAX = 400
#: Members read per batch (the bar rises after each).
RESOLVE_BATCH = 32


#: Proofs that failed, per store file, terms and the lists and index they read (keyword_proved), at most.
FAILED_MAX = 1_000
_failed: dict[tuple, None] = {}
#: Per (store file, term): built at DEEP_SIZE from now on (True: not yet), this process.
_deeper: dict[tuple[str, str], bool] = {}

#: Per store file (Database.path; an in-memory database: its object), the terms recalls wanted a
#: list of, oldest first. Process-wide: a recall's keyword search runs on the file's second connection
#: (Database.aside), another Database object than the builder's.
_wanted: dict[str, dict[str, None]] = {}
_changed = threading.Condition()


def _key(db: Any) -> str:
    return f"memory:{id(db)}" if db.path == ":memory:" else str(db.path)


def want(db: Any, terms: Sequence[Any]) -> None:
    """Record terms a recall found without a fresh list, for the builder (build_wanted); or pairs of terms
    (term, other): the other term's f of the term's list members (build_pair); or ("scoped", term, scope
    token): the term's list in one thread (impact_listed.build_scoped)."""
    with _changed:
        waiting = _wanted.setdefault(_key(db), {})
        new = [t for t in terms if t not in waiting][: max(0, WANTED_MAX - len(waiting))]
        waiting.update(dict.fromkeys(new))
        if new:
            _changed.notify_all()


def wanted(db: Any) -> list[str]:
    """The terms waiting for the builder, oldest first."""
    with _changed:
        return list(_wanted.get(_key(db), ()))


def _take(db: Any, count: int, wait: float) -> list[str]:
    """Up to `count` wanted terms, oldest first, taken off the list; waits up to `wait` seconds for one."""
    key = _key(db)
    with _changed:
        if not _wanted.get(key) and wait > 0:
            _changed.wait(wait)
        waiting = _wanted.get(key, {})
        taken = list(waiting)[:count]
        for term in taken:
            del waiting[term]
        return taken


def wake() -> None:
    """Wake every builder waiting for a want (a server closing: its builder sees it is asked to stop)."""
    with _changed:
        _changed.notify_all()


_drift_wanted: dict[tuple[str, str], float] = {}


def drifted(db: Any, terms: Sequence[str]) -> list[str]:
    """Of these terms (their lists older than the index), those not wanted for that in the last
    REBUILD_DRIFTED seconds (this process); marks them wanted now."""
    now = time.monotonic()
    with _changed:
        out = [t for t in terms if now - _drift_wanted.get((_key(db), t), -math.inf) >= REBUILD_DRIFTED]
        _drift_wanted.update({(_key(db), t): now for t in out})
        return out


def totals(conn: Any) -> tuple[int, int]:
    """The keyword index's rows and tokens (all columns): FTS5's averages record, which bm25 reads too."""
    row = conn.execute("SELECT block FROM memory_fts_data WHERE id = 1").fetchone()
    if row is None or not row[0]:
        return 0, 0
    blob = bytes(row[0])
    rows, pos = _varint(blob, 0)
    tokens = 0
    while pos < len(blob):
        count, pos = _varint(blob, pos)
        tokens += count
    return rows, tokens


def idf(rows: int, matches: int) -> float:
    """FTS5's bm25 IDF (fts5_aux.c)."""
    if rows <= 0:
        return 1e-6
    value = math.log((rows - matches + 0.5) / (matches + 0.5))
    return value if value > 0 else 1e-6


def top_rowid(conn: Any) -> int:
    row = conn.execute("SELECT rowid FROM memory_fts ORDER BY rowid DESC LIMIT 1").fetchone()
    return row[0] if row else 0


def fingerprint(conn: Any) -> tuple:
    """What changes with every write to the keyword index: FTS5's averages and structure records (the
    structure's cookie grows with each write). A list read in one snapshot is stored only when this
    is unchanged in the write transaction: an edit in between would otherwise escape both the list
    and `touch` (which marks only ids under a stored watermark)."""
    return tuple(r[0] for r in conn.execute("SELECT block FROM memory_fts_data WHERE id IN (1, 10) ORDER BY id"))


def build(conn: Any, term: str, size: int | None = None) -> tuple[tuple, list[tuple[int, float]]]:
    """A term's list (LIST_SIZE members unless `size`) read in one snapshot: (its keyword_impact_terms
    row, its members)."""
    size = size or LIST_SIZE
    rows, tokens = totals(conn)
    expression = _quote(term)
    matches = conn.execute("SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ?", (expression,)).fetchone()[0]
    ranked = conn.execute(
        f"SELECT rowid, {_BM25} AS rank FROM memory_fts WHERE memory_fts MATCH ? ORDER BY rank, rowid LIMIT ?",
        (expression, size + 1),
    ).fetchall()
    weight = idf(rows, matches)
    # The first left-out memory's f bounds every memory outside the list (none left out: 0).
    floor = -ranked[size][1] / weight if len(ranked) > size else 0.0
    return (term, floor, matches, rows, tokens, top_rowid(conn)), [(r[0], -r[1] / weight) for r in ranked[:size]]


def build_pair(conn: Any, term: str, other: str) -> list[tuple[str, int, float]] | None:
    """`other`'s f (bm25 without IDF; 0: not in the memory) of every member of `term`'s own list, as
    keyword_impacts rows of `other`, read in one snapshot; None when the two lists are not of this
    snapshot (both are built again first). A query of both terms then scores every member of either
    list exactly from the lists (_proved_listed): without them a member of one list is bounded by the
    other's floor, and at a million that bound held too many of them open to prove a top 10.
    Rows of `other` below its floor keep the floor's promise (every memory outside the rows scores at
    most the floor) and are dropped with the list when it is built again (store)."""
    known = lists(conn, [term, other])
    index = (*totals(conn), top_rowid(conn))
    if len(known) < 2 or any(row[3:] != index for row in known.values()):
        return None
    ranked = conn.execute(
        f"SELECT rowid, {_BM25} FROM memory_fts WHERE memory_fts MATCH ? AND +rowid IN "
        "(SELECT memory_id FROM keyword_impacts WHERE term = ? AND f >= ?)",
        (_quote(other), term, known[term][1]),
    ).fetchall()
    weight = idf(index[0], known[other][2])
    found = {m: -rank / weight for m, rank in ranked}
    own = conn.execute("SELECT memory_id FROM keyword_impacts WHERE term = ? AND f >= ?", (term, known[term][1]))
    return [(other, m, found.get(m, 0.0)) for (m,) in own]


def store_pair(conn: Any, rows_: Sequence[tuple[str, int, float]], seen: tuple) -> bool:
    """Store build_pair's rows read in a snapshot whose fingerprint was `seen` (the other term's own
    members kept as they are); False when the index changed since."""
    if fingerprint(conn) != seen:
        return False
    conn.executemany("INSERT OR IGNORE INTO keyword_impacts(term, memory_id, f) VALUES (?, ?, ?)", rows_)
    return True


def store(conn: Any, row: tuple, members: Sequence[tuple[int, float]], seen: tuple) -> bool:
    """Store a list built from a snapshot whose fingerprint was `seen`; False (nothing stored) when the
    index changed since."""
    if fingerprint(conn) != seen:
        return False
    conn.execute("DELETE FROM keyword_impacts WHERE term = ?", (row[0],))
    conn.executemany("INSERT INTO keyword_impacts(term, memory_id, f) VALUES (?, ?, ?)",
                     [(row[0], m, f) for m, f in members])
    conn.execute(
        "INSERT OR REPLACE INTO keyword_impact_terms(term, floor, matches, rows, tokens, watermark) "
        "VALUES (?, ?, ?, ?, ?, ?)", row,
    )
    return True


def lists(conn: Any, terms: Sequence[str]) -> dict[str, tuple]:
    """The stored keyword_impact_terms rows of these terms."""
    marks = ",".join("?" * len(terms))
    return {r[0]: r for r in conn.execute(
        f"SELECT term, floor, matches, rows, tokens, watermark FROM keyword_impact_terms WHERE term IN ({marks})",
        list(terms),
    )}


def scales(listed: Sequence[tuple], rows: int, tokens: int, top: int) -> list[float]:
    """Per list, what turns a stored f (its floor's, a member's) into the most that memory can score
    for the term now (not written or touched since): the IDF at the fewest matches the term can have,
    times the growth of the average length."""
    out = []
    for _, _, matches, rows_then, tokens_then, watermark in listed:
        added = max(0, top - watermark)
        gone = max(0, rows_then + added - rows)  # rows that can have left the index since
        longer = (tokens / rows) / (tokens_then / rows_then) if rows and rows_then and tokens_then else 1.0
        out.append(idf(rows, max(0, matches - gone)) * max(1.0, longer) * (1 + 1e-9))
    return out


def bound(listed: Sequence[tuple], rows: int, tokens: int, top: int) -> float:
    """The most a memory in none of these lists (and not written or touched since) can score now."""
    return sum(row[1] * s for row, s in zip(listed, scales(listed, rows, tokens, top))) + 1e-12


def union(conn: Any, terms: Sequence[str], scale: Sequence[float]) -> list[tuple[int, float, int]]:
    """The lists' union: per memory its listed terms' f times their `scale` summed, and which lists it
    is in (bit i: terms[i]), one grouped statement (no per-member Python)."""
    marks = ",".join("?" * len(terms))
    weight = " ".join("WHEN ? THEN ?" for _ in terms)
    sql = (
        f"SELECT memory_id, sum(f * CASE term {weight} END), sum(CASE term {weight} END) "
        f"FROM keyword_impacts WHERE term IN ({marks}) GROUP BY memory_id"
    )
    params = [x for t, k in zip(terms, scale) for x in (t, k)]
    params += [x for i, t in enumerate(terms) for x in (t, 1 << i)]
    return conn.execute(sql, (*params, *terms)).fetchall()


def score(conn: Any, expression: str, terms: Sequence[str], since: int, fetch: int) -> list[tuple[int, float]]:
    """The best `fetch` of the lists' union (with every memory written above `since` and every touched
    one), each ranked by the whole expression's bm25. The candidates are a filter (`+rowid`): bm25 runs
    only for them, FTS5 walks each term's doclist once (for its IDF and the match)."""
    marks = ",".join("?" * len(terms))
    sql = (
        f"SELECT rowid, {_BM25} AS rank FROM memory_fts WHERE memory_fts MATCH ? AND ("
        f"+rowid IN (SELECT memory_id FROM keyword_impacts WHERE term IN ({marks})) OR +rowid > ? "
        "OR +rowid IN (SELECT memory_id FROM keyword_impact_touched)) ORDER BY rank, rowid LIMIT ?"
    )
    return [(r[0], r[1]) for r in conn.execute(sql, (expression, *terms, since, fetch))]


def touch(conn: Any, memory_id: int) -> None:
    """A memory indexed again at or below a list's watermark (an edit, a restore) is scored with every
    union from now on: its new text may beat a floor without being in the list."""
    added = conn.execute(
        "INSERT OR IGNORE INTO keyword_impact_touched(memory_id) SELECT ? "
        "WHERE ? <= (SELECT max(watermark) FROM keyword_impact_terms)",
        (memory_id, memory_id),
    ).rowcount
    if added and conn.execute("SELECT count(*) FROM keyword_impact_touched").fetchone()[0] > TOUCHED_MAX:
        conn.execute("DELETE FROM keyword_impact_terms")
        conn.execute("DELETE FROM keyword_impacts")
        conn.execute("DELETE FROM keyword_impact_touched")


def touched(conn: Any) -> bool:
    return conn.execute("SELECT 1 FROM keyword_impact_touched LIMIT 1").fetchone() is not None


def score_every(conn: Any, expression: str, ids: Sequence[int]) -> list[tuple[int, float]]:
    """Those of `ids` that match `expression` (every term), each ranked by its bm25."""
    sql = f"SELECT rowid, {_BM25} FROM memory_fts WHERE memory_fts MATCH ? AND +rowid IN ({','.join('?' * len(ids))})"
    return [(r[0], r[1]) for r in conn.execute(sql, (expression, *ids))]


def score_newer(conn: Any, expression: str, since: int) -> list[tuple[int, float]]:
    """Every match of `expression` written after `since`, ranked (FTS5 starts each doclist there)."""
    # bm25 walks each term's whole doclist once for its IDF: only when one of them is there at all
    # (a seek past `since` in each doclist, no bm25).
    if conn.execute("SELECT 1 FROM memory_fts WHERE memory_fts MATCH ? AND rowid > ? LIMIT 1",
                    (expression, since)).fetchone() is None:
        return []
    sql = f"SELECT rowid, {_BM25} FROM memory_fts WHERE memory_fts MATCH ? AND rowid > ?"
    return [(r[0], r[1]) for r in conn.execute(sql, (expression, since))]


class SqliteImpacts(SqliteStoreBase):
    """The search role's keyword search past the budget from the impact lists (SqliteSearch inherits it)."""

    _build_scoped: Callable[[Any, str, str], int]  # a term's list in one thread, stored: impact_listed.py's

    def keyword_proved(self, terms: Sequence[str], limit: int, scope: Scope, prove: int) -> dict[int, float] | None:
        """The best `limit` matches of `terms` ORed (as `keyword` ranks them) found among the terms' impact
        lists (this module), when their best `prove` are proved to be the whole query's; else
        None (a list missing, too few in scope, the proof short: the caller searches as before). Builds
        nothing: terms without a list, or with one gone stale, are wanted (build_wanted builds them)."""
        expression = fts5_match(KeywordQuery(tuple(terms)))
        if expression is None or scope != Scope(threads=scope.threads):
            return None
        expression = _in_scope(expression, self.namespace, scope.threads)
        try:
            with self.db.read() as conn:
                known = lists(conn, terms)
                top = top_rowid(conn)
                stale = [t for t in terms if t not in known or top - known[t][5] > STALE_AFTER]
                if stale:
                    want(self.db, stale)
                if len(known) < len(terms):
                    return None
                rows, tokens = totals(conn)
                listed = [known[t] for t in terms]
                if any(top - row[5] > 10 * STALE_AFTER for row in listed):
                    return None  # written past far since (the union would grow with it): not built again yet
                since = min(row[5] for row in listed)
                kept = None
                is_touched = touched(conn)
                unchanged = not is_touched and all(row[3:] == (rows, tokens, top) for row in listed)
                if not unchanged:
                    # Written since: the proofs below walk doclists (FTS5); the lists built again on this
                    # index prove from memory. Wanted at most every REBUILD_DRIFTED seconds a term (a
                    # stream of writes would otherwise keep the builder ranking the same terms).
                    want(self.db, drifted(self.db, [t for t in terms if known[t][3:] != (rows, tokens, top)]))
                if unchanged:
                    # Nothing else would prove more: a member the lists leave open was scored from its text,
                    # or capped. The fallback is today's bounded search alone, never FTS5's proofs first.
                    # It failed before on these lists (their rows and pairs) and this index: it fails again,
                    # today's search at once (at 1M such a proof cost 25-40 ms before that search ran).
                    counts = tuple(conn.execute("SELECT count(*) FROM keyword_impacts WHERE term = ?",
                                                (t,)).fetchone()[0] for t in terms)
                    failed = (_key(self.db), tuple(terms), limit, prove, scope, RESOLVE_MAX, tuple(listed), counts)
                    kept = None if failed in _failed else self._proved_listed(conn, terms, scope, listed, rows,
                                                                               tokens, limit, prove)
                    if kept is None and _failed.setdefault(failed) is None and len(_failed) > FAILED_MAX:
                        _failed.pop(next(iter(_failed)), None)  # the oldest
                    return dict(kept) if kept is not None else None
                if not is_touched:
                    kept = self._proved_every(conn, terms, scope, listed, (rows, tokens, top), since, limit, prove)
                else:  # an edit or a restore: only the walk of every doclist scores what it touched
                    kept = self._proved_any(conn, expression, terms, scope, listed, (rows, tokens, top), since, limit,
                                            prove)
        except self.db.errors.OperationalError:
            return None  # a store not migrated yet (opened read-only, as bench/scale.py --store does)
        return dict(kept) if kept is not None else None

    def wake_impact_builder(self) -> None:
        """Wake the builder waiting in build_wanted (a server closing)."""
        wake()

    def build_wanted(self, max_terms: int, wait: float = 0.0) -> int:
        """Build (or build again) the lists of up to `max_terms` wanted terms, oldest want first, waiting
        up to `wait` seconds for one; the number stored. The server's builder thread calls this in a
        loop (service.start_background). Each build reads on a connection of its own (Database.beside:
        the recalls' connection stays free for the 0.3-1 s a term's ranking takes at 1M) and stores the
        list in a short write on it, given up when another process holds the write lock (a later
        recall wants the term again)."""
        terms = _take(self.db, max_terms, wait)
        if not terms:
            return 0
        side = self.db.beside()
        stored = 0
        left = list(terms)
        try:
            while left:
                term = left[0]
                if isinstance(term, tuple) and len(term) == 3:  # ("scoped", term, scope token)
                    stored += self._build_scoped(side, term[1], term[2])
                    left.pop(0)
                    continue
                if isinstance(term, tuple):
                    with side.read() as conn:
                        seen = fingerprint(conn)
                        pair = build_pair(conn, *term)
                    if pair is not None:
                        with side.write(wait=STORE_WAIT) as conn:
                            stored += store_pair(conn, pair, seen)
                    left.pop(0)
                    continue
                with side.read() as conn:
                    known = lists(conn, [term])
                    if term in known and known[term][3:] == (*totals(conn), top_rowid(conn)) \
                            and not _deeper.get((_key(self.db), term)):
                        left.pop(0)
                        continue  # of this index already (built since it was wanted, or wanted twice)
                    seen = fingerprint(conn)
                    row, members = build(conn, term, DEEP_SIZE if (_key(self.db), term) in _deeper else None)
                with side.write(wait=STORE_WAIT) as conn:
                    kept = store(conn, row, members, seen)
                if kept and _deeper.get((_key(self.db), term)):
                    _deeper[(_key(self.db), term)] = False  # built deep: not again until a proof asks
                stored += kept  # not kept: the index changed while it was ranked (the next recall wants it)
                left.pop(0)
        except StoreUnavailable:
            want(self.db, left)  # another process held the write lock: wanted again, not dropped
        except self.db.errors.OperationalError:
            pass  # a store not migrated (opened read-only): no lists
        finally:
            if side is not self.db:
                side.close()
        return stored

    def _passing(self, conn: Any, ranked: list[tuple[int, float]], scope: Scope, limit: int) -> list | None:
        """The best `limit` of `ranked` (best first) that pass the namespace and thread check, None when
        fewer than `limit` of its first 2 x limit pass and more were ranked (the rest would need checking)."""
        ids = [r[0] for r in ranked[: 2 * limit]]
        if not ids:
            return []
        where = [f"id IN {_in(ids)}", "+namespace = ?", "deleted_at IS NULL"]
        params: list[Any] = [*ids, self.namespace]
        _scope_filters(Scope(threads=scope.threads), "+", where, params)
        passing = {r[0] for r in conn.execute(f"SELECT id FROM memories WHERE {' AND '.join(where)}", params)}
        kept = [(m, rank) for m, rank in ranked[: 2 * limit] if m in passing][:limit]
        return None if len(kept) < limit and len(ranked) > 2 * limit else kept

    def _proved_listed(self, conn: Any, terms: Sequence[str], scope: Scope, listed: list[tuple], rows: int,
                       tokens: int, limit: int, prove: int) -> list | None:
        """The proof from the lists, when the index is as every list saw it (its rows, tokens and top
        rowid unchanged, nothing touched: each term's IDF and the average length are the lists'), with no
        FTS5 search (bm25's walks of every doclist for its IDF cost the searches most at a million).
        A memory in every list is scored from them (its stored f times each term's IDF: FTS5's bm25 to
        rounding); one in some scores at least its listed terms' and at most that plus the other terms'
        floors; any other at most the sum of the floors. The members that could still reach the
        `prove`-th best are scored exactly from their own text (resolve, at most RESOLVE_MAX of them);
        the top is proved when its `prove`-th beats every bound left. Arrays, not SQL: the union is a
        few thousand members."""
        import numpy as np  # lazy: as in members_of (hooks open the store, never prove a list)

        weights = np.array([idf(rows, row[2]) for row in listed])
        floors = [row[1] * w for row, w in zip(listed, weights)]
        opened, _ = gaps(floors)
        parts = [members_of(conn, _key(self.db), row) for row in listed]
        ids, where = np.unique(np.concatenate([p[0] for p in parts]), return_inverse=True)
        lower = np.zeros(len(ids))
        mask = np.zeros(len(ids), dtype=np.int64)
        at = 0
        for i, (members, f) in enumerate(parts):
            places = where[at: at + len(members)]
            at += len(members)
            lower[places] += f * weights[i]
            mask[places] |= 1 << i
        upper = lower + np.array(opened)[mask]
        full = (1 << len(terms)) - 1
        need = min(prove, limit)
        if len(ids) < need:
            return None
        score = lower.copy()  # exact where known (every list's members, the resolved), else a lower bound
        done = mask == full
        # The members left open, most promising first, read in batches until none can reach the need-th best
        # (MaxScore: each batch raises that score, and the bar the next must clear).
        order = np.argsort(-upper[~done], kind="stable")
        order = np.flatnonzero(~done)[order]
        avgdl = tokens / rows if rows else 0.0
        bar = np.partition(score, len(score) - need)[len(score) - need]
        left = ~done & (upper > bar * (1 - 1e-9))
        if left.any():  # the pairs that would have scored them from the lists (the builder's, build_pair)
            bits = [(mask >> i) & 1 == 1 for i in range(len(terms))]
            want(self.db, [(terms[i], terms[j]) for i in range(len(terms)) for j in range(len(terms))
                           if i != j and (left & bits[i] & ~bits[j]).any()])
        read = 0
        while read < len(order):
            tenth = np.partition(score, len(score) - need)[len(score) - need]
            if upper[order[read]] <= tenth * (1 - 1e-9):
                break
            if read >= RESOLVE_MAX:
                return None  # too many to read: today's search (the proof's work is capped)
            batch = order[read: read + RESOLVE_BATCH]
            read += len(batch)
            scored = resolve(conn, self.db.errors, ids[batch].tolist(), terms, avgdl) if avgdl else None
            if scored is None:
                return None
            for place in batch.tolist():
                found = scored.get(int(ids[place]))
                if found is not None:
                    score[place] = float(sum(f * w for f, w in zip(found, weights)))
                    done[place] = True
        beaten = sum(floors)
        if len(terms) > 1 and np.partition(score, len(score) - need)[len(score) - need] <= beaten * (1 + 1e-9):
            # A memory in no list holding every term could beat the top (the floors' sum binds; at a million,
            # four common terms). Those are found by FTS5 intersecting the doclists (no bm25, so no IDF walks)
            # and scored from their text; any other memory in no list lacks a term: the floors' sum less
            # the smallest floor.
            every = _in_scope(fts5_match(KeywordQuery(tuple(terms[:1]), every=tuple(terms[1:]))), self.namespace,
                              scope.threads)
            holders = [r[0] for r in conn.execute("SELECT rowid FROM memory_fts WHERE memory_fts MATCH ? LIMIT ?",
                                                  (every, RESOLVE_MAX + 1))]
            members = set(ids.tolist())
            outside = [m for m in holders if m not in members]
            if len(holders) > RESOLVE_MAX or len(outside) + read > RESOLVE_MAX:
                deeper = [t for t in terms if (_key(self.db), t) not in _deeper]  # lower floors (DEEP_SIZE)
                _deeper.update({(_key(self.db), t): True for t in deeper})
                want(self.db, deeper)
                return None  # too many to read: today's search
            scored = resolve(conn, self.db.errors, outside, terms, avgdl) if outside else {}
            if scored is None or len(scored) < len(outside):
                return None
            extra = {m: float(sum(f * w for f, w in zip(found, weights))) for m, found in scored.items()}
            beaten = sum(floors) - min(floors)
        else:
            extra = {}
        if (~done).any():
            beaten = max(beaten, float(upper[~done].max()))
        # Only the best 2 x limit (+1: _passing asks whether more were ranked) are ordered in Python: a dict
        # and sort of every exact member cost 40 ms of a 14,000-member union at 1M.
        found = np.concatenate([ids[done], np.array(list(extra), dtype=np.int64)])
        best = np.concatenate([score[done], np.array(list(extra.values()), dtype=np.float64)])
        top = np.lexsort((found, -best))[: 2 * limit + 1]  # (rank, id) as the FTS5 searches order them
        kept = self._passing(conn, [(int(found[i]), -float(best[i])) for i in top], scope, limit)
        margin = beaten * (1 + 1e-9) + 1e-12  # the sums' rounding, FTS5's order of addition against ours
        return kept if kept is not None and len(kept) >= need and -kept[need - 1][1] > margin else None

    def _proved_every(self, conn: Any, terms: Sequence[str], scope: Scope, listed: list[tuple], index: tuple,
                      since: int, limit: int, prove: int) -> list | None:
        """The proof from the union's memories holding every term: FTS5 intersects the terms' doclists
        (skipping, far cheaper than walking their union) and ranks only those in the lists, plus every
        memory written since. Every other union member is bounded by its listed terms' scores plus the
        floors of the others (gaps: less the smallest when it is known not to hold them all)."""
        every = _in_scope(fts5_match(KeywordQuery(tuple(terms[:1]), every=tuple(terms[1:]))), self.namespace,
                          scope.threads)
        anything = _in_scope(fts5_match(KeywordQuery(tuple(terms))), self.namespace, scope.threads)
        scale = scales(listed, *index)
        floors = [row[1] * k for row, k in zip(listed, scale)]
        opened, short = gaps(floors)
        members = union(conn, terms, scale)
        if not members or len(members) > 30_000:
            return None
        # Only members that could reach the limit-th best listed score are ranked (bm25 costs ~15 us a
        # row in an AND of common terms): the proof bounds every member left out by what it could reach.
        reach = {m: listed + opened[mask] for m, listed, mask in members}
        tenth = heapq.nlargest(max(limit, prove), (listed for _, listed, _ in members))[-1]
        ranked = [m for m, most in reach.items() if most >= tenth * (1 - 1e-6)]
        exact = dict(score_every(conn, every, ranked))
        exact.update(score_newer(conn, anything, since))
        left = set(ranked)
        beaten = sum(floors) + 1e-12
        for m, listed, mask in members:
            if m not in exact:  # ranked and not holding every term: at least one of the others is not there
                beaten = max(beaten, listed + short[mask] if m in left else reach[m])
        kept = self._passing(conn, sorted(exact.items(), key=lambda hit: (hit[1], hit[0])), scope, limit)
        need = min(prove, limit)
        return kept if kept is not None and len(kept) >= need and -kept[need - 1][1] > beaten else None

    def _proved_any(self, conn: Any, expression: str, terms: Sequence[str], scope: Scope, listed: list[tuple],
                    index: tuple, since: int, limit: int, prove: int) -> list | None:
        """The proof from the whole union scored (score): a walk of every term's doclist."""
        ranked = score(conn, expression, terms, since, 2 * limit + 1)
        kept = self._passing(conn, ranked, scope, limit)
        need = min(prove, limit)
        if kept is None or len(kept) < need or -kept[need - 1][1] <= bound(listed, *index):
            return None
        return kept
