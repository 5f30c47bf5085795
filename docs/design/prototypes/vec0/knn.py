"""vec0 KNN latency (p50/p95, k=50) on a store built by build.py: all threads, one thread, filters.

Cases (each a single SQL statement, filters inside the KNN):
  all        namespace = ?, deleted = 0                                  (every thread)
  thread     + thread IN (?, '')  (meta layout)  /  thread = ? twice, merged  (part layout)
  kind       + kind = 'decision'  (5% of rows)
  recent     + created_at >= (newest 10%)
  all_nofilt no condition but the vector (the scan alone)
  lookup10   ten vectors read by memory_id = ? (what exact re-scoring from vec0 would cost)
  in_json_one_id  one vector by memory_id IN (SELECT value FROM json_each(?)) (a full scan)
Bit / int8 columns (when built): the same `all` and `thread` cases on the quantised column, then exact
re-scoring of the candidates by `memory_id IN (...)` on the float column (see rescore()).
Queries: the scale benchmark's 22 real questions embedded by MiniLM, `--rounds` times each.

    python knn.py /tmp/vec0-research/meta-1000000.db --rounds 2
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import numpy as np

from common import connect, scale_queries, summary, timed, write_result

K = 50


def knn(conn, column: str, query, k: int, where: str = "", params: tuple = ()) -> list[tuple[int, float]]:
    sql = (f"SELECT memory_id, distance FROM vec_memories WHERE {column} MATCH ? AND k = ? "
           f"AND namespace = 'default' AND deleted = 0 {where}")
    return conn.execute(sql, (query, k, *params)).fetchall()


def thread_knn(conn, layout: str, column: str, query, k: int, thread: str) -> list[tuple[int, float]]:
    if layout == "meta":
        return knn(conn, column, query, k, "AND thread IN (?, '')", (thread,))
    # Partition keys take `=` only: one KNN per partition, merged (each is exact, so the merge is).
    rows = knn(conn, column, query, k, "AND thread = ?", (thread,)) + knn(conn, column, query, k, "AND thread = ''")
    return sorted(rows, key=lambda r: (r[1], r[0]))[:k]


def rescore(conn, candidates: list[int], query: np.ndarray, k: int) -> list[tuple[int, float]]:
    """Exact cosine of the candidates from the float column (a KNN restricted by memory_id IN)."""
    sql = ("SELECT memory_id, distance FROM vec_memories WHERE embedding MATCH ? AND k = ? "
           "AND memory_id IN (SELECT value FROM json_each(?))")
    return conn.execute(sql, (query, k, json.dumps(candidates))).fetchall()


def quant_query(conn, column: str, query: np.ndarray) -> bytes:
    fn = "vec_quantize_binary" if column == "embedding_bit" else "vec_quantize_int8"
    extra = "" if column == "embedding_bit" else ", 'unit'"
    return conn.execute(f"SELECT {fn}(vec_f32(?){extra})", (query.tobytes(),)).fetchone()[0]


def quant_knn(conn, layout: str, column: str, query: np.ndarray, k: int, candidates: int, thread: str | None):
    q = quant_query(conn, column, query)
    sql_col = f"{column} MATCH vec_{'bit' if column == 'embedding_bit' else 'int8'}(?)"
    base = (f"SELECT memory_id FROM vec_memories WHERE {sql_col} AND k = ? AND namespace = 'default' "
            "AND deleted = 0")
    if thread is None:
        ids = [r[0] for r in conn.execute(base, (q, candidates))]
    else:
        ids = [r[0] for r in conn.execute(base + " AND thread IN (?, '')", (q, candidates, thread))]
    return rescore(conn, ids, query, k)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("db")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--cases", default="all,thread,kind,recent,all_nofilt,lookup10")
    ap.add_argument("--candidates", default="400,1000,4096")
    ap.add_argument("--mmap", type=int, default=0, help="PRAGMA mmap_size in MB (0: SQLite reads with pread)")
    ap.add_argument("--name", default=None)
    ap.add_argument("--queries", type=int, default=22, help="how many of the 22 queries (1M scans take seconds)")
    ap.add_argument("--cache-mb", type=int, default=8)
    args = ap.parse_args()
    info = json.loads(Path(args.db + ".json").read_text())
    conn = connect(args.db, cache_mb=args.cache_mb)
    conn.execute(f"PRAGMA mmap_size = {args.mmap * 1024 * 1024}")
    layout, n, threads = info["layout"], info["rows"], 200
    queries = [q.astype(np.float32) for q in scale_queries()][: args.queries]
    newest = n * 1000 * 9 // 10
    _rng = np.random.default_rng(7)
    cases = {
        "all": lambda q, r: knn(conn, "embedding", q, K),
        "thread": lambda q, r: thread_knn(conn, layout, "embedding", q, K, f"project-{(r * 7 + 3) % threads}"),
        "kind": lambda q, r: knn(conn, "embedding", q, K, "AND kind = 'decision'"),
        "recent": lambda q, r: knn(conn, "embedding", q, K, "AND created_at >= ?", (newest,)),
        # One vector by memory id (what exact re-scoring needs): vec0 opens the row's chunk blob
        # and walks its overflow pages to the row's offset. Ten different ids per call.
        "lookup10": lambda q, r: [conn.execute("SELECT embedding FROM vec_memories WHERE memory_id = ?",
                                               (int(i),)).fetchone() for i in _rng.integers(1, n, size=10)],
        # The same by `memory_id IN (SELECT value FROM json_each(?))` with ONE id: SQLite hands vec0
        # no usable constraint for it and scans every row (EXPLAIN: SCAN ... VIRTUAL TABLE INDEX 0:1).
        "in_json_one_id": lambda q, r: conn.execute(
            "SELECT memory_id, embedding FROM vec_memories WHERE memory_id IN (SELECT value FROM json_each(?))",
            (json.dumps([int(_rng.integers(1, n))]),)).fetchall(),
        "all_nofilt": lambda q, r: conn.execute(
            "SELECT memory_id, distance FROM vec_memories WHERE embedding MATCH ? AND k = ?", (q, K)).fetchall(),
    }
    for column in ("embedding_bit", "embedding_i8"):
        if info.get("bit" if column == "embedding_bit" else "int8"):
            for c in (int(x) for x in args.candidates.split(",")):
                cases[f"{column}_all_{c}"] = lambda q, r, column=column, c=c: quant_knn(conn, layout, column, q, K, c, None)
                cases[f"{column}_thread_{c}"] = lambda q, r, column=column, c=c: quant_knn(
                    conn, layout, column, q, K, c, f"project-{(r * 7 + 3) % threads}")
            cases[f"{column}_scan_only"] = lambda q, r, column=column: conn.execute(
                f"SELECT memory_id FROM vec_memories WHERE {column} MATCH vec_{'bit' if 'bit' in column else 'int8'}(?) "
                "AND k = 50", (quant_query(conn, column, q),)).fetchall()
    wanted = args.cases.split(",") + [c for c in cases if c.startswith("embedding_")]
    results = {}
    exact_all = {}
    for name in wanted:
        if name not in cases:
            continue
        fn = cases[name]
        fn(queries[0], 0)  # warm the page cache for this access pattern
        ms, hits = [], 0
        for r in range(args.rounds):
            for i, q in enumerate(queries):
                t, rows = timed(lambda: fn(q, r))
                ms.append(t)
                if name in ("all", "thread") or name.startswith("embedding_"):
                    key = ("thread" if "thread" in name else "all", r, i)
                    top = [row[0] for row in rows[:10]]
                    if name in ("all", "thread"):
                        exact_all[key] = set(top)
                    elif key in exact_all:
                        hits += len(exact_all[key] & set(top))
        results[name] = summary(ms)
        if name.startswith("embedding_"):
            results[name]["recall_at_10_vs_float"] = round(hits / (10 * len(ms)), 3)
        print(f"{name:28} p50 {results[name]['p50']:8.2f} ms  p95 {results[name]['p95']:8.2f} ms"
              + (f"  R@10 {results[name]['recall_at_10_vs_float']:.3f}" if "recall_at_10_vs_float" in results[name] else ""),
              flush=True)
    name = args.name or f"knn-{Path(args.db).stem}" + (f"-mmap{args.mmap}" if args.mmap else "") + (
        f"-cache{args.cache_mb}" if args.cache_mb != 8 else "")
    print(write_result(name, {"store": {k: v for k, v in info.items() if k != "path"}, "k": K, "mmap_mb": args.mmap,
                              "queries": len(queries), "rounds": args.rounds, "cases": results,
                              "command": "python knn.py " + " ".join(os.sys.argv[1:])}))


if __name__ == "__main__":
    main()
