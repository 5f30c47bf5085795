"""The embedding backfill: vectors are computed after `remember` has returned.

A memory is durable and keyword-searchable the moment `remember` commits; its
vector follows within a bounded delay. The queue is a table
(`pending_embeddings`), so a process that dies mid-way loses nothing: the next
start-up resumes it.
"""

from __future__ import annotations

import logging
import threading

from server.embedding.embedders import Embedder
from server.errors import StoreUnavailable
from server.storage.protocol import SearchIndex

log = logging.getLogger(__name__)
#: Seconds the backfill waits for another process's write lock before it pauses and retries:
#: short, because a recall that drains the queue waits for the batch the backfill is in.
WRITE_WAIT = 0.25


class Indexer:
    def __init__(self, store: SearchIndex, embedder: Embedder, batch_size: int = 64) -> None:
        self.store = store
        self.embedder = embedder
        self.batch_size = batch_size
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def run_once(self, limit: int | None = None) -> int:
        """Embed up to `limit` pending memories (all when None); returns how many got a vector."""
        done = 0
        with self._lock:
            while limit is None or done < limit:
                size = self.batch_size if limit is None else min(self.batch_size, limit - done)
                batch = self.store.pending(size)
                if not batch:
                    break
                vectors = self.embedder.embed([item.content for item in batch])
                self.store.store_vectors({item.memory_id: vec for item, vec in zip(batch, vectors)})
                done += len(batch)
        return done

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
                    count = self.run_once()
                if count:
                    log.info("backfill: embedded %d memories", count)
            except StoreUnavailable as exc:  # another process is writing, or the disk is full
                log.info("backfill paused, retrying shortly: %s", exc)
                self._stop.wait(1.0)
                self._wake.set()
            except Exception:  # noqa: BLE001 - keep the thread alive; the rows stay queued
                log.exception("backfill failed; will retry")
                self._stop.wait(5.0)
