"""A shared, memory-mapped sidecar in front of vec0 and the speed of each search stage at 1M.

The sidecar (one file per namespace, beside the database) is derived from vec0 and never needed
for correctness. It holds, for each live vector, in row order:
  ids    int64                    the memory id (-1: a tombstone)
  bits   6 x uint64               sign bits of (vector - mean): a 48-byte code
  proj   PDIMS x uint8            the vector projected on the top PDIMS principal directions of a
                                  sample, quantised to int8 (+128, so ONNX Runtime's u8 x i8
                                  MatMulInteger can scan it)
  full   384 x int8               every dimension quantised to int8 (per-dimension scale)
  half   384 x float16            the vector in half precision (cosine error ~1e-4)
and a header (mean, basis, scales, row count, the change-log position it reflects).
Every process maps it read-only; its pages are shared through the page cache.

The search recommended in docs/design/vec0-index.md is `recommended()` (sign-bit Hamming with
SimSIMD, asymmetric bit score, float16 rows by pread). This script's main() measured the first
candidates, in this order:
  1. coarse: rank every row by the projection (`proj`, ONNX Runtime MatMulInteger, one thread) or by
     the sign bits (`bits`, NumPy XOR + popcount), keep the best R;
  2. refine: rank those R by the full int8 (or float16) vectors (a gather of R rows), keep the best M;
  3. (planned) exact: the M float32 vectors from vec0 by memory id. Measured apart, as the cost of
     one vec0 point lookup: at 1M it is far too slow to sit on the query path (see the design note),
     so the float16 stage's cosines are the final ones.
Each stage is timed at several R on the store's 22 real queries; recall@10 is against vec0's exact
KNN of the same queries (whose latency is recorded too). The time to build the sidecar from vec0 is
measured once.

    python accel.py /tmp/vec0-research/meta-1000000.db
"""

from __future__ import annotations

import argparse
import json
import mmap
import os
import struct
import time
from pathlib import Path

import numpy as np

from common import DIMS, connect, scale_queries, summary, timed, write_result

MAGIC = b"MVSIDE01"
PDIMS = 96
HEADER = 1 << 20  # magic + counts, then mean, basis, scales (float32): < 1 MB
WORDS = DIMS // 64


def layout(count: int) -> dict[str, int]:
    """Byte offset of each section for `count` rows."""
    off = {"ids": HEADER}
    off["bits"] = off["ids"] + 8 * count
    off["proj"] = off["bits"] + 8 * WORDS * count
    off["full"] = off["proj"] + PDIMS * count
    off["half"] = off["full"] + DIMS * count
    off["end"] = off["half"] + 2 * DIMS * count
    return off


def fit(sample: np.ndarray) -> dict[str, np.ndarray]:
    mean = sample.mean(axis=0).astype(np.float32)
    _, vecs = np.linalg.eigh(sample.T @ sample)
    basis = np.ascontiguousarray(vecs[:, ::-1][:, :PDIMS], dtype=np.float32)
    pscale = (np.abs(sample @ basis).max(axis=0) / 127).astype(np.float32)
    scale = (np.abs(sample).max(axis=0) / 127).astype(np.float32)
    return {"mean": mean, "basis": basis, "pscale": pscale, "scale": scale}


def encode(vectors: np.ndarray, model: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    bits = np.packbits(vectors > model["mean"], axis=1).view(np.uint64).reshape(len(vectors), WORDS)
    proj = (np.clip(np.rint((vectors @ model["basis"]) / model["pscale"]), -127, 127) + 128).astype(np.uint8)
    full = np.clip(np.rint(vectors / model["scale"]), -127, 127).astype(np.int8)
    return bits, proj, full


def write_sidecar(path: Path, ids: np.ndarray, vectors: np.ndarray, model: dict[str, np.ndarray], seq: int) -> None:
    n = len(ids)
    off = layout(n)
    tmp = Path(str(path) + ".tmp")
    with open(tmp, "wb") as f:
        head = MAGIC + struct.pack("<qqqq", n, DIMS, PDIMS, seq)
        head += b"".join(model[k].astype("<f4").tobytes() for k in ("mean", "basis", "pscale", "scale"))
        f.write(head.ljust(HEADER, b"\0"))
        f.write(ids.astype("<i8").tobytes())
        for start in range(0, n, 100_000):  # blocks: no second full-size temporary
            bits, proj, full = encode(vectors[start : start + 100_000], model)
            f.seek(off["bits"] + start * 8 * WORDS)
            f.write(bits.tobytes())
            f.seek(off["proj"] + start * PDIMS)
            f.write(proj.tobytes())
            f.seek(off["full"] + start * DIMS)
            f.write(full.tobytes())
            f.seek(off["half"] + start * 2 * DIMS)
            f.write(vectors[start : start + 100_000].astype("<f2").tobytes())
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)  # a reader keeps its old mapping until it re-opens: never a torn file


