"""The PostgreSQL store beside the SQLite store, measured in one run on the same machine.

For N memories (the bench corpus, hash embedder so the store is what is timed):
  * remember p50/p95 (one write acknowledgement; vectors are backfilled afterwards);
  * backfill rate (vectors written per second);
  * recall p50/p95 through MemoryService (keyword + vector + ranking), all threads and one thread;
  * keyword search alone under row-level security, with PostgreSQL's `@@` as shipped
    (not LEAKPROOF: RLS keeps the GIN index out, a tenant-scoped scan) and with
    `ts_match_vq` marked LEAKPROOF (GIN usable) - the plan each used is reported.

PostgreSQL is the throwaway embedded server of the tests (tests/pgharness.py), on tmpfs with
fsync off: figures are for comparing the two stores, not for sizing a production server.

    python bench/pg_store.py            # 5,000 memories
    python bench/pg_store.py --quick    # CI: 300 memories, same code paths
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

from corpus import QUERIES, memories  # noqa: E402


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def run_backend(settings, texts: list[str], queries: list[str]) -> dict:
    from server.embedding.embedders import HashEmbedder
    from server.service import MemoryService

    service = MemoryService.open(settings, embedder=HashEmbedder())
    try:
        writes = []
        for i, text in enumerate(texts):
            t = time.perf_counter()
            service.remember(text, thread=f"project-{i % 20}")
            writes.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        embedded = service.embed_backlog()
        backfill = embedded / (time.perf_counter() - t)
        service.recall(queries[0])  # warm caches
        every, one = [], []
        for q in queries:
            t = time.perf_counter()
            service.recall(q, k=10, thread="*")
            every.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            service.recall(q, k=10, thread="project-3")
            one.append((time.perf_counter() - t) * 1000)
        return {
            "remember_p50_ms": statistics.median(writes), "remember_p95_ms": pct(writes, 95),
            "backfill_per_s": backfill,
            "recall_all_p50_ms": statistics.median(every), "recall_all_p95_ms": pct(every, 95),
            "recall_thread_p50_ms": statistics.median(one), "recall_thread_p95_ms": pct(one, 95),
        }
    finally:
        service.close()


def keyword_under_rls(pg, app_url: str, tenant: str, queries: list[str]) -> dict:
    import psycopg

    from server.storage.pg.store import websearch_text
    from server.textindex import query_terms

    sql = ("SELECT id FROM memories, websearch_to_tsquery('english', %s) AS q "
           "WHERE tsv @@ q AND deleted_at IS NULL ORDER BY -ts_rank_cd(tsv, q, 1) LIMIT 50")
    out = {}
    for leakproof in (False, True):
        with psycopg.connect(pg.uri.replace("/postgres?", "/memvault?"), autocommit=True) as admin:
            admin.execute(f"ALTER FUNCTION ts_match_vq(tsvector, tsquery) {'LEAKPROOF' if leakproof else 'NOT LEAKPROOF'}")
        times, plans = [], set()
        with psycopg.connect(app_url) as conn:
            for q in queries * 3:
                text = websearch_text(query_terms(q))
                conn.execute("SELECT set_config('app.tenant', %s, true)", (tenant,))
                plan = "\n".join(r[0] for r in conn.execute("EXPLAIN " + sql, (text,)))
                plans.add("gin" if "memories_tsv" in plan else "scan")
                t = time.perf_counter()
                conn.execute(sql, (text,)).fetchall()
                times.append((time.perf_counter() - t) * 1000)
                conn.commit()
        out["leakproof" if leakproof else "as_shipped"] = {
            "p50_ms": statistics.median(times), "p95_ms": pct(times, 95), "plan": "/".join(sorted(plans))}
    with psycopg.connect(pg.uri.replace("/postgres?", "/memvault?"), autocommit=True) as admin:
        admin.execute("ALTER FUNCTION ts_match_vq(tsvector, tsquery) NOT LEAKPROOF")  # back to the default
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("-n", type=int)
    parser.add_argument("--out", type=Path, help="where to write the JSON (default: bench/results/)")
    args = parser.parse_args()
    n = args.n or (300 if args.quick else 5000)
    texts = memories(n)
    queries = QUERIES[:5] if args.quick else QUERIES

    from pgharness import initialised_server
    from server.config import Settings

    with initialised_server() as (pg, url), tempfile.TemporaryDirectory() as home:
        settings = Settings(home=Path(home), embedder="hash")
        results = {
            "n": n,
            "sqlite": run_backend(settings, texts, queries),
            "postgres": run_backend(settings.with_(database_url=url, namespace="bench"), texts, queries),
        }
        results["postgres_keyword_rls"] = keyword_under_rls(pg, url, "bench", queries)

    print(f"{n} memories, hash embedder, one process; PostgreSQL 18 + pgvector on tmpfs, fsync off")
    print(f"{'':24}{'SQLite':>12}{'PostgreSQL':>12}")
    for key in ("remember_p50_ms", "remember_p95_ms", "backfill_per_s", "recall_all_p50_ms", "recall_all_p95_ms",
                "recall_thread_p50_ms", "recall_thread_p95_ms"):
        print(f"{key:24}{results['sqlite'][key]:12.2f}{results['postgres'][key]:12.2f}")
    for mode, r in results["postgres_keyword_rls"].items():
        print(f"PG keyword under RLS, ts_match_vq {mode:10}: p50 {r['p50_ms']:.2f} ms, p95 {r['p95_ms']:.2f} ms, plan {r['plan']}")
    out = args.out or HERE / "results" / ("pg_store-quick.json" if args.quick else "pg_store.json")
    out.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
