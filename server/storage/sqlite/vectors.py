"""Vector search over vec0, with the shared sidecar for searches over many rows.

The vectors of record are vec0's (`vec_memories`, one row per passage of a memory: see
vec0_schema.vec0_ddl). Every process searches them directly when a search is scoped to
threads holding at most VEC0_SCOPE_MAX rows: one exact KNN per thread (a partition), with
kind, time and forgotten applied inside it. Searches over every thread, or over a huge
thread, go through the namespace's sidecar (sidecar.py), which any process brings up to
date before it searches: `vector_changes` (written by triggers in the same transaction as
every change) says what changed since the seq the file reflects. The process that wrote
vectors applies them right after its commit, from the vectors it has in hand; a reader
that finds the file behind applies the rest (reading the vectors from vec0). When the log
no longer reaches back to the file's seq (a file lost, or too far behind), or the file is
missing, it is rebuilt from vec0; meanwhile searches use vec0 alone (exact, slower).

A memory is ranked by its best passage: results are per memory, the nearest of its rows.
Sidecar results are candidates, re-checked against `memories` by the store (a lagging
file can miss a vector written a moment ago, never return a forgotten memory).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from server.config import private_folder
from server.storage.sqlite.vec0_schema import PASSAGE_SLOTS
from server.storage.sqlite.sidecar import Block, Sidecar, fit_mean, text_code

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no sidecar, vec0 serves every search
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

#: Entries of vector_changes kept after a write. A sidecar further behind is rebuilt from vec0.
CHANGES_KEPT = 100_000
#: Scopes of at most this many rows are searched in vec0 (exact, cost of the scope's size: ~2 ms
#: per 1,000 rows here); larger ones (a thread holding much of a big store) go to the sidecar.
VEC0_SCOPE_MAX = 20_000
#: Scopes of more rows than this (up to VEC0_SCOPE_MAX) take their shortlist from the sidecar, which
#: scores them whole, and only it is re-scored from vec0: a write's vector candidates in a 10k thread
#: cost ~20 ms scanned in vec0 (bench/write_cost.py). Smaller scopes are scanned (a few ms).
VEC0_SCOPE_FAST = 2_000
#: vec0 returns at most this many rows per KNN.
VEC0_K_MAX = 4096
#: Compact the sidecar when tombstones pass this share of its rows (and REBUILD_MIN rows).
DEAD_SHARE = 0.5
REBUILD_MIN = 10_000
MEAN_SAMPLE = 20_000

_STATE_SQL = (
    "SELECT m.id, m.namespace, m.thread, m.kind, m.created_at, m.deleted_at IS NOT NULL, coalesce(v.passages, 0) "
    "FROM memories m LEFT JOIN vector_rows v ON v.memory_id = m.id WHERE m.id IN "
)


def prune_changes(conn: Any) -> None:
    """Drop change-log entries a sidecar would replace by a rebuild anyway."""
    conn.execute(
        "DELETE FROM vector_changes WHERE seq <= (SELECT max(seq) FROM vector_changes) - ?", (CHANGES_KEPT,)
    )


def memory_of(row_ids: np.ndarray) -> np.ndarray:
    return row_ids // PASSAGE_SLOTS


#: Up to this many codes, a column is matched by one comparison per code (see matching).
FEW_CODES = 4


def matching(column: np.ndarray, values: Sequence[str]) -> np.ndarray:
    """Which rows of a thread or kind column hold one of `values` (by their text_code).

    A few values (a write's thread; a recall's thread and the global memories) are compared one by one:
    isin sorts every row of the column, 3.6 ms for two codes at a million rows against 1.1 ms for two
    comparisons (bench/scale.py's one-thread recalls ask for a thread and `global`)."""
    codes = sorted({text_code(v) for v in values})
    if not codes or len(codes) > FEW_CODES:
        return np.isin(column, np.asarray(codes, dtype=np.uint32))
    found = column == codes[0]
    for code in codes[1:]:
        found |= column == code
    return found


def best_per_memory(row_ids: Sequence[int] | np.ndarray, sims: np.ndarray, k: int) -> list[tuple[int, float]]:
    """(memory id, cosine distance) of the k memories with the nearest rows, nearest first (ties by id)."""
    row_ids = np.asarray(row_ids, dtype=np.int64)
    sims = np.asarray(sims, dtype=np.float64)
    keep = ~np.isnan(sims)  # NaN: a zero vector matches nothing
    memories, sims = row_ids[keep] // PASSAGE_SLOTS, sims[keep]
    if len(sims) > 8 * k:  # the best rows first: enough distinct memories among them in nearly every search
        top = np.argpartition(-sims, 8 * k - 1)[: 8 * k]
        if len(np.unique(memories[top])) >= k and k > 0:
            memories, sims = memories[top], sims[top]
    order = np.lexsort((memories, -sims))
    _, first = np.unique(memories[order], return_index=True)  # each memory's best row
    best = order[np.sort(first)[:k]]
    return [(int(m), 1.0 - float(v)) for m, v in zip(memories[best], sims[best])]


class VectorIndex:
    """One namespace's vector search: vec0 KNN for thread scopes, the sidecar for the rest.

    Not thread-safe by itself: every call happens inside `Database.read()`, which holds the
    connection's lock.
    """

    def __init__(self, db_path: str, namespace: str, dims: int | None = None) -> None:
        self.namespace = namespace
        self.dims = dims
        self._side: Sidecar | None = None
        self._slot_of = np.full(0, -1, dtype=np.int64)  # memory id -> its first row in the sidecar
        self._mapped = 0  # rows of the sidecar folded into _slot_of
        #: The last few column matches (_matching), by file, column, codes and what the header says changed.
        self._matched: dict[tuple, np.ndarray] = {}
        if db_path == ":memory:" or fcntl is None:
            self.path: Path | None = None
        else:
            name = hashlib.sha1(namespace.encode("utf-8")).hexdigest()[:16]
            self.path = Path(db_path + "-vectors") / f"{name}.mv"

    # -- vec0 ------------------------------------------------------------------------
    def vec0_knn(  # noqa: PLR0913
        self, conn: Any, query: np.ndarray, k: int, threads: Sequence[str] | None,
        kinds: Sequence[str] | None, since: int | None, until: int | None, ids: set[int] | None = None,
    ) -> list[tuple[int, float]]:
        """Exact KNN in vec0, one query per thread (a partition), the best row of each memory."""
        where = ["embedding MATCH ?", "k = ?", "namespace = ?", "deleted = 0"]
        params: list[Any] = [np.ascontiguousarray(query, dtype=np.float32)]
        filters: list[Any] = []
        if kinds:
            where.append(f"kind IN ({','.join('?' * len(kinds))})")
            filters.extend(kinds)
        if since is not None:
            where.append("created_at >= ?")
            filters.append(since)
        if until is not None:
            where.append("created_at <= ?")
            filters.append(until)
        rows = min(VEC0_K_MAX, 2 * k) if ids is None else VEC0_K_MAX
        while True:
            found: list[tuple[int, float]] = []
            exhausted = True
            for thread in threads if threads is not None else (None,):
                sql = "SELECT row_id, distance FROM vec_memories WHERE " + " AND ".join(
                    where + ([] if thread is None else ["thread = ?"])
                )
                args = [*params, rows, self.namespace, *filters, *([] if thread is None else [thread])]
                got = conn.execute(sql, args).fetchall()
                exhausted &= len(got) < rows
                found.extend(got)
            if ids is not None:
                found = [(r, d) for r, d in found if r // PASSAGE_SLOTS in ids]
            row_ids = np.asarray([r for r, _ in found], dtype=np.int64)
            sims = 1.0 - np.asarray([d for _, d in found], dtype=np.float64)
            best = best_per_memory(row_ids, sims, k)
            # Passages of one memory can fill the rows asked for: ask for more until k memories.
            if len(best) >= k or exhausted or rows >= VEC0_K_MAX:
                return best
            rows = min(VEC0_K_MAX, 4 * rows)

    def vec0_rescored(self, conn: Any, query: np.ndarray, memory_ids: Sequence[int], k: int) -> list[tuple[int, float]]:
        """The k of these memories nearest to `query` as vec0_knn ranks them (each memory's best row by
        vec0's own cosine distance, ties by id), from point lookups of their rows instead of a scan."""
        query = np.ascontiguousarray(query, dtype=np.float32)
        row_ids: list[int] = []
        sims: list[float] = []
        for start in range(0, len(memory_ids), 500):
            chunk = list(memory_ids[start : start + 500])
            counts = conn.execute(
                f"SELECT memory_id, passages FROM vector_rows WHERE memory_id IN ({','.join('?' * len(chunk))})", chunk
            ).fetchall()
            for memory_id, count in counts:
                for p in range(count):
                    # One lookup per row: `row_id IN (...)` makes vec0 scan the whole table.
                    row = conn.execute(
                        "SELECT vec_distance_cosine(embedding, ?) FROM vec_memories WHERE row_id = ? AND deleted = 0",
                        (query, memory_id * PASSAGE_SLOTS + p),
                    ).fetchone()
                    if row is not None and row[0] is not None:
                        row_ids.append(memory_id * PASSAGE_SLOTS + p)
                        sims.append(1.0 - row[0])
        return best_per_memory(row_ids, np.asarray(sims, dtype=np.float64), k)

    def vec0_rows(self, conn: Any, memory_ids: Sequence[int]) -> dict[int, np.ndarray]:
        """Each memory's rows from vec0 as a (passages x dims) float32 matrix (point lookups)."""
        out: dict[int, np.ndarray] = {}
        for start in range(0, len(memory_ids), 500):
            chunk = list(memory_ids[start : start + 500])
            counts = dict(conn.execute(
                f"SELECT memory_id, passages FROM vector_rows WHERE memory_id IN ({','.join('?' * len(chunk))})", chunk
            ).fetchall())
            for memory_id in chunk:
                blobs = []
                for p in range(counts.get(memory_id, 0)):
                    # One lookup per row: `row_id IN (...)` makes vec0 scan the whole table.
                    row = conn.execute("SELECT embedding FROM vec_memories WHERE row_id = ?",
                                       (memory_id * PASSAGE_SLOTS + p,)).fetchone()
                    if row is not None:
                        blobs.append(row[0])
                if blobs:
                    out[memory_id] = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), -1)
        return out

    def scope_rows(self, conn: Any, threads: Sequence[str]) -> int:
        """Vector rows of these threads (the sidecar's count when it is current, else SQL)."""
        side = self._side
        if side is not None:
            return int(np.count_nonzero(self._matching(side, "thread", threads, side.count)))
        return conn.execute(
            "SELECT coalesce(sum(v.passages), 0) FROM vector_rows v JOIN memories m ON m.id = v.memory_id "
            f"WHERE m.namespace = ? AND m.thread IN ({','.join('?' * len(threads))})",
            (self.namespace, *threads),
        ).fetchone()[0]

    def _matching(self, side: Sidecar, column: str, values: Sequence[str], n: int) -> np.ndarray:
        """matching() of the first n rows of a column, read-only, kept while the file and its header are the
        same (a thread or kind changes only by a patch published with a new log position, Sidecar.live): a
        thread's search matched the thread column of a million rows twice (its size, its mask), ~1 ms each."""
        key = (side.inode, column, tuple(sorted(set(values))), n, side.dead, side.applied)
        found = self._matched.get(key)
        if found is None:
            found = matching(side.column(column, n), values)
            found.flags.writeable = False
            while len(self._matched) >= 4:
                del self._matched[next(iter(self._matched))]
            self._matched[key] = found
        return found

    # -- the sidecar: keeping it in step -------------------------------------------------
    def sync(self, conn: Any, fresh: Mapping[int, np.ndarray] | None = None, wait: bool = False) -> Sidecar | None:
        """Bring the sidecar up to the log (`fresh`: vectors this process just committed, by
        memory id); the sidecar to search, or None when vec0 must serve (no file yet, or
        another process is rebuilding it). Never call inside an open write transaction."""
        if self.path is None:
            return None
        top = conn.execute("SELECT coalesce(max(seq), 0) FROM vector_changes").fetchone()[0]
        side = self._current()
        if side is not None and side.applied == top:
            self._map_rows(side)
            return side
        lock = self._lock(wait)
        if lock is None:  # someone else is applying: search what is there
            if side is not None:
                self._map_rows(side)
            return side
        try:
            side = self._current()
            if side is not None and side.applied == top:
                self._map_rows(side)
                return side
            lowest = conn.execute("SELECT min(seq) FROM vector_changes").fetchone()[0]
            if side is None or top < side.applied or (lowest is not None and lowest > side.applied + 1) or (
                conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'vec_memories' AND sql LIKE ?",
                             (f"%FLOAT[{side.dims}]%",)).fetchone() is None  # reembedded with another model
            ):
                side = self._rebuild_from_vec0(conn, top)
            else:
                self._map_rows(side)
                side = self._apply(conn, side, top, fresh or {})
            side.publish(top)
            if side.dead > max(REBUILD_MIN, DEAD_SHARE * side.count) or (
                side.count - side.dead >= max(2 * side.fitted, 1000)
            ):
                side = self._rewrite(side, extra=0)  # compact, refit the mean
            self._map_rows(side)
            return side
        finally:
            os.close(lock)

    def _current(self) -> Sidecar | None:
        """The mapped sidecar, re-opened if the file was replaced; None if there is none."""
        assert self.path is not None
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            self._drop()
            return None
        if self._side is not None and self._side.inode == (st.st_dev, st.st_ino):
            return self._side
        self._drop()
        try:
            self._side = Sidecar(self.path)
        except (OSError, ValueError) as exc:
            log.warning("vector sidecar %s unusable (%s); rebuilding it from vec0", self.path, exc)
            return None
        if self.dims is not None and self._side.dims != self.dims:
            self._drop()
            return None
        return self._side

    def _drop(self) -> None:
        if self._side is not None:
            self._side.close()
        self._side = None
        self._slot_of = np.full(0, -1, dtype=np.int64)
        self._mapped = 0

    def _lock(self, wait: bool) -> int | None:
        assert self.path is not None and fcntl is not None
        private_folder(self.path.parent)
        fd = os.open(str(self.path) + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            os.close(fd)
            return None
        return fd

    def _map_rows(self, side: Sidecar) -> None:
        """Fold rows appended since the last call into memory id -> first row."""
        count = side.count
        if count <= self._mapped:
            return
        ids = side.column("ids", count)[self._mapped :]
        first = (ids >= 0) & (ids % PASSAGE_SLOTS == 0)
        rows = np.flatnonzero(first) + self._mapped
        memory_ids = ids[first] // PASSAGE_SLOTS
        if len(memory_ids):
            top = int(memory_ids.max()) + 1
            if top > len(self._slot_of):
                grown = np.full(max(top, 2 * len(self._slot_of)), -1, dtype=np.int64)
                grown[: len(self._slot_of)] = self._slot_of
                self._slot_of = grown
            self._slot_of[memory_ids] = rows
        self._mapped = count

    def rows_of(self, side: Sidecar, memory_id: int) -> np.ndarray:
        """The sidecar rows holding this memory's passages (empty if none)."""
        if memory_id >= len(self._slot_of) or self._slot_of[memory_id] < 0:
            return np.zeros(0, dtype=np.int64)
        first = int(self._slot_of[memory_id])
        ids = side.column("ids")
        rows = []
        row = first
        while row < len(ids) and ids[row] // PASSAGE_SLOTS == memory_id and ids[row] >= 0:
            rows.append(row)
            row += 1
        return np.asarray(rows, dtype=np.int64)

    def _apply(self, conn: Any, side: Sidecar, top: int, fresh: Mapping[int, np.ndarray]) -> Sidecar:
        changes = conn.execute(
            "SELECT memory_id, max(vectors) FROM vector_changes WHERE seq > ? AND seq <= ? GROUP BY memory_id",
            (side.applied, top),
        ).fetchall()
        appended: list[tuple[int, tuple, np.ndarray | None]] = []
        for start in range(0, len(changes), 500):
            chunk = changes[start : start + 500]
            states = {r[0]: r for r in conn.execute(
                _STATE_SQL + f"({','.join('?' * len(chunk))})", [c[0] for c in chunk])}
            for memory_id, vectors in chunk:
                state = states.get(memory_id)
                rows = self.rows_of(side, memory_id)
                mine = state is not None and state[1] == self.namespace and state[6] > 0
                if not mine or vectors or not len(rows):
                    if len(rows):
                        side.tombstone(rows)
                        self._slot_of[memory_id] = -1
                    if mine:
                        given = fresh.get(memory_id)
                        ok = given is not None and np.ndim(given) == 2 and len(given) == state[6]
                        appended.append((memory_id, state, np.asarray(given, np.float32) if ok else None))
                else:
                    side.patch(rows, state[4], text_code(state[2]), text_code(state[3]), int(state[5]))
        missing = [m for m, _, v in appended if v is None]
        from_vec0 = self.vec0_rows(conn, missing) if missing else {}
        blocks = []
        for memory_id, state, vectors in appended:
            vectors = vectors if vectors is not None else from_vec0.get(memory_id)
            if vectors is None or not len(vectors):
                continue
            n = len(vectors)
            blocks.append(Block(
                ids=memory_id * PASSAGE_SLOTS + np.arange(n, dtype=np.int64), vectors=vectors,
                created=np.full(n, state[4], np.int64), thread=np.full(n, text_code(state[2]), np.uint32),
                kind=np.full(n, text_code(state[3]), np.uint32), deleted=np.full(n, int(state[5]), np.uint8),
            ))
        if blocks:
            block = Block(*(np.concatenate([getattr(b, f) for b in blocks]) for f in
                            ("ids", "vectors", "created", "thread", "kind", "deleted")))
            if side.end + len(block) > side.capacity:
                side = self._rewrite(side, extra=len(block))
            side.append(block)
        return side

    def _rebuild_from_vec0(self, conn: Any, top: int) -> Sidecar:
        """A new sidecar from every vec0 row of the namespace (a missing or stale file), streamed:
        the mean from a sample of the vectors, then the rows block by block."""
        assert self.path is not None
        log.info("building the vector sidecar of namespace %r from vec0", self.namespace)
        count, = conn.execute(
            "SELECT coalesce(sum(v.passages), 0) FROM vector_rows v JOIN memories m ON m.id = v.memory_id "
            "WHERE m.namespace = ?", (self.namespace,),
        ).fetchone()
        ids = [r[0] for r in conn.execute(
            "SELECT v.memory_id FROM vector_rows v JOIN memories m ON m.id = v.memory_id WHERE m.namespace = ?",
            (self.namespace,))]
        picked = [ids[i] for i in np.linspace(0, len(ids) - 1, min(len(ids), 2000)).astype(np.int64)] if ids else []
        sample = [v[0] for v in self.vec0_rows(conn, picked).values()]
        (ddl,) = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'vec_memories'").fetchone()
        self.dims = dims = int(re.search(r"FLOAT\[(\d+)\]", ddl, re.IGNORECASE).group(1))  # type: ignore[union-attr]
        self._drop()
        side = Sidecar.create(self.path, dims, 2 * count, fit_mean(np.asarray(sample, np.float32).reshape(-1, dims), dims),
                              top, len(ids))
        cursor = conn.execute(
            "SELECT row_id, embedding, created_at, thread, kind, deleted FROM vec_memories WHERE namespace = ?",
            (self.namespace,),
        )
        while rows := cursor.fetchmany(8192):
            rows = [r for r in rows if len(r[1]) == 4 * dims]
            rows.sort(key=lambda r: r[0])  # a memory's passages next to each other
            block = Block(
                ids=np.asarray([r[0] for r in rows], np.int64),
                vectors=np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), dims),
                created=np.asarray([r[2] for r in rows], np.int64),
                thread=np.asarray([text_code(r[3]) for r in rows], np.uint32),
                kind=np.asarray([text_code(r[4]) for r in rows], np.uint32),
                deleted=np.asarray([r[5] for r in rows], np.uint8),
            )
            if side.end + len(block) > side.capacity:
                side.publish(top)
                side = self._rewrite(side, extra=len(block))
            side.append(block)
        side.publish(top)
        self._side = side
        return side

    def _rewrite(self, side: Sidecar, extra: int) -> Sidecar:
        """The live rows into a new file with room for `extra` more (and a mean refitted on them)."""
        assert self.path is not None
        ids = side.column("ids")
        live = np.flatnonzero(ids >= 0)
        sample = live[np.linspace(0, len(live) - 1, min(len(live), MEAN_SAMPLE)).astype(np.int64)] if len(live) else live
        mean = fit_mean(side.read_half(sample).astype(np.float32), side.dims)
        applied = side.applied
        new_path = self.path.with_suffix(".new")
        new = Sidecar.create(new_path, side.dims, 2 * (len(live) + extra), mean, applied, len(live))
        for start in range(0, len(live), 65536):
            rows = live[start : start + 65536]
            new.append(Block(
                ids=ids[rows], vectors=side.read_half(rows).astype(np.float32), created=side.column("created")[rows],
                thread=side.column("thread")[rows], kind=side.column("kind")[rows],
                deleted=side.column("deleted")[rows],
            ))
        new.publish(applied)
        new.close()
        os.replace(new_path, self.path)
        self._drop()
        reopened = self._current()
        assert reopened is not None
        self._map_rows(reopened)
        return reopened

    # -- the sidecar: searching ----------------------------------------------------------------
    def sidecar_knn(  # noqa: PLR0913
        self, side: Sidecar, query: np.ndarray, k: int, threads: Sequence[str] | None,
        kinds: Sequence[str] | None, since: int | None, until: int | None, ids: set[int] | None,
    ) -> list[tuple[int, float]]:
        """Candidates as (memory id, cosine distance), best passage per memory, nearest first."""
        n = side.count
        row_ids = side.column("ids", n)
        mask = side.live(n)  # (read-only: each filter makes a new mask)
        for column, values in (("thread", threads), ("kind", kinds)):
            if values is not None:
                mask = mask & self._matching(side, column, values, n)
        if since is not None:
            mask = mask & (side.column("created", n) >= since)
        if until is not None:
            mask = mask & (side.column("created", n) <= until)
        if ids is not None:
            mask = mask & np.isin(row_ids // PASSAGE_SLOTS, np.fromiter(ids, dtype=np.int64, count=len(ids)))
        query = np.asarray(query, dtype=np.float32)
        rows = side.candidates(query, mask)
        if not len(rows):
            return []
        # A thread scope scored whole: its rows are kept for the next search of it (sidecar.SCOPE_CACHE_BYTES).
        sims = side.score(query, rows, keep=threads is not None and len(rows) == int(np.count_nonzero(mask)))
        live = np.isfinite(sims)
        return best_per_memory(row_ids[rows][live], sims[live], k)

    def sidecar_cosines(self, side: Sidecar, query: np.ndarray, memory_ids: Sequence[int]) -> dict[int, float]:
        """Best-passage cosine of these memories from the sidecar's float16 rows (those it holds)."""
        wanted = {m: self.rows_of(side, m) for m in memory_ids}  # float16 rows, scored as float32 below
        rows = np.sort(np.concatenate([r for r in wanted.values() if len(r)] or [np.zeros(0, np.int64)]))
        if not len(rows):
            return {}
        sims = side.score(np.asarray(query, dtype=np.float32), rows)
        deleted = side.column("deleted")[rows]
        best: dict[int, float] = {}
        for row_id, sim, gone in zip(side.column("ids")[rows].tolist(), sims.tolist(), deleted.tolist()):
            if row_id >= 0 and not gone and np.isfinite(sim):
                memory_id = row_id // PASSAGE_SLOTS
                best[memory_id] = max(best.get(memory_id, -1.0), sim)
        return best
