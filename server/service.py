"""MemoryService: remember, recall and forget as plain Python (no MCP here).

The MCP layer, the CLI, the benchmarks and the tests all drive memvault
through this class. It validates, decides, and calls the store for SQL.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from contextlib import suppress
from collections.abc import Callable
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING

from server import stages
from server import validation as check
from server.clock import Clock, from_millis, system_clock, to_millis
from server.config import Settings
from server.embedding.embedders import Embedder, _release_freed_memory
from server.errors import InvalidInput, ModelMismatch, StoreUnavailable, no_memory
from server.embedding.backfill import Indexer
from server.models import ALL_THREADS, CAPTURED_SOURCE, CONVERSATION_KIND, GLOBAL_THREAD, Principal, is_statement
from server.config import templates_dir
from server.files.index import FILE_SOURCE, FileIndex
from server.files.dailylog import DailyEntry
from server.files.folder import MemoryFiles
from server.files.atomic import sweep_temp_files
from server.recall import Found, ReadPath
from server.guard.redact import redact
from server import shown
from server.guard.instructions import instruction_flags
from server.guard.lazyre import compile_all
from server.updates.stemmer import english_stemmer
from server.storage.opener import make_store, open_database, sqlite_open_error
from server.storage.protocol import GLOBAL, Database, IndexDrift, MemoryRow, NewMemory, Scope
from server.textindex import index_text
from server.global_prompts import GlobalPrompts
from server.threads import Threads, named_threads, omitted_thread, thread_scope, thread_words
from server.linker import UpdateLinker, describe_possible, waits_for_vector
from server.linker import describe as describe_link

if TYPE_CHECKING:  # pydantic loads when a result is built (a hook process answering by keyword never builds one)
    from server.results import ForgetResult, Memory, RecallResult, RememberResult

log = logging.getLogger(__name__)

#: Seconds after start_background that the warm-up waits for a first recall before it runs anyway.
WARM_UP_AFTER = 5.0
#: The impact-list builder waits this long for a wanted term before it looks again (close wakes it)...
IMPACT_WAIT = 1.0
#: ... and pauses this long after each term it built (0.3-1 s of a core at 1M).
IMPACT_PAUSE = 0.05


def content_hash(content: str) -> str:
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


class MemoryService:
    def __init__(
        self, db: Database, embedder: Embedder, settings: Settings, clock: Clock = system_clock
    ) -> None:
        self.db = db
        self.embedder = embedder
        self.settings = settings
        self.clock = clock
        self.principal = Principal.from_settings(settings)
        self.store = make_store(db, settings.namespace)
        self.indexer = Indexer(self.store, embedder)
        self.linker = UpdateLinker(self.store, embedder)
        # The backfill's own thread judges what it just embedded (memories written without a vector).
        self.indexer.after_batch = lambda: self.linker.settle(self.db)
        self.files = MemoryFiles(settings.files_dir, templates_dir(), settings.max_file_bytes)
        self.files.install_templates()
        for folder in (settings.files_dir, settings.archives_dir):
            left = sweep_temp_files(folder)  # writes cut short by a crash; the targets are intact
            if left:
                log.warning("removed %d temp file(s) of writes interrupted by a crash: %s", len(left),
                            ", ".join(str(p.relative_to(folder)) for p in left[:5]))
        self.file_index = FileIndex(self.store, self.files, clock, settings.max_content_bytes)
        self.threads = Threads(self.store, settings, clock)
        self.global_prompts = GlobalPrompts(self.store, settings, clock)
        #: The recall pipeline and the bounded writes a recall does (server.recall).
        self.reads = ReadPath(db, self.store, embedder, self.indexer, self.linker, self.file_index, settings, clock)
        #: Whether this process has checked the index against `memories` (open, or start_background's thread).
        self.index_checked = False
        self._index_check: threading.Thread | None = None
        self._first_search: threading.Thread | None = None
        #: Set when this process has answered its first recall: the warm-up waits for it (start_background).
        self._answered = threading.Event()
        #: The keyword impact lists' builder (start_background) and what asks it to stop (close).
        self._impact_builder: threading.Thread | None = None
        self._closing = threading.Event()

    @classmethod
    def open(
        cls,
        settings: Settings,
        embedder: Embedder,
        clock: Clock = system_clock,
        check_model: bool = True,
        check_index: bool = True,
    ) -> MemoryService:
        """Open (creating if needed) the store under settings.home and check its model. The edges open
        theirs through server.compose, which picks the configured embedder.

        `check_index=False` leaves the index check (whole-table reads: 7.3 s of a 7.5 s open at 1M
        memories) to start_background, which a server calls: see check_index_beside for why that is safe.
        """
        db = open_database(settings, embedder.dimensions)
        try:
            try:
                service = cls(db, embedder, settings, clock)
            except OSError as exc:  # the files folder: not a folder, read-only, no space
                raise (sqlite_open_error(settings, exc) or exc) from None
            if check_model:
                service._check_model()
            if check_index:
                service.repair_index()
        except BaseException:
            db.close()
            raise
        return service

    def _check_model(self) -> None:
        model = self.store.get_meta("embedding_model")
        dims = self.store.get_meta("embedding_dimensions")
        if model is None:
            # wait=0: a reader (`memvault recall` on a store the hooks filled) never waits for a writer.
            with suppress(StoreUnavailable):  # else the next open records it
                self.store.record_model(self.embedder.model_id, self.embedder.dimensions, wait=0)
            return
        if model != self.embedder.model_id or dims != str(self.embedder.dimensions):
            raise ModelMismatch(
                f"This store's vectors were made by {model} ({dims} dimensions) but memvault is configured for "
                f"{self.embedder.model_id} ({self.embedder.dimensions}). Run `memvault reembed` to recompute "
                "them with the configured model, or switch MEMVAULT_EMBEDDER (or MEMVAULT_EMBED_PRECISION) back."
            )

    def repair_index(self) -> IndexDrift:
        """Find and fix index drift (a memory without keyword row or vector, orphan rows); logs what it fixed.

        A cheap read first, so a healthy store (the usual case) never takes the
        write lock at start-up; the check is repeated inside the write because
        another process may be repairing the same file at the same moment.
        """
        if not self.store.has_drift():
            self.index_checked = True
            return IndexDrift()
        return self._repair_drift()

    def _repair_drift(self) -> IndexDrift:
        drift = self.store.repair_drift(index_text)
        self.index_checked = True
        if drift:
            log.warning("index out of step with the memories table, repaired: %s", drift.describe())
            self.indexer.notify()
        return drift

    def reembed(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Recompute every vector with the configured embedder (after a model change)."""
        total = self.store.reset_for_model(self.embedder.model_id, self.embedder.dimensions)
        return self._drain_queue(total, progress)

    def embed_backlog(self, progress: Callable[[int, int], None] | None = None, model_wait: float = 600.0) -> int:
        """Embed every memory still waiting for a vector, now (after an import); returns how many.

        Each batch commits on its own, so an interrupted run keeps what it did and
        the rest stays queued for the server's backfill.
        """
        if not self.embedder.wait_ready(model_wait):
            return 0
        return self._drain_queue(self.store.count()["pending_embeddings"], progress)

    def _drain_queue(self, total: int, progress: Callable[[int, int], None] | None) -> int:
        """Embed the queue batch by batch until it is empty; returns how many were embedded."""
        done = 0
        while count := self.indexer.run_once(limit=512, batch_size=64):  # the caller waits for all of it
            done += count
            if progress:
                progress(done, max(total, done))
        # The writes that waited for these vectors to be judged as updates are judged now, not a
        # few per recall: the caller's next recall must rank the current fact first.
        self.linker.settle(self.db)
        return done

    def _search_once(self) -> None:
        """One vector search over every thread, its answer unused, so the first recall's is not the first:
        it maps the vector sidecar and its row ids (8 MB of ids at 1M memories: 0.3-0.5 s of a busy
        machine) and brings the file's pages into memory. Mostly outside the GIL (NumPy, SQLite)."""
        # lazy: NumPy, ~0.38 s that a hook process (which imports this module) never needs
        import numpy as np

        probe = np.zeros(self.embedder.dimensions, dtype=np.float32)
        probe[0] = 1.0
        try:
            self.store.knn(probe, 1, Scope())
        except Exception:  # noqa: BLE001 - only a head start: the first recall searches (and reports) for itself
            log.debug("the first vector search in the background failed", exc_info=True)
        stages.mark("first search done")

    def start_background(self, model_delay: float = 0.0) -> None:
        """Begin loading the model, backfilling vectors and the daily log; returns at once.

        Runs before the server answers `initialize`: the daily-log backlog is written only if
        the write lock is free at once (else the next start, or a later remember, writes it).
        """
        with self.db.waiting_at_most(0):
            self.write_daily_backlog(older_than_ms=0)
        self.embedder.start(delay=model_delay)
        self.indexer.start()
        if self._first_search is None:
            self._first_search = threading.Thread(target=self._search_once, name="memvault-first-search",
                                                  daemon=True)
            self._first_search.start()
        threading.Thread(target=self._warm_up, name="memvault-warm-up", daemon=True).start()
        # SQLite's alone (PostgreSQL has no impact lists): recalls want the lists, this thread builds them.
        if getattr(self.store, "build_wanted", None) is not None and self._impact_builder is None:
            self._impact_builder = threading.Thread(target=self._build_impact_lists, name="memvault-impact-lists",
                                                    daemon=True)
            self._impact_builder.start()
        self.start_index_check()

    def start_index_check(self) -> None:
        """Run the open's index check beside (check_index_beside), once; close waits for it. Alone for a
        server whose host closed stdin before `initialize`: it starts nothing else, but repairs as before."""
        if not self.index_checked and self._index_check is None:
            self._index_check = threading.Thread(target=self.check_index_beside, name="memvault-index-check",
                                                 daemon=True)
            self._index_check.start()

    def _warm_up(self) -> None:
        """Pay one-time costs here, in the background, that a later request would: the guards' and the
        statement rules' regexes (523, compiled on first use: ~0.5 s, ~2 s of a busy machine, most of it
        for the first remember's guards) and the stemmer's import. Once the first recall is answered (or
        WARM_UP_AFTER seconds passed without one): this holds the GIL throughout, and run beside the first
        recall it slowed it by as much, though that recall needs only ~20 of the patterns, compiled as
        it goes. A hook process never runs this: it keeps its imports light."""
        self._answered.wait(WARM_UP_AFTER)
        english_stemmer()
        compile_all()
        # The first vector search's temporaries (the sidecar's row map is built from 1M-row arrays)
        # stay resident in glibc's arenas once freed: ~17 MB of every server at 1M memories, handed back.
        _release_freed_memory()

    def _build_impact_lists(self) -> None:
        """Build the keyword impact lists recalls wanted (storage/sqlite/impacts.py), one term at a time:
        a recall never builds one (a term's ranking takes 0.3-1 s at 1M), it searches as before until
        the list is there. Low CPU priority (a 2-core machine's recalls come first) and a pause between
        terms, so that a burst of new terms never holds a core for long."""
        with suppress(AttributeError, OSError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 15)
        while not self._closing.is_set():
            try:
                if self.store.build_wanted(1, wait=IMPACT_WAIT):
                    self._closing.wait(IMPACT_PAUSE)
            except Exception:  # noqa: BLE001 - a derived index: the server keeps serving, recalls search as before
                log.exception("building a keyword impact list failed")
                self._closing.wait(IMPACT_WAIT)

    def check_index_beside(self) -> IndexDrift:
        """The open's index check, on a connection of its own, while the server already answers.

        Drift (a memory without keyword row or vector, rows of memories gone) never comes from a crash:
        every write is one transaction (tests/test_crash.py finds none after kill -9, before any
        repair). It comes from an outside edit (the sqlite3 shell, a file restored beside its WAL) or
        a bug, which no clean-close marker can see -- an edit after a clean close leaves the marker
        as it was -- and hooks write between sessions, so a marker of "unchanged since checked" would
        send the usual start down the slow path anyway. So a server checks every time, but after
        `initialize` instead of before it. Meanwhile recall is incomplete, never wrong: a memory
        without its keyword row or vector is found one way fewer, and rows left by a deleted or
        forgotten memory are dropped by recall's own live-memory filter (tests/test_crash.py).
        """
        # Lowest-but-one CPU priority for this thread alone (Linux: a thread id is a setpriority target):
        # at 1M memories the reads take ~7 s of a core, and the model load and the first recalls of a
        # 2-core machine must not queue behind them. SQLite runs them without the GIL.
        with suppress(AttributeError, OSError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 15)
        try:
            side = self.db.beside()
            try:
                drifted = self.store.has_drift(side)
            finally:
                if side is not self.db:
                    side.close()
            if drifted:
                # The repair holds this process's connection (recalls wait for it): back to normal
                # priority where allowed (lowering nice back needs privilege; else it stays niced).
                with suppress(AttributeError, OSError):
                    os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 0)
                return self._repair_drift()  # one write; it reads the drift again under the lock
            self.index_checked = True
        except Exception:  # noqa: BLE001 - the server keeps serving; the next start checks again
            log.exception("the index check after start failed")
        return IndexDrift()

    def close(self) -> None:
        self.indexer.stop()
        if self._impact_builder is not None:
            # Joined (at most one term's build): it reads and writes the file on a connection of its own.
            self._closing.set()
            self.store.wake_impact_builder()
            self._impact_builder.join()
        if self._index_check is not None:
            # Joined, not abandoned: its repair writes through self.db, and a check cut short would
            # report nothing (a 1M store's check takes ~7 s; a server usually lives far longer).
            self._index_check.join()
        self.db.close()

    # -- threads --------------------------------------------------------------
    def _write_thread(self, thread: str | None) -> str:
        """The stored thread for a write: '' for global; omitted: threads.omitted_thread's rule."""
        stored = thread_scope(thread, default=omitted_thread(self.settings.default_thread))
        if stored is None:
            raise InvalidInput(f"{ALL_THREADS!r} only works in recall; name a thread, or {GLOBAL_THREAD!r}")
        return stored

    def resolve_thread(self, thread: str | None) -> str | None:
        """The one thread a call is about (None: no thread, only global context)."""
        stored = self._write_thread(thread)
        return stored or None

    def _read_threads(self, thread: str | None) -> tuple[str, ...] | None:
        """Threads a recall searches: a thread plus the global memories, only the global ones, or
        everything ('*'); omitted: the same thread a remember without one writes to."""
        stored = thread_scope(thread, default=omitted_thread(self.settings.default_thread))
        if stored is None:
            return None
        return (GLOBAL,) if stored == GLOBAL else (stored, GLOBAL)

    # -- remember -------------------------------------------------------------
    def remember(
        self,
        content: str,
        kind: str = "note",
        thread: str | None = None,
        tags: list[str] | tuple[str, ...] | None = None,
        importance: float = 0.5,
        created_at: str | datetime | None = None,
        source: str = "remember",
        origin: str | None = None,
        pinned: bool = False,
        author: Principal | None = None,
        daily: bool = True,
        judge_now: bool = True,
    ) -> RememberResult:
        # author: who writes, when it is not the process's own principal (a bearer
        # token's user and agent over HTTP); recorded on the memory for provenance.
        # daily=False keeps it out of the daily log (conversation turns captured by
        # the hooks: the log is a person's journal, not a transcript).
        from server.results import RememberResult

        author = author or self.principal
        content = check.text(content, "content", self.settings.max_content_bytes)
        # Secrets never reach the database or the daily log in plain text.
        redaction = redact(content)
        content = redaction.text
        if origin:  # what the client claims to be is stored and shown too: the same rule as text
            origin = redact(origin).text
        kind = check.kind(kind)
        stored_thread = self._write_thread(thread)
        redacted = set(redaction.kinds)
        tag_list = check.tags(tags, self.settings, redacted=redacted)
        importance = check.importance(importance)
        now = to_millis(self.clock())
        when = check.timestamp(created_at, "created_at")
        created = to_millis(when) if when else now
        digest = content_hash(content)
        shown_thread = stored_thread or None
        flags = list(instruction_flags(content))
        # judge_now=False (a capture: hundreds at once) leaves the update check to the backfill: here each
        # costs a search of its thread (40-70 ms at 20k memories). Outside the write lock (None: model loading).
        vector = self.linker.vector(content) if kind != CONVERSATION_KIND and judge_now else None
        memory_id, new = self.store.add_memory(
            NewMemory(
                thread=stored_thread,
                content=content,
                kind=kind,
                source=source,
                origin=origin,
                importance=importance,
                tags=tag_list,
                content_hash=digest,
                created_at=created,
                updated_at=now,
                index_text=index_text(content),
                pinned=bool(pinned),
                user=author.user,
                agent=author.agent,
                log_daily=daily,
                judge_later=waits_for_vector(kind, source, vector) if judge_now else is_statement(kind, source),
            ),
        )
        if not new:
            return RememberResult(
                id=memory_id,
                redacted=sorted(redacted),
                status="duplicate",
                thread=shown_thread,
                flags=flags,
                message=f"Already remembered as memory {memory_id}; nothing new stored." + shown.flagged(flags),
            )
        self.indexer.prefer((stored_thread,))  # the session's own thread: its questions come next
        if vector is not None:
            self.indexer.known(memory_id, content, vector, stored_thread)  # the backfill stores it, not embeds it again
        linked = self.linker.link(self.db, self.store.get([memory_id])[memory_id], vector) if judge_now else None
        if judge_now:
            self.linker.check_pending(self.db)  # earlier writes whose vectors the backfill has stored since
        self.reads.wrote(memory_id)
        self.indexer.notify()  # after the judging: the backfill may start loading the model
        where = f"thread {stored_thread}" if stored_thread else "global memory"
        message = f"Stored as memory {memory_id} ({where})."
        if linked:
            message += describe_link(linked, memory_id)
        else:
            message += describe_possible(self.db, self.store, memory_id)
        if redacted:
            message += f" Secrets were replaced before storing: {', '.join(sorted(redacted))}."
        message += shown.flagged(flags)
        problem = self._log_daily(memory_id, kind, stored_thread, content) if daily else None
        if problem:
            message += f" The daily log line could not be written ({problem}); it is retried at the next start."
        elif daily:
            self.write_daily_backlog()
        return RememberResult(
            id=memory_id, status="stored", thread=shown_thread, redacted=sorted(redacted), flags=flags, message=message,
            updates=linked.older if linked and linked.newer == memory_id else None,
            superseded_by=linked.newer if linked and linked.older == memory_id else None,
        )

    # -- the daily log ----------------------------------------------------------
    def _log_daily(self, memory_id: int, kind: str, thread: str, content: str, once: bool = False) -> str | None:
        """Append the memory's line to today's log (local time); the reason if it failed."""
        try:
            self.files.append_daily(
                self.clock().astimezone(), DailyEntry(kind=kind, content=content, thread=thread or None, id=memory_id),
                once=once,
            )
            self.store.unqueue_daily(memory_id)
        except Exception as exc:  # noqa: BLE001 - the memory is stored; the line waits in the queue
            log.warning("daily log line for memory %d not written: %s", memory_id, exc)
            return f"{type(exc).__name__}: {exc}"
        return None

    def write_daily_backlog(self, older_than_ms: int = 60_000) -> int:
        """Write the lines a crashed or failed append left behind (queued over a minute ago)."""
        cutoff = to_millis(self.clock()) - older_than_ms
        today = self.clock().astimezone().date()
        written = 0
        for row in self.store.daily_backlog(queued_before=cutoff):
            # A process killed between its append and the unqueue left the line written: each
            # memory is logged once, so look in the log of the day it was queued and today's (and
            # append with once=True: another process may be writing the same backlog meanwhile).
            queued_day = from_millis(row.updated_at).astimezone().date()
            if any(self.files.holds_daily_line(day, row.id) for day in {queued_day, today}):
                self.store.unqueue_daily(row.id)
                continue
            if self._log_daily(row.id, row.kind, row.thread, row.content, once=True) is None:
                written += 1
        if written:
            log.info("daily log: wrote %d line(s) left behind earlier", written)
        return written

    # -- recall ---------------------------------------------------------------
    def recall(
        self,
        query: str,
        k: int = 5,
        thread: str | None = None,
        kinds: list[str] | None = None,
        tags: list[str] | None = None,
        since: str | datetime | None = None,
        until: str | datetime | None = None,
        min_score: float = 0.0,
    ) -> RecallResult:
        # lazy: results is pydantic, ~0.33 s a hook process (which builds the service) never needs
        from server.results import RecallResult

        found = self.find(query, k, thread, kinds, tags, since, until, min_score)
        return RecallResult(
            memories=[shown.memory(h.row, score=h.score, match=h.match, replaced_by=h.replaced_by,
                              replacement_forgotten=h.replacement_forgotten,
                              possibly_replaced_by=h.possibly_replaced_by, newer_than=h.newer_than, chain=h.chain,
                              excerpt=h.excerpt)
                      for h in found.hits],
            search=found.search,  # type: ignore[arg-type]
            note=found.note,
            pending_embeddings=found.pending_embeddings,
            unembedded_candidates=found.unembedded_candidates,
            keyword_candidates=found.keyword_candidates,
        )

    def find(  # noqa: PLR0913
        self,
        query: str,
        k: int = 5,
        thread: str | None = None,
        kinds: list[str] | None = None,
        tags: list[str] | None = None,
        since: str | datetime | None = None,
        until: str | datetime | None = None,
        min_score: float = 0.0,
    ) -> Found:
        """recall without the result model: the hits as store rows (what a hook process uses)."""
        query = check.text(query, "query", self.settings.max_query_chars * 4, "MEMVAULT_MAX_QUERY_CHARS")
        if len(query) > self.settings.max_query_chars:
            raise InvalidInput(
                f"query is {len(query)} characters, over the limit of {self.settings.max_query_chars}; "
                "ask with the key words or a shorter sentence (the limit is MEMVAULT_MAX_QUERY_CHARS)"
            )
        k = check.k(k, self.settings)
        if isinstance(min_score, bool) or not isinstance(min_score, (int, float)) or not 0.0 <= min_score <= 1.0:
            raise InvalidInput("min_score must be a number from 0 to 1 (0.3 keeps only fairly strong matches)")
        start, end = check.timestamp(since, "since"), check.timestamp(until, "until")
        if start and end and start > end:
            raise InvalidInput("since is after until; swap them or drop one")
        threads = self._read_threads(thread)
        if threads is None:
            # Over every thread, a query naming a project searches that project (and global).
            named = named_threads(query, self.store.thread_ids(include_archived=True, among=thread_words(query)))
            threads = (*named, GLOBAL) if named else None
        scope = Scope(
            threads=threads,
            kinds=check.kinds(kinds),
            tags=check.tags(tags, self.settings) or None,
            since=to_millis(start) if start else None,
            until=to_millis(end) if end else None,
        )
        try:
            return self.reads.run(query, k, scope, min_score)
        finally:
            if not self._answered.is_set():
                stages.first_recall_answered()
            self._answered.set()  # the warm-up waits for the first recall

    # -- forget ---------------------------------------------------------------
    def forget(self, memory_id: int) -> ForgetResult:
        # lazy: results is pydantic, ~0.33 s a hook process (which builds the service) never needs
        from server.results import ForgetResult

        memory_id = check.memory_id(memory_id)
        now = to_millis(self.clock())
        row = self.store.get([memory_id]).get(memory_id)
        if row is not None and row.source == CAPTURED_SOURCE:
            return self.erase(row)  # nobody chose to store it: forgotten means erased
        if row is not None and row.source.startswith(FILE_SOURCE) and row.deleted_at is None:
            # A unit of MEMORY.md or a daily note: the file is its record, so the line goes.
            where = self.file_index.remove(memory_id, row.source)
            return ForgetResult(
                id=memory_id, status="forgotten",
                message=f"Memory {memory_id} is forgotten: {where} was removed from the file (a copy of the file "
                "before is in its backups/ folder); it no longer appears in recall or thread_prompt.",
            )
        state = self.store.forget(memory_id, now)
        if state is None:
            raise no_memory(memory_id)
        if state.deleted_at is not None:
            return ForgetResult(
                id=memory_id, status="already_forgotten", message=f"Memory {memory_id} was already forgotten."
            )
        return ForgetResult(
            id=memory_id,
            status="forgotten",
            message=f"Memory {memory_id} is forgotten: it no longer appears in recall (it stays in the store, not erased).",
        )

    def erase(self, row: MemoryRow) -> ForgetResult:
        """forget of a captured memory (the hooks'): erased with its daily-log line. Nobody chose to store it,
        so it must leave no copy a client or the web page (which lists forgotten memories) can read."""
        # lazy: results is pydantic, ~0.33 s a hook process (which builds the service) never needs
        from server.results import ForgetResult

        self.store.erase(row.id, row.superseded_by, to_millis(self.clock()), forget_first=row.deleted_at is None)
        try:
            gone = self.files.remove_daily_lines({row.id}, since=_day_before(min(row.created_at, row.updated_at)))
            note = "its daily-log line is removed too" if gone else "no daily-log line"
        except OSError as exc:
            note = f"its daily-log line could not be removed ({exc}): delete it by hand"
        return ForgetResult(id=row.id, status="forgotten", message=f"Memory {row.id} is forgotten and erased (a captured "
                            f"memory is not kept once forgotten: no restore); {note}.")

    def recent(self, thread: str, k: int) -> list[Memory]:
        return [shown.memory(row) for row in self.store.recent_memories(thread, k)]

    def get(self, memory_id: int) -> Memory:
        memory_id = check.memory_id(memory_id)
        row = self.store.get([memory_id]).get(memory_id)
        if row is None:
            raise no_memory(memory_id)
        return shown.memory(row)


def _day_before(ms: int) -> date:
    """The local day before `ms`: a memory's daily-log line is on the day it was stored (by then it was
    created and not yet updated; a day of slack for time zones), never earlier -- so erasing one reads a
    few logs, not years of them."""
    return (datetime.fromtimestamp(ms / 1000) - timedelta(days=1)).date()
