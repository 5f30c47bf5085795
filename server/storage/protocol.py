"""The storage contract: what the layers above need from a backend, as typing Protocols.

Two implementations, one per SQL dialect: `server.storage.sqlite` (the default) and
`server.storage.pg` (PostgreSQL + pgvector, chosen by MEMVAULT_DATABASE_URL); only
`server.storage.opener` builds them. Everything else is typed against the roles below,
each the part of a store one kind of caller uses:

    Meta              key/value settings of the store (the embedding model)
    Memories          the memories themselves: write, read, forget, the daily-log queue
    FileUnits         memories that index the units of the memory files (files/index.py)
    ThreadsAndPrompts threads, their recent-message windows, global prompts
    SearchIndex       keyword and vector search, turn neighbours, the embedding queue
    Integrity         whether the indexes agree with the memories, and repair
    Curation          what curate_memory and the archive change and read (curation/)
    Copying           every stored field in and out, ids kept (`memvault migrate`)
    Browsing          what a person lists and opens (`memvault list|show|stats|edit`, the web page)
    Transactions      what a caller does in one transaction, named (written once, in transactions.py)

A role that needs another's methods extends it (a search returns rows read through
Memories). `Store` is the union; each backend composes its Store of one class per role
(a module each), with the methods in the order they are declared here (tests/contract holds
both to that); what both dialects write the same way is in shapes.py, and Transactions
(transactions.py) is written once for both.
The records they speak are in `records.py`, kept apart so this file reads as the list of
roles and methods; they are re-exported here, so callers and backends import both from here.

`Handle` is the backend's connection inside a transaction. Callers never run SQL on
it; they pass it back to store methods so several calls share one transaction. Outside
storage, a transaction is opened only by the store (Transactions; tests/test_architecture).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    import numpy as np

from server.storage.records import (
    GLOBAL,
    FileUnit,
    GlobalPrompt,
    HealthCounts,
    IndexDrift,
    KeywordQuery,
    MemoryDump,
    MemoryFilter,
    MemoryRow,
    MemoryState,
    Message,
    Neighbours,
    NewMemory,
    NewMessage,
    Original,
    PossibleUpdate,
    PendingEmbedding,
    Promotion,
    PromptExport,
    Scope,
    Thread,
    ThreadExport,
    ThreadFigures,
    ThreadMessage,
    TimelineRow,
    TokenInfo,
    TurnRef,
)

__all__ = [
    "GLOBAL", "FileUnit", "GlobalPrompt", "HealthCounts", "IndexDrift", "KeywordQuery", "MemoryDump", "MemoryFilter",
    "MemoryRow",
    "MemoryState", "Message", "Neighbours", "NewMemory", "NewMessage", "Original", "PendingEmbedding", "PossibleUpdate",
    "Promotion",
    "PromptExport", "Scope", "Thread", "ThreadExport", "ThreadFigures", "ThreadMessage", "TimelineRow", "TokenInfo",
    "TurnRef",
    "Handle", "Database", "Namespaced", "Meta", "Memories", "FileUnits", "ThreadsAndPrompts", "SearchIndex",
    "Integrity", "Curation", "Copying", "Browsing", "Transactions", "Store", "ROLES", "TokenTable",
]

Handle = Any


class Database(Protocol):
    #: A stable name of the store (a file path or a URL without password): a cache key.
    path: str

    @property
    def backend(self) -> Literal["sqlite", "postgres"]:
        """Which implementation this is, for the few decisions that differ (how ids are numbered, who lists tenants)."""

    def write(self, wait: float | None = None) -> AbstractContextManager[Handle]:
        """A write transaction; nested calls join the outer one. Writers of one namespace are serialised.

        Waits at most `wait` seconds (default: MEMVAULT_WRITE_WAIT) for another writer, then raises
        StoreBusy; `wait=0` tries once. A full disk raises DiskFull, a read-only store StoreReadOnly,
        after the rollback."""

    def read(self) -> AbstractContextManager[Handle]:
        """A consistent snapshot for several statements (joins an open write)."""

    def waiting_at_most(self, seconds: float) -> AbstractContextManager[None]:
        """Within the block, the calling thread's writes wait at most `seconds` (best-effort writes in a read)."""

    def for_tenant(self, tenant: str) -> Database:
        """The database as seen by another tenant: PostgreSQL confines the same pool to it (row-level
        security); SQLite returns itself (a store's namespace confines every statement)."""

    def beside(self) -> Database:
        """A connection of its own for a long read in another thread (the start-up index check), so the
        read holds up nothing else; the caller closes it. PostgreSQL (a pool) and an in-memory SQLite
        database return themselves."""

    def close(self) -> None: ...


