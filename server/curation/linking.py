"""Linking memories instead of deleting them: ``supersede`` (named older memories are replaced
by a newer one) and ``dedupe`` (memories of one thread that say the same thing are superseded
by the newest wording).

Both only set ``superseded_by``: the older memory stays, ranks below its replacement,
and ``restore`` unlinks it. Pinned and important memories are never deduped, nor are the
units of memory files. What counts as a duplicate is updates.duplicate's rule: the same
text, or a cosine at or above the threshold between texts that differ in no number,
version, identifier, path, hash, name, environment or negation (an update -- linked by
remember itself -- or a look-alike is never merged).
"""

from __future__ import annotations

from dataclasses import dataclass

from server import validation as check
from server import updates
from server.curation.plan import Plan, existing, is_file_unit, listing, live, memory_ids, now
from server.curation.scoring import exempt
from server.errors import InvalidInput
from server.service import MemoryService
from server.storage.protocol import MemoryRow
from server.linker import open_questions


@dataclass(frozen=True)
class Duplicate:
    """An older memory dedupe would supersede by a newer one of the same thread."""

    older: int
    survivor: int
    similarity: float
    reason: str  # "same text" (equal up to case, spacing, final punctuation) or "similar"


def supersede(service: MemoryService, ids: list[int] | None = None, replacement_id: int | None = None) -> Plan:
    if replacement_id is None:
        raise InvalidInput("supersede needs replacement_id (the newer memory) and ids (the memories it replaces)")
    old = memory_ids(ids, "supersede")
    new = check.memory_id(replacement_id)
    rows = existing(service, [*old, new])
    if new in old:
        raise InvalidInput(f"memory {new} cannot replace itself; list only the older memories in ids")
    for memory_id in [new, *old]:
        if rows[memory_id].deleted_at is not None:
            raise InvalidInput(f"memory {memory_id} is forgotten; restore it first or pick a live memory")
    # Following the replacement's own chain must not lead back to a memory it replaces.
    seen, cursor = {new}, rows[new].superseded_by
    while cursor is not None and cursor not in seen:
        if cursor in old:
            raise InvalidInput(f"memory {cursor} already (indirectly) replaces {new}; that would make a cycle")
        seen.add(cursor)
        step = service.store.get([cursor]).get(cursor)
        cursor = step.superseded_by if step else None
    change = [i for i in old if rows[i].superseded_by != new]

    def apply() -> None:
        at = now(service)
        service.store.supersede_all([(memory_id, new) for memory_id in change], at)

    details = [{"id": i, "superseded_by": new, "was": rows[i].superseded_by} for i in change]
    return Plan({"superseded": len(change)}, change, details, f"{listing(change)} superseded by {new}", apply)


def dedupe(service: MemoryService, thread: str | None = None, threshold: float | None = None) -> Plan:
    limit = service.settings.dedupe_threshold if threshold is None else threshold
    if isinstance(limit, bool) or not isinstance(limit, (int, float)) or not 0.0 < limit <= 1.0:
        raise InvalidInput("threshold is a cosine similarity in (0, 1], e.g. 0.85")
    rows = [r for r in live(service, thread) if r.superseded_by is None and not is_file_unit(r)]
    by_thread: dict[str, list[MemoryRow]] = {}
    for row in rows:
        by_thread.setdefault(row.thread, []).append(row)
    pairs: list[Duplicate] = []
    for group in by_thread.values():
        pairs += duplicates(service, group, float(limit))
    ids = [d.older for d in pairs]

    def apply() -> None:
        at = now(service)
        service.store.supersede_all([(d.older, d.survivor) for d in pairs], at)

    details = [
        {"id": d.older, "superseded_by": d.survivor, "similarity": round(d.similarity, 4), "reason": d.reason}
        for d in pairs
    ]
    survivors = len({d.survivor for d in pairs})
    counts = {"checked": len(rows), "superseded": len(pairs), "survivors": survivors, "threshold": float(limit)}
    summary = f"{len(pairs)} duplicates in {survivors} groups" + (
        f" superseded by the newest wording ({_arrows(pairs)})" if pairs else ""
    )
    return Plan(counts, ids, details, summary, apply)