def _matmul_u8i8():
    import onnxruntime as ort
    from onnx import TensorProto, helper

    a = helper.make_tensor_value_info("A", TensorProto.UINT8, ["N", PDIMS])
    b = helper.make_tensor_value_info("B", TensorProto.INT8, [PDIMS, 1])
    y = helper.make_tensor_value_info("Y", TensorProto.INT32, ["N", 1])
    graph = helper.make_graph([helper.make_node("MatMulInteger", ["A", "B"], ["Y"])], "scan", [a, b], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])


class Sidecar:
    def __init__(self, path: Path) -> None:
        self.f = open(path, "rb")
        self.map = mmap.mmap(self.f.fileno(), 0, access=mmap.ACCESS_READ)
        assert self.map[:8] == MAGIC
        self.count, dims, pdims, self.seq = struct.unpack("<qqqq", self.map[8:40])
        at = 40
        model = {}
        for key, size in (("mean", dims), ("basis", dims * pdims), ("pscale", pdims), ("scale", dims)):
            model[key] = np.frombuffer(self.map, dtype="<f4", count=size, offset=at)
            at += 4 * size
        model["basis"] = model["basis"].reshape(dims, pdims)
        self.model = model
        off = layout(self.count)
        n = self.count
        self.ids = np.frombuffer(self.map, dtype="<i8", count=n, offset=off["ids"])
        self.bits = np.frombuffer(self.map, dtype=np.uint64, count=n * WORDS, offset=off["bits"]).reshape(n, WORDS)
        self.proj = np.frombuffer(self.map, dtype=np.uint8, count=n * PDIMS, offset=off["proj"]).reshape(n, PDIMS)
        self.full = np.frombuffer(self.map, dtype=np.int8, count=n * DIMS, offset=off["full"]).reshape(n, DIMS)
        self.half = np.frombuffer(self.map, dtype="<f2", count=n * DIMS, offset=off["half"]).reshape(n, DIMS)
        self._off = off
        self._session = None

    def coarse(self, query: np.ndarray, r: int, how: str) -> np.ndarray:
        """Row numbers of the best r rows by the projection ('proj') or the sign bits ('bits' in
        NumPy, 'bits_simd' with SimSIMD's Hamming kernel and a counting selection)."""
        if how == "bits_simd":
            import simsimd

            q = np.packbits(query > self.model["mean"])
            dist = np.asarray(simsimd.cdist(q, self.bits.view(np.uint8), metric="hamming", dtype="bin8")).ravel()
            # Distances are integers 0..384: a histogram finds the cut that keeps >= r rows,
            # instead of argpartition over a million floats (5x dearer here).
            cut = int(np.searchsorted(np.bincount(dist.astype(np.int64), minlength=DIMS + 1).cumsum(), r))
            return np.flatnonzero(dist <= cut)
        if how == "proj_simd":  # int8 projection through SimSIMD's int8 dot product
            import simsimd

            qp = query @ self.model["basis"] * self.model["pscale"]
            qi = np.clip(np.rint(qp / (np.abs(qp).max() / 127)), -127, 127).astype(np.int8)
            if not hasattr(self, "_proj_i8"):  # the file stores +128 (for ONNX Runtime's u8 input)
                self._proj_i8 = (self.proj.astype(np.int16) - 128).astype(np.int8)  # a private copy: test only
            score = np.asarray(simsimd.cdist(qi, self._proj_i8, metric="dot", dtype="int8")).ravel()
            return np.argpartition(-score, r - 1)[:r]
        if how == "proj":
            if self._session is None:
                self._session = _matmul_u8i8()
            qp = query @ self.model["basis"] * self.model["pscale"]
            qi = np.clip(np.rint(qp / (np.abs(qp).max() / 127)), -127, 127).astype(np.int8).reshape(PDIMS, 1)
            score = self._session.run(None, {"A": self.proj, "B": qi})[0].ravel()
            return np.argpartition(-score, r - 1)[:r]
        q = np.packbits(query > self.model["mean"]).view(np.uint64)
        dist = np.bitwise_count(self.bits[:, 0] ^ q[0]).astype(np.uint16)
        for j in range(1, WORDS):
            dist += np.bitwise_count(self.bits[:, j] ^ q[j])
        return np.argpartition(dist, r - 1)[:r]

    def refine(self, query: np.ndarray, rows: np.ndarray, m: int, how: str = "int8"):
        """(memory ids, scores) of the best m of `rows` by the int8 or float16 vectors.

        The gathered pages are then dropped from this process's page tables (MADV_DONTNEED on a
        shared file mapping only unmaps them; they stay in the page cache), so RSS does not creep
        up to the whole file over many queries.
        """
        rows = np.sort(rows)  # ascending offsets: the gather walks the file forwards
        if how == "half_simd":
            import simsimd

            score = 1.0 - np.asarray(simsimd.cdist(query.astype(np.float16), self.half[rows], metric="cosine",
                                                   dtype="float16")).ravel()
        elif how == "int8":
            score = self.full[rows].astype(np.float32) @ (query * self.model["scale"])
        else:
            score = self.half[rows].astype(np.float32) @ query
        start = self._off["full"] - self._off["full"] % mmap.PAGESIZE
        self.map.madvise(mmap.MADV_DONTNEED, start, self._off["end"] - start)
        keep = np.argpartition(-score, min(m, len(rows)) - 1)[:m] if len(rows) > m else np.arange(len(rows))
        ids = self.ids[rows[keep]]
        live = ids >= 0
        return ids[live], score[keep][live]