class Namespaced(Protocol):
    """What every role shares: its database and the namespace (PostgreSQL: tenant) it is confined to."""

    @property
    def db(self) -> Database: ...
    @property
    def namespace(self) -> str: ...


class Meta(Namespaced, Protocol):
    def get_meta(self, key: str) -> str | None: ...
    def set_meta(self, conn: Handle, key: str, value: str) -> None: ...
    def meta_items(self, conn: Handle) -> dict[str, str]:
        """Every meta key (SQLite's meta is one per file, shared by its namespaces)."""


class Memories(Namespaced, Protocol):
    def find_live(self, conn: Handle, thread: str, content_hash: str) -> int | None: ...
    def insert_memory(self, conn: Handle, new: NewMemory) -> int:
        """Insert the memory, its tags and keyword text; its vector is queued for the backfill."""

    def get(self, ids: Iterable[int], include_deleted: bool = True) -> dict[int, MemoryRow]: ...
    def recent_memories(self, thread: str, limit: int) -> list[MemoryRow]:
        """The thread's newest live memories (not file units), newest first."""

    def nth_newest_time(self, thread: str, n: int) -> int | None:
        """The creation time of the thread's n-th newest memory, forgotten ones counted (cost bounded by n);
        None when the thread holds fewer than n."""

    def memory_state(self, conn: Handle, memory_id: int) -> MemoryState | None:
        """A memory of this namespace as it is now, None if there is none."""

    def soft_delete(self, conn: Handle, memory_id: int, now: int) -> None: ...
    def link_superseded(self, conn: Handle, memory_id: int, by: int | None) -> None:
        """Point a memory at its replacement without touching updated_at (restoring an archived link)."""

    def mark_recalled(self, conn: Handle, ids: Sequence[int], now: int) -> None: ...
    def count(self) -> dict[str, int]: ...
    def vectors(self, conn: Handle, ids: Sequence[int]) -> dict[int, np.ndarray]:
        """The stored vectors of these memories (those that have one)."""

    def unqueue_daily(self, memory_id: int) -> None: ...
    def daily_backlog(self, queued_before: int, limit: int = 500) -> list[MemoryRow]:
        """Memories whose daily-log line was never written (oldest first)."""


class FileUnits(Memories, Protocol):
    def file_units(self, conn: Handle, source: str) -> dict[str, FileUnit]:
        """The indexed units of one file by unit key."""

    def file_sources(self, conn: Handle) -> list[str]: ...
    def move_file_unit(
        self, conn: Handle, memory_id: int, line: int, section: str, key: str | None = None,
        content_hash: str | None = None,
    ) -> None:
        """The unit is at another line (with `key` and its `content_hash`: under another section, so its
        key changed); its id stays."""
    def delete_derived(self, conn: Handle, memory_id: int) -> None:
        """Remove a memory derived from a file (the file is its record) with its index rows."""


