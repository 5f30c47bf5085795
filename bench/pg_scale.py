"""Vector search at scale: PostgreSQL's HNSW index against SQLite's exact vec0 scan, same vectors.

N synthetic 384-d unit vectors (--shape topics: topics and subtopics, as sentence embeddings
have; --shape clusters: broad clusters of isotropic noise, a hard case for any graph index,
since inside a cluster every point is about equally far). Queries are stored vectors plus
noise. Ground truth is an exact numpy top-10.

  * PostgreSQL: rows loaded with binary COPY (as the superuser: a bulk load, not the
    product's write path), then the HNSW index built with the configured m and
    ef_construction; queries through PgStore.knn as the application role under RLS
    (tenant filter, iterative scan), at several ef_search values: recall@10 and p50/p95.
  * SQLite: the same vectors in vec0; queries through Store.knn (exact): p50/p95.

    python bench/pg_scale.py              # 1,000,000 vectors (long: the HNSW build dominates)
    python bench/pg_scale.py -n 100000
    python bench/pg_scale.py --quick      # CI: 5,000 vectors, same code paths
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests"))

DIM = 384
TENANT = "scale"


def clustered(n: int, seed: int = 11, centres: int = 500) -> np.ndarray:
    rng = np.random.default_rng(seed)
    c = rng.standard_normal((centres, DIM)).astype(np.float32)
    out = np.empty((n, DIM), dtype=np.float32)
    for start in range(0, n, 100_000):
        stop = min(n, start + 100_000)
        pick = rng.integers(0, centres, stop - start)
        out[start:stop] = c[pick] + 0.9 * rng.standard_normal((stop - start, DIM)).astype(np.float32)
    out /= np.linalg.norm(out, axis=1, keepdims=True)
    return out


def topics(n: int, seed: int = 11, count: int = 200, subtopics: int = 100) -> np.ndarray:
    """Two levels, as sentence embeddings have: broad topics, narrower subtopics, then each text."""
    rng = np.random.default_rng(seed)
    t = rng.standard_normal((count, DIM)).astype(np.float32)
    sub = 0.5 * rng.standard_normal((count * subtopics, DIM)).astype(np.float32)
    out = np.empty((n, DIM), dtype=np.float32)
    for start in range(0, n, 100_000):
        stop = min(n, start + 100_000)
        pick = rng.integers(0, count * subtopics, stop - start)
        out[start:stop] = t[pick // subtopics] + sub[pick] + 0.25 * rng.standard_normal((stop - start, DIM)).astype(np.float32)
    out /= np.linalg.norm(out, axis=1, keepdims=True)
    return out


def manifold(n: int, seed: int = 11, latent: int = 64, count: int = 2000) -> np.ndarray:
    """Topics in a 64-dimensional latent space embedded in 384-d: MiniLM embeddings of the bench
    corpus need 59 principal components for 90 % of their variance, not 384."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((count, latent)).astype(np.float32)
    lift = rng.standard_normal((latent, DIM)).astype(np.float32) / np.sqrt(latent)
    out = np.empty((n, DIM), dtype=np.float32)
    for start in range(0, n, 100_000):
        stop = min(n, start + 100_000)
        z = centres[rng.integers(0, count, stop - start)] + 0.5 * rng.standard_normal((stop - start, latent)).astype(np.float32)
        out[start:stop] = z @ lift + 0.02 * rng.standard_normal((stop - start, DIM)).astype(np.float32)
    out /= np.linalg.norm(out, axis=1, keepdims=True)
    return out


SHAPES = {"clusters": clustered, "topics": topics, "manifold": manifold}


