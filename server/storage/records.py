"""The storage contract's vocabulary: the records every backend reads and writes.

Plain frozen dataclasses (and two TypedDicts for the archive's JSON shapes), the same
on SQLite and PostgreSQL: a backend parses its own rows into them (its column order
is its business), and nothing above storage ever sees a row or a tuple read by position.
`server.storage.protocol` re-exports every name here; import them from there.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, TypedDict

from server.clock import iso
from server.frozen import record

#: The thread of a global memory (stored as text, '' rather than NULL).
GLOBAL = ""


# -- memories ---------------------------------------------------------------------
@record
class MemoryRow:
    id: int
    thread: str
    content: str
    kind: str
    source: str
    origin: str | None
    importance: float
    tags: tuple[str, ...]
    content_hash: str
    created_at: int
    updated_at: int
    deleted_at: int | None
    superseded_by: int | None
    recall_count: int
    last_recalled_at: int | None
    file_line: int | None = None
    file_section: str | None = None
    pinned: bool = False
    compression: str | None = None  # None = full text; else the tier (see curation/compress.py)


@record
class NewMemory:
    thread: str
    content: str
    kind: str
    source: str
    origin: str | None
    importance: float
    tags: tuple[str, ...]
    content_hash: str
    created_at: int
    updated_at: int
    index_text: str
    # Set for a unit of a memory file (SOUL.md, MEMORY.md, a daily log).
    file_key: str | None = None
    file_line: int | None = None
    file_section: str | None = None
    # Whether the memory still needs its line in the daily log.
    log_daily: bool = True
    pinned: bool = False
    # Who wrote it (server.models.Principal); None when not configured.
    user: str | None = None
    agent: str | None = None
    # Its update check waits for its vector (written with no model at hand: a hook, a burst).
    judge_later: bool = False


@record
class PossibleUpdate:
    """The earlier memory a memory most likely updates, when the update model was not sure enough to
    link them (server/updates/model.py, POSSIBLE): recall shows the newer first when a query finds both
    alike; nothing is superseded."""

    older: int
    probability: float


@record
class MemoryState:
    """What a write re-checks inside its transaction before changing a memory."""

    content: str
    compression: str | None
    deleted_at: int | None


@record
class Original:
    """The full text of a compressed memory, archived when it was first compressed."""

    content: str
    compressed_at: int


@record
class FileUnit:
    """The memory that indexes one unit of a memory file, and where the unit was last seen."""

    id: int
    line: int | None
    section: str | None


@record
class MemoryDump(MemoryRow):
    """A memory with every stored field, as `memvault migrate` copies it (forgotten ones too)."""

    user: str | None = None
    agent: str | None = None
    file_key: str | None = None
    queued: bool = False  # still waiting for its vector
    daily_queued_at: int | None = None  # its daily-log line not written yet (queued then)
    original: Original | None = None
    judge_later: bool = False  # its update check still waits for its vector (NewMemory.judge_later)


# -- threads, messages, prompts -----------------------------------------------------
@record
class Thread:
    id: str
    title: str | None
    system_prompt: str | None
    archived: bool
    created_at: int
    last_active_at: int


@record
class Message:
    """One turn of a thread's recent-message window."""

    id: int
    role: str
    content: str
    created_at: int


@record
class NewMessage:
    role: str
    content: str


@record
class ThreadMessage:
    """A message of any thread of the namespace, as `memvault migrate` copies it (ids are not kept)."""

    thread: str
    role: str
    content: str
    created_at: int


@record
class GlobalPrompt:
    name: str
    content: str
    active: bool
    priority: int
    created_at: int
    updated_at: int


class ThreadExport(TypedDict):
    """A thread as the JSON archive holds it (archived as 0/1)."""

    id: str
    title: str | None
    system_prompt: str | None
    archived: int
    created_at: int
    last_active_at: int


class PromptExport(TypedDict):
    """A global prompt as the JSON archive holds it (active as 0/1)."""

    name: str
    content: str
    active: int
    priority: int
    created_at: int
    updated_at: int


@record
class Promotion:
    """A memory added to MEMORY.md by the curator, under which section and when."""

    memory_id: int
    section: str
    promoted_at: int


# -- search ---------------------------------------------------------------------------
@record
class Scope:
    """Which memories a search may return. `threads=None` means every thread."""

    threads: tuple[str, ...] | None = None
    kinds: tuple[str, ...] | None = None
    tags: tuple[str, ...] | None = None
    since: int | None = None
    until: int | None = None


@record
class KeywordQuery:
    """A keyword search as terms and rules; each backend renders it in its own dialect
    (SQLite: an FTS5 MATCH expression; PostgreSQL: a tsquery).

    A memory matches when it contains one of `terms`, one of `also` as well when `also`
    is given, each of `every`, and none of `excluded`. Every matched term counts in the
    rank (`also` and `every` as much as `terms`). Terms are words as textindex.query_terms
    makes them (lower-case, no operators or punctuation); the backend quotes them. `own_text_only` leaves out the
    context a conversation turn is indexed with (the turns before it). `newest` bounds
    the work: only the newest `newest` matches are ranked (ids grow with time).
    """

    terms: tuple[str, ...]
    also: tuple[str, ...] = ()
    excluded: tuple[str, ...] = ()
    every: tuple[str, ...] = ()
    own_text_only: bool = False
    newest: int | None = None


