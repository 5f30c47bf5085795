"""The embedding backfill: vectors are computed after `remember` has returned.

A memory is durable and keyword-searchable the moment `remember` commits; its
vector follows within a bounded delay. The queue is a table
(`pending_embeddings`), so a process that dies mid-way loses nothing: the next
start-up resumes it.

The backfill works in small batches (BATCH_SIZE texts: one ONNX batch) and commits
each one, so it never holds anything a recall needs for longer than one batch: a
recall does not wait for the backlog (issue 19). The query's own embedding goes
ahead of the next batch (MiniLMEmbedder gives single texts priority), and the vectors
written so far are searchable at once. Long texts are embedded as overlapping
passages (passages.py); a memory's vector rows are written together.

The backlog is spent where the questions are (issue 34): the threads recalled most
recently, and the threads this process writes to, are embedded before the rest of
the queue (Indexer.prefer); and a recall embeds its own unembedded keyword candidates
(Indexer.embed_now), a few, within a time bound, so that its ranking is hybrid where
it matters.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from server.embedding.embedders import Embedder
from server.errors import StoreUnavailable
from server.embedding.passages import passages
from server.storage.protocol import SearchIndex

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)
#: Seconds the backfill waits for another process's write lock before it pauses and retries:
#: short, because a recall that drains the queue waits for the batch the backfill is in.
WRITE_WAIT = 0.25

#: Texts per embed call and per commit. One ONNX batch of short texts takes tens of
#: milliseconds, so a query waits at most that long behind the backfill.
BATCH_SIZE = 8
#: Vectors `remember` computed to judge a write, kept for the backfill (see Indexer.known): as many as
#: the linker keeps of the same arrays (linker.RECENT_VECTORS: shared, so ~no memory of their own); a
#: write older than that is embedded again. At 1,024, a burst of 1,356 writes lost its first 332 and
#: their questions, asked at once, were ranked by keyword alone (bench/updates.py --at-once).
KNOWN_VECTORS = 4096
#: Of those, the most one transaction stores (Indexer.store_known: no embedding, one write of their rows):
#: a recall stores one such write, the recalled threads' first; the backfill stores them all before each batch.
KNOWN_PER_RECALL = 256
#: A recall embeds at most this many of its memories that have no vector yet (what it just wrote,
#: then its best keyword candidates), and only as many as the embedder's recent speed fits in
#: CANDIDATE_SECONDS: ~5 ms a short text on a free core, so 12 where the machine is quiet and
#: none where a loaded one makes a text cost 60 ms (issue 34: p95 <= 150 ms); the rest are counted.
CANDIDATE_LIMIT = 16
CANDIDATE_SECONDS = 0.06
#: Texts per embed call of a recall's own candidates: small, so that the time bound is checked often
#: (a batch of 8 under load took 100-240 ms, past the bound it was started within).
URGENT_BATCH = 4
#: The most a recall's text is assumed to cost over the backfill's (see Indexer._urgent_ratio).
URGENT_RATIO_MAX = 4.0
#: How long a recall waits for the backfill batch in progress when that batch holds what this
#: process just wrote (one batch of 8 short texts: ~0.05 s quiet, ~0.5 s on a loaded machine).
BATCH_WAIT_SECONDS = 0.5
#: Seconds per text assumed before any batch was timed (a short text, one free core).
FIRST_GUESS_SECONDS = 0.005
#: The backfill reads this many queued memories ahead and embeds, of them, the batch of similar
#: lengths that holds the oldest: a batch pads to its longest text, and LoCoMo turns in queue order
#: padded to a long neighbour cost ~1.6x the CPU (bench/runtime.py); the oldest goes first, so
#: nothing waits behind shorter newcomers for more than a window.
LENGTH_WINDOW = 64
#: Threads whose memories the backfill embeds first (the newest recalled or written): a few, so
#: that the preferred queue stays one cheap query.
PREFERRED_THREADS = 8
#: Keyword candidates that recalls ranked without a vector (the newest recall's first, best first), kept for
#: the backfill to embed before anything else, at most this many: the next question is often about the same
#: thing, and under load a recall embeds few of its own (issue 34: spend the backlog where the questions are).
WANTED_LIMIT = 64


class Indexer:
    def __init__(self, store: SearchIndex, embedder: Embedder, batch_size: int = BATCH_SIZE) -> None:
        self.store = store
        self.embedder = embedder
        self.batch_size = batch_size
        # Held for one batch at a time: keeps two backfills of this process (the thread,
        # embed_backlog, a recall's small drain) from embedding the same rows at once.
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._batches = 0  # batches finished, for wait_for_batch
        #: The memories of the batch being embedded (a recall waits for it when it holds what
        #: this process just remembered).
        self.in_progress: frozenset[int] = frozenset()
        self._batch_done = threading.Condition()
        #: Called by the backfill thread after each batch it commits, outside the lock (the
        #: service judges the update links that waited for these vectors).
        self.after_batch: Callable[[], object] | None = None
        # memory id -> (text, vector, thread) that `remember` embedded to judge the write: the backfill
        # stores it instead of embedding the same text again (a short text's only passage is itself).
        self._known: dict[int, tuple[str, np.ndarray, str | None]] = {}
        self._known_lock = threading.Lock()
        # Threads asked about or written to lately, newest last (see prefer).
        self._preferred: OrderedDict[str, None] = OrderedDict()
        self._preferred_lock = threading.Lock()
        # Memories recalls ranked without a vector, most wanted first (see want); guarded by _preferred_lock.
        self._wanted: list[int] = []
        #: Wall seconds per text of the latest embeddings (a moving average): the machine's speed now.
        self._seconds_per_text = FIRST_GUESS_SECONDS
        #: How much more a recall's own text costs (embed_now, beside a backfill batch) than the backfill's
        #: measure says (a moving average, 1 to URGENT_RATIO_MAX): on a loaded machine a batch of 8 started
        #: within the bound took 100-240 ms (in-process timers, issue 34). A ratio, not a time of its own:
        #: the backfill's measure keeps following the machine while recalls embed nothing.
        self._urgent_ratio = 1.0

    def prefer(self, threads: Sequence[str] | None) -> None:
        """Embed these threads' queued memories before the rest of the backlog (a recall's scope,
        the thread a session writes to): their questions come first. None (every thread) changes nothing."""
        if not threads:
            return
        with self._preferred_lock:
            for thread in threads:
                self._preferred.pop(thread, None)
                self._preferred[thread] = None
            while len(self._preferred) > PREFERRED_THREADS:
                self._preferred.popitem(last=False)

    def want(self, ids: Sequence[int]) -> None:
        """Embed these memories (a recall's candidates it ranked without a vector, best first) before the rest."""
        if not ids:
            return
        with self._preferred_lock:
            self._wanted = list(dict.fromkeys([*ids, *self._wanted]))[:WANTED_LIMIT]

    def _next_batch(self, size: int) -> list:
        """The next memories to embed: what recalls ranked without a vector (want), then the newest preferred
        thread's, then the oldest of the queue."""
        with self._preferred_lock:
            preferred, wanted = list(self._preferred), list(self._wanted)
        if wanted:
            batch = self.store.pending_of(wanted)
            waiting = {item.memory_id for item in batch}
            with self._preferred_lock:  # embedded meanwhile (or forgotten): no longer wanted
                self._wanted = [i for i in self._wanted if i in waiting or i not in wanted]
            if batch:
                return batch[:size]
        for thread in reversed(preferred):
            batch = self.store.pending(size, threads=(thread,))
            if batch:
                return batch
            with self._preferred_lock:  # all embedded: not asked for again until recalled or written again
                self._preferred.pop(thread, None)
        return self.store.pending(size)

    def embed_for_recall(self, first: Sequence[int], candidates: Sequence[int],
                         seconds: float = CANDIDATE_SECONDS, threads: Sequence[str] | None = None) -> tuple[int, int]:
        """Embed, for a recall, the memories of `first` (just written: as many as the recent speed fits in
        CANDIDATE_SECONDS) then its keyword `candidates` (best first) still without a vector, as many as fit
        in what is left of `seconds` (the recall passes what its earlier stages left of its bound); returns
        (embedded, candidates left without one). A batch in progress that holds one of `first` is waited
        for (bounded): it is what a fresh server was just told. Another process holding the write lock
        leaves them for the backfill. `threads`: the recall's scope, whose computed vectors are stored first."""
        deadline = time.perf_counter() + min(seconds, CANDIDATE_SECONDS)
        if self.in_progress & set(first):
            self.wait_for_batch(BATCH_WAIT_SECONDS)
        self.store_known(threads)
        todo = self.store.pending_of(list(dict.fromkeys([*first, *candidates])))
        if not todo:
            return 0, 0
        fresh = set(first)
        done: set[int] = set()
        try:
            with self.store.db.waiting_at_most(0):
                # What was just written, whatever the earlier stages spent (once per burst of writes: what a
                # client asks about next); then the candidates, in what is left of the bound.
                done = self.embed_now([i for i in todo if i.memory_id in fresh], self.affordable(), None)
                left = deadline - time.perf_counter()
                rest = [i for i in todo if i.memory_id not in fresh]
                if rest and left > 0:  # CANDIDATE_LIMIT in all
                    done |= self.embed_now(rest, min(self.affordable(left), CANDIDATE_LIMIT - len(done)), left)
        except StoreUnavailable:
            pass
        wanted = set(candidates)
        left = [item.memory_id for item in todo if item.memory_id in wanted and item.memory_id not in done]
        self.want(left)  # the backfill's next batches
        return len(done), len(left)

    def store_known(self, threads: Sequence[str] | None = None, wait: bool = False) -> int:
        """Store vectors `remember` computed (Indexer.known) whose memory still waits, embedding nothing, at
        most KNOWN_PER_RECALL: those of `threads` (a recall's scope) first, then the newest; returns how
        many. A recall right after a burst of writes then finds them by vector, as after the drain (issue
        32 item 3: asked at once, the writes the backfill had not reached were found by keyword alone, and
        recall@5 was 0.63 against 0.79 drained). A busy store leaves them for the backfill (`wait`: the
        caller's own bound on the write lock applies, the backfill's)."""
        with self._known_lock:
            wanted = set(threads or ())
            ids = [mid for mid, (_, _, thread) in self._known.items() if thread in wanted] if wanted else []
            chosen = set(ids[-KNOWN_PER_RECALL:])
            for mid in reversed(self._known):  # then the newest: what a recall asks about
                if len(chosen) >= KNOWN_PER_RECALL:
                    break
                chosen.add(mid)
            known = {mid: self._known[mid] for mid in chosen}
        if not known:
            return 0
        waiting = {item.memory_id: item.content for item in self.store.pending_of(list(known))}
        out = {mid: vector[None, :] for mid, (text, vector, _) in known.items() if waiting.get(mid) == text}
        try:
            if out and wait:
                self.store.store_vectors(out)
            elif out:
                with self.store.db.waiting_at_most(0):
                    self.store.store_vectors(out)
        except StoreUnavailable:
            return 0
        with self._known_lock:
            for mid in known:
                if mid in out or mid not in waiting:
                    self._known.pop(mid, None)
        return len(out)

    def affordable(self, seconds: float = CANDIDATE_SECONDS) -> int:
        """How many texts a recall can embed in `seconds` at the speed of the latest embeddings (the slower
        of the backfill's and the recall's own: a recall's texts share the cores with a batch)."""
        per_text = max(self._seconds_per_text * self._urgent_ratio, 1e-6)
        return max(0, min(CANDIDATE_LIMIT, int(seconds / per_text)))

    def embed_now(self, items: Sequence, limit: int, seconds: float | None) -> set[int]:
        """Embed and store up to `limit` of these queued memories (PendingEmbedding, most wanted first),
        URGENT_BATCH at a time, each batch only as large as the recent speed fits in what is left of
        `seconds` (none once it is spent; None: `limit` alone bounds them); returns the ids stored.

        A recall's own candidates: it does not take the backfill's lock (waiting for its batch
        would cost the recall that batch); at worst both embed a memory and store_vectors keeps one.
        """
        deadline = None if seconds is None else time.perf_counter() + seconds
        stored: set[int] = set()
        todo = list(items)[:limit]
        at = 0
        while at < len(todo):
            # Predicted from the speed measured so far, this batch included: a batch is never started
            # that the speed says would end past the bound (the bound held where the count alone did not).
            fits = len(todo) if deadline is None else self.affordable(deadline - time.perf_counter())
            size = min(URGENT_BATCH, len(todo) - at, fits)
            if size < 1:
                break
            batch = todo[at : at + size]
            self._embed(batch, urgent=True)
            stored.update(item.memory_id for item in batch)
            at += size
        return stored

    def known(self, memory_id: int, text: str, vector: np.ndarray, thread: str | None = None) -> None:
        """Keep the vector of a memory just written (to `thread`), computed from exactly `text`, for its backfill."""
        if len(passages(text)) != 1:
            return  # a long text has more passages: the backfill embeds them all
        with self._known_lock:
            self._known[memory_id] = (text, vector, thread)
            while len(self._known) > KNOWN_VECTORS:
                self._known.pop(next(iter(self._known)))

    def run_once(self, limit: int | None = None, wait: bool = True, batch_size: int | None = None,
                 settle: bool = False) -> int:
        """Embed up to `limit` pending memories (all when None); returns how many got a vector.

        Each batch takes the lock and commits on its own. With `wait=False` the call gives
        up (returning what it did) instead of waiting for a batch another thread is running.
        `batch_size` overrides the small default where nobody waits behind it (an import that
        the user runs and waits for: fewer commits, and a wider window of lengths to sort). `settle`: call
        `after_batch` after each batch (the backfill thread; a recall judges a few itself).
        """
        done = 0
        batch_size = batch_size or self.batch_size
        while limit is None or done < limit:
            if not self._lock.acquire(blocking=wait):
                break
            try:
                if settle:  # the backfill thread: vectors a burst of writes computed go in before any embedding
                    for _ in range(len(self._known) // KNOWN_PER_RECALL + 1):
                        if not self.store_known(wait=True):
                            break
                size = batch_size if limit is None else min(batch_size, limit - done)
                batch = _by_length(self._next_batch(size * LENGTH_WINDOW // BATCH_SIZE), size)
                if not batch:
                    break
                self.in_progress = frozenset(item.memory_id for item in batch)
                done += self._embed(batch)
            finally:
                self.in_progress = frozenset()
                self._lock.release()
                with self._batch_done:
                    self._batches += 1
                    self._batch_done.notify_all()
            if settle and self.after_batch is not None:
                try:
                    self.after_batch()
                except Exception:  # noqa: BLE001 - the judging must not stall the embedding; marks stay
                    log.exception("judging the update links of an embedded batch failed; retried later")
            if self._stop.is_set():
                break
        return done

    def wait_for_batch(self, timeout: float = 10.0) -> None:
        """Return once the batch being embedded, if any, is committed (one batch: bounded).

        Waits for the batch counter to move rather than for the lock: the backfill takes the lock
        again right after releasing it, and a waiter on the lock would starve until its timeout.
        """
        with self._batch_done:
            if not self._lock.locked():
                return
            seen = self._batches
            self._batch_done.wait_for(lambda: self._batches != seen or not self._lock.locked(), timeout)

    def _embed(self, batch: list, urgent: bool = False) -> int:
        """Embed one batch (each text as its passages) and store it in one transaction; `urgent`: someone
        waits for it (a recall), so it goes ahead of the backfill's batches (MiniLMEmbedder.embed_urgent)."""
        out: dict[int, np.ndarray] = {}
        with self._known_lock:
            for item in batch:
                text, vector, _ = self._known.pop(item.memory_id, (None, None, None))
                if text == item.content:  # not edited since remember embedded it
                    out[item.memory_id] = vector[None, :]
        todo = [item for item in batch if item.memory_id not in out]
        pieces = [passages(item.content) for item in todo]
        flat = [p for ps in pieces for p in ps]
        embed = self.embedder.embed_urgent if urgent else self.embedder.embed
        started = time.perf_counter()
        vectors = embed(flat) if flat else None
        if flat:
            per_text = (time.perf_counter() - started) / len(flat)
            if urgent:
                ratio = per_text / max(self._seconds_per_text, 1e-6)
                self._urgent_ratio = min(URGENT_RATIO_MAX, max(1.0, 0.7 * self._urgent_ratio + 0.3 * ratio))
            else:
                self._seconds_per_text = 0.7 * self._seconds_per_text + 0.3 * per_text
        at = 0
        for item, ps in zip(todo, pieces):
            out[item.memory_id] = vectors[at : at + len(ps)]
            at += len(ps)
        self.store.store_vectors(out)
        return len(batch)

    def notify(self) -> None:
        self._wake.set()

    def start(self, model_wait: float = 600.0) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(
            target=self._loop, args=(model_wait,), name="memvault-backfill", daemon=True
        )
        self._thread.start()

    def stop(self, wait: float = 0.0) -> None:
        """Ask the backfill to stop; with `wait`, give its current batch that long to finish."""
        self._stop.set()
        self._wake.set()
        if wait and self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(wait)

    def _loop(self, model_wait: float) -> None:
        if not self.embedder.wait_ready(model_wait):
            log.warning("backfill idle: the embedding model is not available; memories stay keyword-searchable")
            return
        self._wake.set()  # resume whatever an earlier process left behind
        while not self._stop.is_set():
            # Another process may queue work for this file too; a slow re-check
            # picks that up if its own backfill died. No file polling beyond this.
            self._wake.wait(timeout=30.0)
            self._wake.clear()
            if self._stop.is_set():
                break
            try:
                with self.store.db.waiting_at_most(WRITE_WAIT):
                    count = self.run_once(settle=True)
                    if not count and self.after_batch is not None:
                        # Vectors another caller stored (a recall's small drain, another process's
                        # backfill) may have left update checks waiting: judged here, off the request path.
                        self.after_batch()
                if count:
                    log.info("backfill: embedded %d memories", count)
            except StoreUnavailable as exc:  # another process is writing, or the disk is full
                log.info("backfill paused, retrying shortly: %s", exc)
                self._stop.wait(1.0)
                self._wake.set()
            except Exception:  # noqa: BLE001 - keep the thread alive; the rows stay queued
                log.exception("backfill failed; will retry")
                self._stop.wait(5.0)


def _by_length(queued: list, size: int) -> list:
    """Of the queued memories (oldest first), the `size` of similar length that include the oldest."""
    if len(queued) <= size:
        return queued
    ranked = sorted(queued, key=lambda item: (len(item.content), item.memory_id))
    at = ranked.index(queued[0]) // size * size
    return ranked[at : at + size]