def exact_top(vectors: np.ndarray, queries: np.ndarray, k: int) -> list[list[int]]:
    out = []
    for q in queries:
        sims = vectors @ q
        top = np.argpartition(-sims, k)[:k]
        out.append([int(i) + 1 for i in top[np.argsort(-sims[top])]])
    return out


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def load_postgres(admin_uri: str, vectors: np.ndarray, m: int, ef_construction: int) -> dict:
    import psycopg
    from pgvector.psycopg import register_vector

    uri = admin_uri.replace("/postgres?", "/memvault?")
    with psycopg.connect(uri, autocommit=True) as conn:
        register_vector(conn)
        conn.execute("DROP INDEX IF EXISTS memories_embedding")
        t = time.perf_counter()
        columns = "tenant, id, thread, content, kind, content_hash, created_at, updated_at, embedding, embed_pending"
        with conn.cursor().copy(f"COPY memories ({columns}) FROM STDIN WITH (FORMAT BINARY)") as copy:
            copy.set_types(["text", "int8", "text", "text", "text", "text", "int8", "int8", "vector", "bool"])
            for i, v in enumerate(vectors, start=1):
                copy.write_row((TENANT, i, f"t{i % 50}", f"memory {i}", "note", f"h{i}", i, i, v, False))
        conn.execute("INSERT INTO tenant_counters(tenant, name, value) VALUES (%s, 'memories', %s)",
                      (TENANT, len(vectors)))
        load = time.perf_counter() - t
        # The graph must fit in maintenance_work_mem or the build slows several-fold (~2 KB a vector at m=16).
        conn.execute(f"SET maintenance_work_mem = '{max(1, len(vectors) * 3 // 1_000_000 + 1)}GB'")
        t = time.perf_counter()
        conn.execute(
            f"CREATE INDEX memories_embedding ON memories USING hnsw (embedding vector_cosine_ops) "
            f"WITH (m = {m}, ef_construction = {ef_construction})"
        )
        build = time.perf_counter() - t
        conn.execute("ANALYZE memories")
        size = conn.execute("SELECT pg_relation_size('memories_embedding')").fetchone()[0]
    return {"copy_s": load, "hnsw_build_s": build, "hnsw_mb": size / 2**20}


def query_postgres(url: str, queries: np.ndarray, truth: list[list[int]], ef: int) -> dict:
    from server.storage.pg.db import PgDatabase
    from server.storage.pg.store import PgStore
    from server.storage.protocol import Scope

    db = PgDatabase(url, TENANT, pool_size=1, ef_search=ef)
    store = PgStore(db, TENANT)
    try:
        store.knn(queries[0], 10, Scope())  # warm
        with db.read() as conn:
            plan = "\n".join(r[0] for r in conn.execute(
                "EXPLAIN SELECT id FROM memories WHERE deleted_at IS NULL AND embedding IS NOT NULL "
                "ORDER BY embedding <=> %s LIMIT 10", (queries[0],)))
        figures = timed_knn(store, queries, truth)
    finally:
        db.close()
    return {"ef_search": ef, **figures, "plan": "hnsw" if "memories_embedding" in plan else "scan"}


def timed_knn(store, queries: np.ndarray, truth: list[list[int]]) -> dict:
    """recall@10 against `truth` and p50/p95 of Store.knn over the queries."""
    from server.storage.protocol import Scope

    times, hits = [], 0
    for q, want in zip(queries, truth):
        t = time.perf_counter()
        got = list(store.knn(q, 10, Scope()))
        times.append((time.perf_counter() - t) * 1000)
        hits += len(set(got) & set(want))
    return {"recall_at_10": hits / (10 * len(queries)), "p50_ms": statistics.median(times), "p95_ms": pct(times, 95)}


