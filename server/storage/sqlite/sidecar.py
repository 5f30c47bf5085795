"""The shared sidecar: a compact copy of one namespace's vectors that every process maps read-only.

vec0 (`vec_memories`) holds the vectors of record, and answers exactly any search scoped
to threads (partition keys: the scope's rows only). Over every thread its brute-force
scan costs seconds at a million rows (the sqlite-vec wheel has no SIMD), so searches over
all threads go through this file, derived from vec0 and never needed for correctness
(docs/design/vec0-index.md):

1. Hamming distance of every row's sign bits of (v - mean) to the query's (SimSIMD):
   48 bytes a row, 48 MB at a million, resident in the page cache and shared by every
   process; a counting cut keeps the best WIDE share (at least WIDE_ROWS rows);
2. the asymmetric score (q - mean) . sign(v - mean) of those, from the same bits: the best
   NARROW share (at least FLOOR rows);
3. their float16 vectors, read with pread (nothing is mapped, so a process's memory does
   not grow with the rows it reads), scored exactly: cosine error < 1e-4.
On real MiniLM vectors that finds 0.998 of the exact top 10 at 76k rows, and the share
holds better as the corpus grows; scopes of up to EXACT_ROWS rows are scored whole (exact).

Layout: a header (magic, dims, capacity, row count, tombstones, the vector_changes seq it
reflects, the mean) then one section per column, `capacity` rows each: row id (int64,
memory_id * PASSAGE_SLOTS + passage; -1 = tombstone), created_at (int64), thread and kind
(crc32 of the text: no code tables to keep in step; a collision can only add candidates,
which the store re-checks against `memories`), deleted (uint8), sign bits, float16 vector.
Rows are written with pwrite before the count that makes them visible moves; a file that
must grow, compact or refit its mean is rewritten and renamed over (readers re-map when
the inode changes). Writers serialise on an flock of a lock file beside it.
"""

from __future__ import annotations

import mmap
import os
import struct
import threading
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

MAGIC = b"MVSIDE02"
_HEAD = struct.Struct("<8siiqqqqq")  # magic, version, dims, capacity, count, dead, applied seq, fitted rows
VERSION = 1
MEAN_AT = 128

#: The search's shares (see the module docstring) and the rows always scored exactly.
WIDE = 0.02
#: The Hamming stage keeps at least this many rows: at 100k rows 2% (2,000) lost the sign bits'
#: misses and recall@10 was 0.973 on real MiniLM vectors; 6,000 gives 0.991 for ~0.5 ms
#: (bench/scale.py). From 300k rows up, WIDE's share is larger and decides.
WIDE_ROWS = 6000
NARROW = 0.002
FLOOR = 1000
#: Scopes of at most this many rows are scored whole (exact): reading 15 MB of float16 in a few
#: large preads costs less than the stages that would pick 1,000 scattered rows of them.
EXACT_ROWS = 20_000
#: Rows at most this far apart are read in one pread (see read_half).
GAP_ROWS = 32
#: Files of up to this many rows are read through the mapping instead: copying megabytes out with
#: pread cost more (page faults of each fresh buffer) than the few MB of shared pages it maps.
MAP_ROWS = 40_000

#: A scope scored whole (at most EXACT_ROWS rows, in a file read with pread) keeps its float16 rows in the
#: process, up to this many bytes over the scopes searched last: a thread's rows are spread over the whole
#: file, one pread each (5,000 rows of a thread at 1M: ~12 ms of CPU a search), and a session asks its thread
#: again and again. A published row's vector never changes (a rewrite is a new file, a new Sidecar).
SCOPE_CACHE_BYTES = 8 << 20

#: One read into a given buffer (Linux, the BSDs); elsewhere each span is read into a bytes object and joined.
_PREADV = getattr(os, "preadv", None)

try:  # SIMD kernels; NumPy does the same, ~7x slower on the Hamming scan
    import simsimd as _simd
