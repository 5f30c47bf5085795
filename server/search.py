"""Recall's pipeline: keyword and vector candidates from the store, ranked by ranking.rank.

The store supplies the top candidates of each signal (filters applied inside
both searches), the exact cosine of keyword-only candidates, and each
candidate's neighbours in its thread; ranking.py decides the order and the
score (see its docstring for what the score means).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from server import ranking
from server.clock import from_millis
from server.store import Scope, Store
from server.textindex import match_expression


@dataclass(frozen=True)
class Hit:
    memory_id: int
    score: float
    match: str  # "keyword" | "semantic" | "both"


def search(store: Store, query: str, query_vector: np.ndarray | None, k: int, scope: Scope) -> list[Hit]:
    expression = match_expression(query)
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
    gap = ranking.CONTEXT_MAX_GAP_SECONDS * 1000
    docs: dict[int, ranking.Doc] = {}
    for mid in candidates:
        row = rows.get(mid)
        if row is None:
            continue
        created = row.created_at
        near = tuple(
            n[0] for n in around.get(mid, (None, None)) if n is not None and abs(n[1] - created) <= gap
        )
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
        )
        for mid, score in ranked
    ]