class ThreadsAndPrompts(Namespaced, Protocol):
    def touch_thread(self, conn: Handle, thread: str, now: int) -> None: ...
    def get_thread(self, thread: str) -> Thread | None: ...
    def list_threads(self, include_archived: bool = False) -> list[Thread]: ...
    def thread_ids(self, include_archived: bool = False, among: Sequence[str] | None = None) -> list[str]:
        """list_threads' ids, in its order (`among`: only those whose lower case is one of these words)."""
    def update_thread(self, conn: Handle, thread: str, **fields: Any) -> None: ...
    def add_messages(self, conn: Handle, thread: str, messages: Sequence[NewMessage], now: int, keep: int) -> None:
        """Append to the thread's recent-message window, keeping its last `keep` messages."""

    def recent_messages(self, thread: str, limit: int) -> list[Message]:
        """The last `limit` messages of the thread, oldest first."""

    def global_prompts(self, active_only: bool) -> list[GlobalPrompt]: ...
    def put_global_prompt(self, conn: Handle, name: str, content: str, priority: int, now: int) -> None: ...
    def set_global_prompt(self, conn: Handle, name: str, now: int, **fields: Any) -> bool: ...
    def delete_global_prompt(self, conn: Handle, name: str) -> bool: ...


class SearchIndex(Memories, Protocol):
    def beside(self) -> SearchIndex | None:
        """The same index for a search run in another thread at the same time as this one's
        (its own connection), or None when there is no such thing: run it here, in turn."""

    def match_count(self, query: KeywordQuery, cap: int, scope: Scope = Scope()) -> int:
        """How many index rows in the scope's threads match `query` (kind/time/tag filters ignored),
        counting no further than `cap` (cost bounded by it)."""

    def keyword(self, query: KeywordQuery, limit: int, scope: Scope) -> dict[int, float]:
        """Keyword matches as {id: rank}, best first; more negative is better (bm25's sign) and only
        ratios to the best matter. With `query.newest`, only the newest matches in scope are ranked."""

    def document_frequency(self, query: KeywordQuery, scope: Scope) -> int:
        """How many live memories in `scope` match `query`."""

    def scope_size(self, scope: Scope, cap: int | None = None) -> int:
        """Live memories a search over `scope` covers (kind/time/tag filters ignored), counting no
        further than `cap` when given (cost bounded by it)."""

    def knn(self, vector: np.ndarray, k: int, scope: Scope, exact: bool = True) -> dict[int, float]:
        """The nearest live memories as {id: cosine distance}, nearest first, every filter applied before the cut.
        Not `exact`: distances within ~1e-4 of the exact ones do (a store may answer from a float16 copy)."""

    def cosines(self, vector: np.ndarray, ids: Sequence[int]) -> dict[int, float]:
        """Exact cosine similarity of the query to these live memories (those that have a vector)."""

    def neighbours(self, ids: Sequence[int]) -> dict[int, Neighbours]:
        """For each of these that is a conversation turn: the live turns around it in its thread."""

    # the embedding queue
    def pending(self, limit: int, threads: Sequence[str] | None = None) -> list[PendingEmbedding]:
        """Memories still waiting for a vector, oldest first; with `threads`, only those of these threads."""

    def pending_of(self, ids: Sequence[int]) -> list[PendingEmbedding]:
        """Those of these memories still waiting for a vector (a recall embeds its own candidates)."""

    def has_pending(self) -> bool: ...
    def unjudged(self, limit: int) -> list[int]:
        """Memories whose update check waits (NewMemory.judge_later) and whose vector is stored, oldest first."""

    def judged(self, conn: Handle, ids: Sequence[int]) -> None:
        """Their update checks are done (or moot: forgotten, replaced)."""

    def set_possible_update(self, conn: Handle, memory_id: int,
                            possible: PossibleUpdate | Sequence[PossibleUpdate] | None) -> None:
        """Record the earlier memories this one possibly updates, unlinked, in place of what was recorded
        for it (one or several; None or none clears them)."""

    def possible_update_rows(self, conn: Handle, ids: Sequence[int] | None = None,
                             older: int | None = None) -> list[tuple[int, PossibleUpdate]]:
        """(newer id, possible update) recorded for these memories (None: every one of the namespace), or
        with `older`, those naming that memory; by newer id, each newer's most probable first."""

    def possible_updates(self, conn: Handle, ids: Sequence[int] | None = None,
                         older: int | None = None) -> dict[int, PossibleUpdate]:
        """The most probable possible update recorded for each of these memories (None: every one of the
        namespace), or with `older`, those naming that memory as what they possibly update."""

    def possible_updates_all(self, conn: Handle, ids: Sequence[int] | None = None) -> dict[int, list[PossibleUpdate]]:
        """Every possible update recorded for each of these memories (None: every one of the namespace),
        most probable first."""

    def set_analyses(self, conn: Handle, analyses: Mapping[int, tuple[str, str]], version: str) -> None:
        """Store these memories' statement analyses, {id: (text key, analysis)}, made by the analyser's
        `version` (server.updates.statements: the update check reads them instead of analysing again)."""

    def analyses(self, ids: Sequence[int], version: str) -> dict[int, tuple[str, str]]:
        """The stored analyses of these memories made by that analyser version, {id: (text key, analysis)}."""

    def pending_count(self, scope: Scope, cap: int | None = None) -> int:
        """Live memories in `scope` (its threads; other filters ignored) still waiting for a vector,
        counted no further than `cap`."""

    def store_vectors(self, vectors: Mapping[int, np.ndarray]) -> int:
        """Write the vectors of memories still waiting for one; how many were written (idempotent)."""

    def reset_vectors(self, conn: Handle, dimensions: int) -> int:
        """Drop every vector and queue every memory again; how many are queued."""


