"""What recall's newer-first step (server/updates/newer_first.py) costs: recall time with and without it.

One store of update projects (bench/data/updates, the real model), every update question asked k=5
with the step and with it replaced by the identity, interleaved and alternating which goes first, so
that the two are measured under the same load; the ratio is the figure (absolute times on a shared
machine are noisy). Without the step, recall also skips reading the possible updates it orders by.

    python bench/newer_first_cost.py                      # the six development projects
    python bench/newer_first_cost.py --projects atlas,quill
    python bench/newer_first_cost.py --quick              # two projects, one round (CI)
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from quality import commit, quantiles  # noqa: E402
from server.updates import newer_first  # noqa: E402
from updates import QUICK_PROJECTS, Run, load  # noqa: E402

DEVELOPMENT = "atlas,helmsman,ledgerly,quill,pixelforge,shopfront"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--projects", default=DEVELOPMENT)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help=f"only {', '.join(QUICK_PROJECTS)}, one round (CI)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    if args.quick:
        args.projects, args.rounds = ",".join(QUICK_PROJECTS), 1
    args.out = args.out or str(HERE / "results" / ("newer_first_cost.quick.json" if args.quick else "newer_first_cost.json"))
    run = Run(load(tuple(args.projects.split(","))), "minilm")
    service = run.service
    questions = [(q, p["project"]) for p in run.projects for u in p["updates"] for q in u["q"].values()]
    step, identity = newer_first.order, (lambda ranked, *rest: list(ranked))
    # Without the step, recall does not read the possible updates it orders by (and attaches after a shown
    # memory, search._attach_later) either: "with" is the cost of both.
    read, skip = service.store.possible_updates, (lambda conn, ids=None, older=None: {})
    for query, thread in questions[:20]:
        service.recall(query, thread=thread, k=5)  # warm the caches
    times: dict[str, list[float]] = {"with": [], "without": []}
    try:
        for rnd in range(args.rounds):
            for query, thread in questions:
                for mode in (("with", "without") if rnd % 2 == 0 else ("without", "with")):
                    newer_first.order = step if mode == "with" else identity
                    service.store.possible_updates = read if mode == "with" else skip
                    started = time.perf_counter()
                    service.recall(query, thread=thread, k=5)
                    times[mode].append((time.perf_counter() - started) * 1000)
    finally:
        newer_first.order = step
        service.store.possible_updates = read
        service.close()
    res = {
        "projects": args.projects.split(","), "memories": len(run.ids), "recalls_each": len(times["with"]),
        "with_ms": quantiles(times["with"]), "without_ms": quantiles(times["without"]),
        "ratio_p50": round(statistics.median(times["with"]) / statistics.median(times["without"]), 3),
        "commit": commit(),
    }
    print(f"{res['memories']} memories, {res['recalls_each']} recalls each: with the newer-first step p50 "
          f"{res['with_ms']['p50']} ms / p95 {res['with_ms']['p95']} ms, without {res['without_ms']['p50']} / "
          f"{res['without_ms']['p95']} ms; ratio of medians {res['ratio_p50']}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(res, indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
