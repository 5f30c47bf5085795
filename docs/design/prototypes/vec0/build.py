"""Build scratch vec0 stores of synthetic vectors (bench/scale.py's mixtures) for the latency runs.

Layouts (DDL in `ddl`):
  meta  namespace partition key; thread, kind, deleted, created_at metadata columns (the brief's layout)
  part  namespace AND thread partition keys; kind, deleted, created_at metadata
Options: --bit adds a `embedding_bit bit[384]` column (sign bits), --int8 an `embedding_i8 int8[384]`
column (vec_quantize_int8 'unit' scaling), --chunk-size sets vec0's chunk_size (default 1024).
Rows: ids 1..n, thread project-(i % threads), kind "decision" for 5% else "note", 1% deleted (i % 97 == 3),
created_at = i seconds; inserted in 20,000-row transactions.

    python build.py --rows 1000000 --layout meta --bit --out /tmp/vec0-research/meta-1m.db
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from common import DIMS, SCRATCH, connect, synthetic


def ddl(layout: str, bit: bool, int8: bool, chunk_size: int | None, table: str = "vec_memories") -> str:
    cols = ["memory_id INTEGER PRIMARY KEY", f"embedding FLOAT[{DIMS}] distance_metric=cosine"]
    if bit:
        cols.append(f"embedding_bit BIT[{DIMS}]")
    if int8:
        cols.append(f"embedding_i8 INT8[{DIMS}] distance_metric=cosine")
    cols.append("namespace TEXT PARTITION KEY")
    cols.append("thread TEXT PARTITION KEY" if layout == "part" else "thread TEXT")
    cols += ["kind TEXT", "deleted INTEGER", "created_at INTEGER"]
    if chunk_size:
        cols.append(f"chunk_size={chunk_size}")
    return f"CREATE VIRTUAL TABLE {table} USING vec0(" + ", ".join(cols) + ")"


def insert_sql(bit: bool, int8: bool, table: str = "vec_memories") -> str:
    names = ["memory_id", "embedding"] + (["embedding_bit"] if bit else []) + (["embedding_i8"] if int8 else [])
    names += ["namespace", "thread", "kind", "deleted", "created_at"]
    values = ["?", "?"] + (["vec_quantize_binary(vec_f32(?))"] if bit else []) \
        + (["vec_quantize_int8(vec_f32(?), 'unit')"] if int8 else []) + ["?"] * 5
    return f"INSERT INTO {table}({', '.join(names)}) VALUES ({', '.join(values)})"


def row_meta(i: int, threads: int) -> tuple:
    kind = "decision" if i % 20 == 7 else "note"
    return ("default", f"project-{i % threads}", kind, 1 if i % 97 == 3 else 0, i * 1000)


def build(path: Path, vectors: np.ndarray, layout: str, bit: bool, int8: bool, chunk_size: int | None,
          threads: int = 200, batch: int = 20_000) -> dict:
    path.parent.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    conn = connect(path)
    conn.execute(ddl(layout, bit, int8, chunk_size))
    sql = insert_sql(bit, int8)
    t0 = time.perf_counter()
    n = len(vectors)
    # With the thread as a partition key every thread has its own chunks: inserting round-robin
    # over 200 threads rewrites 200 different 1.5 MB chunk blobs in turn and ran at ~1,000 rows/s
    # (killed after 15 minutes at 1M). Real captures arrive a thread at a time, so that layout is
    # built thread by thread (the order does not change what a partition holds).
    order = sorted(range(n), key=lambda j: ((j + 1) % threads, j)) if layout == "part" else range(n)
    for start in range(0, n, batch):
        rows = []
        for j in order[start : start + batch]:
            v = vectors[j].tobytes()
            rows.append((j + 1, v, *([v] if bit else []), *([v] if int8 else []), *row_meta(j + 1, threads)))
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany(sql, rows)
        conn.execute("COMMIT")
    build_s = time.perf_counter() - t0
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    tables = dict(conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC").fetchall())
    conn.close()
    return {"path": str(path), "rows": n, "layout": layout, "bit": bit, "int8": int8, "chunk_size": chunk_size,
            "build_s": round(build_s, 1), "rows_per_s": round(n / build_s), "file_bytes": path.stat().st_size,
            "tables": tables}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, required=True)
    ap.add_argument("--layout", choices=("meta", "part"), default="meta")
    ap.add_argument("--bit", action="store_true")
    ap.add_argument("--int8", action="store_true")
    ap.add_argument("--chunk-size", type=int, default=None)
    ap.add_argument("--threads", type=int, default=200)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    out = Path(args.out or SCRATCH / f"{args.layout}-{args.rows}.db")
    vectors = synthetic(args.rows, seed=args.rows)
    info = build(out, vectors, args.layout, args.bit, args.int8, args.chunk_size, args.threads)
    Path(str(out) + ".json").write_text(json.dumps(info, indent=2))
    print(json.dumps({k: v for k, v in info.items() if k != "tables"}), {k: v for k, v in list(info["tables"].items())[:6]})


if __name__ == "__main__":
    main()
