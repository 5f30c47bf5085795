"""What is kept and what goes: ``pin`` / ``unpin``, ``forget-list`` (the forgotten memories),
``forget-matching`` (forget a time window or one client's writes, e.g. after a poisoning)
and ``purge``, the one action that erases, and only memories already forgotten."""

from __future__ import annotations

from datetime import datetime

from server import validation as check
from server.clock import iso, to_millis
from server.curation.plan import Plan, existing, listing, memory_ids, now
from server.curation.scoring import DAY_MS
from server.errors import InvalidInput
from server.models import CAPTURED_SOURCE
from server.service import MemoryService
from server.threads import thread_scope


def pin(service: MemoryService, ids: list[int] | None = None, pinned: bool = True) -> Plan:
    rows = existing(service, memory_ids(ids, "pin" if pinned else "unpin"))
    change = [i for i, r in rows.items() if r.pinned != pinned]

    def apply() -> None:
        at = now(service)
        service.store.pin_all(change, pinned, at)

    word = "pinned" if pinned else "unpinned"
    details = [{"id": i, "change": word} for i in change]
    return Plan({word: len(change)}, change, details, f"{word} {listing(change)}", apply)


def unpin(service: MemoryService, ids: list[int] | None = None) -> Plan:
    return pin(service, ids, pinned=False)


def forget_list(service: MemoryService, thread: str | None = None) -> Plan:
    with service.db.read() as conn:
        rows = service.store.rows(conn, thread_scope(thread), deleted=True)
    rows.sort(key=lambda r: (-(r.deleted_at or 0), -r.id))
    details = [
        {"id": r.id, "thread": r.thread or None, "kind": r.kind, "forgotten_at": iso(r.deleted_at or 0),
         "preview": r.content[:120]}
        for r in rows
    ]
    return Plan({"forgotten": len(rows)}, [r.id for r in rows], details,
                f"{len(rows)} forgotten memories (restore brings one back; purge erases)")


def forget_matching(
    service: MemoryService,
    thread: str | None = None,
    since: str | None = None,
    until: str | None = None,
    origin: str | None = None,
    source: str | None = None,
) -> Plan:
    """Everything written in a time window and/or by one client or way in (e.g. after a poisoning)."""
    if since is None and until is None and origin is None and source is None:
        raise InvalidInput("forget-matching needs since/until (a time window), origin (a client) or source")
    start, end = check.timestamp(since, "since"), check.timestamp(until, "until")
    with service.db.read() as conn:
        rows = service.store.rows(
            conn, thread_scope(thread), deleted=False,
            since=to_millis(start) if start else None, until=to_millis(end) if end else None,
        )
    rows = [
        r for r in rows
        if (origin is None or r.origin == origin) and (source is None or r.source == source)
        and not r.source.startswith("file:")  # a file's bullets go by editing the file
    ]
    details = [
        {"id": r.id, "thread": r.thread or None, "created_at": iso(r.created_at), "origin": r.origin,
         "source": r.source, "preview": r.content[:120]}
        for r in rows
    ]

    # What the hooks captured is erased, daily-log lines included, as MemoryService.forget does.
    captured = {r.id: r for r in rows if r.source == CAPTURED_SOURCE}

    def apply() -> None:
        at = now(service)
        service.store.forget_all(
            [r.id for r in rows], at,
            erase={r.id: r.superseded_by if r.superseded_by not in captured else None for r in captured.values()},
        )
        if captured:  # a line is on the day its memory was stored, never earlier (a day of slack)
            first = min(min(r.created_at, r.updated_at) for r in captured.values()) - DAY_MS
            service.files.remove_daily_lines(set(captured), since=datetime.fromtimestamp(first / 1000).date())

    erased = f"; {len(captured)} captured by the hooks are erased, no restore" if captured else ""
    return Plan({"forgotten": len(rows)}, [r.id for r in rows], details,
                f"forgot {listing([r.id for r in rows])} (restore brings them back; purge erases{erased})", apply)


def purge(service: MemoryService, ids: list[int] | None = None, older_than_days: int | None = None) -> Plan:
    if (ids is None) == (older_than_days is None):
        raise InvalidInput(
            "purge erases forgotten memories for good: name them with ids, or give older_than_days "
            "(forgotten more than that many days ago) — one of the two"
        )
    store = service.store
    if ids is not None:
        rows = existing(service, memory_ids(ids, "purge"))
        alive = [i for i, r in rows.items() if r.deleted_at is None]
        if alive:
            raise InvalidInput(
                f"memory {', '.join(map(str, alive))} is not forgotten; purge only erases forgotten memories "
                "(call forget first)"
            )
        targets = list(rows.values())
    else:
        if isinstance(older_than_days, bool) or not isinstance(older_than_days, int) or older_than_days < 0:
            raise InvalidInput("older_than_days is a whole number of days, 0 or more")
        cutoff = now(service) - older_than_days * DAY_MS
        with service.db.read() as conn:
            targets = [r for r in store.rows(conn, None, deleted=True) if (r.deleted_at or 0) <= cutoff]
    gone = {r.id for r in targets}
    with service.db.read() as conn:
        chain = {r.id: r.superseded_by for r in store.rows(conn, None, deleted=None)}

    def successor(memory_id: int) -> int | None:
        nxt, seen = chain.get(memory_id), {memory_id}
        while nxt in gone and nxt not in seen:
            seen.add(nxt)
            nxt = chain.get(nxt)
        return None if nxt in gone else nxt

    def apply() -> None:
        store.erase_all({row.id: successor(row.id) for row in targets})

    ids_out = sorted(gone)
    details = [{"id": r.id, "forgotten_at": iso(r.deleted_at or 0), "erase": True} for r in targets]
    return Plan({"purged": len(ids_out)}, ids_out, details, f"erased {listing(ids_out)} for good", apply)
