"""How much a memory is worth keeping: the retention score, who is exempt, and equal-text hashing.

Pure functions of a stored row; the actions (promotion, compaction, linking, reports)
decide what to do with the figures.

Retention score (0..1), used to rank promotion candidates and shown by ``retention``::

    pinned                     -> 1.0
    otherwise  0.35 * kind weight        (decision, preference 1.0; fact 0.7; summary 0.6;
                                          snippet 0.5; task, note 0.4; event 0.3)
             + 0.25 * importance
             + 0.20 * min(1, ln(1 + recall_count) / ln(11))     (10 recalls = full marks)
             + 0.20 * 0.5 ** (days since created or last recalled / 90)

Pinned memories and those with importance >= 0.9 are exempt from compression and dedupe.
"""

from __future__ import annotations

import hashlib
import math

from server.storage.protocol import MemoryRow

KIND_WEIGHT = {
    "decision": 1.0, "preference": 1.0, "fact": 0.7, "summary": 0.6,
    "snippet": 0.5, "task": 0.4, "note": 0.4, "event": 0.3, "turn": 0.3,
}
IMPORTANT = 0.9
DAY_MS = 86_400_000


def retention_score(row: MemoryRow, now: int) -> float:
    if row.pinned:
        return 1.0
    use = min(1.0, math.log1p(row.recall_count) / math.log(11))
    days = max(0, now - max(row.created_at, row.last_recalled_at or 0)) / DAY_MS
    recency = 0.5 ** (days / 90)
    kind = KIND_WEIGHT.get(row.kind, 0.4)
    return round(0.35 * kind + 0.25 * row.importance + 0.2 * use + 0.2 * recency, 4)


def exempt(row: MemoryRow) -> bool:
    return row.pinned or row.importance >= IMPORTANT


def normalised_hash(text: str) -> str:
    """Equal for texts that differ only in case, spacing or final punctuation."""
    return hashlib.sha256(" ".join(text.lower().split()).rstrip(".!?;: ").encode()).hexdigest()
