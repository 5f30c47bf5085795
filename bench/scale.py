"""Recall latency, vector-search cost, recall@10 and disk use from 1k to 1M memories.

Per size, measured in one run beside its reference:
  * warm recall p50/p95 through the service (query embedding included), over all
    threads and over one thread (+ the global memories); through MCP stdio for the
    sizes in --stdio-sizes (a spawned `memvault` on the same store);
  * the query embedding alone (p50), so the search cost can be told apart from it;
  * vector-search time (Store.knn, top 50 over every thread: the shared sidecar) against
    a NumPy float32 dot product of the query with the same vectors plus the top-50
    selection (argpartition: what an exact in-memory matrix costs), and their ratio;
  * recall@10 of Store.knn against exact brute force over the same vectors;
  * the keyword budget's price: the share of the unbudgeted keyword top 50 the bounded search
    keeps, and both searches' time (keyword_budget); past the budget, what ranking every memory
    holding every query word (no window) would keep and cost;
  * the stdio server's RSS / PSS / private memory after its recalls;
  * bytes per memory on disk (db + wal after a checkpoint) and per table (dbstat);
  * build time.

How the store is built (say so when quoting the figures): texts are ~200-character
developer notes (two sentences of bench/corpus.py plus a serial), spread over
`--threads` threads. Computing real MiniLM vectors for a million memories takes
hours here (~100/s), so only BASE_TEXTS real texts are embedded with the model
(once; cached in bench/.cache/, ignored by git) and every memory's vector is a
normalised random mixture of 2-3 of those real vectors plus Gaussian noise (its
text is the matching mixture of the base texts, so keyword search stays
meaningful). Memories and vectors are inserted in bulk through Store (its
insert_memory and store_vectors, the same SQL `remember` and the backfill run),
not through the embedder, each with the statement analysis `remember`'s update
check leaves stored (store_analyses). Queries are real questions embedded by the model.

    python bench/scale.py                 # 1k, 10k, 100k (add --sizes 1000000 for 1M)
    python bench/scale.py --quick         # CI: 500 and 2,000 memories, hash embedder, same code paths
    python bench/scale.py --store DIR     # keyword budget only, on a store kept with --keep (impact lists: if migrated)
    python bench/scale.py --stdio-on DIR --out F  # recall over MCP stdio only, on a copy of a kept store
    python bench/scale.py --stdio-on DIR --impacts on,off,off,on  # the same, keyword impact lists on / off
    python bench/scale.py --sizes 10000 --checkouts /tmp/before,.  # stdio: two checkouts' servers in turn
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from corpus import QUERIES, memories  # noqa: E402
from startup import INIT, MEMVAULT, Proc, pct  # noqa: E402

BASE_TEXTS = 3000
CACHE = HERE / ".cache"
MORE_QUERIES = QUERIES + [
    "who reviews pull requests on Mondays", "what is cached in Redis", "which service logs to Sentry",
    "the payments worker retry handler", "why was the search index rewritten", "Grafana dashboards",
    "how is the data warehouse deployed", "mypy settings", "who dislikes ORMs", "SOC 2 audit decisions",
]


def base_texts(n: int) -> list[str]:
    lines = memories(2 * n, seed=11)
    return [f"{lines[2 * i][:-len(f' (note {2 * i})')]} {lines[2 * i + 1][:-len(f' (note {2 * i + 1})')]}"
            for i in range(n)]


def base_vectors(embedder, texts: list[str], tag: str) -> np.ndarray:
    return embed_cached(embedder, texts, f"base-{tag}")


def embed_cached(embedder, texts: list[str], tag: str) -> np.ndarray:
    """The texts' vectors, embedded once and kept in bench/.cache (ignored by git) under `tag`."""
    path = CACHE / f"{tag}-{len(texts)}.npy"
    if path.exists():
        return np.load(path)
    vectors = np.concatenate([embedder.embed(texts[i : i + 64]) for i in range(0, len(texts), 64)]).astype(np.float32)
    CACHE.mkdir(exist_ok=True)
    np.save(path, vectors)
    return vectors


