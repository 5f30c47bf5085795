"""Would per-term impact lists give recall's keyword search its exact top 10 past the budget? (issue 34, item 4)

Past ranking.KEYWORD_MATCH_BUDGET (every query word in more than 20,000 memories: the 1M store of
bench/scale.py) the keyword search ranks a window of the memories holding every query word and keeps
0.45 of the unbudgeted top 10; ranking that whole intersection keeps 0.95 but costs about twice as
much, because FTS5 computes bm25 (~1 us, a docsize lookup each) for every row it ranks, and the top
rows of a common-word query are told apart by term frequency and length, spread over all of time.

The idea measured here (threshold algorithm / MaxScore): keep, per common term, its R memories with
the best single-term bm25 (a list, and its R-th score as the `floor` no other memory beats for that
term). FTS5's bm25 of an OR (or AND) query is the sum over the query's terms of each term's own bm25
(IDF per term over the whole index, term frequency and length per row), so a memory in none of the
query terms' lists scores no better than the sum of their floors: when the tenth best of the lists'
union (scored exactly) beats that sum, the union's top 10 IS the whole query's top 10 (certified).

Per query of bench/scale.py (its plan windowed, i.e. past the budget), for each R: the share of the
unbudgeted top 10 the union's top 10 holds, whether it is certified, the union's size; and in the same
run the costs: today's bounded search (search.keyword_hits), building one term's list (a single-term
bm25 ranking of all its matches), and scoring the union exactly in one FTS5 statement over the
memories holding every word and over any word (`+rowid IN` candidates: the candidates are a filter,
bm25 runs only for them, FTS5 still walks each term's doclist once for its IDF).

The store is opened as it is and never written (a home kept by `scale.py --keep`):

    python bench/keyword_impacts.py --store /path/to/memvault-scale-1000000-xxxx
    python bench/keyword_impacts.py --store HOME --budget 2000   # a smaller store, the budget forced to bind
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from scale import MORE_QUERIES  # noqa: E402

SIZES = (500, 2000, 5000)


def timed(fn):  # noqa: ANN001, ANN201
    t = time.perf_counter()
    out = fn()
    return out, (time.perf_counter() - t) * 1000


def _proved_by_every(lists, size, union, ids, total, terms, every) -> bool:  # noqa: ANN001, PLR0913
    """Whether scoring only the union's memories that hold every word proves the top 10, with no second
    statement over any word: the tenth best of those must beat every other union member's bound (its
    listed terms' scores plus the floors of the terms whose lists it is not in) and the sum of the floors."""
    held = np.isin(union, every)
    exact = total[np.searchsorted(ids, union[held])]
    if len(exact) < 10:
        return False
    tenth = np.sort(exact)[9]
    bound = np.zeros(len(union))
    floors = 0.0
    for i, s in lists:
        floor = s[size - 1] if len(s) > size else 0.0
        floors += floor
        head = dict(zip(i[:size].tolist(), s[:size].tolist()))
        bound += np.array([head.get(m, floor) for m in union.tolist()])
    rest = bound[~held]
    return bool(tenth < floors and (len(rest) == 0 or tenth < rest.min()))