@record
class TurnRef:
    """A conversation turn by id and creation time (ms)."""

    id: int
    created_at: int


@record
class Neighbours:
    """The live turns just before and just after a turn in its thread (None at either end)."""

    before: TurnRef | None
    after: TurnRef | None


@record
class PendingEmbedding:
    """A memory waiting in the embedding queue, with the text to embed."""

    memory_id: int
    content: str


# -- browsing (what a person lists and opens: `memvault list|show|stats`, the web page) -----------
@record
class MemoryFilter:
    """Which memories a listing shows; each condition left at None lets every value through.

    `threads` are stored thread names ('' for the global memories). `forgotten` False
    shows live memories only, True forgotten ones only; `superseded` likewise for
    memories another one replaces; `replaced_by` keeps the memories that memory replaced.
    `files` False leaves out the units of memory files (SOUL.md, MEMORY.md, daily notes).
    """

    threads: tuple[str, ...] | None = None
    kinds: tuple[str, ...] | None = None
    since: int | None = None
    until: int | None = None
    forgotten: bool | None = False
    superseded: bool | None = None
    pinned: bool | None = None
    replaced_by: int | None = None
    files: bool | None = None


@record
class ThreadFigures:
    """One thread's memories in figures (`thread` '' = global). Counts are of live memories, the
    units of memory files left out (`files` counts those), unless named otherwise; `chars` is
    their length in characters."""

    thread: str
    by_kind: dict[str, int]
    live: int
    chars: int
    newest: int | None
    pending: int  # live memories still waiting for their vector
    superseded: int
    pinned: int
    compressed: int
    forgotten: int  # forgotten memories (not live)
    files: int  # live units of memory files (SOUL.md, MEMORY.md, daily notes) in this thread


@record
class TimelineRow:
    """What happened to one thread's memories of one kind in one time bucket starting at `start` (ms):
    how many were created (and their characters), forgotten, and superseded (by the time of the
    last change of a superseded memory, which is when its link was made unless it changed since)."""

    start: int
    thread: str
    kind: str
    created: int
    chars: int
    forgotten: int
    superseded: int


# -- integrity ---------------------------------------------------------------------------
@record
class IndexDrift:
    """Where the keyword index, the vectors or the embedding queue disagree with `memories`.

    Every write keeps them in step inside one transaction, so drift means a store
    edited by hand, restored from a partial copy, or written by a buggy version.
    """

    missing_text: tuple[int, ...] = ()  # live memories without a keyword-index row
    stale_text: tuple[int, ...] = ()  # keyword-index rows of forgotten or missing memories
    unqueued: tuple[int, ...] = ()  # live memories with neither a vector nor a queued embedding
    orphan_vectors: tuple[int, ...] = ()  # vectors whose memory is gone
    orphan_queue: tuple[int, ...] = ()  # queued embeddings whose memory is gone

    def __bool__(self) -> bool:
        return any(getattr(self, f.name) for f in fields(self))

    def describe(self) -> str:
        parts = []
        for f in fields(self):
            ids = getattr(self, f.name)
            if ids:
                shown = ", ".join(map(str, ids[:10])) + (", ..." if len(ids) > 10 else "")
                parts.append(f"{f.name.replace('_', ' ')}: {len(ids)} (ids {shown})")
        return "; ".join(parts) or "none"


@record
class HealthCounts:
    """Memories a health check counts (SQLite: every namespace of the file; PostgreSQL: the tenant)."""

    live: int
    deleted: int
    pending: int  # live memories still waiting for their vector


# -- bearer tokens (the HTTP transport) ------------------------------------------------------
@record
class TokenInfo:
    """A bearer token's record: never the token itself (only its hash is stored)."""

    id: int
    tenant: str
    user: str | None
    agent: str | None
    label: str | None
    created_at: int
    expires_at: int | None
    revoked_at: int | None
    last_used_at: int | None

    def state(self, now_ms: int) -> str:
        if self.revoked_at is not None:
            return "revoked"
        if self.expires_at is not None and self.expires_at <= now_ms:
            return "expired"
        return "active"

    def as_dict(self, now_ms: int) -> dict[str, Any]:
        def when(ms: int | None) -> str | None:
            return None if ms is None else iso(ms)

        return {
            "id": self.id, "tenant": self.tenant, "user": self.user, "agent": self.agent, "label": self.label,
            "state": self.state(now_ms), "created_at": when(self.created_at), "expires_at": when(self.expires_at),
            "revoked_at": when(self.revoked_at), "last_used_at": when(self.last_used_at),
        }