def exact(conn, ids: np.ndarray, query: np.ndarray, k: int, thread: str | None = None):
    """vec0's float32 vectors and metadata of these ids: filters applied, exact cosine, top k.

    One `memory_id = ?` lookup per id: `memory_id IN (SELECT value FROM json_each(?))` (or a literal
    IN list) makes SQLite scan the whole vec0 table (EXPLAIN: SCAN ... INDEX 0:1).
    """
    sql = "SELECT memory_id, embedding, thread, deleted FROM vec_memories WHERE memory_id = ?"
    rows = [conn.execute(sql, (int(i),)).fetchone() for i in ids]
    keep = [r for r in rows if r is not None and r[3] == 0 and (thread is None or r[2] in (thread, ""))]
    if not keep:
        return []
    matrix = np.frombuffer(b"".join(r[1] for r in keep), dtype=np.float32).reshape(len(keep), DIMS)
    sims = matrix @ query / (np.linalg.norm(matrix, axis=1) * np.linalg.norm(query))
    top = np.argsort(-sims)[:k]
    return [(keep[i][0], 1.0 - float(sims[i])) for i in top]


def search(side: Sidecar, conn, query: np.ndarray, k: int, r: int, m: int = 100, how: str = "proj",
           refine: str = "int8"):
    """All threads: projection scan -> best r -> int8 -> best m -> exact float32 from vec0 -> top k."""
    ids, _ = side.refine(query, side.coarse(query, r, how), m, refine)
    return exact(conn, ids, query, k)


def asymmetric(side: Sidecar, query: np.ndarray, rows: np.ndarray, keep: int) -> np.ndarray:
    """The best `keep` of `rows` by (query - mean) . sign(row - mean), read from the resident bit codes.

    The float query against the ±1 codes is far closer to the cosine order than Hamming (0.991 vs
    0.941 of the true top 10 at 0.2% on real vectors). Computed with a table per query: for each of
    the 48 code bytes, the sum of the query's components over every bit pattern (48 x 256 floats).
    """
    q = (query - side.model["mean"]).astype(np.float32).reshape(48, 8)
    patterns = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1).astype(np.float32)  # 256 x 8, MSB first
    table = 2.0 * (q @ patterns.T)  # 48 x 256: sum over set bits, doubled; minus sum(q) is constant
    codes = side.bits.view(np.uint8)[rows]  # len(rows) x 48, from the resident section
    score = table[np.arange(48), codes].sum(axis=1)
    return rows[np.argpartition(-score, keep - 1)[:keep]] if len(rows) > keep else rows


def refine_pread(side: Sidecar, fd: int, query: np.ndarray, rows: np.ndarray):
    """(memory ids, cosines) of rows from their float16 vectors read with one pread each: no page
    is mapped into this process (RSS stays flat), nothing to unmap afterwards."""
    import simsimd

    rows = np.sort(rows)
    size, base = 2 * DIMS, side._off["half"]
    blob = b"".join([os.pread(fd, size, base + int(i) * size) for i in rows])
    half = np.frombuffer(blob, dtype="<f2").reshape(len(rows), DIMS)
    sims = 1.0 - np.asarray(simsimd.cdist(query.astype(np.float16), half, metric="cosine", dtype="float16")).ravel()
    ids = side.ids[rows]
    live = ids >= 0
    return ids[live], sims[live]


def recommended(side: Sidecar, fd: int, query: np.ndarray, k: int, wide: float = 0.02, narrow: float = 0.002,
                floor: int = 1000):
    """The recommended all-threads search (docs/design/vec0-index.md):
    1. Hamming distance of every row's sign bits (SimSIMD), the best `wide` share by a counting cut;
    2. the asymmetric bit score of those, the best `narrow` share (at least `floor` rows);
    3. their float16 vectors by pread, cosine (SimSIMD); top k as (memory id, cosine distance)."""
    n = side.count
    rows = side.coarse(query, min(n, max(floor, int(wide * n))), "bits_simd")
    rows = asymmetric(side, query, rows, min(len(rows), max(floor, int(narrow * n))))
    ids, sims = refine_pread(side, fd, query, rows)
    order = np.argsort(-sims)[:k]
    return [(int(ids[i]), 1.0 - float(sims[i])) for i in order]


