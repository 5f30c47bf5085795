"""Profile of a warm recall: where the milliseconds go, by function (cProfile).

Builds a store the way bench/scale.py does (or opens --home, e.g. one kept by
`scale.py --keep`), warms it, then profiles --calls recalls over all threads and
one thread. Prints the top functions by cumulative and by own time, and the
wall-clock split of the recall's stages (timed around the same calls the service makes).

    python bench/profile_recall.py --memories 10000
    python bench/profile_recall.py --quick
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from scale import MORE_QUERIES, base_texts, base_vectors, build, synthesise  # noqa: E402


def stages(service, query: str, thread: str) -> dict[str, float]:
    """Wall time of each stage of one recall, calling what MemoryService.recall calls, in order."""
    from server import ranking
    from server.search import keyword_best, keyword_plan
    from server.storage.protocol import Scope

    store = service.store
    scope = Scope(threads=service._read_threads(thread))
    out: dict[str, float] = {}

    def lap(name, fn):
        t = time.perf_counter()
        value = fn()
        out[name] = (time.perf_counter() - t) * 1000
        return value

    lap("file_index.sync", service.file_index.sync)
    lap("has_pending", store.has_pending)
    vector = lap("query embedding", lambda: service.embedder.embed([query])[0])
    plan = lap("keyword plan (term counts)", lambda: keyword_plan(store, query, scope))
    # keyword_best, as recall searches (the impact lists where they answer, else FTS5: keyword_hits)
    keyword = lap("keyword search", lambda: keyword_best(store, plan, scope, ranking.KEYWORD_CANDIDATES))
    dense = lap("vector knn", lambda: {m: 1 - d for m, d in store.knn(vector, ranking.DENSE_CANDIDATES, scope).items()})
    lap("cosines", lambda: store.cosines(vector, [m for m in keyword if m not in dense]))
    candidates = list(dense.keys() | keyword.keys())
    lap("rows", lambda: store.get(candidates))
    lap("neighbours", lambda: store.neighbours(candidates))
    return out


#: What recall's newer-first step calls (server/search.arrange): its pairwise tests and the possible updates it reads.
NEWER_FIRST = ("order", "resembling", "later_turns", "attach", "outdated")
READS = ("possible_updates_of", "possible_updates_older")


def newer_first_split(service, queries: list[str], calls: int) -> tuple[list[float], ...]:
    """Wall time of whole recalls (no profiler) and of the newer-first step inside each: the functions of
    NEWER_FIRST and the store reads of READS, timed where search.arrange calls them (it looks them up at call time);
    and the step's CPU time (its thread's: on a loaded machine the steadier figure)."""
    from server.updates import newer_first

    spent = [0.0, 0.0]

    def timed(fn):
        def wrapper(*args, **kwargs):
            t, cpu = time.perf_counter(), time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[0] += time.perf_counter() - t
                spent[1] += time.thread_time() - cpu
        return wrapper

    store = service.store
    saved = {name: getattr(newer_first, name) for name in NEWER_FIRST}
    reads = {name: getattr(store, name) for name in READS}
    totals, steps, cpus = [], [], []
    try:
        for name, fn in saved.items():
            setattr(newer_first, name, timed(fn))
        for name, fn in reads.items():
            setattr(store, name, timed(fn))
        for n in range(calls):
            spent[:] = [0.0, 0.0]
            t = time.perf_counter()
            service.recall(queries[n % len(queries)], thread="*" if n % 2 else f"project-{n % 200}")
            totals.append((time.perf_counter() - t) * 1000)
            steps.append(spent[0] * 1000)
            cpus.append(spent[1] * 1000)
    finally:
        for name, fn in saved.items():
            setattr(newer_first, name, fn)
        for name in READS:
            delattr(store, name)  # the bound methods again
    return totals, steps, cpus


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--memories", type=int, default=10_000)
    ap.add_argument("--home", default=None, help="profile this existing store instead of building one")
    ap.add_argument("--calls", type=int, default=None)
    ap.add_argument("--out", default=str(HERE / "results" / "profile_recall.json"))
    args = ap.parse_args()
    from server.config import Settings
    from server.compose import open_service

    embedder = "hash" if args.quick else "minilm"
    size = 1000 if args.quick else args.memories
    calls = args.calls or (20 if args.quick else 200)
    home = Path(args.home) if args.home else Path(tempfile.mkdtemp(prefix="memvault-profile-"))
    service = open_service(Settings(home=home, embedder=embedder))
    service.embedder.wait_ready(600)
    if args.home:
        size = service.store.count()["live"]  # what the kept store holds, not --memories
    else:
        texts = base_texts(200 if args.quick else 3000)
        base = base_vectors(service.embedder, texts, embedder)
        build(service, *synthesise(size, texts, base, seed=size), threads=200)
    for q in MORE_QUERIES:
        service.recall(q, thread="*")
    split: dict[str, list[float]] = {}
    for n in range(max(1, calls // len(MORE_QUERIES))):
        for q in MORE_QUERIES:
            for name, ms in stages(service, q, "*" if n % 2 else f"project-{n % 200}").items():
                split.setdefault(name, []).append(ms)
    # Timed without the profiler twice: first over memories this process has not compared yet (each statement's
    # analysis made on first use, server/updates/statements.analyse), then again over the same recalls, warm.
    first = newer_first_split(service, MORE_QUERIES, calls)
    total = []
    profile = cProfile.Profile()
    for n in range(calls):
        q = MORE_QUERIES[n % len(MORE_QUERIES)]
        t = time.perf_counter()
        profile.enable()
        service.recall(q, thread="*" if n % 2 else f"project-{n % 200}")
        profile.disable()
        total.append((time.perf_counter() - t) * 1000)
    again = newer_first_split(service, MORE_QUERIES, calls)
    service.close()
    if not args.home:
        shutil.rmtree(home, ignore_errors=True)
    text = io.StringIO()
    stats = pstats.Stats(profile, stream=text).strip_dirs()
    stats.sort_stats("cumulative").print_stats(30)
    stats.sort_stats("tottime").print_stats(20)
    print(text.getvalue())
    medians = {name: statistics.median(v) for name, v in split.items()}
    print(f"recall p50 under the profiler {statistics.median(total):.2f} ms over {calls} calls; stages (p50, ms):")
    for name, ms in medians.items():
        print(f"  {name:28} {ms:7.2f}")
    quant = {f"{name}, {when}": {"p50": round(statistics.median(v), 2), "p95": round(statistics.quantiles(v, n=20)[-1], 2)}
             for when, (plain, step, cpu) in (("first pass", first), ("warm", again))
             for name, v in (("recall", plain), ("newer-first step", step), ("newer-first step CPU", cpu))}
    for name, q in quant.items():
        print(f"without the profiler, {name}: p50 {q['p50']:.2f} ms, p95 {q['p95']:.2f} ms")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"memories": size, "embedder": embedder, "stage_ms_p50": medians,
                               "profiled_recall_ms_p50": statistics.median(total),
                               "unprofiled_ms": quant}, indent=2) + "\n")


if __name__ == "__main__":
    main()
