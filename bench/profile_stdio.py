"""Where a recall over MCP stdio spends its time beyond the service's own recall.

Spawns a stdio server of this checkout on a kept store (`bench/scale.py --keep`, or any home), sends
it recalls one at a time, and splits each round trip into the service's recall (timed inside the
server, on its worker thread) and the rest: the client's pipe, JSON-RPC parsing, argument validation,
the result's serialisation, the event loop's task hops. With --profile the server's event-loop thread
runs under cProfile (the service's worker thread is not profiled) and its top functions are printed;
with --stub the service's recall answers from a cache (each query's first real answer), so only the
MCP layer is measured.

    python bench/profile_stdio.py --home /tmp/memvault-scale-10000-xxxx --calls 300
    python bench/profile_stdio.py --home DIR --stub --profile
    python bench/profile_stdio.py --home DIR --checkouts /tmp/base,. --runs 4   # alternated, before / after
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))


def serve(out: Path, profile: bool, stub: bool, checkout: Path) -> None:
    """The server side: `memvault` of `checkout` serving stdio, its service recalls timed (and stubbed),
    stats to `out`."""
    sys.path.insert(0, str(checkout))
    from server.cli import admin
    from server.cli.output import Output
    from server.config import Settings
    from server.service import MemoryService

    spent: list[float] = []
    snaps: list[dict[str, float]] = []
    process_cpu: list[float] = []  # the whole process's CPU seconds (every thread) at each 100th recall
    cache: dict = {}
    real = MemoryService.recall

    marks: dict[str, list[float]] = {"line read": [], "service start": [], "service end": [], "reply written": []}

    def recall(self, query, **kwargs):
        t = time.perf_counter()
        marks["service start"].append(t)
        key = (query, tuple(sorted((k, repr(v)) for k, v in kwargs.items())))
        if stub and key in cache:
            result = cache[key]
        else:
            result = cache[key] = real(self, query, **kwargs)
        spent.append((time.perf_counter() - t) * 1000)
        marks["service end"].append(time.perf_counter())
        if len(spent) % 100 == 0:  # each thread's CPU over the last 100 recalls (what background work costs)
            snaps.append(threads_cpu())
            process_cpu.append(sum(os.times()[:2]))
        return result

    MemoryService.recall = recall  # type: ignore[method-assign]
    from server.app import stdio

    profiler = cProfile.Profile() if profile else None

    def marking(cls, name, mark):
        if not hasattr(stdio, cls):
            return
        real_fn = getattr(getattr(stdio, cls), name)

        async def wrapper(self, *args):
            value = await real_fn(self, *args)
            if value or mark != "line read":  # not EOF
                marks[mark].append(time.perf_counter())
            if mark == "line read" and len(marks[mark]) == 60 and profiler is not None:
                profiler.enable()  # on the event loop's thread, past the warm-up (40 recalls)
            return value
        setattr(getattr(stdio, cls), name, wrapper)

    marking("_FdReader", "readline", "line read")
    marking("_FdWriter", "write", "reply written")
    if profiler is not None and not hasattr(stdio, "_FdReader"):
        profiler.enable()  # from the start: imports and start-up included
    try:
        admin._serve(Settings.from_env(), argparse.Namespace(), Output(as_json=False))  # noqa: SLF001
    finally:
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(str(out) + ".prof")
        out.write_text(json.dumps({"service_ms": spent, "threads_cpu_s": {k: round(v - snaps[-2].get(k, 0), 2) for k, v in snaps[-1].items()}
                                    if len(snaps) > 1 else threads_cpu(), "marks": marks,
                                    "process_cpu_ms_per_recall": [(b - a) * 10 for a, b in zip(process_cpu, process_cpu[1:])]}))
    os._exit(0)  # the model loader may sit in a daemon thread, as `memvault` exits


def threads_cpu() -> dict[str, float]:
    """CPU seconds each live thread of this process has used (Linux; empty elsewhere), by thread name."""
    import threading

    names = {t.native_id: t.name for t in threading.enumerate()}
    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    for task in Path("/proc/self/task").glob("*"):
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        name = names.get(int(task.name)) or (task / "comm").read_text().strip()
        out[f"{name} ({task.name})"] = (int(fields[11]) + int(fields[12])) / tick
    return out


def spell(checkout: Path, args, stats_file: Path) -> dict[str, list[float]]:
    """One server of `checkout` on the store: warmed, then args.calls recalls timed one at a time."""
    from scale import MORE_QUERIES
    from startup import INIT, Proc

    env = {**os.environ, "MEMVAULT_HOME": str(args.home), "MEMVAULT_LOG_LEVEL": "WARNING",
           "MEMVAULT_EMBEDDER": args.embedder, "PYTHONPATH": str(checkout)}
    argv = [sys.executable, str(Path(__file__).resolve()), "--serve", str(stats_file), "--checkout", str(checkout)]
    argv += ["--profile"] * args.profile + ["--stub"] * args.stub
    proc = Proc(argv, env)
    proc.request("initialize", INIT)
    proc.notify("notifications/initialized")
    for q in MORE_QUERIES:  # warm (and fill the stub's cache)
        proc.request("tools/call", {"name": "recall", "arguments": {"query": q, "thread": "*"}})
        proc.request("tools/call", {"name": "recall", "arguments": {"query": q, "thread": "project-3"}})
    trip, sent, got = [], [], []
    for n in range(args.calls):
        q = MORE_QUERIES[n % len(MORE_QUERIES)]
        arguments = {"query": q, "thread": "*" if n % 2 == 0 else "project-3"}
        t = time.perf_counter()
        proc.request("tools/call", {"name": "recall", "arguments": arguments})
        sent.append(t)
        got.append(time.perf_counter())
        trip.append((got[-1] - t) * 1000)
    proc.close()
    told = json.loads(stats_file.read_text())
    served = told["service_ms"][-args.calls:]
    if args.threads:
        print(checkout, "CPU s by thread over 100 recalls:", json.dumps(told["threads_cpu_s"], indent=1))
    found = {"process CPU per recall (mean of 100)": told["process_cpu_ms_per_recall"][-1:],
             "round trip": trip, "service recall": served,
             "the rest (MCP, pipe)": [a - b for a, b in zip(trip, served)]}
    marks = {name: xs[-args.calls:] for name, xs in told["marks"].items()}
    if all(len(xs) == args.calls for xs in marks.values()):  # this checkout's reader and writer: the hops timed
        steps = [("sent", sent), ("line read", marks["line read"]), ("service start", marks["service start"]),
                 ("service end", marks["service end"]), ("reply written", marks["reply written"]), ("received", got)]
        for (a, xs), (b, ys) in zip(steps, steps[1:]):
            found[f"{a} -> {b}"] = [(y - x) * 1000 for x, y in zip(xs, ys)]
    return found


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--serve", type=Path, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--checkout", type=Path, default=HERE.parent, help=argparse.SUPPRESS)
    ap.add_argument("--home", type=Path, required=False)
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--stub", action="store_true", help="the service's recall answers from a cache")
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--top", type=int, default=35)
    ap.add_argument("--checkouts", default=None, help="servers of these checkouts (comma-separated), alternated")
    ap.add_argument("--threads", action="store_true", help="print the server's CPU time by thread")
    ap.add_argument("--runs", type=int, default=1, help="servers per checkout")
    args = ap.parse_args()
    if args.serve is not None:
        serve(args.serve, args.profile, args.stub, args.checkout)
        return
    from startup import pct

    stats_file = Path(tempfile.mkdtemp(prefix="memvault-profile-stdio-")) / "server.json"
    checkouts = [Path(c).resolve() for c in args.checkouts.split(",")] if args.checkouts else [HERE.parent]
    found: dict[str, dict[str, list[float]]] = {}
    for run in range(args.runs):
        for checkout in checkouts:  # alternated: a busy spell hits each checkout alike
            got = spell(checkout, args, stats_file)
            for name, xs in got.items():
                found.setdefault(str(checkout), {}).setdefault(name, []).extend(xs)
    for checkout, got in found.items():
        print(checkout)
        for name, xs in got.items():
            if not xs:
                continue  # the process's CPU needs 200 recalls after the warm-up (--calls)
            print(f"  {name:22} p50 {statistics.median(xs):6.2f} ms  p95 {pct(xs, 0.95):6.2f} ms")
    (first, a), *others = found.items()
    for other, b in others:
        for name in a:
            if a[name] and b.get(name):
                print(f"{other} / {first}, {name}: p50 {statistics.median(b[name]) / statistics.median(a[name]):.3f}, "
                      f"p95 {pct(b[name], 0.95) / pct(a[name], 0.95):.3f}")
    print(f"load average (1 min) {os.getloadavg()[0]:.2f}")
    if args.profile:
        stats = pstats.Stats(str(stats_file) + ".prof").strip_dirs()
        stats.sort_stats("tottime").print_stats(args.top)
        stats.sort_stats("cumulative").print_stats(args.top)


if __name__ == "__main__":
    main()
