"""What a curation action produces, and the reads every action shares.

An action is a function ``(service, **parameters) -> Plan``: it reads, decides, and
returns what it would change (the preview) with an ``apply`` step that makes the
change. ``apply`` returns an ``Outcome`` only when applying learned something the
preview could not know (a memory changed meanwhile, how an import verified); the
curator merges it into the reply and the curation log.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from server import validation as check
from server.clock import to_millis
from server.errors import InvalidInput, no_memory
from server.files.index import FILE_SOURCE
from server.service import MemoryService
from server.storage.protocol import MemoryRow
from server.threads import thread_scope

#: One figure of a reply, e.g. {"superseded": 2, "ratio": 0.43}: CurateResult.counts.
Counts = dict[str, int | float]
#: One row of a reply, JSON-ready: CurateResult.details.
Detail = dict[str, Any]


@dataclass
class Outcome:
    """What applying a plan found that the preview did not say."""

    counts: Counts = field(default_factory=dict)  # added to the plan's counts, replacing equal names
    details: list[Detail] = field(default_factory=list)  # shown before the plan's details
    summary: str | None = None  # replaces the plan's summary when given


@dataclass
class Plan:
    """What an action does: applied only when not a dry run."""

    counts: Counts
    ids: list[int]
    details: list[Detail]
    summary: str  # one line for the reply and the curation log, e.g. "superseded 2 memories"
    apply: Callable[[], Outcome | None] | None = None  # None: a report, nothing to apply
    changes: int | None = None  # how many changes applying makes; default len(ids)

    @property
    def change_count(self) -> int:
        return len(self.ids) if self.changes is None else self.changes

    def merge(self, outcome: Outcome) -> None:
        """Fold what applying found into the reply."""
        self.counts.update(outcome.counts)
        self.details = outcome.details + self.details
        if outcome.summary is not None:
            self.summary = outcome.summary


def now(service: MemoryService) -> int:
    return to_millis(service.clock())


def memory_ids(ids: Sequence[int] | None, action: str) -> list[int]:
    """The ids an action names, validated, each once, in the order given."""
    if not ids:
        raise InvalidInput(f"{action} needs ids: the memory ids to act on, as returned by recall")
    return list(dict.fromkeys(check.memory_id(i) for i in ids))


def existing(service: MemoryService, ids: list[int]) -> dict[int, MemoryRow]:
    """The rows of `ids` (forgotten ones too); NotFound naming every missing id."""
    rows = service.store.get(ids)
    missing = [i for i in ids if i not in rows]
    if missing:
        raise no_memory(missing)
    return rows


def live(service: MemoryService, thread: str | None = None) -> list[MemoryRow]:
    """The live memories of one thread ('global': the global ones), or of every thread."""
    with service.db.read() as conn:
        return service.store.rows(conn, thread_scope(thread))


def is_file_unit(row: MemoryRow) -> bool:
    """A unit of a memory file (MEMORY.md, a daily note): the file is its record, not the store."""
    return row.source.startswith(FILE_SOURCE)


def listing(ids: Sequence[int]) -> str:
    """'memory 3', 'memories 3, 4' or 'none', for a summary line."""
    if not ids:
        return "none"
    return ("memory " if len(ids) == 1 else "memories ") + ", ".join(map(str, ids))