def sqlite_figures(vectors: np.ndarray, queries: np.ndarray, truth: list[list[int]]) -> dict:
    from server.storage.sqlite.db import Database
    from server.storage.sqlite.migrations import SchemaContext, migrate
    from server.storage.protocol import Scope
    from server.storage.sqlite.store import Store

    with tempfile.TemporaryDirectory() as home:
        db = Database(Path(home) / "scale.db")
        try:
            migrate(db, SchemaContext(dimensions=DIM))
            t = time.perf_counter()
            for start in range(0, len(vectors), 10_000):
                with db.write() as conn:
                    chunk = range(start, min(len(vectors), start + 10_000))
                    # Bare rows (no text: only the vector search is compared) and their vectors.
                    conn.executemany(
                        "INSERT INTO memories(id, namespace, thread, content, kind, content_hash, created_at, updated_at) "
                        "VALUES (?, ?, ?, '', 'note', ?, ?, ?)",
                        [(i + 1, TENANT, f"t{(i + 1) % 50}", str(i + 1), i + 1, i + 1) for i in chunk],
                    )
                    conn.executemany("INSERT INTO pending_embeddings(memory_id) VALUES (?)", [(i + 1,) for i in chunk])
                store = Store(db, TENANT)
                store.store_vectors({i + 1: vectors[i] for i in chunk})  # vec0 and the sidecar, as the backfill writes
            load = time.perf_counter() - t
            store.knn(queries[0], 10, Scope())
            figures = timed_knn(store, queries, truth)
        finally:
            db.close()
    return {"insert_s": load, **figures}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("-n", type=int)
    parser.add_argument("--out", type=Path, help="where to write the JSON (default: bench/results/)")
    parser.add_argument("--queries", type=int)
    parser.add_argument("--shape", choices=sorted(SHAPES), default="manifold",
                        help="manifold: topics in a 64-d latent space (real embeddings are low-dimensional); topics: "
                        "topics and subtopics in all 384 dimensions; clusters: 500 broad clusters of "
                        "isotropic noise (a hard case: within a cluster every point is about equally far)")
    parser.add_argument("--no-sqlite", action="store_true", help="skip SQLite (vec0 and its sidecar)")
    parser.add_argument("--ef", type=int, nargs="+", default=[40, 100, 200, 400])
    parser.add_argument("--m", type=int, default=16)
    parser.add_argument("--ef-construction", type=int, default=64)
    args = parser.parse_args()
    n = args.n or (5_000 if args.quick else 1_000_000)
    nq = args.queries or (20 if args.quick else 200)

    from pgharness import initialised_server

    vectors = SHAPES[args.shape](n)
    rng = np.random.default_rng(5)
    queries = vectors[rng.integers(0, n, nq)] + 0.05 * rng.standard_normal((nq, DIM)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    truth = exact_top(vectors, queries, 10)

    with initialised_server() as (pg, url):
        results: dict = {"n": n, "shape": args.shape, "queries": nq, "m": args.m, "ef_construction": args.ef_construction}
        results["postgres_load"] = load_postgres(pg.uri, vectors, args.m, args.ef_construction)
        results["postgres"] = [query_postgres(url, queries, truth, ef) for ef in args.ef]
    if not args.no_sqlite:
        results["sqlite"] = sqlite_figures(vectors, queries, truth)

    load = results["postgres_load"]
    print(f"{n:,} 384-d vectors ({args.shape}), {nq} queries, top-10; HNSW m={args.m} ef_construction={args.ef_construction}")
    print(f"PostgreSQL: COPY {load['copy_s']:.1f} s, HNSW build {load['hnsw_build_s']:.1f} s ({load['hnsw_mb']:.0f} MB)")
    print(f"{'store':28}{'recall@10':>10}{'p50 ms':>10}{'p95 ms':>10}")
    for r in results["postgres"]:
        print(f"{'PostgreSQL HNSW ef=' + str(r['ef_search']) + ' (' + r['plan'] + ')':28}"
              f"{r['recall_at_10']:10.3f}{r['p50_ms']:10.2f}{r['p95_ms']:10.2f}")
    if "sqlite" in results:
        s = results["sqlite"]
        print(f"SQLite vec0 insert {s['insert_s']:.1f} s")
        print(f"{'SQLite vec0 (exact)':28}{s['recall_at_10']:10.3f}{s['p50_ms']:10.2f}{s['p95_ms']:10.2f}")
    out = args.out or HERE / "results" / ("pg_scale-quick.json" if args.quick else f"pg_scale-{n}-{args.shape}.json")
    out.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
