"""Is the scoped FTS5 search the exact in-thread ranking? On fts_thread.py's store, for every query:
the exhaustive search (every term OR-ed, `memories` joined for the thread, no budget, no window,
bm25 of every in-thread match) against the scoped table's `(terms) AND scope:(tN OR g)` with the
scope column weighted 0. Reports the top-10 agreement and how often the order is identical; the
same for the per-thread tables (two tables, ranks merged as they come, per-thread IDF). Then single
statements: one term counted and ranked over the whole store and within one thread's scope.

    python fts_exact.py --rows 100000
"""

from __future__ import annotations

import argparse

from common import SCRATCH, connect, timed, write_result
from fts_thread import WEIGHT, perthr_search, token_of


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=100_000)
    args = ap.parse_args()
    from scale import MORE_QUERIES
    from server.textindex import any_of, query_terms

    conn = connect(SCRATCH / f"fts-{args.rows}.db")
    agree = same = total = agree_perthr = 0
    ms_exhaustive, ms_scoped = [], []
    for i, query in enumerate(MORE_QUERIES):
        thread = f"project-{i % 200 or 1}"
        expression = any_of(query_terms(query))
        if not expression:
            continue
        t1, a = timed(lambda: [r[0] for r in conn.execute(
            f"SELECT f.rowid, bm25(plain, 1.0, {WEIGHT}) AS rank FROM plain f JOIN memories m ON m.id = f.rowid "
            "WHERE plain MATCH ? AND m.thread IN (?, '') ORDER BY rank, f.rowid LIMIT 10", (expression, thread))])
        t2, b = timed(lambda: [r[0] for r in conn.execute(
            f"SELECT rowid, bm25(scoped, 1.0, {WEIGHT}, 0.0) AS rank FROM scoped WHERE scoped MATCH ? "
            "ORDER BY rank, rowid LIMIT 10", (f"({expression}) AND scope:({token_of(thread)} OR g)",))])
        ms_exhaustive.append(t1)
        ms_scoped.append(t2)
        agree += len(set(a) & set(b))
        agree_perthr += len(set(a) & {r[0] for r in perthr_search(conn, query, thread)[:10]})
        same += int(a == b)
        total += 1
    result = {"rows": args.rows, "queries": total, "top10_agreement": round(agree / (10 * total), 3),
              "identical_order_share": round(same / total, 3),
              "perthr_top10_agreement_with_exhaustive": round(agree_perthr / (10 * total), 3),
              "ms_p50_exhaustive_join": sorted(ms_exhaustive)[len(ms_exhaustive) // 2],
              "ms_p50_scoped": sorted(ms_scoped)[len(ms_scoped) // 2]}
    statements = {}
    for label, expression in (("store", '"redis"'), ("thread", '"redis" AND scope:t5'),
                              ("thread_and_global", '"redis" AND scope:(t5 OR g)')):
        matches = conn.execute("SELECT count(*) FROM scoped WHERE scoped MATCH ?", (expression,)).fetchone()[0]
        count_ms = sorted(timed(lambda: conn.execute("SELECT count(*) FROM scoped WHERE scoped MATCH ?",
                                                     (expression,)).fetchone())[0] for _ in range(5))[2]
        rank_ms = sorted(timed(lambda: conn.execute(
            f"SELECT rowid FROM scoped WHERE scoped MATCH ? ORDER BY bm25(scoped, 1.0, {WEIGHT}, 0.0) LIMIT 50",
            (expression,)).fetchall())[0] for _ in range(5))[2]
        statements[label] = {"expression": expression, "matches": matches, "count_ms": round(count_ms, 2),
                             "rank_all_ms": round(rank_ms, 2)}
    result["statements"] = statements
    print(result)
    print(write_result(f"fts_exact-{args.rows}", result))


if __name__ == "__main__":
    main()
