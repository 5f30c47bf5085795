"""Measures shared by the quality benchmarks (updates, the coding set, long texts).

Ranks and recall of given memories, and calibration: how well the top score of a
recall separates questions whose answer is stored (and found) from questions
with nothing relevant stored. AUROC is the probability that a random answered
question's top score is above a random unanswerable one's (ties count half) —
the figure issue 14 asks to reach 0.95, because automatic injection decides by
the top score what to put in front of the model.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Asked:
    """One recall: the ids in rank order, their scores, and which are memory-file units."""

    ids: list[int]
    scores: list[float]
    file_units: list[bool]
    labels: list[str | None] = field(default_factory=list)
    chars: int = 0  # the shown memories' contents and labels: what a reader reads (tokens ~ chars / 4)

    @property
    def top_score(self) -> float:
        return self.scores[0] if self.scores else 0.0

    def rank(self, memory_id: int) -> int | None:
        """1-based rank of the memory, None when it is not in the results."""
        return self.ids.index(memory_id) + 1 if memory_id in self.ids else None

    def flagged(self, memory_id: int) -> bool:
        """Whether the memory is shown labelled possibly outdated (a later memory shown above may replace it)."""
        at = self.rank(memory_id)
        return at is not None and at <= len(self.labels) and (self.labels[at - 1] or "").startswith("possibly outdated")

    def newer(self, memory_id: int) -> bool:
        """Whether the memory is shown labelled newer (attached after a memory it may update)."""
        at = self.rank(memory_id)
        return at is not None and at <= len(self.labels) and (self.labels[at - 1] or "").startswith("newer")


def ask(service, query: str, thread: str | None, k: int) -> Asked:  # noqa: ANN001 - a MemoryService
    memories = service.recall(query, k=k, thread=thread).memories
    return Asked(
        ids=[m.id for m in memories],
        scores=[float(m.score or 0.0) for m in memories],
        file_units=[m.location is not None for m in memories],
        labels=[m.label for m in memories],
        chars=sum(len(m.content) + len(m.label or "") for m in memories),
    )


def hit(rank: int | None, k: int) -> float:
    return 1.0 if rank is not None and rank <= k else 0.0


def recall_at(ranked: list[int], relevant: list[int], k: int) -> float:
    """Share of the relevant memories found in the first k."""
    return len(set(ranked[:k]) & set(relevant)) / len(relevant)


def mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def auroc(positives: list[float], negatives: list[float]) -> float | None:
    """Probability that a positive scores above a negative (Mann-Whitney U / (n·m), ties half)."""
    if not positives or not negatives:
        return None
    wins = 0.0
    for p in positives:
        for n in negatives:
            wins += 1.0 if p > n else 0.5 if p == n else 0.0
    return round(wins / (len(positives) * len(negatives)), 4)


def quantiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"n": 0}
    ordered = sorted(values)

    def at(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))], 3)

    return {"n": len(values), "p5": at(0.05), "p25": at(0.25), "p50": at(0.5), "p75": at(0.75), "p95": at(0.95)}


def calibration(found: list[float], missed: list[float], nothing: list[float], weak: float) -> dict:
    """Top scores of found (answer ranked first), missed (answer stored, not first) and unanswerable questions."""
    return {
        "auroc_found_vs_nothing": auroc(found, nothing),
        "auroc_answerable_vs_nothing": auroc(found + missed, nothing),
        "top_score": {"found": quantiles(found), "missed": quantiles(missed), "nothing_relevant": quantiles(nothing)},
        # what a caller keeping results at or above the documented weak-match line would see
        "nothing_relevant_at_or_above_weak": mean([1.0 if s >= weak else 0.0 for s in nothing]),
        "found_below_weak": mean([1.0 if s < weak else 0.0 for s in found]),
        "weak_match_line": weak,
    }


def commit() -> str:
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=HERE).stdout.strip()


def fmt(value: float | None, width: int = 7) -> str:
    return f"{'-':>{width}}" if value is None else f"{value:>{width}.3f}"
