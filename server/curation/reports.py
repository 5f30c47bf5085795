"""The read-only actions: ``retention`` (every memory's score, highest first) and ``stats``
(counts, duplicate and superseded rates, database health). Neither changes anything.

The units of the memory files (MEMORY.md bullets, a person's daily notes) are indexed
so recall finds them, but they are the files' text, not memories: stats counts them
apart (`file_units`) and retention leaves them out."""

from __future__ import annotations

from typing import Any

from server.clock import iso
from server.curation.plan import Plan, existing, is_file_unit, live, memory_ids, now
from server.curation.scoring import DAY_MS, exempt, normalised_hash, retention_score
from server.service import MemoryService


def retention(service: MemoryService, thread: str | None = None, ids: list[int] | None = None) -> Plan:
    at = now(service)
    rows = list(existing(service, memory_ids(ids, "retention")).values()) if ids else live(service, thread)
    rows = [r for r in rows if not is_file_unit(r)]
    scored = sorted(((retention_score(r, at), r) for r in rows), key=lambda p: (-p[0], p[1].id))
    details = [
        {
            "id": r.id, "score": s, "kind": r.kind, "importance": r.importance, "pinned": r.pinned,
            "recall_count": r.recall_count, "age_days": round((at - r.created_at) / DAY_MS, 1),
            "exempt_from_compression": exempt(r),
        }
        for s, r in scored
    ]
    mean = round(sum(s for s, _ in scored) / len(scored), 4) if scored else 0.0
    counts = {"memories": len(rows), "exempt": sum(exempt(r) for r in rows), "mean_score": mean}
    return Plan(counts, [r.id for _, r in scored], details, f"{len(rows)} memories scored, highest first")


def stats(service: MemoryService) -> Plan:
    store = service.store
    with service.db.read() as conn:
        figures = store.stats(conn)
        rows = store.rows(conn)
        problems = store.integrity_errors(conn)
    current = [r for r in rows if r.superseded_by is None and not is_file_unit(r)]
    seen: dict[tuple[str, str], int] = {}
    for r in current:
        key = (r.thread, normalised_hash(r.content))
        seen[key] = seen.get(key, 0) + 1
    extra = sum(n - 1 for n in seen.values())
    live_count = figures["live"]
    counts: dict[str, int | float] = {
        key: figures[key]
        for key in ("live", "deleted", "superseded", "pinned", "compressed", "file_units", "pending_embeddings")
    }
    counts["exact_duplicates"] = extra
    counts["duplicate_rate"] = round(extra / live_count, 4) if live_count else 0.0
    counts["superseded_rate"] = round(figures["superseded"] / live_count, 4) if live_count else 0.0
    counts["database_bytes"] = figures["database_bytes"]
    counts["integrity_ok"] = 0 if problems else 1
    details: list[dict[str, Any]] = [
        {"oldest": iso(figures["oldest"]) if figures["oldest"] else None,
         "newest": iso(figures["newest"]) if figures["newest"] else None}
    ]
    details += [{"kind": k, "count": n} for k, n in figures["by_kind"].items()]
    details += [{"thread": t or "global", "count": n} for t, n in figures["by_thread"].items()]
    details += [{"compression": c or "full", "count": n} for c, n in figures["by_compression"].items()]
    if problems:
        details.append({"integrity_problems": problems[:10]})
    health = "healthy" if not problems else "DATABASE INTEGRITY PROBLEMS (see details)"
    summary = (
        f"{live_count} live memories, {figures['deleted']} forgotten, {figures['superseded']} superseded, "
        f"{figures['compressed']} compressed, exact duplicate rate {counts['duplicate_rate']:.1%}; "
        f"{figures['file_units']} units of MEMORY.md and daily notes indexed apart; {health}"
    )
    return Plan(counts, [], details, summary)