class Integrity(Namespaced, Protocol):
    def index_drift(self, conn: Handle) -> IndexDrift: ...
    def repair_index(self, conn: Handle, drift: IndexDrift, text_of: Callable[[str], str]) -> None: ...
    def integrity_errors(self, conn: Handle, quick: bool = True) -> list[str]: ...
    def health_counts(self, conn: Handle) -> HealthCounts: ...


class Curation(Memories, Meta, Integrity, Protocol):
    def rows(
        self, conn: Handle, thread: str | None = None, deleted: bool | None = False,
        since: int | None = None, until: int | None = None,
    ) -> list[MemoryRow]:
        """Memories of the namespace, oldest first; `deleted` None means live and forgotten alike."""

    def set_superseded(self, conn: Handle, memory_id: int, by: int | None, now: int) -> None: ...
    def set_pinned(self, conn: Handle, memory_id: int, pinned: bool, now: int) -> None: ...
    def originals(self, conn: Handle, ids: Sequence[int]) -> dict[int, Original]:
        """The archived originals of these compressed memories."""

    def set_compressed(
        self, conn: Handle, memory_id: int, content: str, tier: str, original: str | None, now: int, text: str
    ) -> None: ...
    def set_restored(self, conn: Handle, memory_id: int, original: str, now: int, text: str) -> None: ...
    def undelete(self, conn: Handle, memory_id: int, now: int, text: str) -> None: ...
    def hard_delete(self, conn: Handle, memory_id: int, successor: int | None) -> None: ...
    def promoted(self, conn: Handle) -> set[int]: ...
    def record_promotion(self, conn: Handle, memory_id: int, section: str, now: int) -> None: ...
    def stats(self, conn: Handle) -> dict[str, Any]: ...

    # the JSON archive
    def archived_originals(self, conn: Handle, thread: str | None = None) -> dict[int, Original]: ...
    def threads(self, conn: Handle, only: str | None = None) -> list[ThreadExport]: ...
    def export_global_prompts(self, conn: Handle) -> list[PromptExport]: ...
    def find_identity(self, conn: Handle, thread: str, content_hash: str, created_at: int) -> int | None: ...
    def id_taken(self, conn: Handle, memory_id: int) -> bool: ...
    def insert_archived(
        self, conn: Handle, memory_id: int | None, row: MemoryRow, original: Original | None, text: str,
        file_key: str | None = None,
    ) -> int:
        """Insert an archived memory with every field (a file unit with its key, line and section)."""
    def put_thread(self, conn: Handle, thread: ThreadExport) -> bool: ...
    def import_global_prompt(self, conn: Handle, prompt: PromptExport) -> bool: ...


