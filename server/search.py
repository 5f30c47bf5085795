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

import numpy as np

from server import ranking
from server.clock import from_millis
from server.store import MemoryRow, Scope, Store
from server.textindex import match_expression, query_terms, term_expression


@dataclass(frozen=True)
class Hit:
    memory_id: int
    score: float
    match: str  # "keyword" | "semantic" | "both"
    row: MemoryRow


def common_terms(store: Store, query: str, scope: Scope) -> set[str]:
    """Query terms found in more than COMMON_TERM_SHARE of the searched memories.

    bm25's IDF is computed over the whole store, but a search is scoped to a
    thread: a name or project word that is rare in the store and in every other
    memory of this thread would still dominate the keyword ranking while
    telling nothing apart. Within the scope it is a stopword.
    """
    if scope.threads is None or ranking.COMMON_TERM_SHARE >= 1:
        return set()
    size = store.scope_size(scope)
    if size < ranking.COMMON_TERM_MIN_SCOPE:
        return set()
    limit = ranking.COMMON_TERM_SHARE * size
    return {t for t in query_terms(query) if _frequency(store, t, scope, size) > limit}


# Counting a common term's matches in a thread costs milliseconds, and the same
# terms come back query after query: cache the count for as long as the scope
# holds the same number of memories (a changed thread is counted afresh).
_FREQUENCIES: OrderedDict[tuple, int] = OrderedDict()
_FREQUENCIES_LOCK = threading.Lock()
_FREQUENCIES_MAX = 20_000


def _frequency(store: Store, term: str, scope: Scope, size: int) -> int:
    key = (store.db.path, store.namespace, scope.threads, term, size)
    with _FREQUENCIES_LOCK:
        if key in _FREQUENCIES:
            _FREQUENCIES.move_to_end(key)
            return _FREQUENCIES[key]
    count = store.document_frequency(term_expression(term), scope)
    with _FREQUENCIES_LOCK:
        _FREQUENCIES[key] = count
        while len(_FREQUENCIES) > _FREQUENCIES_MAX:
            _FREQUENCIES.popitem(last=False)
    return count


def search(store: Store, query: str, query_vector: np.ndarray | None, k: int, scope: Scope) -> list[Hit]:
    expression = match_expression(query, drop=common_terms(store, query, scope))
    keyword = dict(store.keyword(expression, ranking.KEYWORD_CANDIDATES, scope)) if expression else {}
    dense: dict[int, float] = {}
    nearest: set[int] = set()
    if query_vector is not None and np.any(query_vector):
        dense = {mid: 1.0 - dist for mid, dist in store.knn(query_vector, ranking.DENSE_CANDIDATES, scope)}
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
        before, after = around.get(mid, (None, None))
        sequence = [n for n in (before, (mid, created), after) if n is not None]
        near = ranking.neighbor_ids([(i, from_millis(at)) for i, at in sequence], 1 if before else 0)
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
