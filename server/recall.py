"""One recall from start to end: the search pipeline in stage order, and the few bounded writes it does.

The service validates the arguments, builds the Scope and calls ReadPath.run once; every stage
after that is called from run, in this order (store: what the stage reads or writes there):

    stage                             done by                                   store
    1 sync the memory files     WRITE FileIndex.sync (sync_files)               changed files' units
    2 keyword search, started         search.keyword_started                    FTS, 2nd connection
    3 query vector                    the embedder (not ready: keyword only)    -
    4 own candidates embedded   WRITE Indexer.embed_for_recall (embed_own)      their vectors
    5 pending updates judged    WRITE UpdateLinker.check_pending (judge_pending) update links
    6 candidates                      search.gather: identifiers, vector, 2's   KNN, rows, cosines, neighbours
      hits, replacements, neighbours
    7 fuse                            search.fuse -> ranking.rank               -
    8 newer first, attach             search.arrange -> newer_first             possible updates
    9 cut to min_score                run                                       -
    10 recall counted           WRITE mark_recalled                             recall counters
    11 notes                          run (and FileIndex.notes)                 -

search.search runs stages 2 and 6-8 alone, without the writes (the health page's latency probe).
Before this module the service ran 1-5 and 9-11 itself, started the keyword half and handed it
back into search.search, which ran 6-8 (issue 31: 13 stops in 9 rooms, 6 climbs back up).

A recall is a read: each of its four writes is a named method below with a stated bound, and
none waits for another process's write lock (wait=0: a busy store leaves that work to a later
call or to the backfill, and the recall answers from what is stored, saying so):

- sync_files: the files changed since the last look (a stat each when none did), each up to
  MEMVAULT_MAX_FILE_BYTES; a busy store leaves them marked changed for the next call.
- embed_own, only when the scope has memories without a vector: what this process just wrote
  (at most RECALL_DRAIN_LIMIT), the scope's queue when it is that small, then its best keyword
  candidates, at most backfill.CANDIDATE_LIMIT texts and as many as the embedder's recent speed
  fits in what is left of EMBED_BY_SECONDS after stages 1-3 (at most backfill.CANDIDATE_SECONDS; a
  wait of at most BATCH_WAIT_SECONDS for a backfill batch that holds what was just written is taken
  off it too). The rest of a backlog stays with the backfill.
- judge_pending: at most linker.JUDGE_PER_CALL update checks that waited for a vector.
- mark_recalled: one transaction of counters; while the lock is taken, the counts of at most
  MAX_UNMARKED recalls wait for the next one. A hook process holds them (hold_marks) for the
  session's next capture to write.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from typing import TYPE_CHECKING

from server import ranking
from server.clock import Clock, to_millis
from server.config import Settings
from server.embedding.backfill import Indexer
from server.embedding.embedders import Embedder
from server.errors import StoreUnavailable
from server.files.index import FileIndex
from server.frozen import record
from server.search import Hit, KeywordFound, arrange, fuse, gather, keyword_started
from server.storage.protocol import Database, Scope, Store
from server.linker import UpdateLinker

if TYPE_CHECKING:
    from collections.abc import Callable

#: A recall embeds the queued memories of its scope itself (so that what was just
#: remembered is found by meaning too) when there are at most this many; with more, only
#: what this process just wrote and its own best keyword candidates, as many as fit in
#: a bounded time (Indexer.embed_for_recall). The rest of a backlog (an import, a captured
#: session) stays with the backfill, which commits batch by batch and embeds the searched
#: threads first; the recall says how many are not embedded yet (issues 19, 34).
RECALL_DRAIN_LIMIT = 8
#: A recall's own embedding (stage 4) ends this long after the recall started, at most backfill.CANDIDATE_SECONDS:
#: on a loaded machine stages 1-3 and 6-8 cost 50-120 ms each side (in-process timers, load 5-6), and a
#: fixed 60 ms of embedding on top of them made p95 ~220 ms; what the earlier stages spent is taken off it.
EMBED_BY_SECONDS = 0.075
#: Recalls whose counters wait for a free write lock, at most (the oldest are dropped past it).
MAX_UNMARKED = 1000
WEAK_MATCH = ranking.WEAK_MATCH


@record
class Found:
    """What a recall found, before it becomes a RecallResult (MemoryService.find)."""

    hits: list[Hit]
    search: str  # "hybrid" | "mixed" | "keyword"
    note: str | None
    pending_embeddings: int | None
    unembedded_candidates: int | None = None  # keyword candidates ranked without a vector (mixed search)
    keyword_candidates: int | None = None


class ReadPath:
    """A service's recalls: the pipeline (run) and the four bounded writes it does (see the module)."""

    def __init__(self, db: Database, store: Store, embedder: Embedder, indexer: Indexer, linker: UpdateLinker,
                 file_index: FileIndex, settings: Settings, clock: Clock) -> None:
        self.db = db
        self.store = store
        self.embedder = embedder
        self.indexer = indexer
        self.linker = linker
        self.file_index = file_index
        self.settings = settings
        self.clock = clock
        #: What this process remembered since its last recall over a backlog (see wrote).
        self._fresh: deque[int] = deque(maxlen=RECALL_DRAIN_LIMIT)
        # Recall counts not yet written because another process held the write lock.
        self._unmarked: list[tuple[list[int], int]] = []
        self._unmarked_lock = threading.Lock()
        #: A hook process sets it (hooks.work.open_light): its recall counts wait in this object for the
        #: caller to take (held_marks) and hand to a process that writes anyway, instead of a write of their
        #: own -- which also made closing the store checkpoint the WAL: ~15 ms of a prompt hook's wall time.
        self.hold_marks = False

    def wrote(self, memory_id: int) -> None:
        """A remember of this process stored `memory_id`: the next recall over a backlog embeds it first."""
        self._fresh.append(memory_id)

    # -- the pipeline -----------------------------------------------------------
    def run(self, query: str, k: int, scope: Scope, min_score: float) -> Found:
        """The top k memories for the query in `scope` scoring at least `min_score`, with the recall's note
        (the numbers are the stages of the module's map)."""
        started = time.perf_counter()
        files_note = self.sync_files()  # 1
        # 2: the keyword search needs no vector: it runs (on a second connection) while the query is embedded.
        # An embedder that never will embed (`error` set: a hook process's keyword-only one, a model that
        # failed) leaves nothing to overlap with: here, without opening that connection (in a hook process,
        # ~10 ms of CPU to open and close it and a thread hand-off, on every prompt).
        keyword = keyword_started(self.store, query, scope, ranking.KEYWORD_CANDIDATES,
                                  overlap=self.embedder.error is None)
        note = None
        vector = None
        waiting = 0
        unembedded = 0
        self.indexer.prefer(scope.threads)  # the backfill embeds what is asked about first
        if self.embedder.wait_ready(self.settings.model_wait_seconds):
            # Never wait for another process's write lock here: a busy store leaves the backlog to
            # the backfill, and the recall answers from the vectors that exist.
            waiting = self.store.pending_count(scope, RECALL_DRAIN_LIMIT + 1)
            fresh = [*self._fresh] if waiting else []
            if waiting:
                self._fresh.clear()  # once per burst of remembers
            vector = self.embedder.embed([query])[0]  # 3
            if waiting:
                spent = time.perf_counter() - started
                waiting, unembedded = self.embed_own(scope, waiting, fresh, keyword, EMBED_BY_SECONDS - spent)  # 4
            self.judge_pending()  # 5
        else:
            reason = self.embedder.error or self.embedder.state or "the embedding model is still loading"
            note = f"Keyword search only: {reason}. Ask again shortly for semantic matches."
        # 6-8 read one snapshot: each store read inside joins it (before, about six reads each opened and
        # closed its own, so the rows, cosines and possible updates could come from different moments).
        # None of them writes (Database.in_write tells the vector search this is no write's snapshot); the
        # keyword search started above reads on its own connection, so waiting for it here cannot deadlock.
        with self.db.read():
            found = gather(self.store, query, vector, scope, keyword)  # 6
            hits = [] if found is None else arrange(self.store, query, found, fuse(query, found, k), k, scope)  # 7, 8
        memories = [h for h in hits if h.score >= min_score]  # 9
        if memories:
            self.mark_recalled([m.memory_id for m in memories])  # 10
        if vector is None:
            return Found(memories, "keyword", self._notes(note, files_note), None, None, None)
        candidates = len(keyword().hits)
        note = self._notes(self._match_note(hits, memories, min_score),
                           self._vector_note(waiting, unembedded, candidates), files_note)
        return Found(memories, "mixed" if unembedded else "hybrid", note, waiting, unembedded, candidates)

    @staticmethod
    def _match_note(hits: list[Hit], memories: list[Hit], min_score: float) -> str | None:
        """Nothing found, or nothing found strongly (11)."""
        if not memories:
            return "No stored memory matches this query in the searched threads" + (
                f" with a score of at least {min_score}." if hits else "."
            )
        if memories[0].score is not None and memories[0].score < WEAK_MATCH:
            return (
                f"No strong match: the best score is {memories[0].score:.2f} (strong matches score "
                f"{WEAK_MATCH} or more); these may be unrelated."
            )
        return None

    @staticmethod
    def _vector_note(waiting: int, unembedded: int, candidates: int) -> str | None:
        """What the ranking lacked vectors for: keyword candidates, memories of the scope (11)."""
        parts = []
        if unembedded:
            parts.append(f"Ranked by keyword alone for {unembedded} of the {candidates} keyword candidates "
                         "(no vector yet).")
        if waiting:
            parts.append(
                f"{waiting} memor{'y' if waiting == 1 else 'ies'} in the searched threads "
                f"{'is' if waiting == 1 else 'are'} not embedded yet (matched by keyword only until the "
                "backfill reaches them)."
            )
        return " ".join(parts) or None

    def _notes(self, *notes: str | None) -> str | None:
        """The recall's notes in one line, with what the memory files' index says (11)."""
        return " ".join(n for n in (*notes, *self.file_index.notes()) if n) or None

    # -- the writes a recall does (each bounded; none waits for the write lock) --
    def sync_files(self) -> str | None:
        """Re-index the memory files changed since the last look; a note when the store was busy."""
        return self.file_index.sync(wait=0)

    def embed_own(self, scope: Scope, waiting: int, fresh: list[int],
                  keyword: Callable[[], KeywordFound], seconds: float = EMBED_BY_SECONDS) -> tuple[int, int]:
        """Embed what this process just wrote (`fresh`), the scope's queue when it is small (`waiting`, counted
        up to RECALL_DRAIN_LIMIT + 1), then the best keyword candidates, as many as the embedder's current
        speed fits in `seconds` (Indexer.embed_for_recall); returns (memories in scope still without
        a vector, keyword candidates ranked without one)."""
        few = self.store.pending(RECALL_DRAIN_LIMIT, scope.threads) if waiting <= RECALL_DRAIN_LIMIT else []
        _, unembedded = self.indexer.embed_for_recall([*fresh, *(p.memory_id for p in few)], list(keyword().hits),
                                                      seconds, scope.threads)
        return self.store.pending_count(scope), unembedded

    def judge_pending(self) -> None:
        """Judge a few writes whose update check waited for their vector (model loading, a burst)."""
        try:
            with self.db.waiting_at_most(0):
                self.linker.check_pending(self.db)
        except StoreUnavailable:
            pass  # judged at a later recall or by the backfill

    def mark_recalled(self, ids: list[int]) -> None:
        """Count a recall of `ids` (retention uses it), now if the write lock is free, else with the next recall.

        Counts kept back are bounded: past MAX_UNMARKED recalls the oldest are dropped (a
        retention score moves a little; no memory is touched).
        """
        with self._unmarked_lock:
            self._unmarked.append((ids, to_millis(self.clock())))
            del self._unmarked[:-MAX_UNMARKED]
            if self.hold_marks:
                return
            batch = list(self._unmarked)
            self._unmarked.clear()
        try:
            self.store.mark_recalled_batches(batch, wait=0)
        except StoreUnavailable:
            with self._unmarked_lock:
                self._unmarked[:0] = batch
                del self._unmarked[:-MAX_UNMARKED]

    def held_marks(self) -> list[tuple[list[int], int]]:
        """The recall counts not written yet (ids, when), taken: the caller writes them (hold_marks)."""
        with self._unmarked_lock:
            batch, self._unmarked = self._unmarked, []
        return batch
