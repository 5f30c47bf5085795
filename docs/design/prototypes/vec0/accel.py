"""A shared, memory-mapped sign-bit file in front of vec0: speed of each stage at 1M (numpy).

The file (see write_bits) holds, for every live vector of a namespace, its memory id (int64) and
the sign bits of (vector - mean) (48 bytes for 384 dims); the mean is fitted on a sample and kept
in the header. Every process maps it read-only, so its pages are shared through the page cache.
A search:
  1. Hamming distance of the query's bits to every row: XOR + popcount over six uint64 words
     (np.bitwise_count), the best R rows by argpartition;
  2. exact re-scoring of those R rows: their float32 vectors and metadata read from vec0 by
     memory_id (point lookups), cosine in NumPy, the filters applied, top k.
Stages are timed separately at several R, and the reading of every vector out of vec0 (the cost
of building the file from scratch) is timed once.

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

MAGIC = b"MVBITS01"
HEADER = 4096  # magic, count, dims, change-log seq; then the mean (float32 x dims)


def write_bits(path: Path, ids: np.ndarray, vectors: np.ndarray, mean: np.ndarray, seq: int) -> None:
    words = DIMS // 64
    codes = np.packbits(vectors > mean, axis=1).view(np.uint64).reshape(len(ids), words)
    tmp = Path(str(path) + ".tmp")
    with open(tmp, "wb") as f:
        head = MAGIC + struct.pack("<qqq", len(ids), DIMS, seq) + mean.astype("<f4").tobytes()
        f.write(head.ljust(HEADER, b"\0"))
        f.write(ids.astype("<i8").tobytes())
        f.write(codes.tobytes())
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)  # readers keep their old mapping until they re-open: never a torn file


class BitFile:
    def __init__(self, path: Path) -> None:
        self.f = open(path, "rb")
        self.map = mmap.mmap(self.f.fileno(), 0, access=mmap.ACCESS_READ)
        magic = self.map[:8]
        assert magic == MAGIC, magic
        self.count, dims, self.seq = struct.unpack("<qqq", self.map[8:32])
        self.mean = np.frombuffer(self.map, dtype="<f4", count=dims, offset=32)
        self.ids = np.frombuffer(self.map, dtype="<i8", count=self.count, offset=HEADER)
        self.codes = np.frombuffer(self.map, dtype=np.uint64, count=self.count * (dims // 64),
                                   offset=HEADER + 8 * self.count).reshape(self.count, dims // 64)

    def nearest(self, query: np.ndarray, r: int) -> np.ndarray:
        q = np.packbits(query > self.mean).view(np.uint64)
        dist = np.bitwise_count(self.codes ^ q).sum(axis=1, dtype=np.uint16)
        top = np.argpartition(dist, r - 1)[:r]
        return self.ids[top]


def rescore(conn, ids: np.ndarray, query: np.ndarray, k: int, thread: str | None = None):
    rows = conn.execute(
        "SELECT memory_id, embedding, thread, deleted FROM vec_memories WHERE memory_id IN "
        "(SELECT value FROM json_each(?))", (json.dumps(ids.tolist()),)).fetchall()
    keep = [r for r in rows if r[3] == 0 and (thread is None or r[2] in (thread, ""))]
    if not keep:
        return []
    matrix = np.frombuffer(b"".join(r[1] for r in keep), dtype=np.float32).reshape(len(keep), DIMS)
    sims = matrix @ query / (np.linalg.norm(matrix, axis=1) * np.linalg.norm(query))
    top = np.argsort(-sims)[:k]
    return [(keep[i][0], 1.0 - float(sims[i])) for i in top]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("db")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--r", default="1000,2000,5000,10000")
    args = ap.parse_args()
    conn = connect(args.db, cache_mb=8)
    bits_path = Path(args.db + ".bits")
    result: dict = {"store": args.db}
    t0 = time.perf_counter()
    ids, blobs = [], []
    for memory_id, blob in conn.execute("SELECT memory_id, embedding FROM vec_memories WHERE deleted = 0"):
        ids.append(memory_id)
        blobs.append(blob)
    read_s = time.perf_counter() - t0
    vectors = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(ids), DIMS)
    del blobs
    sample = vectors[np.linspace(0, len(ids) - 1, min(len(ids), 20_000)).astype(np.int64)]
    t1 = time.perf_counter()
    write_bits(bits_path, np.asarray(ids), vectors, sample.mean(axis=0), seq=0)
    write_s = time.perf_counter() - t1
    result.update(rows=len(ids), read_all_vectors_from_vec0_s=round(read_s, 1), write_bit_file_s=round(write_s, 2),
                  bit_file_bytes=bits_path.stat().st_size)
    print(json.dumps(result), flush=True)
    del vectors
    bitfile = BitFile(bits_path)
    queries = [q.astype(np.float32) for q in scale_queries()]
    exact = {i: [m for m, _ in conn.execute(
        "SELECT memory_id, distance FROM vec_memories WHERE embedding MATCH ? AND k = 10 AND namespace = 'default' "
        "AND deleted = 0", (q,)).fetchall()] for i, q in enumerate(queries)} if args.rounds else {}
    for r in (int(x) for x in args.r.split(",")):
        bitfile.nearest(queries[0], r)
        scan, res, total, hits = [], [], [], 0
        for _ in range(args.rounds):
            for i, q in enumerate(queries):
                t_scan, cand = timed(lambda: bitfile.nearest(q, r))
                t_res, top = timed(lambda: rescore(conn, cand, q, 50))
                scan.append(t_scan)
                res.append(t_res)
                total.append(t_scan + t_res)
                hits += len(set(exact[i]) & {m for m, _ in top[:10]})
        result[f"R={r}"] = {"scan": summary(scan), "rescore": summary(res), "total": summary(total),
                            "recall_at_10_vs_vec0_exact": round(hits / (10 * len(total)), 3)}
        print(r, json.dumps(result[f"R={r}"]), flush=True)
    print(write_result(f"accel-{Path(args.db).stem}", result))


if __name__ == "__main__":
    main()
