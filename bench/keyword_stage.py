"""Recall's keyword stage per query of bench/scale.py at 1M: keyword_plan + search.keyword_best, timed alone.

The p95 of recall over MCP stdio at a million memories came from a few queries' keyword search (issue 34
item 4): this prints each query's cost (the best of --rounds, ms), whether its plan is past the budget
(windowed), the share of the unbudgeted top 10 its answer holds (windowed), and for plans under the budget
whether the answer is keyword_hits' own (same memories, same order, the largest rank difference).

It opens the store and writes only the keyword impact lists (as a server's builder would: --build runs
every query and builds what they wanted, five times over, so lists, pairs and deeper lists are there).
Run it on a copy of a migrated store (one a server has opened, e.g. after `scale.py --stdio-on COPY`):

    python bench/keyword_stage.py --store COPY --build
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from scale import MORE_QUERIES  # noqa: E402


def main() -> None:
    from server.search import keyword_best, keyword_hits, keyword_plan, keyword_query
    from server.storage.protocol import Scope
    from server.storage.sqlite.db import Database
    from server.storage.sqlite.store import Store

    ap = argparse.ArgumentParser()
    ap.add_argument("--store", type=Path, required=True, help="a migrated home (a copy: the lists are written)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--build", action="store_true", help="build the lists the queries want first")
    args = ap.parse_args()
    db = Database(args.store / "memvault.db")
    store, scope = Store(db, "default"), Scope()
    if args.build:
        for _ in range(5):  # lists, then the pairs and deeper lists their proofs want
            for q in MORE_QUERIES:
                keyword_best(store, keyword_plan(store, q, scope), scope, 50)
            while store.build_wanted(50):
                pass
    costs = []
    for q in MORE_QUERIES:
        spent = []
        for _ in range(args.rounds):
            t = time.perf_counter()
            plan = keyword_plan(store, q, scope)
            hits = keyword_best(store, plan, scope, 50)
            spent.append((time.perf_counter() - t) * 1000)
        costs.append(min(spent))
        got = sorted(hits.items(), key=lambda hit: (hit[1], hit[0]))
        if plan.window is not None:
            whole = store.keyword(keyword_query(q), 10, scope)
            top = {m for m, _ in sorted(whole.items(), key=lambda hit: (hit[1], hit[0]))[:10]}
            note = f"windowed, keeps {len(top & {m for m, _ in got[:10]}) / max(len(top), 1):.1f} of the top 10"
        else:
            today = sorted(keyword_hits(store, plan, scope, 50).items(), key=lambda hit: (hit[1], hit[0]))
            same = [m for m, _ in today] == [m for m, _ in got]
            diff = max((abs(a[1] - b[1]) for a, b in zip(today, got)), default=0.0)
            note = f"under the budget, keyword_hits' answer: {same} (ranks within {diff:.1e})"
        print(f"{q[:44]:44} {min(spent):6.1f} ms  {note}", flush=True)
    costs.sort()
    print(f"keyword stage p50 {statistics.median(costs):.1f} ms, p95 {costs[int(0.95 * (len(costs) - 1))]:.1f} ms, "
          f"max {costs[-1]:.1f} ms; load {os.getloadavg()[0]:.1f}")
    db.close()


if __name__ == "__main__":
    main()
