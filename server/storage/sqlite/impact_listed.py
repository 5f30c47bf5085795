"""Keyword impact lists under the budget: keyword_hits' answer for a query of rare and common terms,
scored from the lists (impacts.py) with no FTS5 search.

keyword_plan leaves a query unwindowed when its rare terms' matches fit the budget; keyword_hits then
ranks every memory holding a rare term by bm25 over all the query's terms, in two FTS5 searches that
each walk every common term's whole doclist for its IDF (at 1M, `handle_refund`: 874 matches of the
rare term beside 590,000 and 180,000 of the others, 35-50 ms a search). A rare term's list holds all
its matches (at most LIST_SIZE of them: a floor of 0) and the builder's pairs (build_pair) hold each
common term's f of those memories, so those scores are sums of stored numbers.

In threads (every term rare there, the usual plan of a thread of a large file), each term's list in each thread
(build_scoped) holds all its matches there with their f, and the term's match count in the file (its IDF):
the thread's search is their sum (keyword_scoped) and its plan's counts their sizes (scoped_counts). In a thread
spread over a million-memory file FTS5 ranks only its few thousand matches, but walks each term's whole doclist
in the file for its IDF (4-26 ms a term), and each count walks the term's matches in the file beside the
thread's (1-9 ms). Like every list, they answer only an index as they saw it (a write since: FTS5 decides).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any

from server.storage.protocol import Scope
from server.storage.sqlite import impacts
from server.storage.sqlite.common import _BM25, _quote
from server.storage.sqlite.fts import scope_token
from server.storage.sqlite.impact_scores import members_of
from server.storage.sqlite.impacts import (
    FAILED_MAX,
    STORE_WAIT,
    SqliteImpacts,
    _key,
    drifted,
    fingerprint,
    idf,
    lists,
    store,
    top_rowid,
    totals,
    touched,
    want,
)


#: A thread's list (build_scoped) is kept only in files of at least this many memories (by rowid): below,
#: FTS5's walks of a term's whole doclist for its IDF cost little (a term of 10k memories holds a few thousand,
#: ~0.1 ms) and the builder would rank every thread's terms for no gain.
SCOPED_FROM = 100_000
#: A thread's list holds every match of its term in the thread: one of more than this many is not built.
SCOPED_MAX = 20_000
#: The rows of every thread's lists in a file, at most: past it the builder drops the least recently used lists
#: (each (term, thread) a recall asks for adds one, and reads must not grow a file kept for years). A row costs
#: ~40 bytes on disk (term and scope token, id, f; measured: a file of 500 lists of 2,000 rows at ids up to 1M,
#: stored in id order as the builder does, 47 in random order), so a list of SCOPED_MAX rows ~0.8 MB and the
#: budget ~40 MB, 2 % of the 2.2 GB file of a million memories: 50 lists of the largest, hundreds of a thread's
#: usual few thousand matches. The builder counts them once a process (~90 ms at 1M rows), then adds.
SCOPED_ROWS = 1_000_000
#: The lists of threads with no live memory left are dropped at most this often (by the builder, one FTS5
#: lookup of each listed thread's scope token).
PRUNE_EVERY = 300.0
#: Uses remembered per file between the builder's stores, at most (the oldest forgotten past it).
USED_MAX = 10_000


def scoped_key(term: str, token: str) -> str:
    """The keyword_impact_terms key of `term`'s list in one thread (its scope token, fts.scope_token): a
    term is one word, so the space keeps it apart from every term's own list."""
    return f"{term} {token}"


def build_scoped(conn: Any, term: str, token: str) -> tuple[tuple, list[tuple[int, float]]] | None:
    """`term`'s list in one thread (its scope token), read in one snapshot: every memory of the thread
    holding the term with its f (bm25 without IDF), and the term's match count in the whole file (its
    IDF: bm25's is the file's, whatever the scope); None past SCOPED_MAX matches. A search in a thread
    spread over a million-memory file ranks a few thousand matches, but bm25 walks each term's whole
    doclist for its IDF (4-26 ms a term at 1M): SqliteImpactsListed.keyword_scoped sums these instead.
    The scope phrase adds nothing to the rank (its column weight is 0), so the rank is IDF x f."""
    rows, tokens = totals(conn)
    matches = conn.execute("SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ?", (_quote(term),)).fetchone()[0]
    ranked = conn.execute(
        f"SELECT rowid, {_BM25} FROM memory_fts WHERE memory_fts MATCH ? LIMIT ?",
        (f"({_quote(term)}) AND scope : {token}", SCOPED_MAX + 1),
    ).fetchall()
    if len(ranked) > SCOPED_MAX:
        return None
    weight = idf(rows, matches)
    return (scoped_key(term, token), 0.0, matches, rows, tokens, top_rowid(conn)), [(r[0], -r[1] / weight)
                                                                                 for r in ranked]


