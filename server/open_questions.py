"""The open questions of the update links: later memories recorded as possibly updating earlier ones
(storage PossibleUpdate), both still current, that the assistant or the person settles with supersede or keep.

What a review asks about (curate_memory's review, the web page's queue, the session-start brief); the linker
records them, this module only reads them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from server.frozen import record
from server.storage.protocol import Database, MemoryRow, Store
from server.updates import model


@record
class OpenQuestion:
    """A later memory recorded as possibly updating an earlier one (storage PossibleUpdate), both current:
    one the assistant or the person can settle with supersede, or with keep (both stay current)."""

    older: MemoryRow
    newer: MemoryRow
    probability: float

    def ask(self) -> str:
        """The question in words, with what settles it."""
        return (f"memory {self.older.id} may be outdated by memory {self.newer.id} — curate_memory supersede "
                f"(ids=[{self.older.id}], replacement_id={self.newer.id}, dry_run=false) to confirm, or keep "
                f"(ids=[{self.older.id}], replacement_id={self.newer.id}, dry_run=false) to keep both")


class Opened(Protocol):
    """What open_questions reads of a service: its store (the linker sits below the service)."""

    @property
    def db(self) -> Database: ...
    @property
    def store(self) -> Store: ...


def open_questions(service: Opened, thread: str | None = None, ids: Sequence[int] | None = None,
                   least: float | None = None, newer: Sequence[int] | None = None) -> list[OpenQuestion]:
    """The possible updates still open in `thread` (all threads when None), or naming `ids` (either side),
    or recorded for the `newer` memories, at least `least` probable (POSSIBLE by default), newest first:
    what a review asks about."""
    floor = model.POSSIBLE if least is None else least
    with service.db.read() as conn:  # `newer`: only these memories' (one indexed read, not the namespace's)
        possible = service.store.possible_updates(conn, newer)
    if ids is not None:
        wanted = set(ids)
        possible = {n: p for n, p in possible.items() if n in wanted or p.older in wanted}
    possible = {n: p for n, p in possible.items() if p.probability >= floor}
    rows = service.store.get(sorted({*possible, *(p.older for p in possible.values())}))
    out = []
    for newer, maybe in possible.items():
        a, b = rows.get(maybe.older), rows.get(newer)
        if a is None or b is None or any(r.deleted_at is not None or r.superseded_by is not None for r in (a, b)):
            continue
        if thread is not None and b.thread != thread:
            continue
        out.append(OpenQuestion(a, b, maybe.probability))
    return sorted(out, key=lambda q: (-q.newer.created_at, -q.newer.id))


__all__: Sequence[str] = ("OpenQuestion", "Opened", "open_questions")
