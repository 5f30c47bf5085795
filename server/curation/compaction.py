"""Shortening old memories and undoing every curation: ``compress`` and ``restore``.

``compress`` replaces a memory's text by an extractive summary for its age tier
(curation.compress) after archiving the original; pinned and important memories are
exempt. ``restore`` brings back what forget, compress and supersede took: the
memory undeleted, its archived original text, its link removed.
"""

from __future__ import annotations

from server.curation import compress as tiers
from server.curation.plan import Outcome, Plan, existing, listing, live, memory_ids, now
from server.curation.scoring import exempt
from server.errors import InvalidInput
from server.service import MemoryService, content_hash
from server.storage.protocol import MemoryRow, MemoryState
from server.textindex import index_text


def compress(service: MemoryService, thread: str | None = None, ids: list[int] | None = None) -> Plan:
    store, db = service.store, service.db
    at = now(service)
    if ids:
        rows = [r for r in existing(service, memory_ids(ids, "compress")).values() if r.deleted_at is None]
    else:
        rows = live(service, thread)
    with db.read() as conn:
        originals = store.originals(conn, [r.id for r in rows if r.compression])
    plans: list[tuple[MemoryRow, str, str]] = []
    skipped = {"exempt": 0, "too_short": 0}
    before = after = 0
    for row in rows:
        tier = tiers.tier_for_age(at - row.created_at)
        if not tiers.deeper(tier, row.compression):
            continue
        if exempt(row):
            skipped["exempt"] += 1
            continue
        source = originals[row.id].content if row.id in originals else row.content
        result = tiers.compress(source, tier, row.kind, row.created_at)
        if result is None or len(result) >= len(row.content):
            skipped["too_short"] += 1
            continue
        plans.append((row, tier, result))
        before += len(source)
        after += len(result)

    def apply() -> Outcome | None:
        stamp = now(service)
        # Only rows still as planned (live, the same text and tier): see Store.compress_unchanged.
        changed = store.compress_unchanged(
            [(row.id, MemoryState(row.content, row.compression, None), text, tier,
              row.content if row.compression is None else None, index_text(text)) for row, tier, text in plans],
            stamp,
        )
        service.indexer.notify()
        if not changed:
            return None
        return Outcome(
            counts={"compressed": len(plans) - len(changed), "skipped_changed_meanwhile": len(changed)},
            details=[{"id": i, "skipped": "changed since the preview (forgotten, restored or compressed meanwhile)"}
                     for i in changed],
        )

    details = [
        {
            "id": r.id, "tier": t, "chars_before": len(originals[r.id].content if r.id in originals else r.content),
            "chars_after": len(text),
            "ratio": round(len(text) / max(1, len(originals[r.id].content if r.id in originals else r.content)), 3),
            "text": text,
        }
        for r, t, text in plans
    ]
    ratio = round(after / before, 3) if before else 1.0
    counts = {"compressed": len(plans), "skipped_exempt": skipped["exempt"],
              "skipped_too_short": skipped["too_short"], "chars_before": before, "chars_after": after,
              "ratio": ratio}
    ids_out = [r.id for r, _, _ in plans]
    summary = f"{len(plans)} memories compressed to {ratio:.0%} of their length" + (
        f" ({listing(ids_out)}); originals archived, restore brings them back" if plans else ""
    )
    return Plan(counts, ids_out, details, summary, apply)


def restore(service: MemoryService, ids: list[int] | None = None) -> Plan:
    store, db = service.store, service.db
    rows = existing(service, memory_ids(ids, "restore"))
    with db.read() as conn:
        originals = store.originals(conn, list(rows))
        conflicts = {
            i: store.find_live(conn, r.thread, r.content_hash)
            for i, r in rows.items() if r.deleted_at is not None
        }
    steps: list[tuple[MemoryRow, list[str]]] = []
    details = []
    for memory_id, row in rows.items():
        todo = []
        if row.deleted_at is not None:
            if conflicts.get(memory_id):
                details.append({"id": memory_id, "skipped": f"memory {conflicts[memory_id]} holds the same text"})
                continue
            todo.append("undeleted")
        if row.compression is not None:
            original = originals[memory_id].content
            if content_hash(original) != row.content_hash:
                raise InvalidInput(f"the archived original of memory {memory_id} does not match its hash; not restored")
            todo.append("original text back")
        if row.superseded_by is not None:
            todo.append(f"no longer superseded by {row.superseded_by}")
        if todo:
            steps.append((row, todo))
            details.append({"id": memory_id, "changes": todo})
        else:
            details.append({"id": memory_id, "skipped": "nothing to restore: live, full text, not superseded"})

    def apply() -> None:
        at = now(service)
        texts = {row.id: originals[row.id].content if row.compression is not None else row.content for row, _ in steps}
        store.restore_all(
            [(row.id, texts[row.id], index_text(texts[row.id]), row.compression is not None,
              row.deleted_at is not None, row.superseded_by is not None) for row, _ in steps],
            at,
        )
        service.indexer.notify()

    ids_out = [r.id for r, _ in steps]
    counts = {
        "restored": len(steps),
        "undeleted": sum("undeleted" in t for _, t in steps),
        "decompressed": sum("original text back" in t for _, t in steps),
        "unsuperseded": sum(any(x.startswith("no longer") for x in t) for _, t in steps),
        "skipped": len(rows) - len(steps),
    }
    return Plan(counts, ids_out, details, f"restored {listing(ids_out)}", apply)