except ImportError:  # pragma: no cover - simsimd is a dependency; the fallback keeps a broken install working
    _simd = None


def text_code(value: str) -> int:
    """The 32-bit code of a thread or kind in the file."""
    return zlib.crc32(value.encode("utf-8", "surrogatepass"))


@dataclass
class Block:
    """Rows to append: row ids, float32 vectors and their filter fields."""

    ids: np.ndarray
    vectors: np.ndarray
    created: np.ndarray
    thread: np.ndarray
    kind: np.ndarray
    deleted: np.ndarray

    def __len__(self) -> int:
        return len(self.ids)


def _sections(dims: int, capacity: int) -> dict[str, tuple[int, np.dtype, int]]:
    """Each column's (offset, dtype, values per row)."""
    head = -(-(MEAN_AT + 4 * dims) // 4096) * 4096
    nbits = -(-dims // 8)
    out: dict[str, tuple[int, np.dtype, int]] = {}
    at = head
    for name, dtype, width in (
        ("ids", np.dtype("<i8"), 1), ("created", np.dtype("<i8"), 1), ("thread", np.dtype("<u4"), 1),
        ("kind", np.dtype("<u4"), 1), ("deleted", np.dtype("u1"), 1), ("bits", np.dtype("u1"), nbits),
        ("half", np.dtype("<f2"), dims),
    ):
        at = -(-at // 64) * 64
        out[name] = (at, dtype, width)
        at += capacity * dtype.itemsize * width
    out["end"] = (at, np.dtype("u1"), 0)
    return out


class Sidecar:
    """One sidecar file, mapped read-only; writes go through pwrite."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd = os.open(path, os.O_RDWR)
        try:
            st = os.fstat(self._fd)
            self.inode = (st.st_dev, st.st_ino)
            head = os.pread(self._fd, _HEAD.size, 0)
            magic, version, self.dims, self.capacity, *_ = _HEAD.unpack(head)
            if magic != MAGIC or version != VERSION:
                raise ValueError(f"{path} is not a memvault vector sidecar (version {VERSION})")
            self._at = _sections(self.dims, self.capacity)
            if st.st_size < self._at["end"][0]:
                raise ValueError(f"{path} is truncated")
            self._map = mmap.mmap(self._fd, self._at["end"][0], access=mmap.ACCESS_READ)
        except BaseException:
            os.close(self._fd)
            raise
        self.mean = np.frombuffer(self._map, dtype="<f4", count=self.dims, offset=MEAN_AT).copy()
        self._end: int | None = None  # rows written by this process but not yet published
        #: The rows (ascending) and float16 vectors of the scopes read last with `keep` (read_half), oldest first.
        self._kept: list[tuple[np.ndarray, np.ndarray]] = []
        self._kept_lock = threading.Lock()
        self._live: tuple[tuple[int, int, int], np.ndarray] | None = None  # (rows, dead, applied), live()

    @classmethod
    def create(cls, path: Path, dims: int, capacity: int, mean: np.ndarray, applied: int, fitted: int) -> Sidecar:
        """A new empty file at `path` (written beside it, then renamed over)."""
        capacity = max(capacity, 1024)
        tmp = path.with_suffix(".tmp")
        with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as f:  # private, as the database
            f.write(_HEAD.pack(MAGIC, VERSION, dims, capacity, 0, 0, applied, fitted))
            f.seek(MEAN_AT)
            f.write(np.asarray(mean, dtype="<f4").tobytes())
            f.truncate(_sections(dims, capacity)["end"][0])  # sparse: untouched sections take no disk
        os.replace(tmp, path)
        return cls(path)

    def close(self) -> None:
        try:
            self._map.close()
        except BufferError:  # a column view still alive somewhere: the mapping goes with it
            pass
        os.close(self._fd)

    # -- header ---------------------------------------------------------------
    def _head(self) -> tuple:
        return _HEAD.unpack_from(self._map, 0)

    @property
    def count(self) -> int:
        return self._head()[4]

    @property
    def dead(self) -> int:
        return self._head()[5]

    @property
    def applied(self) -> int:
        return self._head()[6]

    @property
    def fitted(self) -> int:
        return self._head()[7]

    def _set_head(self, count: int | None = None, dead: int | None = None, applied: int | None = None) -> None:
        _, version, dims, capacity, c, d, a, f = self._head()
        head = _HEAD.pack(MAGIC, version, dims, capacity, c if count is None else count,
                          d if dead is None else dead, a if applied is None else applied, f)
        os.pwrite(self._fd, head, 0)

    def publish(self, applied: int) -> None:
        """Make the rows appended since the last publish visible, together with the log position they
        bring the file to: one write of the header, so a process killed in the middle of an apply
        leaves the file as it was published (the next apply writes the same rows again)."""
        self._set_head(count=self._end if self._end is not None else None, applied=applied)
        self._end = None

    # -- columns ----------------------------------------------------------------
    def column(self, name: str, n: int | None = None) -> np.ndarray:
        """A read-only view of a column's first n rows (default: every row written)."""
        offset, dtype, width = self._at[name]
        n = self.count if n is None else n
        view = np.frombuffer(self._map, dtype=dtype, count=n * width, offset=offset)
        return view.reshape(n, width) if width > 1 else view

    def live(self, n: int) -> np.ndarray:
        """Which of the first n rows are live (not a tombstone, not forgotten), read-only. Kept while the
        header says nothing changed: every tombstone or patch of a row is published with the log position it
        brings the file to (publish), so the same count, dead rows and position mean the same columns (at a
        million rows the two column scans cost 1.6 ms of every search)."""
        _, _, _, _, _, dead, applied, _ = self._head()
        key = (n, dead, applied)
        held = self._live
        if held is not None and held[0] == key:
            return held[1]
        mask = (self.column("ids", n) >= 0) & (self.column("deleted", n) == 0)
        mask.flags.writeable = False
        self._live = (key, mask)
        return mask

    def _write(self, name: str, start: int, values: np.ndarray) -> None:
        offset, dtype, width = self._at[name]
        os.pwrite(self._fd, np.ascontiguousarray(values, dtype=dtype).tobytes(), offset + start * dtype.itemsize * width)

    @property
    def end(self) -> int:
        """Rows written, published or not (this process's view while it applies)."""
        return self.count if self._end is None else self._end

    def append(self, block: Block) -> int:
        """Write the block's rows after the last one (visible at the next `publish`); the first row's number."""
        start = self.end
        if start + len(block) > self.capacity:
            raise OverflowError("sidecar full")
        vectors = np.asarray(block.vectors, dtype=np.float32)
        self._write("ids", start, block.ids)
        self._write("created", start, block.created)
        self._write("thread", start, block.thread)
        self._write("kind", start, block.kind)
        self._write("deleted", start, block.deleted)
        self._write("bits", start, np.packbits(vectors > self.mean, axis=1))
        self._write("half", start, vectors.astype("<f2"))
        self._end = start + len(block)
        return start

    def tombstone(self, rows: np.ndarray) -> None:
        for row in rows:
            self._write("ids", int(row), np.asarray([-1]))
        self._set_head(dead=self.dead + len(rows))

    def patch(self, rows: np.ndarray, created: int, thread: int, kind: int, deleted: int) -> None:
        for row in rows:
            row = int(row)
            self._write("created", row, np.asarray([created]))
            self._write("thread", row, np.asarray([thread]))
            self._write("kind", row, np.asarray([kind]))
            self._write("deleted", row, np.asarray([deleted]))

    def read_half(self, rows: np.ndarray, keep: bool = False) -> np.ndarray:
        """The float16 vectors of these rows (ascending), read with pread: no page of the section is
        mapped into this process, so its memory does not grow with the rows it has read. Rows at
        most GAP_ROWS apart are read in one call (a few KB more instead of another system call).
        `keep`: the rows are a whole scope (a thread's): they are kept for the next read of mostly the
        same rows, which reads only those it lacks (SCOPE_CACHE_BYTES)."""
        rows = np.asarray(rows, dtype=np.int64)
        if not keep or self.capacity <= MAP_ROWS or not len(rows) or rows.nbytes + 2 * self.dims * len(rows) > SCOPE_CACHE_BYTES:
            return self._pread_half(rows)
        with self._kept_lock:
            kept = list(self._kept)
        best, out = None, None
        for held, vectors in kept:  # the scope read before that holds most of these rows
            at = np.minimum(np.searchsorted(held, rows), len(held) - 1)
            found = held[at] == rows
            hits = int(found.sum())
            if 2 * hits >= len(rows) and (best is None or hits > best[0]):
                best = (hits, held, vectors, at, found)
        if best is not None and best[0] == len(rows) == len(best[1]):
            return best[2]  # the same rows as last time
        if best is not None:  # mostly the same scope: only the rows it lacks are read
            _, held, vectors, at, found = best
            out = np.empty((len(rows), self.dims), dtype="<f2")
            out[found] = vectors[at[found]]
            if not found.all():
                out[~found] = self._pread_half(rows[~found])
        else:
            out = self._pread_half(rows)
        out.flags.writeable = False  # shared with later reads
        with self._kept_lock:
            self._kept = [(r, v) for r, v in self._kept if best is None or r is not best[1]]
            self._kept.append((rows.copy(), out))
            while sum(r.nbytes + v.nbytes for r, v in self._kept) > SCOPE_CACHE_BYTES:
                del self._kept[0]
        return out

    def _pread_half(self, rows: np.ndarray) -> np.ndarray:
        offset, _, dims = self._at["half"]
        size = 2 * dims
        rows = np.asarray(rows, dtype=np.int64)
        if not len(rows):
            return np.empty((0, dims), dtype="<f2")
        if self.capacity <= MAP_ROWS:  # a small file: read through the mapping (at most 30 MB, shared)
            half = self.column("half", self.capacity)
            if rows[-1] - rows[0] + 1 == len(rows):
                return half[rows[0] : rows[-1] + 1]  # every row of a range: a view, no copy
            return half[rows]
        breaks = np.flatnonzero(np.diff(rows) > GAP_ROWS) + 1
        starts = rows[np.r_[0, breaks]]
        ends = rows[np.r_[breaks - 1, len(rows) - 1]] + 1
        fd = self._fd
        lengths = ends - starts
        base = np.cumsum(lengths) - lengths
        if _PREADV is not None:
            # Each span straight into its place in one array: no bytes object per span and no join of them
            # (4.5 against 6.0 ms of CPU for 2,000 rows at 1M; the system calls are the rest).
            spans = np.empty((int(lengths.sum()), dims), dtype="<f2")
            view = memoryview(spans).cast("B")
            for at, n, start in zip((base * size).tolist(), (lengths * size).tolist(), (offset + starts * size).tolist()):
                _PREADV(fd, [view[at : at + n]], start)
        else:
            blob = b"".join([os.pread(fd, n, start) for n, start in zip((lengths * size).tolist(),
                                                                        (offset + starts * size).tolist())])
            spans = np.frombuffer(blob, dtype="<f2").reshape(-1, dims)
        if len(spans) == len(rows):
            return spans
        run = np.searchsorted(starts, rows, side="right") - 1
        return spans[base[run] + rows - starts[run]]

    # -- search -------------------------------------------------------------------
    def candidates(self, query: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Rows (ascending) to score exactly for `query` among those in `mask` (see the docstring).
        The same shortlist whatever k: a shortlist scaled down to a write's 30 candidates saved ~2 ms a write
        at 100k rows but cut the vector search's recall@10 at 100k from 0.991 to 0.936 for small k."""
        in_scope = int(np.count_nonzero(mask))
        keep = max(FLOOR, int(NARROW * in_scope))
        if in_scope <= max(keep, EXACT_ROWS):
            return np.flatnonzero(mask)
        n = len(mask)
        bits = self.column("bits", n)
        qbits = np.packbits(query > self.mean)
        # Distances as bincount takes them (intp: no conversion of a million of them there).
        if _simd is not None:
            # float32 distances (whole numbers, exact), compared as they are: 1.7 ms less at a million rows than
            # converting them all to intp (only bincount needs integers).
            dist = np.asarray(_simd.cdist(qbits, bits, metric="hamming", dtype="bin8", out_dtype="float32")).ravel()
        else:
            dist = np.unpackbits(bits ^ qbits, axis=1).sum(axis=1, dtype=np.intp)
        # Out of scope: one past the largest distance, and the cut below never reaches it (a scope of
        # every row skips the write).
        beyond = 8 * bits.shape[1] + 1
        if in_scope < n:
            dist[~mask] = beyond
        wide = max(keep, WIDE_ROWS, int(WIDE * in_scope))
        # Integer distances: a histogram finds the cut that keeps >= wide rows (argpartition
        # over a million distances costs several times more).
        counts = np.bincount(dist.astype(np.intp, copy=False), minlength=beyond + 1).cumsum()
        cut = min(int(np.searchsorted(counts, wide)), beyond - 1)
        rows = np.flatnonzero(dist <= cut)
        if len(rows) > keep:
            rows = np.sort(rows[np.argpartition(-self._asymmetric(query, bits, rows), keep - 1)[:keep]])
        return rows

    def _asymmetric(self, query: np.ndarray, bits: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """(q - mean) . sign(v - mean) per row, by a table of the query's sums per code byte."""
        nbytes = bits.shape[1]
        q = np.zeros(8 * nbytes, dtype=np.float32)
        q[: self.dims] = query - self.mean
        patterns = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1).astype(np.float32)  # MSB first
        table = q.reshape(nbytes, 8) @ patterns.T  # nbytes x 256
        # table[byte, bits[row, byte]] for every row and byte: one flat take (with uint16 offsets) costs
        # ~2/3 of the two-axis fancy index it replaces (7 against 11 ms for 20,000 rows at 1M), same values.
        offsets = np.arange(0, 256 * nbytes, 256, dtype=np.uint16 if nbytes <= 256 else np.intp)
        # np.take of the rows rather than bits[rows]: the same bytes, ~1.5 ms less for 20,000 rows at 1M.
        return table.ravel().take(np.take(bits, rows, axis=0) + offsets).sum(axis=1)

    def score(self, query: np.ndarray, rows: np.ndarray, keep: bool = False) -> np.ndarray:
        """Cosine of the query to each row's float16 vector (-inf for a zero vector); `keep`: read_half's."""
        vectors = self.read_half(rows, keep)
        if not len(vectors):
            return np.zeros(0)
        if _simd is not None:
            dist = np.asarray(_simd.cdist(query.astype(np.float16), vectors, metric="cosine", dtype="float16")).ravel()
            sims = 1.0 - dist
            zero = sims == 0.0  # SimSIMD gives a zero vector distance 1: check those rows only
            if zero.any():
                at = np.flatnonzero(zero)
                zero[at] = ~(vectors[at].view(np.uint16) & 0x7FFF).any(axis=1)
        else:
            vectors = vectors.astype(np.float32)
            norms = np.linalg.norm(vectors, axis=1) * float(np.linalg.norm(query))
            with np.errstate(divide="ignore", invalid="ignore"):
                sims = (vectors @ query) / norms
            zero = norms == 0
        return np.where(zero, -np.inf, sims)


def fit_mean(sample: np.ndarray, dims: int) -> np.ndarray:
    return sample.mean(axis=0).astype(np.float32) if len(sample) else np.zeros(dims, dtype=np.float32)
