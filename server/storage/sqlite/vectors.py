"""Vector search: one namespace's vectors as an in-process float32 matrix, kept in step with the file.

Why not vec0: its brute-force scan measured about 5x slower than a NumPy dot
product over the same vectors (bench/scale.py), and its int8/bit variants were
slower still at the oversampling re-scoring needs. A matrix product is the
physical floor of exact search, so the index is that matrix.

The vectors live in SQLite (`memory_vectors`, a plain table: the durable record,
written in the same transaction that removes the `pending_embeddings` row).
Several processes write the same file, so the matrix is never trusted blindly:
triggers append the id of every memory whose vector or search metadata
(namespace, thread, kind, created_at, deleted_at) changed to `vector_changes`
(see migrations.m004). Before each search the index reads `max(seq)` (one
B-tree probe); if it moved, only the changed ids are re-read. When the log was
pruned past the point this process has seen, it reloads everything.

Filters (thread, kind, time, tags, deleted, namespace) are applied to the rows
before the top-k cut, so a selective filter never returns too few.

Above `prescan_from` vectors (MEMVAULT_VECTOR_PRESCAN_FROM, 300,000 by default)
a search over most of the rows first ranks them by a PRESCAN_DIMS-dimension
projection (the principal directions of a sample of the vectors: a quarter of
the bytes to read) and scores exactly only the best PRESCAN_SHARE of them. At a
million vectors the exact scan reads 1.5 GB per query (~115 ms here), the
pre-scan 0.4 GB; bench/scale.py reports the recall@10 against exact search.
Below the limit, and for selective filters (gathered rows), search stays exact.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

#: Entries of vector_changes kept after a write (older ones are pruned). A process
#: that falls further behind than this reloads its matrix (correct, only slower).
CHANGES_KEPT = 4096
#: Below this share of rows in scope, score only the rows in scope (gather) rather
#: than every row.
GATHER_SHARE = 0.25
#: The pre-scan (see the module docstring): projection size, the share of the rows
#: in scope scored exactly (at least PRESCAN_MIN of them), and how many vectors the
#: projection is fitted on. 96 dimensions keep ~81% of the variance of MiniLM
#: vectors of real conversations (LoCoMo); the 1% passed on holds the exact top 10
#: with ~0.99 recall there (docs/design/vector-prescan.md).
PRESCAN_DIMS = 96
PRESCAN_SHARE = 0.01
PRESCAN_MIN = 1000
PRESCAN_SAMPLE = 20_000
DEFAULT_PRESCAN_FROM = 300_000

_LOAD_SQL = (
    "SELECT v.memory_id, v.embedding, m.thread, m.kind, m.created_at FROM memory_vectors v "
    "JOIN memories m ON m.id = v.memory_id WHERE m.namespace = ? AND m.deleted_at IS NULL"
)


def prune_changes(conn: Any) -> None:
    """Drop change-log entries every reader has either applied or will replace by a reload."""
    conn.execute(
        "DELETE FROM vector_changes WHERE seq <= (SELECT max(seq) FROM vector_changes) - ?", (CHANGES_KEPT,)
    )


class VectorIndex:
    """Exact cosine search over the live vectors of one namespace, with the filters inside the scan.

    Not thread-safe by itself: every call happens inside `Database.read()`, which
    holds the connection's lock.
    """

    def __init__(self, namespace: str, prescan_from: int = DEFAULT_PRESCAN_FROM) -> None:
        self.namespace = namespace
        self.prescan_from = prescan_from  # 0: never pre-scan (always exact)
        self._seq: int | None = None  # last vector_changes entry applied; None = not loaded
        self._clear(0)

    def _clear(self, capacity: int) -> None:
        self._n = 0  # slots used (some may be free: _valid False)
        self._free = 0
        self._dims = 0
        self._matrix = np.zeros((capacity, 0), dtype=np.float32)
        self._norms = np.zeros(capacity, dtype=np.float32)
        self._ids = np.zeros(capacity, dtype=np.int64)
        self._threads = np.zeros(capacity, dtype=np.int32)
        self._kinds = np.zeros(capacity, dtype=np.int32)
        self._created = np.zeros(capacity, dtype=np.int64)
        self._valid = np.zeros(capacity, dtype=bool)
        self._slot_of = np.full(1, -1, dtype=np.int64)  # memory id -> slot
        self._codes: dict[str, dict[str, int]] = {"thread": {}, "kind": {}}
        self._basis: np.ndarray | None = None  # dims x PRESCAN_DIMS, once fitted
        self._projected = np.zeros((capacity, 0), dtype=np.float32)  # each slot's vector @ basis
        self._fitted_rows = 0

    # -- keeping in step -------------------------------------------------------
    def sync(self, conn: Any, in_outer_transaction: bool = False) -> None:
        """Apply every change other processes (and this one) committed since the last call."""
        top = conn.execute("SELECT max(seq) FROM vector_changes").fetchone()[0] or 0
        if self._seq is not None and top == self._seq:
            return
        lowest = conn.execute("SELECT min(seq) FROM vector_changes").fetchone()[0]
        if self._seq is None or (lowest is not None and lowest > self._seq + 1) or top < self._seq:
            self._load(conn)
        else:
            changed = [r[0] for r in conn.execute("SELECT DISTINCT memory_id FROM vector_changes WHERE seq > ?",
                                                  (self._seq,))]
            self._apply(conn, changed)
            if self._free > max(1024, self._n // 2):
                self._load(conn)
        # Inside a caller's transaction the changes may yet be rolled back (and their
        # sequence numbers reused): use them now, but reload next time.
        self._seq = None if in_outer_transaction else top

    def _load(self, conn: Any) -> None:
        self._clear(0)
        count = conn.execute(_LOAD_SQL.replace("v.memory_id, v.embedding, m.thread, m.kind, m.created_at",
                                               "count(*)", 1), (self.namespace,)).fetchone()[0]
        if not count:
            return
        # Filled block by block into one preallocated matrix: at a million vectors a
        # list of every blob plus their joined copy would triple the peak memory.
        self._clear(count)
        cursor = conn.execute(_LOAD_SQL, (self.namespace,))
        n = 0
        while rows := cursor.fetchmany(8192):
            if not self._dims:
                self._dims = len(rows[0][1]) // 4
                self._matrix = np.zeros((count, self._dims), dtype=np.float32)
            size = self._dims * 4
            block = b"".join(r[1] if len(r[1]) == size else bytes(size) for r in rows)  # wrong size: never matches
            end = n + len(rows)
            self._matrix[n:end] = np.frombuffer(block, dtype=np.float32).reshape(len(rows), self._dims)
            self._ids[n:end] = [r[0] for r in rows]
            self._threads[n:end] = [self._code("thread", r[2]) for r in rows]
            self._kinds[n:end] = [self._code("kind", r[3]) for r in rows]
            self._created[n:end] = [r[4] for r in rows]
            n = end
        self._n = n
        self._valid[:n] = True
        self._norms[:n] = np.linalg.norm(self._matrix[:n], axis=1)
        self._slot_of = np.full(int(self._ids[:n].max()) + 1, -1, dtype=np.int64)
        self._slot_of[self._ids[:n]] = np.arange(n)

    def _apply(self, conn: Any, changed: Sequence[int]) -> None:
        current: dict[int, tuple] = {}
        for start in range(0, len(changed), 500):
            chunk = changed[start : start + 500]
            sql = _LOAD_SQL + f" AND v.memory_id IN ({','.join('?' * len(chunk))})"
            for row in conn.execute(sql, (self.namespace, *chunk)):
                current[row[0]] = row
        for memory_id in changed:
            slot = self._slot(memory_id)
            row = current.get(memory_id)
            if row is None:  # forgotten, erased, moved to another namespace, or its vector dropped
                if slot >= 0:
                    self._valid[slot] = False
                    self._slot_of[memory_id] = -1
                    self._free += 1
                continue
            if slot < 0:
                slot = self._append(memory_id)
            self._put(slot, row)

    def _slot(self, memory_id: int) -> int:
        return int(self._slot_of[memory_id]) if memory_id < len(self._slot_of) else -1

    def _append(self, memory_id: int) -> int:
        if self._n == len(self._ids):
            capacity = max(64, 2 * self._n)
            grow = lambda a, fill=0: np.concatenate([a, np.full((capacity - len(a), *a.shape[1:]), fill, a.dtype)])  # noqa: E731
            self._matrix, self._norms, self._ids = grow(self._matrix), grow(self._norms), grow(self._ids)
            self._projected = grow(self._projected)
            self._threads, self._kinds, self._created = grow(self._threads), grow(self._kinds), grow(self._created)
            self._valid = grow(self._valid, False)
        if memory_id >= len(self._slot_of):
            size = max(memory_id + 1, 2 * len(self._slot_of))
            self._slot_of = np.concatenate([self._slot_of, np.full(size - len(self._slot_of), -1, np.int64)])
        slot = self._n
        self._n += 1
        self._slot_of[memory_id] = slot
        return slot

    def _put(self, slot: int, row: tuple) -> None:
        memory_id, blob, thread, kind, created_at = row
        vector = np.frombuffer(blob, dtype=np.float32)
        if not self._dims:
            self._dims = len(vector)
            self._matrix = np.zeros((len(self._ids), self._dims), dtype=np.float32)
        if len(vector) != self._dims:  # written by another model: never matches (reembed replaces it)
            vector = np.zeros(self._dims, dtype=np.float32)
        self._matrix[slot] = vector
        self._norms[slot] = np.linalg.norm(vector)
        if self._basis is not None:
            self._projected[slot] = vector @ self._basis
        self._ids[slot] = memory_id
        self._threads[slot] = self._code("thread", thread)
        self._kinds[slot] = self._code("kind", kind)
        self._created[slot] = created_at
        self._valid[slot] = True

    def _code(self, column: str, value: str) -> int:
        codes = self._codes[column]
        code = codes.get(value)
        if code is None:
            code = codes[value] = len(codes)
        return code

    # -- search -----------------------------------------------------------------
    def mask(  # noqa: PLR0913
        self,
        threads: Sequence[str] | None,
        kinds: Sequence[str] | None,
        since: int | None,
        until: int | None,
        ids: Sequence[int] | None,
    ) -> np.ndarray:
        """Which slots a search may return (every filter of the scope)."""
        n = self._n
        mask = self._valid[:n].copy()
        mask &= self._norms[:n] > 0  # a zero vector has no cosine: it matches nothing
        for column, values, codes in ((self._threads, threads, "thread"), (self._kinds, kinds, "kind")):
            if values is None:
                continue
            wanted = [self._codes[codes][v] for v in values if v in self._codes[codes]]
            mask &= np.isin(column[:n], np.asarray(wanted, dtype=np.int32))
        if since is not None:
            mask &= self._created[:n] >= since
        if until is not None:
            mask &= self._created[:n] <= until
        if ids is not None:
            allowed = np.zeros(n, dtype=bool)
            wanted_ids = np.asarray([i for i in ids if 0 <= i < len(self._slot_of)], dtype=np.int64)
            slots = self._slot_of[wanted_ids] if len(wanted_ids) else np.zeros(0, dtype=np.int64)
            allowed[slots[slots >= 0]] = True
            mask &= allowed
        return mask

    def nearest(self, query: np.ndarray, k: int, mask: np.ndarray) -> list[tuple[int, float]]:
        """The k nearest rows in `mask` as (memory id, cosine distance), nearest first."""
        query = np.asarray(query, dtype=np.float32)
        qnorm = float(np.linalg.norm(query))
        if not self._n or qnorm == 0 or k <= 0 or len(query) != self._matrix.shape[1]:
            return []
        n = self._n
        count = int(mask.sum())
        if not count:
            return []
        if count < GATHER_SHARE * n:
            slots = np.flatnonzero(mask)
            sims = (self._matrix[slots] @ query) / (self._norms[slots] * qnorm)
        elif self._prescan_ready():
            slots = self._prescan(query, qnorm, mask, max(k, PRESCAN_MIN, int(PRESCAN_SHARE * count)))
            sims = (self._matrix[slots] @ query) / (self._norms[slots] * qnorm)
        else:
            sims = (self._matrix[:n] @ query) / (self._norms[:n] * qnorm)
            slots = np.flatnonzero(mask)
            sims = sims[slots]
        if len(sims) > k:
            top = np.argpartition(-sims, k - 1)[:k]
            slots, sims = slots[top], sims[top]
        order = np.lexsort((self._ids[slots], -sims))
        return [(int(self._ids[slots[i]]), float(1.0 - sims[i])) for i in order]

    # -- the pre-scan -------------------------------------------------------------
    def _prescan_ready(self) -> bool:
        """Whether searches over most rows pre-scan the projection (fitting it when due)."""
        live = self._n - self._free
        if not self.prescan_from or live < self.prescan_from:
            return False
        if self._basis is None or live >= 2 * self._fitted_rows:  # refit once the data has doubled
            self._fit()
        return True

    def _fit(self) -> None:
        """The projection: top principal directions (uncentred, as dot products are) of a sample of rows."""
        rows = np.flatnonzero(self._valid[: self._n] & (self._norms[: self._n] > 0))
        sample = rows[np.linspace(0, len(rows) - 1, min(len(rows), PRESCAN_SAMPLE)).astype(np.int64)]
        unit = self._matrix[sample] / self._norms[sample, None]
        _, vectors = np.linalg.eigh(unit.T @ unit)  # ascending eigenvalues
        self._basis = np.ascontiguousarray(vectors[:, ::-1][:, :PRESCAN_DIMS], dtype=np.float32)
        self._projected = np.zeros((len(self._ids), self._basis.shape[1]), dtype=np.float32)
        for start in range(0, self._n, 65536):  # blocks: no second full-size temporary
            end = min(start + 65536, self._n)
            self._projected[start:end] = self._matrix[start:end] @ self._basis
        self._fitted_rows = len(rows)

    def _prescan(self, query: np.ndarray, qnorm: float, mask: np.ndarray, keep: int) -> np.ndarray:
        """Slots of the `keep` rows in `mask` nearest the query in the projection."""
        n = self._n
        with np.errstate(divide="ignore", invalid="ignore"):  # zero-norm rows are outside the mask
            approx = (self._projected[:n] @ (query @ self._basis)) / (self._norms[:n] * qnorm)
        approx[~mask] = -np.inf
        keep = min(keep, int(mask.sum()))
        return np.argpartition(-approx, keep - 1)[:keep]

    def cosines(self, query: np.ndarray, ids: Sequence[int]) -> dict[int, float]:
        """Exact cosine of the query to these live memories (those that have a vector)."""
        query = np.asarray(query, dtype=np.float32)
        out: dict[int, float] = {}
        if not self._n or len(query) != self._matrix.shape[1]:
            return out
        for memory_id in ids:
            slot = self._slot(memory_id)
            if slot >= 0:
                out[memory_id] = float(self._matrix[slot] @ query)
        return out

    @property
    def size(self) -> int:
        return int(self._valid[: self._n].sum())

    @property
    def nbytes(self) -> int:
        arrays = (self._matrix, self._norms, self._ids, self._threads, self._kinds, self._created, self._valid,
                  self._slot_of, self._projected)
        return sum(a.nbytes for a in arrays)