#: Per (store file, scoped_key): a term's list in a thread not built, its matches there past SCOPED_MAX
#: (this process; at most FAILED_MAX).
_unlisted: dict[tuple[str, str], None] = {}
#: Per store file, the thread lists recalls answered from since the builder last recorded it, oldest first: a
#: use costs a recall no write; the builder moves them to the end of the use order when it next stores a list.
_used: dict[str, dict[str, None]] = {}
#: Per store file, its thread lists' rows as this process's builder last counted them (and added since).
_scoped_rows: dict[str, int] = {}
#: Per store file, when (time.monotonic) this process's builder last dropped the lists of threads gone.
_pruned: dict[str, float] = {}
#: Per store file, the newest use order (rowid) at this process's builder's last pass over threads gone.
_pruned_mark: dict[str, int] = {}


def used(db_key: str, keys: Sequence[str]) -> None:
    """Record that a recall answered from these thread lists (in memory; the builder writes the order)."""
    seen = _used.setdefault(db_key, {})
    for key in keys:
        seen.pop(key, None)
        seen[key] = None
    while len(seen) > USED_MAX:
        seen.pop(next(iter(seen)), None)


def _scoped_size(conn: Any) -> int:
    return conn.execute("SELECT coalesce(sum((SELECT count(*) FROM keyword_impacts i WHERE i.term = t.term)), 0) "
                        "FROM keyword_impact_terms t WHERE instr(t.term, ' ') > 0").fetchone()[0]


def _drop(conn: Any, term: str) -> int:
    """Drop one list; its rows."""
    gone = conn.execute("DELETE FROM keyword_impacts WHERE term = ?", (term,)).rowcount
    conn.execute("DELETE FROM keyword_impact_terms WHERE term = ?", (term,))
    return gone


def keep_budget(conn: Any, db_key: str, stored: str, added: int) -> None:
    """After the builder stored the thread list `stored` (of `added` rows), in its write: the recalls' uses
    recorded (the use order is keyword_impact_terms' rowid: a stored list gets a new one, a used one is given
    the next), the lists of threads with no live memory dropped (every PRUNE_EVERY seconds; only those neither
    built nor used since the last such pass: a thread recalled before its first memory keeps its empty lists),
    and the least recently used lists dropped until every thread list fits SCOPED_ROWS (never the one just
    stored). A list dropped is built again when a recall wants it; until then FTS5 answers, the same ranks."""
    newest = "SELECT coalesce(max(rowid), 0) FROM keyword_impact_terms WHERE term != ?"
    mark = _pruned_mark.get(db_key)
    if mark is None:
        mark = conn.execute(newest, (stored,)).fetchone()[0]  # this process's first pass: what came before
    for key in _used.pop(db_key, {}):
        conn.execute("UPDATE keyword_impact_terms SET rowid = (SELECT max(rowid) FROM keyword_impact_terms) + 1 "
                     "WHERE term = ? AND term != ?", (key, stored))
    total = _scoped_rows[db_key] + added if db_key in _scoped_rows else None
    now = time.monotonic()
    if now - _pruned.get(db_key, -math.inf) >= PRUNE_EVERY:
        _pruned[db_key] = now
        terms = [r[0] for r in conn.execute("SELECT term FROM keyword_impact_terms WHERE instr(term, ' ') > 0 "
                                            "AND rowid <= ? AND term != ?", (mark, stored))]
        live = "SELECT 1 FROM memory_fts WHERE memory_fts MATCH ? LIMIT 1"
        gone = {tok for tok in {t.split(" ", 1)[1] for t in terms}
                if conn.execute(live, (f"scope : {tok}",)).fetchone() is None}
        for term in terms:
            if term.split(" ", 1)[1] in gone:
                _drop(conn, term)
                total = None
        _pruned_mark[db_key] = conn.execute(newest, ("",)).fetchone()[0]
    if total is None or total > SCOPED_ROWS:
        total = _scoped_size(conn)  # exact before dropping anything (other processes' lists, replaced ones)
    if total > SCOPED_ROWS:
        oldest = conn.execute("SELECT term FROM keyword_impact_terms WHERE instr(term, ' ') > 0 AND term != ? "
                              "ORDER BY rowid", (stored,)).fetchall()
        for (term,) in oldest:
            if total <= SCOPED_ROWS:
                break
            total -= _drop(conn, term)
    _scoped_rows[db_key] = total


