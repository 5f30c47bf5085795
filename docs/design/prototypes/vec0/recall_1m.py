"""Recall@10 of the recommended all-threads search (accel.recommended) against vec0's exact KNN on a
1M store built by build.py with its sidecar (accel.py), and the time of each of its three steps.

    python recall_1m.py /tmp/vec0-research/meta-1000000.db --queries 6
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import numpy as np

from accel import Sidecar, asymmetric, refine_pread
from common import connect, scale_queries, summary, timed, write_result


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("db")
    ap.add_argument("--queries", type=int, default=6, help="vec0's exact KNN takes seconds per query at 1M")
    args = ap.parse_args()
    side = Sidecar(Path(args.db + ".side"))
    fd = os.open(args.db + ".side", os.O_RDONLY)
    conn = connect(args.db, cache_mb=8)
    n = side.count
    wide, narrow = int(0.02 * n), max(1000, int(0.002 * n))
    hits, steps = 0, {"hamming_2%": [], "asymmetric_0.2%": [], "pread_f16_cosine": [], "vec0_exact": []}
    queries = [q.astype(np.float32) / np.linalg.norm(q) for q in scale_queries()][: args.queries]
    for q in queries:
        t1, rows = timed(lambda: side.coarse(q, wide, "bits_simd"))
        t2, kept = timed(lambda: asymmetric(side, q, rows, narrow))
        t3, (ids, sims) = timed(lambda: refine_pread(side, fd, q, kept))
        t4, exact = timed(lambda: {r[0] for r in conn.execute(
            "SELECT memory_id FROM vec_memories WHERE embedding MATCH ? AND k = 10 AND namespace = 'default' "
            "AND deleted = 0", (q,))})
        for key, t in zip(steps, (t1, t2, t3, t4)):
            steps[key].append(t)
        hits += len(exact & {int(ids[i]) for i in np.argsort(-sims)[:10]})
    result = {"rows": n, "queries": len(queries), "recall_at_10_vs_vec0_exact": round(hits / (10 * len(queries)), 3),
              "ms": {k: summary(v) for k, v in steps.items()}}
    print(result)
    print(write_result(f"recall_1m-{Path(args.db).stem}", result))


if __name__ == "__main__":
    main()
