"""CPU time of a warm recall in the service, two checkouts alternated in one run.

On the shared machine wall time swings with the load; the CPU time a recall costs (the process's,
every thread: the keyword search runs beside the vector search) moves far less. Each round starts
one process per checkout in turn, each on its own copy of the store (a recall counts itself in the
store), warms it (every query over all threads and one thread), then times `--calls` recalls
(bench/scale.py's queries, all threads and one thread alternately) by the process's CPU clock.
The figures of every round are pooled per checkout: p50 / p95 / mean in ms, and the ratio to the first.

    python bench/recall_cpu.py --home /tmp/memvault-scale-10000-xxxx --checkouts /tmp/base,.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def timings(home: Path, embedder: str, calls: int) -> dict[str, list[float]]:
    """CPU ms of each recall over all threads and one thread, on the store at `home` (run inside a checkout)."""
    # The checkout's server first (PYTHONPATH): importing scale puts this script's own checkout at the front of
    # sys.path, and a server imported after it was that checkout's, whichever was asked for (every comparison
    # ran one code twice).
    from server.compose import open_service
    from server.config import Settings

    checkout = Path(os.environ["PYTHONPATH"]).resolve()
    if not Path(sys.modules["server"].__file__).resolve().is_relative_to(checkout):
        raise SystemExit(f"the server imported is {sys.modules['server'].__file__}, not {checkout}'s")
    sys.path.insert(0, str(HERE))
    from scale import MORE_QUERIES

    service = open_service(Settings(home=home, embedder=embedder))
    service.embedder.wait_ready(600)
    out: dict[str, list[float]] = {"all": [], "one": []}
    try:
        for q in MORE_QUERIES:
            service.recall(q, thread="*")
            service.recall(q, thread="project-3")
        for n in range(calls):
            q = MORE_QUERIES[n % len(MORE_QUERIES)]
            one = n % 2 == 1
            cpu = time.process_time()
            service.recall(q, thread=f"project-{(n * 7 + 3) % 200}" if one else "*")
            out["one" if one else "all"].append((time.process_time() - cpu) * 1000)
    finally:
        service.close()
    return out


def summary(values: list[float]) -> dict[str, float]:
    return {"p50": round(statistics.median(values), 2), "p95": round(statistics.quantiles(values, n=20)[-1], 2),
            "mean": round(statistics.mean(values), 2)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", type=Path, required=True, help="a store kept by bench/scale.py --keep")
    ap.add_argument("--checkouts", required=True, help="checkouts, comma-separated (the first is the baseline)")
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--answer", type=Path, default=None, help=argparse.SUPPRESS)  # inside a checkout: write here
    args = ap.parse_args()
    if args.answer is not None:
        args.answer.write_text(json.dumps(timings(args.home, args.embedder, args.calls)))
        return
    checkouts = [str(Path(c).resolve()) for c in args.checkouts.split(",")]
    pooled: dict[str, dict[str, list[float]]] = {c: {"all": [], "one": []} for c in checkouts}
    work = Path(tempfile.mkdtemp(prefix="memvault-recall-cpu-"))
    try:
        for _ in range(args.rounds):
            for n, checkout in enumerate(checkouts):
                home = work / f"home-{n}"
                shutil.copytree(args.home, home)
                answer = work / f"answer-{n}.json"
                subprocess.run([sys.executable, str(Path(__file__).resolve()), "--home", str(home), "--checkouts", "-",
                                "--embedder", args.embedder, "--calls", str(args.calls), "--answer", str(answer)],
                               env={**os.environ, "PYTHONPATH": checkout}, cwd=checkout, check=True)
                for name, values in json.loads(answer.read_text()).items():
                    pooled[checkout][name] += values
                shutil.rmtree(home)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    out: dict = {c: {name: summary(v) for name, v in got.items()} for c, got in pooled.items()}
    first = out[checkouts[0]]
    for checkout in checkouts[1:]:
        out[f"{checkout} / {checkouts[0]}"] = {name: {q: round(out[checkout][name][q] / first[name][q], 3)
                                                      for q in first[name]} for name in first}
    out["load_average_1min"] = os.getloadavg()[0]
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