def build_from_vec0(conn, path: Path) -> dict:
    t0 = time.perf_counter()
    ids, blobs = [], []
    for memory_id, blob in conn.execute("SELECT memory_id, embedding FROM vec_memories WHERE deleted = 0"):
        ids.append(memory_id)
        blobs.append(blob)
    read_s = time.perf_counter() - t0
    vectors = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(ids), DIMS)
    del blobs
    t1 = time.perf_counter()
    model = fit(vectors[np.linspace(0, len(ids) - 1, min(len(ids), 20_000)).astype(np.int64)])
    write_sidecar(path, np.asarray(ids), vectors, model, seq=0)
    return {"rows": len(ids), "read_all_vectors_from_vec0_s": round(read_s, 1),
            "fit_and_write_s": round(time.perf_counter() - t1, 1), "sidecar_bytes": path.stat().st_size,
            "bytes_per_row": round(path.stat().st_size / len(ids), 1)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("db")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--r", default="2000,5000,10000,20000")
    ap.add_argument("--m", type=int, default=50, help="rows the refine stage keeps")
    ap.add_argument("--mmap", type=int, default=0, help="PRAGMA mmap_size in MB for the vec0 reads")
    ap.add_argument("--reuse", action="store_true", help="keep an existing sidecar")
    args = ap.parse_args()
    conn = connect(args.db, cache_mb=8)
    conn.execute(f"PRAGMA mmap_size = {args.mmap << 20}")
    path = Path(args.db + ".side")
    result: dict = {"store": args.db, "m": args.m, "mmap_mb": args.mmap}
    if not (args.reuse and path.exists()):
        result["build"] = build_from_vec0(conn, path)
        print(json.dumps(result["build"]), flush=True)
    side = Sidecar(path)
    queries = [q.astype(np.float32) / np.linalg.norm(q) for q in scale_queries()]
    exact_top, vec0_ms = {}, []
    for i, q in enumerate(queries):  # vec0's own exact KNN: the reference, and its latency
        t, rows = timed(lambda: conn.execute(
            "SELECT memory_id FROM vec_memories WHERE embedding MATCH ? AND k = 10 AND namespace = 'default' "
            "AND deleted = 0", (q,)).fetchall())
        exact_top[i] = {r[0] for r in rows}
        vec0_ms.append(t)
    result["vec0_exact_k10_all_threads"] = summary(vec0_ms)
    print("vec0 exact", result["vec0_exact_k10_all_threads"], flush=True)
    # vec0 by memory id: each lookup opens the row's chunk blob and walks its overflow chain.
    rng = np.random.default_rng(0)
    lookups = []
    for memory_id in rng.integers(1, side.count, size=20):
        t, _ = timed(lambda: conn.execute("SELECT embedding FROM vec_memories WHERE memory_id = ?",
                                          (int(memory_id),)).fetchone())
        lookups.append(t)
    result["vec0_point_lookup_ms"] = summary(lookups)
    print("vec0 point lookup", result["vec0_point_lookup_ms"], flush=True)
    for how, refine in (("proj", "half"), ("proj", "int8"), ("bits", "half")):
        for r in (int(x) for x in args.r.split(",")):
            side.refine(queries[0], side.coarse(queries[0], r, how), 50, refine)
            stages = {"coarse": [], "refine": [], "total": []}
            hits = 0
            for _ in range(args.rounds):
                for i, q in enumerate(queries):
                    t1, rows = timed(lambda: side.coarse(q, r, how))
                    t2, _ = timed(lambda: side.refine(q, rows, 50, refine))
                    for key, t in (("coarse", t1), ("refine", t2), ("total", t1 + t2)):
                        stages[key].append(t)
                    t2_ids, t2_scores = side.refine(q, rows, 50, refine)
                    hits += len(exact_top[i] & set(t2_ids[np.argsort(-t2_scores)][:10].tolist()))
            row = {key: summary(v) for key, v in stages.items()}
            row["recall_at_10_vs_exact"] = round(hits / (10 * len(stages["total"])), 3)
            result[f"{how}+{refine} R={r}"] = row
            print(how, refine, r, {k: (v["p50"], v["p95"]) if isinstance(v, dict) else v for k, v in row.items()},
                  flush=True)
    print(write_result(f"accel-{Path(args.db).stem}" + (f"-mmap{args.mmap}" if args.mmap else ""), result))


if __name__ == "__main__":
    main()