class SqliteImpactsListed(SqliteImpacts):
    """The search role's keyword search under the budget from the impact lists (SqliteSearch inherits it)."""

    def keyword_listed(self, rare: Sequence[str], common: Sequence[str], limit: int,
                       scope: Scope) -> dict[int, float] | None:
        """Under the budget with common terms (keyword_plan unwindowed: a rare term of a few thousand
        matches beside terms of 100,000+), keyword_hits' answer from the lists: every memory holding a
        rare term, ranked by bm25 over all the terms, the best `limit`; None when the lists cannot tell
        (the caller searches as before). Those two FTS5 searches rank only the rare terms' matches, but
        bm25 walks every common term's whole doclist for its IDF, twice (35-50 ms a search at 1M). Here
        each rare term's list holds all its matches (a floor of 0: at most LIST_SIZE of them) and the
        common terms' rows hold their f of each of those memories (pairs, build_pair), so with the index
        as the lists saw it (its rows, tokens and top rowid, nothing touched: each IDF is the lists'
        match count) every score is the sum of f x IDF (FTS5's bm25 to rounding), with no FTS5 search.
        Builds nothing: a list or pair missing is wanted (build_wanted)."""
        import numpy as np  # lazy: as in members_of (hooks open the store, never prove a list)

        terms = [*rare, *common]
        if not rare or not common or scope != Scope():
            return None  # in threads the rare terms are rare there, rarely in the whole file: no list holds them
        try:
            with self.db.read() as conn:
                # A rare term of more matches than a list holds can never be answered here: nothing is wanted
                # (the builder would rank it again at every drift for no use).
                fit = "SELECT count(*) FROM (SELECT 1 FROM memory_fts WHERE memory_fts MATCH ? LIMIT ?)"
                if any(conn.execute(fit, (_quote(t), impacts.LIST_SIZE + 1)).fetchone()[0] > impacts.LIST_SIZE
                       for t in rare):
                    return None
                known = lists(conn, terms)
                index = (*totals(conn), top_rowid(conn))
                stale = [t for t in terms if t not in known or known[t][3:] != index]
                if stale:
                    want(self.db, drifted(self.db, [t for t in stale if t in known]) + [t for t in stale
                                                                                          if t not in known])
                    return None
                if any(known[t][1] > 0 for t in rare) or touched(conn):
                    return None  # a rare term's list leaves matches out, or an edit since: FTS5 decides
                parts = {t: members_of(conn, _key(self.db), known[t]) for t in terms}
                ids = np.unique(np.concatenate([parts[t][0] for t in rare]))
                total = np.zeros(len(ids))
                missing = []
                for t in terms:
                    own, f = parts[t]
                    order = np.argsort(own, kind="stable")
                    own, f = own[order], f[order]
                    at = np.minimum(np.searchsorted(own, ids), max(len(own) - 1, 0))
                    found = own[at] == ids if len(own) else np.zeros(len(ids), dtype=bool)
                    if not found.all():
                        missing.append(t)
                        continue
                    total += f[at] * idf(index[0], known[t][2])
                if missing:  # the common terms' f of the rare terms' matches: built beside the server
                    want(self.db, [(r, t) for r in rare for t in missing])
                    return None
                ranked = sorted(((int(m), -float(x)) for m, x in zip(ids, total)), key=lambda hit: (hit[1], hit[0]))
                kept = self._passing(conn, ranked, scope, limit)
        except self.db.errors.OperationalError:
            return None  # a store not migrated yet (opened read-only, as bench/scale.py --store does)
        return dict(kept) if kept is not None else None

    def _scoped_lists(self, conn: Any, terms: Sequence[str], scope: Scope) -> dict[tuple[str, str], tuple] | None:
        """Per term and thread of the scope (its scope token), the stored row of the term's list there
        (build_scoped) when it is of this index (its rows, tokens and top rowid), the others wanted
        (at most every REBUILD_DRIFTED seconds a list once built); None in a file of fewer than SCOPED_FROM
        memories (no list is kept) or after an edit (touched: FTS5 decides)."""
        top = top_rowid(conn)
        if top < SCOPED_FROM:
            return None
        keys = {(t, tok): scoped_key(t, tok) for t in terms
                for tok in dict.fromkeys(scope_token(self.namespace, thread) for thread in scope.threads)}
        known = lists(conn, list(keys.values()))
        index = (*totals(conn), top)
        stale = [w for w, key in keys.items() if key not in known or known[key][3:] != index]
        if stale:
            want(self.db, drifted(self.db, [("scoped", *w) for w in stale if keys[w] in known])
                 + [("scoped", *w) for w in stale if keys[w] not in known])
        if touched(conn):
            return None
        fresh = {w: known[key] for w, key in keys.items() if w not in stale}
        used(_key(self.db), [keys[w] for w in fresh])
        return fresh

    def scoped_counts(self, terms: Sequence[str], scope: Scope, cap: int) -> dict[str, int]:
        """Of these terms, the matches in the scope's threads (match_count's, up to `cap`) of those whose list
        in every thread of the scope is of this index (each holds all the term's matches there); the others
        are left out, their lists wanted (the caller counts them: each count walks the term's matches in the
        file beside the threads', 1-9 ms a term at 1M)."""
        if not terms or scope.threads is None or scope != Scope(threads=scope.threads):
            return {}
        try:
            with self.db.read() as conn:
                fresh = self._scoped_lists(conn, terms, scope)
                if not fresh:
                    return {}
                marks = ",".join("?" * len(fresh))
                sizes = dict(conn.execute(f"SELECT term, count(*) FROM keyword_impacts WHERE term IN ({marks}) "
                                          "GROUP BY term", [row[0] for row in fresh.values()]))
        except self.db.errors.OperationalError:
            return {}  # a store not migrated yet (opened read-only, as bench/scale.py --store does)
        threads = len(dict.fromkeys(scope_token(self.namespace, thread) for thread in scope.threads))
        got: dict[str, list[int]] = {}
        for (term, _), row in fresh.items():
            got.setdefault(term, []).append(sizes.get(row[0], 0))
        return {t: min(cap, sum(n)) for t, n in got.items() if len(n) == threads}

    def keyword_scoped(self, terms: Sequence[str], common: Sequence[str], limit: int,
                       scope: Scope) -> dict[int, float] | None:
        """In threads, a search of these terms ORed (keyword_hits' for a plan of rare terms alone, `common`
        empty, unwindowed: the case in a thread) from each term's list in each thread (build_scoped):
        every memory of the threads holding a term, ranked by bm25 over the terms, the best `limit`; None
        when the lists cannot tell (the caller searches as before). In a thread spread over a million-memory
        file FTS5 ranks its few thousand matches, but walks each term's whole doclist in the file for its
        IDF, 4-26 ms a term; here each score is the sum of the stored f x IDF (FTS5's bm25 to rounding),
        with the index as every list saw it (_scoped_lists: each IDF is the lists' match count). Builds
        nothing: a list missing or older than the index is wanted (build_wanted)."""
        if not terms or common or scope.threads is None or scope != Scope(threads=scope.threads):
            return None  # (common terms: two searches, keyword_hits'; over every thread keyword_listed's)
        try:
            with self.db.read() as conn:
                fresh = self._scoped_lists(conn, terms, scope)
                tokens = dict.fromkeys(scope_token(self.namespace, thread) for thread in scope.threads)
                if fresh is None or len(fresh) < len(terms) * len(tokens):
                    return None
                # One grouped statement, no NumPy (a hook process answering by keyword never loads it): per
                # memory its terms' f x IDF summed (a memory is in one thread: in one list of each term at most).
                rows = list(fresh.values())
                weights = [x for row in rows for x in (row[0], idf(row[3], row[2]))]
                ranked = conn.execute(
                    f"SELECT memory_id, -sum(f * CASE term {' '.join('WHEN ? THEN ?' for _ in rows)} END) AS rank "
                    f"FROM keyword_impacts WHERE term IN ({','.join('?' * len(rows))}) GROUP BY memory_id "
                    "ORDER BY rank, memory_id LIMIT ?",  # (rank, id) as FTS5's search orders them
                    (*weights, *(row[0] for row in rows), 2 * limit + 1)).fetchall()
                kept = self._passing(conn, [(r[0], r[1]) for r in ranked], scope, limit)
        except self.db.errors.OperationalError:
            return None  # a store not migrated yet (opened read-only, as bench/scale.py --store does)
        return dict(kept) if kept is not None else None

    def _build_scoped(self, side: Any, term: str, token: str) -> int:
        """`term`'s list in one thread built on `side` (the builder's connection, build_wanted) and stored unless
        of this index already; 1 when stored."""
        unlisted = (_key(self.db), scoped_key(term, token))
        with side.read() as conn:
            known = lists(conn, [unlisted[1]])
            fresh = bool(known) and known[unlisted[1]][3:] == (*totals(conn), top_rowid(conn))
            seen = fingerprint(conn)
            built = None if fresh or unlisted in _unlisted else build_scoped(conn, term, token)
        if built is None:
            if not fresh:  # past SCOPED_MAX in its thread: not ranked again (this process)
                _unlisted[unlisted] = None
                while len(_unlisted) > FAILED_MAX:
                    _unlisted.pop(next(iter(_unlisted)))
            return 0
        with side.write(wait=STORE_WAIT) as conn:
            kept = store(conn, *built, seen)
            if kept:
                keep_budget(conn, _key(self.db), built[0][0], len(built[1]))
            return int(kept)
