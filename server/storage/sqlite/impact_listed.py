"""Keyword impact lists under the budget: keyword_hits' answer for a query of rare and common terms,
scored from the lists (impacts.py) with no FTS5 search.

keyword_plan leaves a query unwindowed when its rare terms' matches fit the budget; keyword_hits then
ranks every memory holding a rare term by bm25 over all the query's terms, in two FTS5 searches that
each walk every common term's whole doclist for its IDF (at 1M, `handle_refund`: 874 matches of the
rare term beside 590,000 and 180,000 of the others, 35-50 ms a search). A rare term's list holds all
its matches (at most LIST_SIZE of them: a floor of 0) and the builder's pairs (build_pair) hold each
common term's f of those memories, so those scores are sums of stored numbers.
"""

from __future__ import annotations

from collections.abc import Sequence

from server.storage.protocol import Scope
from server.storage.sqlite import impacts
from server.storage.sqlite.common import _quote
from server.storage.sqlite.impact_scores import members_of
from server.storage.sqlite.impacts import SqliteImpacts, _key, drifted, idf, lists, top_rowid, totals, touched, want


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
