"""Memory as a person sees it: lists with filters, one memory in full, figures per thread, a timeline.

Plain Python over the service (no SQL, no MCP, no HTML): `memvault list|show|threads|stats`
and the web page (server/web) both call these, so the terminal, the page and the assistant's
tools never disagree. Changes a person makes by hand are in server/curation/editing.py.

A memory's history is put together from what the store keeps (created, compressed,
promoted, recalled, superseded, forgotten, each with its time) and from the lines of the
curation log in the daily files that name it (pin, restore, edit, forget by hand, ...).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from datetime import timedelta
from typing import Any

from server import validation as check
from server.clock import from_millis, iso, to_millis
from server.curation.scoring import normalised_hash
from server.errors import InvalidInput, NotFound, no_memory
from server.files.dailylog import parse_curation
from server.files.index import FILE_SOURCE
from server.models import KINDS
from server.guard.instructions import instruction_flags
from server.search import replacements
from server.service import MemoryService
from server.storage.protocol import MemoryFilter, MemoryRow
from server.threads import thread_scope

#: How many memories one page of a listing shows unless asked otherwise; the most one page may show.
PAGE = 50
MAX_PAGE = 1000
#: A memory's states, as `list --state` and the web page's filter name them.
STATES = ("live", "current", "superseded", "forgotten", "pinned", "all")
WEEK_MS = 7 * 24 * 3600 * 1000
#: Weeks start on Monday: the epoch (1970-01-01) was a Thursday, three days after one.
MONDAY_OFFSET_MS = 3 * 24 * 3600 * 1000
_TIERS = {"key_points": "key points", "summary": "brief summary", "metadata": "metadata only"}


# -- what a listing shows ----------------------------------------------------------------------
@dataclass(frozen=True)
class Entry:
    """One memory as a list shows it (JSON-ready with as_dict)."""

    id: int
    thread: str | None  # None: a global memory
    kind: str
    content: str
    tags: list[str]
    importance: float
    created_at: str
    source: str
    origin: str | None
    states: list[str]  # forgotten, superseded by N, compressed (tier), pinned
    flags: list[str]  # instruction-shaped content (server.guard.instructions)
    location: str | None  # a memory-file unit: 'MEMORY.md:12 (Important Decisions)'

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def forgotten(self) -> bool:
        return "forgotten" in self.states


def states(row: MemoryRow) -> list[str]:
    out = []
    if row.deleted_at is not None:
        out.append("forgotten")
    if row.superseded_by is not None:
        out.append(f"superseded by {row.superseded_by}")
    if row.compression is not None:
        out.append(f"compressed ({_TIERS.get(row.compression, row.compression.replace('_', ' '))})")
    if row.pinned:
        out.append("pinned")
    return out


def entry(row: MemoryRow) -> Entry:
    location = None
    if row.source.startswith(FILE_SOURCE):
        location = f"{row.source[len(FILE_SOURCE):]}:{row.file_line}" + (
            f" ({row.file_section})" if row.file_section else "")
    return Entry(
        id=row.id, thread=row.thread or None, kind=row.kind, content=row.content, tags=list(row.tags),
        importance=row.importance, created_at=iso(row.created_at), source=row.source, origin=row.origin,
        states=states(row), flags=list(instruction_flags(row.content)), location=location,
    )


@dataclass(frozen=True)
class Listing:
    entries: list[Entry]
    total: int  # how many match, across every page
    offset: int
    limit: int

    @property
    def more(self) -> bool:
        return self.offset + len(self.entries) < self.total

    def as_dict(self) -> dict[str, Any]:
        return {"total": self.total, "offset": self.offset, "limit": self.limit,
                "memories": [e.as_dict() for e in self.entries]}


def memory_filter(
    service: MemoryService, thread: str | None = None, kinds: list[str] | tuple[str, ...] | None = None,
    since: str | None = None, until: str | None = None, state: str = "live", files: bool | None = None,
) -> MemoryFilter:
    """The filter a listing's arguments describe, validated. `thread` None (or '*') lists every
    thread, 'global' the global memories only; `state` is one of STATES."""
    if state not in STATES:
        raise InvalidInput(f"state {state!r} is not one of: {', '.join(STATES)}")
    scope = thread_scope(thread or None)
    start, end = check.timestamp(since or None, "since"), check.timestamp(until or None, "until")
    if start and end and start > end:
        raise InvalidInput("since is after until; swap them or drop one")
    forgotten: bool | None = {"forgotten": True, "all": None}.get(state, False)
    return MemoryFilter(
        threads=None if scope is None else (scope,),
        kinds=check.kinds(list(kinds)) if kinds else None,
        since=to_millis(start) if start else None,
        until=to_millis(end) if end else None,
        forgotten=forgotten,
        superseded={"superseded": True, "current": False}.get(state),
        pinned=True if state == "pinned" else None,
        files=files,
    )


def list_memories(service: MemoryService, where: MemoryFilter, limit: int = PAGE, offset: int = 0) -> Listing:
    """One page of the memories matching `where`, newest first, and how many match in all."""
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_PAGE:
        raise InvalidInput(f"limit must be from 1 to {MAX_PAGE}")
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise InvalidInput("offset must be 0 or more")
    with service.db.read() as conn:
        rows = service.store.browse(conn, where, limit, offset)
        total = service.store.browse_count(conn, where)
    return Listing([entry(r) for r in rows], total, offset, limit)


# -- one memory in full --------------------------------------------------------------------------
@dataclass(frozen=True)
class Event:
    at: str  # ISO-8601 UTC, or a day and HH:MM (local time) for a curation-log line
    what: str


@dataclass(frozen=True)
class Detail:
    """Everything known about one memory: the entry, provenance, links, the compressed
    original and a history, oldest first."""

    memory: Entry
    updated_at: str
    forgotten_at: str | None
    superseded_by: Entry | None  # the memory that replaces this one
    supersedes: list[Entry]  # the memories this one replaces (earlier versions, duplicates)
    original: str | None  # the full text of a compressed memory
    compressed_at: str | None
    user: str | None
    agent: str | None
    waiting_for_vector: bool
    recall_count: int
    last_recalled_at: str | None
    promoted: str | None  # the MEMORY.md section it was promoted to
    history: list[Event] = field(default_factory=list)
    #: The earlier memory this one possibly updates, and the later ones that possibly update it: the update
    #: model's guesses below its linking threshold (storage PossibleUpdate), to confirm with supersede.
    possibly_updates: Possible | None = None
    possibly_updated_by: list[Possible] = field(default_factory=list)
    #: Superseded by a memory that was itself superseded since: the live memory at the end of the chain
    #: (what recall shows in its place), and the chain from this memory to it ([4001, 4002, 4003, 4004]).
    current: Entry | None = None
    chain: list[int] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Possible:
    """A memory the update model guessed is an update of another (or updated by it), with its probability."""

    memory: Entry
    probability: float


def show(service: MemoryService, memory_id: int) -> Detail:
    memory_id = check.memory_id(memory_id)
    with service.db.read() as conn:
        record = service.store.record(conn, memory_id)
        if record is None:
            raise no_memory(memory_id)
        replaced = service.store.browse(conn, MemoryFilter(forgotten=None, replaced_by=memory_id), MAX_PAGE)
        promotion = next((p for p in service.store.promotions(conn) if p.memory_id == memory_id), None)
        maybe = service.store.possible_updates(conn, [memory_id]).get(memory_id)
        later = service.store.possible_updates(conn, older=memory_id)
    guessed = service.store.get([*later, *([maybe.older] if maybe else [])], include_deleted=False)
    successor = service.store.get([record.superseded_by]).get(record.superseded_by) if record.superseded_by else None
    chain: dict[int, tuple[int, ...]] = {}
    current = None
    if successor is not None and successor.superseded_by is not None:  # replaced in turn: follow it to the end
        head = replacements(service.store, {memory_id: service.store.get([memory_id])[memory_id]}, chain).get(memory_id)
        current = service.store.get([head]).get(head) if head not in (None, record.superseded_by) else None
    history = [Event(iso(record.created_at), _created(record.source, record.origin, record.user, record.agent))]
    for old in sorted(replaced, key=lambda r: (r.created_at, r.id)):
        history.append(Event(iso(old.updated_at), f"replaced memory {old.id}"))
    if record.original is not None:
        history.append(Event(iso(record.original.compressed_at),
                             f"compressed to {_TIERS.get(record.compression or '', record.compression)}; "
                             "the original is archived"))
    if promotion is not None:
        history.append(Event(iso(promotion.promoted_at), f"promoted to MEMORY.md ({promotion.section})"))
    if record.last_recalled_at is not None:
        history.append(Event(iso(record.last_recalled_at), f"last recalled ({record.recall_count} recalls in all)"))
    if record.superseded_by is not None:
        history.append(Event(iso(record.updated_at), f"superseded by memory {record.superseded_by}"))
    if record.deleted_at is not None:
        history.append(Event(iso(record.deleted_at), "forgotten"))
    history.sort(key=lambda e: e.at)
    history += curation_log(service, memory_id, record.created_at)
    return Detail(
        memory=entry(record), updated_at=iso(record.updated_at),
        forgotten_at=iso(record.deleted_at) if record.deleted_at is not None else None,
        superseded_by=entry(successor) if successor else None, supersedes=[entry(r) for r in replaced],
        original=record.original.content if record.original else None,
        compressed_at=iso(record.original.compressed_at) if record.original else None,
        user=record.user, agent=record.agent, waiting_for_vector=record.queued and record.deleted_at is None,
        recall_count=record.recall_count,
        last_recalled_at=iso(record.last_recalled_at) if record.last_recalled_at is not None else None,
        promoted=promotion.section if promotion else None, history=history,
        possibly_updates=Possible(entry(guessed[maybe.older]), maybe.probability)
        if maybe and maybe.older in guessed and guessed[maybe.older].superseded_by is None
        and record.superseded_by is None else None,
        possibly_updated_by=[Possible(entry(guessed[i]), p.probability) for i, p in later.items()
                             if i in guessed and guessed[i].superseded_by is None and record.superseded_by is None],
        current=entry(current) if current else None,
        chain=[memory_id, *chain[memory_id]] if current else [],
    )


def _created(source: str, origin: str | None, user: str | None, agent: str | None) -> str:
    who = " / ".join(x for x in (user, agent) if x)
    return f"created through {source}" + (f" by {origin}" if origin else "") + (f" ({who})" if who else "")


_LISTED = re.compile(r"\bmemor(?:y|ies) (\d+(?:, \d+)*)")
_LINKS = re.compile(r"(\d+)→(\d+)|superseded by (\d+)|memory (\d+) → memory (\d+)")


def mentioned_ids(text: str) -> set[int]:
    """The memory ids a curation-log line names ('pinned memory 3', 'memories 3, 4', '3→5')."""
    ids = {int(n) for m in _LISTED.finditer(text) for n in m.group(1).split(", ")}
    ids.update(int(n) for m in _LINKS.finditer(text) for n in m.groups() if n)
    return ids


def curation_log(service: MemoryService, memory_id: int, since: int) -> list[Event]:
    """The curation-log lines of the daily files that name this memory, from the day it was created."""
    first = from_millis(since).date()
    events = []
    for day in service.files.list_days():
        if day < first - timedelta(days=1):  # the log is in local time; creation is UTC
            continue
        try:
            lines = parse_curation(service.files.read_daily(day))
        except (OSError, NotFound):
            continue
        events += [Event(f"{day.isoformat()} {hhmm}", text) for hhmm, text in lines if memory_id in mentioned_ids(text)]
    return events


# -- threads and their figures --------------------------------------------------------------------
@dataclass(frozen=True)
class ThreadStats:
    """One thread ('global' for the global memories) in figures; counts are of live memories."""

    thread: str
    title: str | None
    archived: bool
    last_active_at: str | None
    live: int
    by_kind: dict[str, int]
    chars: int
    newest: str | None
    pending: int  # still waiting for a vector
    superseded: int
    pinned: int
    compressed: int
    forgotten: int
    files: int  # live lines of memory files (SOUL.md, MEMORY.md, daily notes), not counted above
    duplicates: int | None  # live, current memories whose text another one of the thread repeats (None: not counted)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def thread_stats(service: MemoryService, duplicates: bool = True, include_archived: bool = True) -> list[ThreadStats]:
    """Every thread with memories or settings, most recently active first, global last. The lines of
    memory files are counted apart (`files`): they are the file's, and change with it.

    `duplicates` counts repeated texts (equal up to case, spacing and final punctuation, as
    dedupe sees them): it reads every live memory, so pages that only list threads skip it.
    """
    with service.db.read() as conn:
        figures = {f.thread: f for f in service.store.thread_figures(conn)}
        repeats: dict[str, int] | None = None
        if duplicates:
            seen: dict[tuple[str, str], int] = {}
            for r in service.store.rows(conn):
                if r.superseded_by is None and not r.source.startswith(FILE_SOURCE):
                    key = (r.thread, normalised_hash(r.content))
                    seen[key] = seen.get(key, 0) + 1
            repeats = {}
            for (thread, _), n in seen.items():
                repeats[thread] = repeats.get(thread, 0) + n - 1
    threads = {t.id: t for t in service.store.list_threads(include_archived=True)}
    names = sorted(set(figures) | set(threads), key=lambda t: (
        t == "", -(threads[t].last_active_at if t in threads else figures[t].newest or 0), t))
    out = []
    for name in names:
        t, f = threads.get(name), figures.get(name)
        if t is not None and t.archived and not include_archived:
            continue
        out.append(ThreadStats(
            thread=name or "global", title=t.title if t else None, archived=bool(t and t.archived),
            last_active_at=iso(t.last_active_at) if t else None,
            live=f.live if f else 0, by_kind=dict(f.by_kind) if f else {}, chars=f.chars if f else 0,
            newest=iso(f.newest) if f and f.newest is not None else None, pending=f.pending if f else 0,
            superseded=f.superseded if f else 0, pinned=f.pinned if f else 0, compressed=f.compressed if f else 0,
            forgotten=f.forgotten if f else 0, files=f.files if f else 0,
            duplicates=None if repeats is None else repeats.get(name, 0),
        ))
    return out


# -- the health page's timeline ------------------------------------------------------------------
@dataclass(frozen=True)
class Week:
    start: str  # the Monday, YYYY-MM-DD (UTC)
    created: dict[str, int]  # by kind
    created_by_thread: dict[str, int]  # 'global' for global memories
    chars: int  # characters of the memories created that week
    forgotten: int
    superseded: int


def weekly(service: MemoryService, weeks: int = 26) -> list[Week]:
    """The last `weeks` weeks (this one included), oldest first: what was created, by kind and
    by thread, and how many memories were forgotten or superseded."""
    if isinstance(weeks, bool) or not isinstance(weeks, int) or not 1 <= weeks <= 520:
        raise InvalidInput("weeks must be from 1 to 520")
    with service.db.read() as conn:
        rows = service.store.timeline(conn, WEEK_MS, MONDAY_OFFSET_MS)
    now = to_millis(service.clock())
    this_week = ((now + MONDAY_OFFSET_MS) // WEEK_MS) * WEEK_MS - MONDAY_OFFSET_MS
    starts = [this_week - WEEK_MS * n for n in range(weeks - 1, -1, -1)]
    table = {s: Week(iso(s)[:10], {k: 0 for k in KINDS}, {}, 0, 0, 0) for s in starts}
    totals: dict[int, list[int]] = {s: [0, 0, 0] for s in starts}
    for r in rows:
        week = table.get(r.start)
        if week is None:
            continue
        if r.created:
            week.created[r.kind] = week.created.get(r.kind, 0) + r.created
            name = r.thread or "global"
            week.created_by_thread[name] = week.created_by_thread.get(name, 0) + r.created
        totals[r.start][0] += r.chars
        totals[r.start][1] += r.forgotten
        totals[r.start][2] += r.superseded
    return [Week(w.start, w.created, w.created_by_thread, *totals[s]) for s, w in table.items()]
