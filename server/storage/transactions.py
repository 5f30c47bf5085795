"""The store's named transactions: what a caller does in one transaction, with the store opening it.

Written once for both backends: each method runs the roles' own methods (the only SQL, in
each dialect, with PostgreSQL's tenant scoping) inside one `db.write()` or `db.read()`, so
no caller outside storage opens a transaction on the database. A method that needs a rule
of the layers above (which rows are still linkable, what an edit may change) takes it as a
function, so the rule stays where it lives. `transaction` is for the few callers whose work
between the statements is theirs (an archive import, a file sync, a compaction): the store
still opens and commits it, and they pass its handle back to store methods.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from server.storage.records import IndexDrift, MemoryRow, MemoryState, NewMemory, NewMessage, PossibleUpdate

if TYPE_CHECKING:
    import numpy as np


class Transactions:
    """Mixed into each backend's Store after its role classes; `self` is the whole store."""

    db: Any
    namespace: str

    def transaction(self, wait: float | None = None) -> AbstractContextManager[Any]:
        """A write transaction of this store's database (Database.write): its handle goes to store methods."""
        return self.db.write(wait)

    @property
    def location(self) -> tuple[str, str]:
        """Which store this is, as a cache key: the database's stable name and the namespace."""
        return (self.db.path, self.namespace)

    # -- memories -------------------------------------------------------------------
    def add_memory(self, new: NewMemory) -> tuple[int, bool]:
        """Store `new` unless its thread holds the same text live: (its id, whether it is new).
        The thread is touched at the later of its creation and update times."""
        with self.db.write() as conn:
            existing = self.find_live(conn, new.thread, new.content_hash)
            if existing is not None:
                return existing, False
            memory_id = self.insert_memory(conn, new)
            self.touch_thread(conn, new.thread, max(new.created_at, new.updated_at))
        return memory_id, True

    def forget(self, memory_id: int, now: int) -> MemoryState | None:
        """Forget a live memory (soft delete); returns its state before (None: no such memory)."""
        with self.db.write() as conn:
            state = self.memory_state(conn, memory_id)
            if state is not None and state.deleted_at is None:
                self.soft_delete(conn, memory_id, now)
        return state

    def forget_all(self, ids: Iterable[int], now: int, erase: Mapping[int, int | None] | None = None) -> None:
        """Forget these memories, and erase those in `erase` for good (each to its successor), at once."""
        with self.db.write() as conn:
            for memory_id in ids:
                self.soft_delete(conn, memory_id, now)
            for memory_id, successor in (erase or {}).items():
                self.hard_delete(conn, memory_id, successor)

    def erase(self, memory_id: int, successor: int | None, now: int, forget_first: bool) -> None:
        """Erase a memory for good; `forget_first`: forget it first if it is still there (its index goes too)."""
        with self.db.write() as conn:
            if forget_first and self.memory_state(conn, memory_id) is not None:
                self.soft_delete(conn, memory_id, now)
            self.hard_delete(conn, memory_id, successor)

    def erase_all(self, successors: Mapping[int, int | None]) -> None:
        """Erase these (forgotten) memories for good, each pointing what it replaced at its successor."""
        with self.db.write() as conn:
            for memory_id, successor in successors.items():
                self.hard_delete(conn, memory_id, successor)

    def mark_recalled_batches(self, batches: Sequence[tuple[Sequence[int], int]], wait: float | None = None) -> None:
        """Count these recalls (ids, when), in one transaction waiting at most `wait` seconds."""
        with self.db.write(wait=wait) as conn:
            for ids, when in batches:
                self.mark_recalled(conn, ids, when)

    def vectors_of(self, ids: Sequence[int]) -> dict[int, np.ndarray]:
        """Store.vectors in a read of its own."""
        with self.db.read() as conn:
            return self.vectors(conn, ids)

    # -- meta and the embedding model -------------------------------------------------
    def record_model(self, model_id: str, dimensions: int, wait: float | None = None) -> None:
        """Record which model made this store's vectors."""
        with self.db.write(wait=wait) as conn:
            self.set_meta(conn, "embedding_model", model_id)
            self.set_meta(conn, "embedding_dimensions", str(dimensions))

    def reset_for_model(self, model_id: str, dimensions: int) -> int:
        """Drop every vector and queue every memory for `model_id`; returns how many are queued."""
        with self.db.write() as conn:
            total = self.reset_vectors(conn, dimensions)
            self.set_meta(conn, "embedding_model", model_id)
            self.set_meta(conn, "embedding_dimensions", str(dimensions))
        return total

    def claim_day(self, key: str, today: str) -> bool:
        """Set meta `key` to `today` unless it already holds it: whether this caller claimed the day."""
        with self.db.write() as conn:
            if self.get_meta(key) == today:
                return False
            self.set_meta(conn, key, today)
        return True

    def repair_drift(self, text_of: Callable[[str], str]) -> IndexDrift:
        """Find index drift and repair it in one write (after a cheap read found some); returns what it fixed."""
        with self.db.write() as conn:
            drift = self.index_drift(conn)
            self.repair_index(conn, drift, text_of)
        return drift

    def has_drift(self, db: Any = None) -> bool:
        """Whether the index is out of step (read through `db`, a Database.beside(), default the store's own)."""
        with (db or self.db).read() as conn:
            return bool(self.index_drift(conn))

    # -- threads and prompts ----------------------------------------------------------
    def save_thread(self, thread: str, now: int, **fields: Any) -> None:
        """Touch the thread and set these of its fields (title, system_prompt, archived)."""
        with self.db.write() as conn:
            self.touch_thread(conn, thread, now)
            self.update_thread(conn, thread, **fields)

    def append_messages(self, thread: str, messages: Sequence[NewMessage], now: int, keep: int) -> None:
        """Touch the thread and append to its message window, keeping the last `keep`."""
        with self.db.write() as conn:
            self.touch_thread(conn, thread, now)
            self.add_messages(conn, thread, messages, now, keep)

    def save_global_prompt(self, name: str, content: str, priority: int, now: int) -> None:
        with self.db.write() as conn:
            self.put_global_prompt(conn, name, content, priority, now)

    def change_global_prompt(self, name: str, now: int, **fields: Any) -> bool:
        """Set a global prompt's active flag or priority; False when there is no such prompt."""
        with self.db.write() as conn:
            return self.set_global_prompt(conn, name, now, **fields)

    def remove_global_prompt(self, name: str) -> bool:
        with self.db.write() as conn:
            return self.delete_global_prompt(conn, name)

    # -- update links -----------------------------------------------------------------
    def link_if(self, older: int, newer: int, at: int, judged: Sequence[int],
                still: Callable[[MemoryRow], bool]) -> bool:
        """Mark `older` superseded by `newer` and `judged` as judged, if both are there and still
        satisfy `still` (re-read in the write: another writer may have forgotten or linked them)."""
        with self.db.write() as conn:
            now = self.get([older, newer])
            if not all(i in now and still(now[i]) for i in (older, newer)):
                return False
            self.set_superseded(conn, older, newer, at)
            self.judged(conn, judged)
        return True

    def record_possible_updates(self, possible: Mapping[int, PossibleUpdate | Sequence[PossibleUpdate] | None],
                                judged: Sequence[int] | None = None) -> None:
        """Record (in place of what was recorded; None clears) possible updates, and mark `judged` as judged,
        in one write."""
        with self.db.write() as conn:
            for memory_id, maybe in possible.items():
                self.set_possible_update(conn, memory_id, maybe)
            if judged is not None:
                self.judged(conn, judged)

    def store_analyses(self, analyses: Mapping[int, tuple[str, str]], version: str) -> None:
        """Store.set_analyses in a write of its own."""
        with self.db.write() as conn:
            self.set_analyses(conn, analyses, version)

    def possible_updates_of(self, ids: Sequence[int] | None = None) -> dict[int, PossibleUpdate]:
        """Store.possible_updates of these newer memories (all when None), in a read of its own."""
        with self.db.read() as conn:
            return self.possible_updates(conn, ids)

    def possible_updates_older(self, ids: Sequence[int]) -> dict[int, dict[int, PossibleUpdate]]:
        """For each of these older memories, what was recorded as possibly updating it (one read)."""
        with self.db.read() as conn:
            return {mid: self.possible_updates(conn, older=mid) for mid in ids}

    # -- curation ---------------------------------------------------------------------
    def supersede_all(self, pairs: Iterable[tuple[int, int | None]], now: int) -> None:
        """Point each memory at its replacement (None: current again), in one write."""
        with self.db.write() as conn:
            for memory_id, by in pairs:
                self.set_superseded(conn, memory_id, by, now)

    def pin_all(self, ids: Iterable[int], pinned: bool, now: int) -> None:
        with self.db.write() as conn:
            for memory_id in ids:
                self.set_pinned(conn, memory_id, pinned, now)

    def record_promotions(self, promoted: Iterable[tuple[int, str]], now: int) -> None:
        """Record that these memories (id, section) were promoted into MEMORY.md."""
        with self.db.write() as conn:
            for memory_id, section in promoted:
                self.record_promotion(conn, memory_id, section, now)

    def compress_unchanged(
        self, plans: Sequence[tuple[int, MemoryState, str, str, str | None, str]], now: int
    ) -> list[int]:
        """Compress each (id, state it was planned from, text, tier, original to archive, index text) whose
        state is still the planned one; returns the ids that changed meanwhile (left alone)."""
        changed = []
        with self.db.write() as conn:
            for memory_id, planned, text, tier, original, index in plans:
                # The plan was read outside this transaction: a forget, restore or compress from
                # another request or process may have landed since. Compressing such a row would
                # re-index a forgotten memory or archive the wrong text as its original.
                if self.memory_state(conn, memory_id) != planned:
                    changed.append(memory_id)
                    continue
                self.set_compressed(conn, memory_id, text, tier, original, now, index)
        return changed

    def restore_all(self, steps: Sequence[tuple[int, str, str, bool, bool, bool]], now: int) -> None:
        """Restore each (id, full text, its index text, was compressed, was forgotten, was superseded)."""
        with self.db.write() as conn:
            for memory_id, text, index, compressed, deleted, superseded in steps:
                if compressed:
                    self.set_restored(conn, memory_id, text, now, index)
                if deleted:
                    self.undelete(conn, memory_id, now, index)
                if superseded:
                    self.set_superseded(conn, memory_id, None, now)

    def edit_details(self, memory_id: int, kind: str, tags: tuple[str, ...], importance: float, now: int,
                     check: Callable[[MemoryRow], None]) -> None:
        """Set a memory's kind, tags and importance after `check` (which raises) passes on its current row."""
        with self.db.write() as conn:
            check(self.get([memory_id])[memory_id])  # re-read: another process may have changed it
            self.set_details(conn, memory_id, kind, tags, importance, now)
