"""Recall's pipeline: keyword and vector candidates from the store, ranked by ranking.rank.

The store supplies the top candidates of each signal (filters applied inside
both searches), the exact cosine of keyword-only candidates, and each
candidate's neighbours in its thread; ranking.py decides the order and the
score (see its docstring for what the score means).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from server import ranking
from server.clock import from_millis
from server.storage.protocol import KeywordQuery, MemoryRow, Scope, SearchIndex, TurnRef
from server.textindex import query_terms

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class Hit:
    memory_id: int
    score: float
    match: str  # "keyword" | "semantic" | "both"
    row: MemoryRow


@dataclass(frozen=True)
class KeywordPlan:
    """What the keyword search ranks (see keyword_plan)."""

    rare: tuple[str, ...] = ()  # every memory containing one of these is ranked...
    common: tuple[str, ...] = ()  # ...with these counted in its rank; memories with only these are not
    window: int | None = None  # rank only the newest `window` matches of each search (the rarest term alone is too common)

    def queries(self) -> list[KeywordQuery]:
        """The searches keyword_hits runs: memories with a rare and a common term, and with rare terms only."""
        if not self.rare:
            return []
        rare_only = KeywordQuery(self.rare, excluded=self.common, newest=self.window)
        if not self.common:
            return [rare_only]
        return [KeywordQuery(self.rare, also=self.common, newest=self.window), rare_only]


def keyword_query(query: str) -> KeywordQuery | None:
    """The whole query as one keyword search (every term ORed, no budget), None when nothing in it is searchable."""
    terms = query_terms(query)
    return KeywordQuery(tuple(terms)) if terms else None


def keyword_plan(store: SearchIndex, query: str, scope: Scope) -> KeywordPlan:
    """Split the query terms so the keyword search ranks at most ranking.KEYWORD_MATCH_BUDGET matches.

    FTS5 computes bm25 for every match of an OR query before it can cut to the
    best few (~1 us each). Each term's matches are counted up to the budget (a
    bounded walk of its doclist, no bm25) and, rarest first, terms are `rare`
    while their matches fit the budget. The rest (`common`) still count in the
    rank of any memory that also has a rare term (keyword_hits), so the order of
    those memories is exactly bm25's; only memories matching nothing but common
    words (whose rank is small: their IDF is) are left to the vector search.
    Below the budget, every store of up to tens of thousands of memories, all
    terms are rare and nothing changes. When even the rarest term matches more
    than the budget, its newest `budget` matches are ranked (ids grow with time).
    Within a thread, thread-common rare terms are dropped (common_terms); counting
    them costs a walk of the term's matches, so terms beyond the budget are not checked.
    """
    terms = query_terms(query)
    budget = ranking.KEYWORD_MATCH_BUDGET
    # Counted in the scope's threads: in a thread most terms are rare, so its whole query is ranked.
    counts = {t: store.match_count(KeywordQuery((t,)), budget + 1, scope) for t in terms}
    rare: list[str] = []
    common: list[str] = []
    total = 0
    for term in sorted((t for t in terms if counts[t]), key=counts.__getitem__):  # stable: query order on ties
        if rare and total + counts[term] > budget:
            common.append(term)
        else:
            rare.append(term)
            total += counts[term]
    if not rare:
        return KeywordPlan()
    window = budget if total > budget else None
    drop = _common(store, rare, scope) if window is None else set()
    return KeywordPlan(tuple(t for t in rare if t not in drop) or tuple(rare), tuple(common), window)


def keyword_hits(store: SearchIndex, plan: KeywordPlan, scope: Scope, limit: int) -> dict[int, float]:
    """The best `limit` keyword matches of the plan as {id: rank}, more negative is better.

    With common terms, two searches over disjoint sets: memories with a rare and
    a common term, ranked by all of them (bm25 sees each term once, so the rank
    is the whole query's), and memories with rare terms only. Each search ranks
    only its own matches, and the best `limit` of their union is the top of the
    whole query over memories with a rare term.
    """
    hits: dict[int, float] = {}
    for query in plan.queries():
        hits.update(store.keyword(query, limit, scope))
    return dict(sorted(hits.items(), key=lambda hit: (hit[1], hit[0]))[:limit])


def common_terms(store: SearchIndex, query: str, scope: Scope) -> set[str]:
    """Query terms found in more than COMMON_TERM_SHARE of the searched memories.

    bm25's IDF is computed over the whole store, but a search is scoped to a
    thread: a name or project word that is rare in the store and in every other
    memory of this thread would still dominate the keyword ranking while
    telling nothing apart. Within the scope it is a stopword.
    """
    return _common(store, query_terms(query), scope)


def _common(store: SearchIndex, terms: list[str], scope: Scope) -> set[str]:
    if scope.threads is None or ranking.COMMON_TERM_SHARE >= 1:
        return set()
    size = store.scope_size(scope)
    if size < ranking.COMMON_TERM_MIN_SCOPE:
        return set()
    limit = ranking.COMMON_TERM_SHARE * size
    return {t for t in terms if _frequency(store, t, scope, size) > limit}


# Counting a common term's matches in a thread costs milliseconds, and the same
# terms come back query after query: cache the count for as long as the scope
# holds the same number of memories (a changed thread is counted afresh).
_FREQUENCIES: OrderedDict[tuple, int] = OrderedDict()
_FREQUENCIES_LOCK = threading.Lock()
_FREQUENCIES_MAX = 20_000


def _frequency(store: SearchIndex, term: str, scope: Scope, size: int) -> int:
    key = (store.db.path, store.namespace, scope.threads, term, size)
    with _FREQUENCIES_LOCK:
        if key in _FREQUENCIES:
            _FREQUENCIES.move_to_end(key)
            return _FREQUENCIES[key]
    count = store.document_frequency(KeywordQuery((term,), own_text_only=True), scope)
    with _FREQUENCIES_LOCK:
        _FREQUENCIES[key] = count
        while len(_FREQUENCIES) > _FREQUENCIES_MAX:
            _FREQUENCIES.popitem(last=False)
    return count


def search(store: SearchIndex, query: str, query_vector: np.ndarray | None, k: int, scope: Scope) -> list[Hit]:
    keyword = keyword_hits(store, keyword_plan(store, query, scope), scope, ranking.KEYWORD_CANDIDATES)
    dense: dict[int, float] = {}
    nearest: set[int] = set()
    if query_vector is not None and query_vector.any():
        dense = {mid: 1.0 - dist for mid, dist in store.knn(query_vector, ranking.DENSE_CANDIDATES, scope).items()}
        nearest = set(dense)
        # Keyword hits the KNN did not reach still get their true cosine.
        dense.update(store.cosines(query_vector, [mid for mid in keyword if mid not in dense]))
    candidates = list(dense.keys() | keyword.keys())
    if not candidates:
        return []
    rows = store.get(candidates)
    around = store.neighbours(candidates)
    docs: dict[int, ranking.Doc] = {}
    for mid in candidates:
        row = rows.get(mid)
        if row is None:
            continue
        created = row.created_at
        turns = around.get(mid)
        before, after = (turns.before, turns.after) if turns else (None, None)
        sequence = [n for n in (before, TurnRef(mid, created), after) if n is not None]
        near = ranking.neighbor_ids([(t.id, from_millis(t.created_at)) for t in sequence], 1 if before else 0)
        docs[mid] = ranking.Doc(
            content=row.content,
            created_at=from_millis(created),
            thread=row.thread,
            neighbors=near,
            superseded_by=row.superseded_by,
        )
    ranked = ranking.rank(query, dense, keyword, docs, k=k)
    return [
        Hit(
            mid,
            round(score, 4),
            "both" if mid in nearest and mid in keyword else ("keyword" if mid in keyword else "semantic"),
            rows[mid],
        )
        for mid, score in ranked
    ]
