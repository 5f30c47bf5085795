"""Bulk ingest throughput against the raw throughput of the embedding model, in one run.

Three ways of getting N memories of about 200 characters into a store with vectors:

  * raw     - the embedding model alone: `embed()` on the texts, batch B (the reference);
  * import  - `memvault import` of an export file: the same code as the command
              (archive.import_file, then the vector backfill it runs before it exits);
  * remember - N `remember` calls one after another while the background backfill
              embeds behind them; timed until every vector is present.

Also one-query embedding latency (p50/p95), and, with --compare (default in full
mode), raw throughput and query latency of the other runtimes in the same run.

Each rate is memories/s and its ratio to raw (target >= 0.8), in wall time and
in CPU time of this process: on a shared machine wall time swings with other
people's load, CPU per memory does not. The model is loaded once before timing;
every store is fresh; the three paths alternate round by round.

    python bench/ingest.py            # 1,000 memories, 2 rounds, torch beside
    python bench/ingest.py --quick    # CI: 200 memories
    python bench/ingest.py --runtime torch   # the same with sentence-transformers
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from corpus import QUERIES, memories  # noqa: E402

from server.curation import archive  # noqa: E402
from server.config import Settings  # noqa: E402
from server.embedding.embedders import HashEmbedder, MiniLMEmbedder  # noqa: E402
from server.service import MemoryService  # noqa: E402


def texts(n: int) -> list[str]:
    """About 200 characters each: corpus notes joined until the note is that long."""
    parts = iter(memories(4 * n, seed=11))
    out = []
    for _ in range(n):
        text = next(parts)
        while len(text) < 170:
            text += " " + next(parts)
        out.append(text)
    return out


def quiet_settings(home: Path) -> Settings:
    return Settings(home=home, embedder="minilm", log_level="WARNING")


def raw(embedder: MiniLMEmbedder, items: list[str]) -> float:
    started = time.perf_counter()
    vectors = embedder.embed(items)
    seconds = time.perf_counter() - started
    assert vectors.shape == (len(items), 384)
    return seconds


def query_ms(embedder: MiniLMEmbedder, rounds: int) -> list[float]:
    out = []
    for _ in range(rounds):
        for q in QUERIES:
            started = time.perf_counter()
            embedder.embed([q])
            out.append((time.perf_counter() - started) * 1000)
    return out


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def make_archive(items: list[str], folder: Path) -> Path:
    """An export file of the memories, made with the instant hash embedder (vectors are not exported)."""
    service = MemoryService.open(Settings(home=folder / "source", embedder="hash"), embedder=HashEmbedder())
    try:
        for i, text in enumerate(items):
            service.remember(text, thread=f"project-{i % 20}")
        documents = archive.export(service, None, None, None, False, None)
        return archive.write(documents, folder / "export.json")[0]
    finally:
        service.close()


def ingest_import(embedder: MiniLMEmbedder, path: Path, home: Path, n: int) -> float:
    service = MemoryService.open(quiet_settings(home), embedder=embedder)
    try:
        started = time.perf_counter()
        report = archive.import_file(service, path)
        service.embed_backlog()
        seconds = time.perf_counter() - started
        assert report.counts.imported == n, report.counts
        assert service.store.count()["pending_embeddings"] == 0
        return seconds
    finally:
        service.close()


def ingest_remember(embedder: MiniLMEmbedder, items: list[str], home: Path) -> tuple[float, float]:
    """(seconds until every vector is present, seconds the remember calls alone took)."""
    service = MemoryService.open(quiet_settings(home), embedder=embedder)
    try:
        service.indexer.start()
        started = time.perf_counter()
        for i, text in enumerate(items):
            assert service.remember(text, thread=f"project-{i % 20}").status == "stored"
        calls = time.perf_counter() - started
        while service.store.has_pending():
            time.sleep(0.01)
        return time.perf_counter() - started, calls
    finally:
        service.indexer.stop(wait=30)
        service.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="200 memories, one round (CI)")
    parser.add_argument("-n", type=int, help="memories per run (default 1000, quick 200)")
    parser.add_argument("--rounds", type=int, help="runs of each, alternating (default 2, quick 1)")
    parser.add_argument("--batch", type=int, default=32, help="embedding batch size B (default 32)")
    parser.add_argument("--runtime", default="onnx", choices=["onnx", "numpy", "torch"])
    parser.add_argument("--compare", help="other runtimes for raw and query figures (default: torch; quick: none)")
    parser.add_argument("--out", default=str(HERE / "results" / "ingest.json"))
    args = parser.parse_args()
    n = args.n or (200 if args.quick else 1000)
    rounds = args.rounds or (1 if args.quick else 2)
    os.environ.setdefault("MEMVAULT_LOG_LEVEL", "WARNING")

    items = texts(n)
    embedder = MiniLMEmbedder(batch_size=args.batch, runtime=args.runtime)
    assert embedder.wait_ready(900), embedder.error
    embedder.embed(items[:64])  # warm up
    results: dict[str, list[float]] = {"raw": [], "import": [], "remember": [], "remember_calls": []}
    # CPU seconds of this process (every thread): steadier than wall time on a
    # shared machine, and the same work either way.
    cpu: dict[str, list[float]] = {"raw": [], "import": [], "remember": []}

    def run(key: str, fn, *fargs):  # noqa: ANN001, ANN202
        before = time.process_time()
        out = fn(*fargs)
        cpu[key].append(time.process_time() - before)
        return out

    with tempfile.TemporaryDirectory(prefix="memvault-ingest-") as tmp:
        path = make_archive(items, Path(tmp))
        for r in range(rounds):
            # Alternate, so drifting load on a shared machine hits all three alike.
            results["raw"].append(run("raw", raw, embedder, items))
            results["import"].append(run("import", ingest_import, embedder, path, Path(tmp) / f"import-{r}", n))
            total, calls = run("remember", ingest_remember, embedder, items, Path(tmp) / f"remember-{r}")
            results["remember"].append(total)
            results["remember_calls"].append(calls)

    queries = {embedder.runtime: query_ms(embedder, 3 if args.quick else 10)}
    compare = (args.compare if args.compare is not None else ("" if args.quick else "torch")).split(",")
    others: dict[str, dict] = {}
    for runtime in [r for r in compare if r and r != embedder.runtime]:
        other = MiniLMEmbedder(batch_size=args.batch, runtime=runtime)
        assert other.wait_ready(900), other.error
        other.embed(items[:64])
        raws, beside, cpus = [], [], []
        for _ in range(rounds):  # alternate with the main runtime so load drift hits both
            before = time.process_time()
            raws.append(raw(other, items))
            cpus.append(time.process_time() - before)
            beside.append(raw(embedder, items))
            queries.setdefault(runtime, []).extend(query_ms(other, 3 if args.quick else 10))
            queries[embedder.runtime].extend(query_ms(embedder, 3 if args.quick else 10))
        others[runtime] = {
            "raw_seconds": [round(x, 3) for x in raws],
            f"{embedder.runtime}_raw_seconds_beside": [round(x, 3) for x in beside],
            "raw_per_second": round(n / statistics.median(raws), 1),
            "speed_vs_main_runtime": round(statistics.median(b / r for b, r in zip(beside, raws)), 2),
            "cpu_ms_per_memory": round(statistics.median(cpus) * 1000 / n, 2),
        }

    seconds = {k: statistics.median(v) for k, v in results.items()}
    rate = {k: n / s for k, s in seconds.items()}
    rows = [
        ("raw embed (reference)", "raw"),
        ("memvault import", "import"),
        ("remember x N, until all vectors", "remember"),
    ]
    print(f"ingest of {n} memories (~{statistics.mean(len(t) for t in items):.0f} chars), batch {args.batch}, "
          f"runtime {embedder.runtime}, median of {rounds}")
    cpu_ms = {k: statistics.median(v) * 1000 / n for k, v in cpu.items()}
    print(f"{'path':34} {'seconds':>8} {'memories/s':>11} {'x raw':>6} {'CPU ms/memory':>14} {'x raw (CPU)':>12}")
    for label, key in rows:
        print(f"{label:34} {seconds[key]:8.2f} {rate[key]:11.1f} {rate[key] / rate['raw']:6.2f} "
              f"{cpu_ms[key]:14.1f} {cpu_ms['raw'] / cpu_ms[key]:12.2f}")
    print(f"{'(remember calls alone)':34} {seconds['remember_calls']:8.2f} {rate['remember_calls']:11.1f}")
    for runtime, o in others.items():
        print(f"{f'raw embed, runtime {runtime}':34} {n / o['raw_per_second']:8.2f} {o['raw_per_second']:11.1f} "
              f"{o['speed_vs_main_runtime']:6.2f} {o['cpu_ms_per_memory']:14.1f} "
              f"{cpu_ms['raw'] / o['cpu_ms_per_memory']:12.2f}   (x raw: against {embedder.runtime} runs beside it)")
    print("\none-query embedding, ms: " + "   ".join(
        f"{r} p50 {statistics.median(v):.1f} p95 {pct(v, 0.95):.1f}" for r, v in queries.items()))
    out = {
        "n": n, "mean_chars": round(statistics.mean(len(t) for t in items), 1), "batch": args.batch,
        "runtime": embedder.runtime, "rounds": rounds, "quick": args.quick,
        "seconds": {k: [round(x, 3) for x in v] for k, v in results.items()},
        "per_second": {k: round(v, 1) for k, v in rate.items()},
        "ratio_to_raw": {k: round(rate[k] / rate["raw"], 3) for k in ("import", "remember")},
        "cpu_ms_per_memory": {k: round(v, 2) for k, v in cpu_ms.items()},
        "ratio_to_raw_cpu": {k: round(cpu_ms["raw"] / cpu_ms[k], 3) for k in ("import", "remember")},
        "target_ratio": 0.8,
        "other_runtimes": others,
        "query_ms": {r: {"p50": round(statistics.median(v), 2), "p95": round(pct(v, 0.95), 2), "n": len(v)}
                     for r, v in queries.items()},
        "machine": {"cpus": os.cpu_count(), "load_avg": os.getloadavg()},
    }
    target = Path(args.out)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