def duplicates(service: MemoryService, group: list[MemoryRow], threshold: float) -> list[Duplicate]:
    """Newest first: each memory not yet claimed keeps older near-copies as its duplicates."""
    if len(group) < 2:
        return []
    group = sorted(group, key=lambda r: (-r.created_at, -r.id))
    with service.db.read() as conn:
        stored = service.store.vectors(conn, [r.id for r in group])
    missing = [r for r in group if r.id not in stored]
    if missing:  # not embedded yet: compute here, without storing
        for row, vector in zip(missing, service.embedder.embed([r.content for r in missing])):
            stored[row.id] = vector
    # lazy: NumPy, ~0.1 s of CPU a stdio server would pay before answering `initialize` (the curator is
    # imported on that path; the first recall imports NumPy after it, beside the model's load)
    import numpy as np

    # A long memory has several passage vectors: its first (the text as the model reads it) compares.
    matrix = np.stack([np.atleast_2d(np.asarray(stored[r.id], dtype=np.float32))[0] for r in group])
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    matrix = matrix / np.where(norms == 0, 1, norms)
    claimed: set[int] = set()
    out = []
    for i, survivor in enumerate(group):
        if i in claimed:
            continue
        sims = matrix[i + 1 :] @ matrix[i]
        for offset, sim in enumerate(sims):
            j = i + 1 + offset
            if j in claimed or exempt(group[j]):
                continue
            # updates.duplicate: similar is not enough; a differing value, id, path, hash,
            # environment or negation is never a duplicate.
            reason = updates.duplicate(group[j].content, survivor.content, float(sim), threshold)
            if reason is None:
                continue
            out.append(Duplicate(group[j].id, survivor.id, 1.0 if reason == "same text" else float(sim), reason))
            claimed.add(j)
    return out


def _arrows(pairs: list[Duplicate]) -> str:
    return ", ".join(f"{d.older}→{d.survivor}" for d in pairs)


# -- the readers decide: open questions about possible updates (issue 32) ----------------------------


def review(service: MemoryService, thread: str | None = None, ids: list[int] | None = None) -> Plan:
    """The open questions, newest first: a report (nothing changes; curate_memory asks the person through a form
    where the host can show one)."""
    questions = open_questions(service, thread, ids)
    details = [{"id": q.older.id, "possibly_replaced_by": q.newer.id, "probability": round(q.probability, 2),
                "older": q.older.content[:200], "newer": q.newer.content[:200], "ask": q.ask()} for q in questions]
    summary = f"{len(questions)} open question(s) about possible updates" + (
        f", newest first; first: {questions[0].ask()}" if questions else "")
    return Plan({"open": len(questions)}, [q.older.id for q in questions], details, summary, None)


def keep(service: MemoryService, ids: list[int] | None = None, replacement_id: int | None = None) -> Plan:
    """Settle a possible update as not one: both memories stay current and the pair is not asked about again
    (the recorded possibility is dropped; a memory's update check runs once). supersede confirms it instead."""
    if replacement_id is None:
        raise InvalidInput("keep needs ids (the older memory) and replacement_id (the later one that may replace it)")
    old = memory_ids(ids, "keep")
    new = check.memory_id(replacement_id)
    existing(service, [*old, new])
    with service.db.read() as conn:
        maybe = service.store.possible_updates(conn, [new]).get(new)
    change = [i for i in old if maybe is not None and maybe.older == i]

    def apply() -> None:
        service.store.record_possible_updates({new: None})

    details = [{"id": i, "kept": True, "was_possibly_replaced_by": new} for i in change]
    return Plan({"kept": len(change)}, change, details,
                f"{listing(change) or 'nothing'} kept current beside {new}" if change else
                f"memory {new} is recorded as possibly updating none of {listing(old)}", apply)
