"""Run the whole benchmark suite, one script after another, and collect their results.

    python bench/run.py            # full sizes: the figures in the README (tens of minutes)
    python bench/run.py --quick    # small sizes, every code path; CI runs this so no script rots
    python bench/run.py startup scale   # only some of them

Each script prints its own table and writes bench/results/<name>.json (quick runs write
<name>.quick.json, so a CI-size run never overwrites the README figures). This runner
only sequences them — one at a time, because they measure a shared 2-core machine —
and writes bench/results/summary[.quick].json: which ran, how long, exit codes.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
TAIL_LINES = 40


@dataclass(frozen=True)
class Bench:
    name: str
    script: str
    full: tuple[str, ...] = ()
    quick: tuple[str, ...] = ("--quick",)
    needs_model: bool = False
    extra: dict[str, str] = field(default_factory=dict)


SUITE = (
    Bench("startup", "startup.py", needs_model=True),
    Bench("retrieval", "retrieval.py", needs_model=True),
    Bench("updates", "updates.py", needs_model=True),
    Bench("longtext", "longtext.py", needs_model=True),
    Bench("ingest", "ingest.py", needs_model=True),
    Bench("memory", "memory.py", needs_model=True),
    Bench("load", "load.py"),
    Bench("scale", "scale.py", needs_model=True),  # --quick uses the hash embedder
    Bench("prescan", "prescan.py", needs_model=True),  # --quick uses the hash embedder
    Bench("backlog", "backlog.py", needs_model=True),  # recall during a 10k embedding backlog; --quick: hash
    Bench("http_load", "http_load.py"),
    Bench("http_load_pg", "http_load.py", full=("--postgres",), quick=("--postgres", "--quick")),
    Bench("http_sessions", "http_sessions.py"),
    Bench("pg_store", "pg_store.py"),
    Bench("pg_scale", "pg_scale.py"),
    Bench("migrate", "migrate.py"),
    Bench("profile_recall", "profile_recall.py", needs_model=True),
    Bench("newer_first_cost", "newer_first_cost.py", needs_model=True),  # recall with / without its newer-first step
    Bench("secrets_fp", "secrets_fp.py", quick=()),
    Bench("write_cost", "write_cost.py", quick=("--sizes", "200,1000", "--writes", "10", "--warmup", "2")),  # remember at 1k/10k/100k
    Bench("hooks", "hooks.py"),  # spawned hook latency at 10k/100k memories, capture cost
    Bench("value_hooks", "value_hooks.py"),  # later sessions answered by injected context alone
    Bench("real_sessions", "real_sessions.py", quick=()),  # the same on published sessions; tuning and held-out
    Bench("poisoning", "poisoning.py", quick=()),
    Bench("faults", "faults.py"),  # injected faults: calls answered, clear errors, data lost, reads under a held lock
)


def run(bench: Bench, quick: bool) -> dict:
    suffix = ".quick.json" if quick else ".json"
    out = RESULTS / f"{bench.name}{suffix}"
    args = [sys.executable, str(HERE / bench.script), *(bench.quick if quick else bench.full), "--out", str(out)]
    print(f"\n=== {bench.name}: {' '.join(args[1:])}", flush=True)
    started = time.perf_counter()
    # The script's output is passed through and its last lines kept: when it fails, the
    # summary says why (a caller capturing this runner's output sees only its end).
    tail: deque[str] = deque(maxlen=TAIL_LINES)
    with subprocess.Popen(args, cwd=HERE.parent, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          errors="replace") as proc:
        for line in proc.stdout:
            sys.stdout.write(line)
            tail.append(line)
        code = proc.wait()
    sys.stdout.flush()
    result = {"name": bench.name, "exit_code": code, "seconds": round(time.perf_counter() - started, 1),
              "results": str(out.relative_to(HERE.parent)), "wrote_results": out.exists()}
    if code != 0 or not result["wrote_results"]:
        result["output_tail"] = "".join(tail)
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help=f"subset to run (default all): {', '.join(b.name for b in SUITE)}")
    ap.add_argument("--quick", action="store_true", help="small sizes (CI)")
    ap.add_argument("--skip-model", action="store_true", help="skip the benchmarks that load the embedding model")
    args = ap.parse_args(argv)
    unknown = set(args.names) - {b.name for b in SUITE}
    if unknown:
        ap.error(f"unknown benchmark(s) {sorted(unknown)}; choose from {[b.name for b in SUITE]}")
    chosen = [b for b in SUITE if (not args.names or b.name in args.names) and not (args.skip_model and b.needs_model)]
    RESULTS.mkdir(exist_ok=True)
    runs = [run(b, args.quick) for b in chosen]
    summary = {"quick": args.quick, "runs": runs, "python": sys.version.split()[0]}
    (RESULTS / ("summary.quick.json" if args.quick else "summary.json")).write_text(json.dumps(summary, indent=2) + "\n")
    print("\n| benchmark | exit | seconds |\n|---|---|---|")
    for r in runs:
        print(f"| {r['name']} | {r['exit_code']} | {r['seconds']} |")
    return 0 if all(r["exit_code"] == 0 and r["wrote_results"] for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
