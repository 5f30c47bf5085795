"""Start-up on a big store: open_service, and spawn -> `initialize` -> first recall, per checkout.

A server's open used to run the index-drift check (five whole-table reads: 7.3 of 7.5 s at 1M
memories) before it answered `initialize`; now the check runs beside, after it. This measures both
sides on the same store (bench/scale.py --keep builds one), alternating checkouts round by round so
that the machine's load falls on both alike:

    python bench/first_recall.py --store /tmp/.../store-100000 --code /work/main,.  --rounds 3

For each checkout: in-process open_service (s), and over stdio spawn -> initialize reply,
spawn -> first recall reply (whatever mode: keyword while the model loads), spawn -> first hybrid
recall (model loaded), with the server's CPU seconds (all threads, /proc) at the initialize reply and
at the first hybrid recall, and the load average after each round: on a busy 2-core machine the wall
time is a multiple of the CPU, and the CPU is what a change moves. --trace prints each server's stage
marks (MEMVAULT_TRACE_START=1, server/stages.py). The store is only read (the check finds nothing on
a healthy store).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from startup import INIT, Proc, precompile  # noqa: E402

# The open a server makes (`memvault serve`): without the index check where the checkout has the option.
OPEN_PROBE = """
import inspect, time
from server.config import Settings
from server.compose import open_service
later = {"check_index": False} if "check_index" in inspect.signature(open_service).parameters else {}
t = time.perf_counter()
service = open_service(Settings.from_env(), **later)
print(round(time.perf_counter() - t, 3))
service.close()
"""
QUERY = {"name": "recall", "arguments": {"query": "which database does billing use?", "thread": "*"}}


def cpu_seconds(pid: int) -> float:
    """The process's CPU so far (user + system, every thread), from /proc (Linux; NaN elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return float("nan")


def one_server(code: Path, env: dict[str, str], trace: bool = False) -> dict:
    os.chdir(code)  # `python -m server` of that checkout
    proc = Proc([sys.executable, "-m", "server"], {**env, "MEMVAULT_TRACE_START": "1"} if trace else env)
    try:
        proc.request("initialize", INIT)
        init = time.perf_counter() - proc.started
        init_cpu = cpu_seconds(proc.p.pid)
        proc.notify("notifications/initialized")
        first = None
        while True:
            reply = proc.request("tools/call", QUERY)
            if first is None:
                first = time.perf_counter() - proc.started
            if reply["result"]["structuredContent"]["search"] == "hybrid":
                hybrid = time.perf_counter() - proc.started
                hybrid_cpu = cpu_seconds(proc.p.pid)
                break
            time.sleep(0.1)
        if trace:  # the server's stage marks (server/stages.py): where the time from spawn went, per thread
            print("".join(f"    {line}\n" for line in proc.log_tail(20000).splitlines() if "memvault stage" in line),
                  end="", flush=True)
    finally:
        proc.close()
    return {"initialize_s": init, "first_recall_s": first, "first_hybrid_recall_s": hybrid,
            "initialize_cpu_s": init_cpu, "first_hybrid_recall_cpu_s": hybrid_cpu}


def open_time(code: Path, env: dict[str, str]) -> float:
    out = subprocess.run([sys.executable, "-c", OPEN_PROBE], cwd=code, env={**env, "PYTHONPATH": str(code)},
                         capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--store", required=True, help="a data directory (bench/scale.py --keep)")
    ap.add_argument("--code", default=".", help="comma-separated checkouts to compare (default: this one)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", default=str(HERE / "results" / "first_recall.json"))
    ap.add_argument("--trace", action="store_true", help="print each server's start-up stage marks (MEMVAULT_TRACE_START)")
    args = ap.parse_args()
    codes = [Path(c).resolve() for c in args.code.split(",")]
    env = {**os.environ, "MEMVAULT_HOME": str(Path(args.store).resolve()), "MEMVAULT_LOG_LEVEL": "WARNING",
           "MEMVAULT_EMBEDDER": "minilm"}
    for code in codes:
        precompile(code)  # as a wheel install does (this machine sets PYTHONDONTWRITEBYTECODE)
    runs: dict[str, list[dict]] = {str(c): [] for c in codes}
    for r in range(args.rounds):
        for code in codes if r % 2 == 0 else codes[::-1]:
            row = {"open_service_s": open_time(code, env), **one_server(code, env, args.trace)}
            row["load"] = os.getloadavg()[0]
            runs[str(code)].append(row)
            print(f"round {r} {code}: " + ", ".join(f"{k} {v:.2f}" for k, v in row.items()), flush=True)
    summary = {c: {k: round(statistics.median(row[k] for row in rows), 2) for k in rows[0]} for c, rows in runs.items()}
    for code, medians in summary.items():
        print(f"median {code}: " + ", ".join(f"{k} {v}" for k, v in medians.items()))
    load = os.getloadavg()[0]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({"store": args.store, "load": load, "runs": runs, "median": summary}, indent=1))


if __name__ == "__main__":
    main()