def main() -> None:
    from server import ranking
    from server.search import keyword_hits, keyword_plan, keyword_query
    from server.storage.protocol import KeywordQuery, Scope
    from server.storage.sqlite.common import _BM25, fts5_match
    from server.storage.sqlite.db import Database
    from server.storage.sqlite.store import Store

    ap = argparse.ArgumentParser()
    ap.add_argument("--store", type=Path, required=True, help="a home kept by bench/scale.py --keep")
    ap.add_argument("--budget", type=int, default=None,
                    help="the keyword budget (ranking.KEYWORD_MATCH_BUDGET) for this run: below 1M it rarely binds")
    ap.add_argument("--sizes", type=lambda v: tuple(int(x) for x in v.split(",")), default=SIZES,
                    help="list lengths R to try (the cost of scoring a union is measured at the second)")
    ap.add_argument("--out", default=str(HERE / "results" / "keyword_impacts.json"))
    args = ap.parse_args()
    if args.budget is not None:
        ranking.KEYWORD_MATCH_BUDGET = args.budget
    sizes = args.sizes
    scored_size = sizes[min(1, len(sizes) - 1)]  # the R whose union's exact scoring is timed
    db = Database(args.store / "memvault.db")
    store, conn = Store(db, "default"), db.conn
    ranked = f"SELECT rowid, {_BM25} AS rank FROM memory_fts WHERE memory_fts MATCH ?"
    scores: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # term -> (ids, single-term bm25), best first
    build_ms: list[float] = []

    def term_scores(term: str) -> tuple[np.ndarray, np.ndarray]:
        if term not in scores:
            rows, ms = timed(lambda: conn.execute(ranked + " ORDER BY rank, rowid", (f'"{term}"',)).fetchall())
            build_ms.append(ms)
            scores[term] = (np.array([r[0] for r in rows], dtype=np.int64), np.array([r[1] for r in rows]))
        return scores[term]

    def every_ids(plan) -> np.ndarray:  # noqa: ANN001 - the memories holding every word of the plan
        every = fts5_match(KeywordQuery(plan.rare, every=plan.common))
        return np.array([r[0] for r in conn.execute("SELECT rowid FROM memory_fts WHERE memory_fts MATCH ?", (every,))],
                        dtype=np.int64)

    rows, per_size = [], {r: [] for r in sizes}
    for q in MORE_QUERIES:
        plan = keyword_plan(store, q, Scope())
        if plan.window is None:
            continue
        terms = [*plan.rare, *plan.common]
        whole = store.keyword(keyword_query(q), 50, Scope())
        reference = sorted(whole.items(), key=lambda hit: (hit[1], hit[0]))[:10]
        lists = [term_scores(t) for t in terms]
        ids = np.unique(np.concatenate([i for i, _ in lists]))
        total = np.zeros(len(ids))
        for i, s in lists:
            total[np.searchsorted(ids, i)] += s
        # The decomposition this rests on: the whole query's bm25 is the sum of its terms' own.
        best = np.lexsort((ids, total))[:10]
        assert np.allclose(total[best], [r for _, r in reference], rtol=1e-9), q
        row = {"query": q, "terms": terms, "matches": [len(i) for i, _ in lists]}
        _, row["bounded_ms"] = timed(lambda: keyword_hits(store, plan, Scope(), 50))
        for size in sizes:
            union = np.unique(np.concatenate([i[:size] for i, _ in lists]))
            exact = total[np.searchsorted(ids, union)]
            top = np.lexsort((union, exact))[:10]
            floor = sum(s[size - 1] for _, s in lists if len(s) > size)  # a complete list leaves nothing out
            kept = len({m for m, _ in reference} & set(union[top].tolist())) / len(reference)
            certified = bool(exact[top[-1]] < floor)
            entry = {"kept10": kept, "certified": certified, "candidates": len(union)}
            if size == scored_size:
                entry["proved_by_every"] = _proved_by_every(lists, size, union, ids, total, terms, every_ids(plan))
                # the cost of scoring the union exactly, in one statement
                cands = json.dumps(union.tolist())
                filt = " AND +rowid IN (SELECT value FROM json_each(?)) ORDER BY rank, rowid LIMIT 50"
                every = fts5_match(KeywordQuery(plan.rare, every=plan.common))
                _, entry["score_every_ms"] = timed(lambda: conn.execute(ranked + filt, (every, cands)).fetchall())
                _, entry["score_any_ms"] = timed(
                    lambda: conn.execute(ranked + filt, (fts5_match(KeywordQuery(tuple(terms))), cands)).fetchall())
            row[f"R{size}"] = entry
            per_size[size].append(entry)
        rows.append(row)
        r2 = row[f"R{scored_size}"]
        print(f"{q[:34]:34} {len(terms)} terms, {max(row['matches']):7,} matches max | "
              f"today {row['bounded_ms']:6.1f} ms | "
              + " | ".join(f"R={s}: {row[f'R{s}']['kept10']:.1f} {'proved' if row[f'R{s}']['certified'] else '  -   '}"
                           f" {row[f'R{s}']['candidates']:6,}" for s in sizes)
              + f" | score union: every {r2['score_every_ms']:6.1f} ms, any {r2['score_any_ms']:6.1f} ms", flush=True)
    db.close()
    if not rows:
        print(f"no query of bench/scale.py is past the budget ({ranking.KEYWORD_MATCH_BUDGET:,}) here: try --budget")
        return
    scored = per_size[scored_size]
    summary = {
        "budget": ranking.KEYWORD_MATCH_BUDGET,
        "queries": len(rows),
        "bounded_ms_p50": statistics.median(r["bounded_ms"] for r in rows),
        "list_build_ms_p50": statistics.median(build_ms),
        "scored_size": scored_size,
        "score_union_every_ms_p50": statistics.median(e["score_every_ms"] for e in scored),
        "score_union_any_ms_p50": statistics.median(e["score_any_ms"] for e in scored),
        "proved_by_every": sum(e["proved_by_every"] for e in scored),
        "by_size": {s: {"kept10": statistics.mean(e["kept10"] for e in per_size[s]),
                        "certified": sum(e["certified"] for e in per_size[s]),
                        "candidates_p50": statistics.median(e["candidates"] for e in per_size[s])} for s in sizes},
        "load_average_1min": os.getloadavg()[0],
    }
    for s, v in summary["by_size"].items():
        print(f"R={s}: keeps {v['kept10']:.3f} of the unbudgeted top 10, proved exact for {v['certified']}/{len(rows)} "
              f"queries, {v['candidates_p50']:,.0f} candidates p50")
    print(f"today's bounded search p50 {summary['bounded_ms_p50']:.1f} ms; "
          f"scoring the R={summary['scored_size']} union exactly "
          f"{summary['score_union_every_ms_p50']:.1f} ms (memories holding every word) / "
          f"{summary['score_union_any_ms_p50']:.1f} ms (any word; needed for "
          f"{summary['queries'] - summary['proved_by_every']}/{summary['queries']} queries, the rest proved by the first); "
          "building one term's list "
          f"{summary['list_build_ms_p50']:.1f} ms p50; load {summary['load_average_1min']:.1f}")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"store": str(args.store), "summary": summary, "queries": rows}, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