def synthesise(n: int, texts: list[str], base: np.ndarray, seed: int) -> tuple[list[str], np.ndarray]:
    """n (text, vector) pairs: mixtures of 2-3 real (text, vector) pairs plus noise."""
    rng = np.random.default_rng(seed)
    parts = rng.integers(0, len(base), size=(n, 3))
    weights = rng.random((n, 3)).astype(np.float32) + 0.2
    weights[rng.random(n) < 0.5, 2] = 0.0  # half the memories mix two bases, half three
    vectors = np.einsum("nk,nkd->nd", weights, base[parts]) + 0.04 * rng.standard_normal((n, base.shape[1])).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    out = []
    for i in range(n):
        major = int(parts[i, np.argmax(weights[i])])
        minor = int(parts[i, 0] if major != parts[i, 0] else parts[i, 1])
        out.append(f"{texts[major]} {texts[minor]}"[:190] + f" (#{i})")
    return out, vectors.astype(np.float32)


def build(service, texts: list[str], vectors: np.ndarray, threads: int) -> float:
    from server.storage.protocol import NewMemory
    from server.textindex import index_text
    from server.service import content_hash

    store = service.store
    t0 = time.perf_counter()
    now = int(time.time() * 1000) - len(texts) * 1000
    batch = 5000
    built: list[int] = []
    for start in range(0, len(texts), batch):
        ids = []
        with service.db.write() as conn:
            for i in range(start, min(start + batch, len(texts))):
                at = now + i * 1000
                ids.append(store.insert_memory(conn, NewMemory(
                    thread=f"project-{i % threads}", content=texts[i], kind="note", source="import", origin=None,
                    importance=0.5, tags=(), content_hash=content_hash(texts[i]), created_at=at, updated_at=at,
                    index_text=index_text(texts[i]), log_daily=False)))
                store.touch_thread(conn, f"project-{i % threads}", at)
        store.store_vectors(dict(zip(ids, vectors[start : start + len(ids)])))
        store_analyses(store, dict(zip(ids, texts[start : start + len(ids)])))
        built.extend(ids)
    with service.db.write() as conn:
        conn.execute("DELETE FROM daily_log_queue")
    return time.perf_counter() - t0, built


def store_analyses(store, texts: dict[int, str]) -> None:
    """Store each memory's statement analysis, as `remember` leaves it: the linker analyses a write and
    its candidates in the thread when judging and stores what it made (linker._store_analyses), so in a
    store written through remember every statement of a thread with more than one memory has one, and a
    server's first recall over it reads them (analyses.hold) instead of analysing. Without this the bulk
    build left none and a first-time recall over a thread paid the analysis (~8.6 ms per one-thread
    recall at 10k) that a real store doesn't. The process's own cache is emptied again afterwards, so
    the in-process figures read them back as a server started for a new session does."""
    from server.updates import analyses, statements

    version = analyses.version()
    if version is None:
        return
    store.store_analyses({i: (analyses.text_key(t), analyses.encode(statements.analyse(t))) for i, t in texts.items()},
                         version)
    with statements._analysed_lock:  # noqa: SLF001 - a bench emptying the cache its build filled
        statements._analysed.clear()  # noqa: SLF001
        statements._analysed_chars = 0  # noqa: SLF001


def disk(db_path: Path, conn) -> dict:
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    wal = Path(str(db_path) + "-wal")
    total = db_path.stat().st_size + (wal.stat().st_size if wal.exists() else 0)
    tables: dict[str, int] = {}
    try:
        for name, size in conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC"):
            tables[name] = size
    except Exception as exc:  # noqa: BLE001 - dbstat is optional in SQLite builds
        tables["dbstat unavailable"] = str(exc)
    free = conn.execute("PRAGMA freelist_count").fetchone()[0] * conn.execute("PRAGMA page_size").fetchone()[0]
    return {"total_bytes": total, "free_bytes": free, "tables": tables}


def smaps(pid: int) -> dict:
    """RSS, PSS and private memory of a process in MB (Linux; empty elsewhere)."""
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return {}
    kb = {line.split(":")[0]: int(line.split()[1]) for line in text.splitlines()[1:] if line.split()[-1] == "kB"}
    return {"rss": round(kb.get("Rss", 0) / 1024, 1), "pss": round(kb.get("Pss", 0) / 1024, 1),
            "private": round((kb.get("Private_Clean", 0) + kb.get("Private_Dirty", 0)) / 1024, 1)}


