"""Recall's pipeline: keyword and vector candidates, fused into one ranked list.

(First version: weighted fusion of normalised scores. The retrieval-quality work
replaces `fuse` with a tuned ranker.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from server.store import Scope, Store
from server.textindex import match_expression

CANDIDATES = 50


@dataclass(frozen=True)
class Hit:
    memory_id: int
    score: float
    match: str  # "keyword" | "semantic" | "both"


def fuse(dense: dict[int, float], keyword: dict[int, float], k: int) -> list[Hit]:
    """Combine cosine similarities with bm25 scaled to the best keyword hit."""
    best = max((-r for r in keyword.values()), default=0.0)
    scores: dict[int, float] = {}
    for memory_id in dense.keys() | keyword.keys():
        sim = max(0.0, dense.get(memory_id, 0.0))
        kw = (-keyword[memory_id] / best) if memory_id in keyword and best > 0 else 0.0
        scores[memory_id] = 0.55 * sim + 0.45 * kw
    ranked = sorted(scores.items(), key=lambda item: (-item[1], -item[0]))[:k]
    return [
        Hit(
            memory_id,
            round(min(1.0, score), 4),
            "both" if memory_id in dense and memory_id in keyword else ("semantic" if memory_id in dense else "keyword"),
        )
        for memory_id, score in ranked
    ]


def search(store: Store, query: str, query_vector: np.ndarray | None, k: int, scope: Scope) -> list[Hit]:
    expression = match_expression(query)
    keyword = dict(store.keyword(expression, CANDIDATES, scope)) if expression else {}
    dense: dict[int, float] = {}
    if query_vector is not None and np.any(query_vector):
        dense = {mid: 1.0 - dist for mid, dist in store.knn(query_vector, CANDIDATES, scope)}
    return fuse(dense, keyword, k)