class Copying(Curation, Protocol):
    def namespaces(self, conn: Handle) -> list[str]:
        """Namespaces holding data that this connection may see (PostgreSQL: at most its tenant)."""

    def dump_memories(self, conn: Handle, after: int, limit: int) -> list[MemoryDump]:
        """Up to `limit` memories with ids above `after`, in id order, every stored field."""

    def load_memories(
        self, conn: Handle, memories: Sequence[MemoryDump], texts: Sequence[str | None],
        vectors: Mapping[int, np.ndarray],
    ) -> None:
        """Insert dumped memories with their ids, keyword text (`texts`, None for a forgotten one) and vectors."""

    def ids_taken(self, conn: Handle, ids: Sequence[int]) -> set[int]: ...
    def id_high_water(self, conn: Handle) -> int: ...
    def raise_id_high_water(self, conn: Handle, value: int) -> None: ...
    def dump_messages(self, conn: Handle) -> list[ThreadMessage]: ...
    def load_messages(self, conn: Handle, messages: Sequence[ThreadMessage]) -> None: ...
    def promotions(self, conn: Handle) -> list[Promotion]: ...


class Browsing(Memories, Protocol):
    def browse(self, conn: Handle, where: MemoryFilter, limit: int, offset: int = 0) -> list[MemoryRow]:
        """Memories matching `where`, newest first (by creation time, then id)."""

    def browse_count(self, conn: Handle, where: MemoryFilter) -> int: ...
    def record(self, conn: Handle, memory_id: int) -> MemoryDump | None:
        """Every stored field of one memory of the namespace (forgotten ones too); None if there is none."""

    def thread_figures(self, conn: Handle) -> list[ThreadFigures]:
        """Figures of every thread that has memories, live or forgotten (global as '')."""

    def timeline(self, conn: Handle, width: int, offset: int = 0) -> list[TimelineRow]:
        """Creations, forgets and supersedes per thread and kind in buckets of `width` ms, memory-file
        units left out (their file is their record); a bucket starts where (time + offset) is a multiple
        of width (weeks from Monday: width 7 days, offset 3)."""

    def set_details(
        self, conn: Handle, memory_id: int, kind: str, tags: tuple[str, ...], importance: float, now: int
    ) -> None:
        """Change a memory's kind, tags and importance in place (its text stays; search filters follow)."""