def timed(fn, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return out


def _kept(top10: list[tuple[int, float]], found: dict[int, float]) -> tuple[float, float]:
    """Share of the reference top 10 ([(id, rank)], best first) that `found` ({id: rank}) holds: strictly,
    and counting ties: a memory whose rank equals the reference's tenth (1e-9 apart) takes one of the
    places that tie fills (the reference breaks ties by oldest id; any of them is as good a tenth)."""
    strict = len({m for m, _ in top10} & found.keys()) / len(top10)
    last = top10[-1][1]
    tied = lambda rank: abs(rank - last) <= 1e-9 * max(1.0, abs(last))  # noqa: E731
    better = [m for m, rank in top10 if not tied(rank)]
    places = len(top10) - len(better)
    fill = sum(1 for m, rank in found.items() if tied(rank))
    return strict, (len(set(better) & found.keys()) + min(places, fill)) / len(top10)


def keyword_budget(store, queries: list[str]) -> dict:
    """The keyword budget's price (ranking.KEYWORD_MATCH_BUDGET, search.keyword_plan): how much of the
    whole query's top 50 (every term, every match ranked by bm25, no budget) the bounded search keeps,
    over all threads, and what each costs, on the same queries in the same run. The top 10 is also
    counted with ties (_kept): bounded ranks are the whole query's bm25 (the plan's searches see each
    term once), so a memory tied with the reference's tenth is as good a tenth."""
    from server import ranking
    from server.search import PROVED_TOP, keyword_best, keyword_hits, keyword_plan, keyword_query
    from server.storage.protocol import KeywordQuery, Scope

    best10, best_ties10, best_ms, paired_ms, first_ms, proved = [], [], [], [], [], []
    kept, kept10, ties10, bounded_ms, whole_ms, every10, every_ties10, every_ms = [], [], [], [], [], [], [], []
    per_query = []
    for q in queries:
        whole_query = keyword_query(q)
        if whole_query is None:
            continue
        t = time.perf_counter()
        whole = store.keyword(whole_query, 50, Scope())
        whole_ms.append((time.perf_counter() - t) * 1000)
        plan = keyword_plan(store, q, Scope())
        if plan.window is not None and hasattr(store, "keyword_proved"):
            # Impact lists (search.keyword_best): the first query of a term wants its list and a
            # server's background builder builds it (build_wanted; timed apart), then today's bounded
            # search and keyword_best are timed in turn, the order alternating query by query (the
            # second of a pair finds the doclists in the page cache).
            t = time.perf_counter()
            store.keyword_proved((*plan.rare, *plan.common), 50, Scope(), PROVED_TOP)
            store.build_wanted(len(plan.rare) + len(plan.common))
            first_ms.append((time.perf_counter() - t) * 1000)
            proved.append(store.keyword_proved((*plan.rare, *plan.common), 50, Scope(), PROVED_TOP) is not None)
        t = time.perf_counter()
        bounded = keyword_hits(store, plan, Scope(), 50)
        bounded_ms.append((time.perf_counter() - t) * 1000)
        if plan.window is not None and hasattr(store, "keyword_proved"):
            t = time.perf_counter()
            best = keyword_best(store, plan, Scope(), 50)
            best_ms.append((time.perf_counter() - t) * 1000)
            if len(best_ms) % 2 == 0:  # every other query keyword_best first, then the bounded search again
                t = time.perf_counter()
                bounded = keyword_hits(store, plan, Scope(), 50)
                bounded_ms[-1] = (time.perf_counter() - t) * 1000
            paired_ms.append(bounded_ms[-1])
        if whole:
            kept.append(len(whole.keys() & bounded.keys()) / len(whole))
            top10 = sorted(whole.items(), key=lambda hit: (hit[1], hit[0]))[:10]
            strict, tied = _kept(top10, bounded)
            kept10.append(strict)
            ties10.append(tied)
            row = {"query": q, "kept10": strict, "kept10_ties": tied, "bounded_ms": bounded_ms[-1],
                   "whole_ms": whole_ms[-1], "window": plan.window}
            if plan.window is not None and best_ms:
                strict, tied = _kept(top10, best)
                best10.append(strict)
                best_ties10.append(tied)
                row.update(impacts_kept10=strict, impacts_kept10_ties=tied, impacts_ms=best_ms[-1],
                           impacts_first_ms=first_ms[-1], impacts_proved=proved[-1])
            if plan.window is not None:
                # The alternative not taken: every memory holding every query word ranked (no window;
                # one word: all its matches), the bounded search's hits filling up when fewer than 50.
                t = time.perf_counter()
                every = store.keyword(KeywordQuery(plan.rare, every=plan.common), 50, Scope())
                every_ms.append((time.perf_counter() - t) * 1000)
                every = every if len(every) >= 50 else {**bounded, **every}
                strict, tied = _kept(top10, every)
                every10.append(strict)
                every_ties10.append(tied)
                row.update(every_kept10=strict, every_kept10_ties=tied, every_ms=every_ms[-1])
            else:
                every10.append(kept10[-1])
                every_ties10.append(ties10[-1])
            per_query.append(row)
    mean = lambda xs: statistics.mean(xs) if xs else None  # noqa: E731
    median = lambda xs: statistics.median(xs) if xs else None  # noqa: E731
    return {"budget": ranking.KEYWORD_MATCH_BUDGET, "top50_kept": mean(kept), "top10_in_top50": mean(kept10),
            "top10_in_top50_ties": mean(ties10),
            "bounded_ms_p50": median(bounded_ms), "whole_ms_p50": median(whole_ms),
            "every_word_unwindowed": {"top10_in_top50": mean(every10), "top10_in_top50_ties": mean(every_ties10),
                                      "searches": len(every_ms), "ms_p50": median(every_ms)},
            "impact_lists": {"top10_in_top50": mean(best10), "top10_in_top50_ties": mean(best_ties10),
                             "searches": len(best_ms), "proved": sum(proved), "ms_p50": median(best_ms),
                             "bounded_ms_p50_same_queries": median(paired_ms),
                             "first_ms_p50": median(first_ms), "first_ms_max": max(first_ms, default=None)},
            "queries": per_query}


def budget_on(home: Path) -> dict:
    """keyword_budget on a store built (and kept) by an earlier run: the store is opened as it is,
    without migrating or writing anything, so an experiment can be repeated against the same store."""
    from server.storage.protocol import Scope
    from server.storage.sqlite.db import Database
    from server.storage.sqlite.store import Store

    db = Database(home / "memvault.db")
    try:
        store = Store(db, "default")
        size = store.scope_size(Scope())
        return {"memories": size, "home": str(home), "keyword_budget": keyword_budget(store, MORE_QUERIES),
                "load_average_1min": os.getloadavg()[0]}
    finally:
        db.close()


def stdio_latency(home: Path, queries: list[str], rounds: int, threads: int, embedder_name: str,
                  impacts: str | None = None, checkout: Path | None = None, raw: bool = False) -> dict:
    """Recall over MCP stdio from a spawned `memvault` on `home`: every query once to warm (model, matrix,
    page cache, keyword impact lists), then `rounds` timed rounds over all threads and one thread.
    `impacts` "on" / "off": the server of this checkout (not the installed `memvault`) with
    ranking.KEYWORD_IMPACTS set so, to compare the two in one run. `checkout`: the server of that checkout
    (`python -m server` there), to compare two in one run (by_checkout); `raw` adds the timings themselves."""
    env = {**os.environ, "MEMVAULT_HOME": str(home), "MEMVAULT_LOG_LEVEL": "WARNING",
           "MEMVAULT_EMBEDDER": embedder_name}
    argv = [MEMVAULT]
    if impacts is not None:
        env["PYTHONPATH"] = str(HERE.parent)
        argv = [sys.executable, "-c", "import sys; from server import ranking; "
                f"ranking.KEYWORD_IMPACTS = {impacts == 'on'}; from server.cli import main; "
                "sys.argv[0] = 'memvault'; sys.exit(main())"]
    if checkout is not None:
        argv = [sys.executable, "-m", "server"]
        env["PYTHONPATH"] = str(checkout)
    proc = Proc(argv, env, cwd=checkout)
    proc.request("initialize", INIT)
    proc.notify("notifications/initialized")
    for q in queries:
        reply = proc.request("tools/call", {"name": "recall", "arguments": {"query": q, "thread": "*"}})
    assert reply["result"]["structuredContent"]["search"] == "hybrid", reply
    stdio, stdio_one = [], []
    for r in range(rounds):
        for q in queries:
            stdio += timed(lambda: proc.request("tools/call", {"name": "recall",
                                                               "arguments": {"query": q, "thread": "*"}}), 1)
            one = {"query": q, "thread": f"project-{(r * 7 + 3) % threads}"}
            stdio_one += timed(lambda: proc.request("tools/call", {"name": "recall", "arguments": one}), 1)
    memory = smaps(proc.p.pid)
    proc.close()
    return {"recall_stdio_ms": {"p50": statistics.median(stdio), "p95": pct(stdio, 0.95),
                                "one_thread_p50": statistics.median(stdio_one),
                                "one_thread_p95": pct(stdio_one, 0.95)},
            "stdio_server_memory_mb": memory, **({"raw_ms": {"all": stdio, "one": stdio_one}} if raw else {})}


def by_checkout(home: Path, queries: list[str], rounds: int, threads: int, embedder_name: str,
                checkouts: list[Path]) -> dict:
    """Recall over MCP stdio from the servers of each checkout in turn, one round per server, `rounds`
    servers each (a busy spell of the shared machine falls on every checkout alike), and the ratios
    of each checkout's p50 / p95 to the first's."""
    from startup import precompile

    for checkout in checkouts:
        precompile(checkout)
    raw: dict[str, dict[str, list[float]]] = {str(c): {"all": [], "one": []} for c in checkouts}
    for _ in range(rounds):
        for checkout in checkouts:
            got = stdio_latency(home, queries, 1, threads, embedder_name, checkout=checkout, raw=True)
            for name in ("all", "one"):
                raw[str(checkout)][name] += got["raw_ms"][name]
    out: dict = {}
    for checkout, got in raw.items():
        out[checkout] = {"p50": statistics.median(got["all"]), "p95": pct(got["all"], 0.95),
                         "one_thread_p50": statistics.median(got["one"]), "one_thread_p95": pct(got["one"], 0.95)}
    first = out[str(checkouts[0])]
    for checkout in checkouts[1:]:
        out[f"{checkout} / {checkouts[0]}"] = {name: round(out[str(checkout)][name] / first[name], 3) for name in first}
    return out


def measure(size: int, args, embedder_name: str, base_cache: dict) -> dict:
    from server.config import Settings
    from server.compose import open_service
    from server.storage.protocol import Scope

    home = Path(tempfile.mkdtemp(prefix=f"memvault-scale-{size}-"))
    settings = Settings(home=home, embedder=embedder_name)
    service = open_service(settings)
    service.embedder.wait_ready(600)
    if "base" not in base_cache:
        texts = base_texts(args.base)
        base_cache["texts"], base_cache["base"] = texts, base_vectors(service.embedder, texts, embedder_name)
    texts, vectors = synthesise(size, base_cache["texts"], base_cache["base"], seed=size)
    build_s, built_ids = build(service, texts, vectors, args.threads)
    result: dict = {"memories": size, "threads": args.threads, "build_s": build_s}
    queries = MORE_QUERIES
    qvecs = {q: service.embedder.embed([q])[0] for q in queries}
    rounds = args.rounds

    for q in queries:  # warm: model, matrix load, SQLite page cache
        service.recall(q, thread="*")
    lat_all, lat_one = [], []
    for r in range(rounds):
        for q in queries:
            lat_all += timed(lambda: service.recall(q, thread="*"), 1)
            lat_one += timed(lambda: service.recall(q, thread=f"project-{(r * 7) % args.threads}"), 1)
    embed = [t for q in queries for t in timed(lambda: service.embedder.embed([q]), rounds)]

    # Vector search vs the floor, on the same vectors in the same run, interleaved.
    matrix = np.ascontiguousarray(vectors)
    store = service.store
    knn_ms, floor_ms, hits = [], [], 0
    for r in range(rounds):
        for q in queries:
            v = np.asarray(qvecs[q], dtype=np.float32)
            knn_ms += timed(lambda: store.knn(v, 50, Scope()), 1)
            floor_ms += timed(lambda: np.argpartition(-(matrix @ v), 49)[:50], 1)
    # Exact top 10 over every live vector in the file: the ones built here (in memory already:
    # reading a million back out of vec0 takes minutes) and the memory files' units (read from vec0).
    built = set(built_ids)
    with service.db.read() as conn:
        units = [r[0] for r in conn.execute("SELECT v.memory_id FROM vector_rows v JOIN memories m ON m.id = "
                                            "v.memory_id WHERE m.deleted_at IS NULL") if r[0] not in built]
        unit_vectors = store.vectors(conn, units)
    ids = np.asarray(list(built_ids) + [u for u in units if u in unit_vectors])
    every = np.concatenate([vectors] + [unit_vectors[u][:1] for u in units if u in unit_vectors])
    for q in queries:
        v = np.asarray(qvecs[q], dtype=np.float32)
        exact = set(ids[np.argsort(-(every @ v), kind="stable")[:10]].tolist())
        hits += len(exact & set(store.knn(v, 10, Scope())))
    del every
    result["keyword_budget"] = keyword_budget(store, queries)
    with service.db.read() as conn:
        result["disk"] = disk(Path(settings.db_path), conn)
    result["disk"]["bytes_per_memory"] = result["disk"]["total_bytes"] / size
    side = store._vectors._current() if store._vectors.path is not None else None
    result["sidecar_bytes"] = side.path.stat().st_blocks * 512 if side is not None else None  # allocated (sparse file)
    result["vector_rows"] = side.count if side is not None else None
    service.close()

    result.update({
        "recall_service_ms": {"all_threads_p50": statistics.median(lat_all), "all_threads_p95": pct(lat_all, 0.95),
                              "one_thread_p50": statistics.median(lat_one), "one_thread_p95": pct(lat_one, 0.95)},
        "query_embed_ms_p50": statistics.median(embed),
        "vector_search_ms_p50": statistics.median(knn_ms),
        "numpy_floor_ms_p50": statistics.median(floor_ms),
        "vector_vs_floor": statistics.median(knn_ms) / statistics.median(floor_ms),
        "recall_at_10_vs_exact": hits / (10 * len(queries)),
        # Timings on a shared machine: the 1-minute load average says how shared it was.
        "load_average_1min": os.getloadavg()[0],
    })
    if size in args.stdio_sizes and args.checkouts:
        result["recall_stdio_by_checkout"] = by_checkout(home, queries, rounds, args.threads, embedder_name,
                                                         args.checkouts)
        print(json.dumps(result["recall_stdio_by_checkout"], indent=1), flush=True)
    elif size in args.stdio_sizes:
        result.update(stdio_latency(home, queries, rounds, args.threads, embedder_name))
    if not args.keep:
        subprocess.run(["rm", "-rf", str(home)], check=False)
    else:
        result["home"] = str(home)
    return result


def show(r: dict) -> None:
    s = r["recall_service_ms"]
    stdio = r.get("recall_stdio_ms")
    print(f"{r['memories']:>9,} | {s['all_threads_p50']:7.1f} {s['all_threads_p95']:7.1f} | "
          f"{s['one_thread_p50']:7.1f} {s['one_thread_p95']:7.1f} | "
          + (f"{stdio['p50']:7.1f} {stdio['p95']:7.1f} {stdio['one_thread_p50']:7.1f} {stdio['one_thread_p95']:7.1f}"
             if stdio else f"{'-':>7} {'-':>7} {'-':>7} {'-':>7}")
          + f" | {r['query_embed_ms_p50']:5.1f} | {r['vector_search_ms_p50']:7.2f} {r['numpy_floor_ms_p50']:7.2f} "
          f"{r['vector_vs_floor']:5.2f}x | {r['recall_at_10_vs_exact']:5.3f} | {r['disk']['bytes_per_memory']:6.0f} | "
          f"{r['build_s']:6.1f}", flush=True)
    kb = r["keyword_budget"]
    if kb["top50_kept"] is not None:
        print(f"{'':>9}   keyword budget {kb['budget']:,}: keeps {kb['top50_kept']:.3f} of the unbudgeted top 50 "
              f"({kb['top10_in_top50']:.3f} of its top 10, {kb['top10_in_top50_ties']:.3f} counting ties); "
              f"{kb['bounded_ms_p50']:.1f} ms vs {kb['whole_ms_p50']:.1f} ms unbudgeted")
        every = kb["every_word_unwindowed"]
        if every["searches"]:
            print(f"{'':>9}   memories holding every query word ranked without a window ({every['searches']} queries): "
                  f"{every['top10_in_top50']:.3f} of the top 10 ({every['top10_in_top50_ties']:.3f} counting ties), "
                  f"that search {every['ms_p50']:.1f} ms p50")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--sizes", type=lambda s: [int(x) for x in s.split(",")], default=None)
    ap.add_argument("--threads", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=None)
    ap.add_argument("--base", type=int, default=None, help="real texts embedded as the basis of the vectors")
    ap.add_argument("--stdio-sizes", type=lambda s: [int(x) for x in s.split(",")], default=None)
    ap.add_argument("--keep", action="store_true", help="keep the built stores (their paths go into the JSON)")
    ap.add_argument("--store", type=Path, default=None,
                    help="only measure the keyword budget, on this store (a home kept with --keep)")
    ap.add_argument("--stdio-on", type=Path, default=None,
                    help="only measure recall over MCP stdio on this store (a home kept with --keep; the server "
                         "migrates it: use a copy)")
    ap.add_argument("--embedder", default="minilm", help="--stdio-on: the embedder the kept store was built with")
    ap.add_argument("--impacts", type=lambda s: s.split(","), default=None,
                    help="--stdio-on: servers of this checkout in turn with the keyword impact lists on / off, "
                         "e.g. on,off,on,off (default: one installed `memvault`, as configured)")
    ap.add_argument("--checkouts", type=lambda s: [Path(c).resolve() for c in s.split(",")], default=None,
                    help="stdio: the servers of these checkouts in turn (before,after), one round per server, "
                         "with their ratios (the service figures are this checkout's)")
    ap.add_argument("--out", default=str(HERE / "results" / "scale.json"))
    args = ap.parse_args()
    if args.stdio_on is not None and args.checkouts:
        found = by_checkout(args.stdio_on, MORE_QUERIES, args.rounds or 5, args.threads, args.embedder, args.checkouts)
        found["load_average_1min"] = os.getloadavg()[0]
        print(json.dumps(found, indent=2))
        Path(args.out).write_text(json.dumps({"home": "(a kept store)", **found}, indent=2) + "\n")
        return
    if args.stdio_on is not None:
        found = {}
        for n, setting in enumerate(args.impacts or [None]):  # alternated: each setting as often as the others
            got = stdio_latency(args.stdio_on, MORE_QUERIES, args.rounds or 5, args.threads, args.embedder, setting)
            got["load_average_1min"] = os.getloadavg()[0]
            if setting is None:
                found = got
                break
            found[f"{n + 1}: impacts {setting}"] = got
            print(json.dumps({f"{n + 1}: impacts {setting}": got}), flush=True)
        print(json.dumps(found, indent=2))
        Path(args.out).write_text(json.dumps({"home": "(a kept store)", **found}, indent=2) + "\n")
        return
    if args.store is not None:
        print(json.dumps(budget_on(args.store), indent=2))
        return
    args.sizes = args.sizes or ([500, 2000] if args.quick else [1000, 10_000, 100_000])
    args.rounds = args.rounds or (2 if args.quick else 5)
    args.base = args.base or (200 if args.quick else BASE_TEXTS)
    args.stdio_sizes = args.stdio_sizes if args.stdio_sizes is not None else (
        [2000] if args.quick else [s for s in args.sizes if s <= 100_000])
    embedder = "hash" if args.quick else "minilm"
    random.seed(0)
    print(f"embedder {embedder}; {args.threads} threads; vectors: mixtures of {args.base} real ones (see docstring)")
    print(f"{'memories':>9} | service all-threads | one thread      | stdio all-thr, one thread      | embed | "
          f"knn ms  floor ms ratio  | R@10  | B/mem  | build s")
    out = Path(args.out)
    results = {"embedder": embedder, "sizes": [], "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]},
               "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                        cwd=HERE).stdout.strip(),
               "method": "synthetic vectors: normalised mixtures of 2-3 real MiniLM vectors + noise; bulk insert "
                         "through Store; queries embedded by the model"}
    cache: dict = {}
    for size in args.sizes:
        results["sizes"].append(measure(size, args, embedder, cache))
        show(results["sizes"][-1])
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(results, indent=2) + "\n")  # after every size: a long run keeps what it measured
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