class Transactions(Namespaced, Protocol):
    """What a caller does in one transaction, named; the store opens and commits it
    (storage/transactions.py, written once for both backends). Callers outside storage use these
    instead of opening a transaction on the database."""

    def transaction(self, wait: float | None = None) -> AbstractContextManager[Any]:
        """A write transaction of this store's database (Database.write): its handle goes to store methods."""

    @property
    def location(self) -> tuple[str, str]:
        """Which store this is, as a cache key: the database's stable name and the namespace."""

    def add_memory(self, new: NewMemory) -> tuple[int, bool]:
        """Store `new` unless its thread holds the same text live: (its id, whether it is new).
        The thread is touched at the later of its creation and update times."""

    def forget(self, memory_id: int, now: int) -> MemoryState | None:
        """Forget a live memory (soft delete); returns its state before (None: no such memory)."""

    def forget_all(self, ids: Iterable[int], now: int, erase: Mapping[int, int | None] | None = None) -> None:
        """Forget these memories, and erase those in `erase` for good (each to its successor), at once."""

    def erase(self, memory_id: int, successor: int | None, now: int, forget_first: bool) -> None:
        """Erase a memory for good; `forget_first`: forget it first if it is still there (its index goes too)."""

    def erase_all(self, successors: Mapping[int, int | None]) -> None:
        """Erase these (forgotten) memories for good, each pointing what it replaced at its successor."""

    def mark_recalled_batches(self, batches: Sequence[tuple[Sequence[int], int]], wait: float | None = None) -> None:
        """Count these recalls (ids, when), in one transaction waiting at most `wait` seconds."""

    def vectors_of(self, ids: Sequence[int]) -> dict[int, np.ndarray]:
        """Store.vectors in a read of its own."""

    def record_model(self, model_id: str, dimensions: int, wait: float | None = None) -> None:
        """Record which model made this store's vectors."""

    def reset_for_model(self, model_id: str, dimensions: int) -> int:
        """Drop every vector and queue every memory for `model_id`; returns how many are queued."""

    def claim_day(self, key: str, today: str) -> bool:
        """Set meta `key` to `today` unless it already holds it: whether this caller claimed the day."""

    def repair_drift(self, text_of: Callable[[str], str]) -> IndexDrift:
        """Find index drift and repair it in one write (after a cheap read found some); returns what it fixed."""

    def has_drift(self, db: Database | None = None) -> bool:
        """Whether the index is out of step with `memories`, read through `db` (default: the store's own)."""
    def save_thread(self, thread: str, now: int, **fields: Any) -> None:
        """Touch the thread and set these of its fields (title, system_prompt, archived)."""

    def append_messages(self, thread: str, messages: Sequence[NewMessage], now: int, keep: int) -> None:
        """Touch the thread and append to its message window, keeping the last `keep`."""

    def save_global_prompt(self, name: str, content: str, priority: int, now: int) -> None: ...
    def change_global_prompt(self, name: str, now: int, **fields: Any) -> bool:
        """Set a global prompt's active flag or priority; False when there is no such prompt."""

    def remove_global_prompt(self, name: str) -> bool: ...
    def link_if(self, older: int, newer: int, at: int, judged: Sequence[int],
                still: Callable[[MemoryRow], bool]) -> bool:
        """Mark `older` superseded by `newer` and `judged` as judged, if both are there and still
        satisfy `still` (re-read in the write: another writer may have forgotten or linked them)."""

    def record_possible_updates(self, possible: Mapping[int, PossibleUpdate | Sequence[PossibleUpdate] | None],
                                judged: Sequence[int] | None = None) -> None:
        """Record (in place of what was recorded; None clears) possible updates, and mark `judged` as judged,
        in one write."""

    def store_analyses(self, analyses: Mapping[int, tuple[str, str]], version: str) -> None:
        """Store.set_analyses in a write of its own."""

    def possible_updates_of(self, ids: Sequence[int] | None = None) -> dict[int, PossibleUpdate]:
        """Store.possible_updates of these newer memories (all when None), in a read of its own."""

    def possible_updates_older(self, ids: Sequence[int]) -> dict[int, dict[int, PossibleUpdate]]:
        """For each of these older memories, what was recorded as possibly updating it (one read)."""

    def supersede_all(self, pairs: Iterable[tuple[int, int | None]], now: int) -> None:
        """Point each memory at its replacement (None: current again), in one write."""

    def pin_all(self, ids: Iterable[int], pinned: bool, now: int) -> None: ...
    def record_promotions(self, promoted: Iterable[tuple[int, str]], now: int) -> None:
        """Record that these memories (id, section) were promoted into MEMORY.md."""

    def edit_details(self, memory_id: int, kind: str, tags: tuple[str, ...], importance: float, now: int,
                     check: Callable[[MemoryRow], None]) -> None:
        """Set a memory's kind, tags and importance after `check` (which raises) passes on its current row."""


class Store(FileUnits, ThreadsAndPrompts, SearchIndex, Copying, Browsing, Transactions, Protocol):
    """Every role: what each backend's store class implements (the service holds one)."""


#: The roles in the order both store classes implement them.
ROLES: tuple[type, ...] = (
    Meta, Memories, FileUnits, ThreadsAndPrompts, SearchIndex, Integrity, Curation, Copying, Browsing,
    Transactions,
)


class TokenTable(Protocol):
    """The bearer tokens of the HTTP transport (every tenant's: a request's tenant is known only
    after its token is found). Hashes only; the policy is server.http.tokens'."""

    def add(
        self, token_hash: str, tenant: str, user: str | None, agent: str | None, label: str | None,
        created_at: int, expires_at: int | None,
    ) -> TokenInfo: ...
    def all(self) -> list[TokenInfo]: ...
    def find(self, token_hash: str) -> TokenInfo | None: ...
    def revoke(self, token_id: int, now: int) -> TokenInfo | None:
        """Revoke the token unless it already is; its record, None if there is no such token."""

    def touch(self, token_id: int, now: int) -> None: ...
