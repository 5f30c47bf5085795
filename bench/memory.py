"""Resident memory of memvault server processes (VmRSS from /proc), in one run.

  * one idle spawned `memvault serve`: RSS right after `initialize` without a model
    (a server on the hash embedder: a server starts its model's load once it has answered `initialize`, so
    none is caught before it; checked by the absence of the runtime's library in
    its memory map) and after its first semantic recall (model loaded);
  * N processes (default 4) on ONE data directory, as N assistant windows would
    run them: RSS of each after it answered a semantic recall, and the total
    (target <= 1.5 GB for 4). PSS (shared pages split between processes) beside it.

Full mode measures the torch runtime (MEMVAULT_EMBED_RUNTIME=torch, the old
in-process sentence-transformers) the same way as the reference.

    python bench/memory.py            # onnx and torch, 4 processes each
    python bench/memory.py --quick    # CI: onnx only
    python bench/memory.py --store <home of bench/scale.py --keep> --out bench/results/memory_1m.json
        # 4 servers + 2 hook processes on a big store: RSS / PSS / private of each, the first recall
    python bench/memory.py --store <home> --code <before>,<after>   # the same for two checkouts, in turn
Linux only (reads /proc).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from startup import INIT, MEMVAULT, Proc  # noqa: E402  (one stdio client for the benchmarks)

TARGET_MB = 1536
RUNTIME_LIBS = {"onnx": "onnxruntime", "numpy": "tokenizers", "torch": "libtorch"}


def status_mb(pid: int, key: str = "VmRSS") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def pss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def mapped(pid: int, name: str) -> bool:
    return bool(mapped_paths(pid, name))


def mapped_paths(pid: int, name: str) -> list[str]:
    """The files mapped into a process whose path contains `name`."""
    lines = Path(f"/proc/{pid}/maps").read_text().splitlines()
    return sorted({line.split(maxsplit=5)[-1] for line in lines if name in line})


class Server(Proc):
    """A spawned `memvault` spoken to over stdio, one request at a time."""

    def __init__(self, home: Path, runtime: str, embedder: str = "minilm") -> None:
        env = {**os.environ, "MEMVAULT_HOME": str(home), "MEMVAULT_LOG_LEVEL": "WARNING",
               "MEMVAULT_EMBEDDER": embedder, "MEMVAULT_EMBED_RUNTIME": runtime}
        super().__init__([MEMVAULT], env)

    def initialize(self) -> None:
        self.request("initialize", INIT)
        self.notify("notifications/initialized")

    def tool(self, name: str, arguments: dict) -> dict:
        reply = self.request("tools/call", {"name": name, "arguments": arguments})
        result = reply.get("result") or {}
        if "structuredContent" not in result or result.get("isError"):
            raise RuntimeError(f"{name} failed: {json.dumps(reply)[:1500]}\nserver log:\n{self.log_tail()}")
        return result["structuredContent"]

    def semantic_recall(self, timeout: float = 900) -> float:
        """Recall until the answer is semantic (the model loaded); returns the seconds it took."""
        started = time.perf_counter()
        while True:
            if self.tool("recall", {"query": "which database does billing use?"})["search"] == "hybrid":
                return time.perf_counter() - started
            if time.perf_counter() - started > timeout:
                raise RuntimeError("the model never loaded")
            time.sleep(0.2)


def measure(runtime: str, processes: int, root: Path) -> dict:
    lib = RUNTIME_LIBS[runtime]
    # One idle server: before and after the model loads. A server starts its model's load as soon as
    # the store is open (service.prepare), before it can answer `initialize`: "before" is a server that
    # loads none (the hash embedder, on a store of its own), which is what one is until the load.
    idle = Server(root / f"{runtime}-idle", runtime, embedder="hash")
    try:
        idle.initialize()
        before = status_mb(idle.p.pid)
        before_clean = not mapped(idle.p.pid, lib)
    finally:
        idle.close()
    one = Server(root / f"{runtime}-single", runtime)
    one.initialize()
    try:
        one.tool("remember", {"content": "The billing service uses PostgreSQL 16."})
        first = one.semantic_recall()
        time.sleep(0.5)
        single = {"rss_before_model_mb": round(before, 1), "measured_before_model_load": before_clean,
                  "rss_after_model_mb": round(status_mb(one.p.pid), 1),
                  "hwm_mb": round(status_mb(one.p.pid, "VmHWM"), 1), "first_semantic_recall_s": round(first, 2)}
    finally:
        one.close()

    # N servers on one data directory, each after answering a semantic recall.
    home = root / f"{runtime}-shared"
    servers = [Server(home, runtime) for _ in range(processes)]
    try:
        for s in servers:
            s.initialize()
        servers[0].tool("remember", {"content": "The billing service uses PostgreSQL 16."})
        for s in servers:
            s.semantic_recall()
        time.sleep(0.5)
        per = [{"pid": s.p.pid, "rss_mb": round(status_mb(s.p.pid), 1), "pss_mb": round(pss_mb(s.p.pid), 1),
                "torch_mapped": mapped_paths(s.p.pid, "libtorch")} for s in servers]
    finally:
        for s in servers:
            s.close()
    return {
        "single": single,
        "processes": per,
        "total_rss_mb": round(sum(p["rss_mb"] for p in per), 1),
        "total_pss_mb": round(sum(p["pss_mb"] for p in per), 1),
    }


def smaps_mb(pid: int) -> dict:
    """RSS, PSS and private (clean + dirty) memory of a process, MB."""
    kb = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        parts = line.split()
        if parts[-1] == "kB":
            kb[parts[0].rstrip(":")] = int(parts[1])
    return {"rss": round(kb.get("Rss", 0) / 1024, 1), "pss": round(kb.get("Pss", 0) / 1024, 1),
            "private": round((kb.get("Private_Clean", 0) + kb.get("Private_Dirty", 0)) / 1024, 1)}


HOOK_PROBE = """
import io, json, sys, time
from server.config import Settings
from server.hooks.run import open_light
from server.hooks.inject import prompt_context
started = time.perf_counter()
service = open_light(Settings.from_env(), create=False)
found = prompt_context(service, sys.argv[1], "which database does billing use?", 300, 0.0, set())
print(json.dumps({"first_answer_s": round(time.perf_counter() - started, 3), "injected": bool(found.text)}), flush=True)
sys.stdin.readline()  # stay alive until measured
"""


def measure_store(home: Path, servers: int, hooks: int, thread: str, code: Path | None = None) -> dict:
    """N servers and M hook processes on an existing store (bench/scale.py --keep): memory of each
    after a mix of recalls over every thread and over one thread, and the first recall's timing.
    `code`: a checkout whose `python -m server` (and hook code) to run instead of the installed memvault."""
    import subprocess

    env = {**os.environ, "MEMVAULT_HOME": str(home), "MEMVAULT_LOG_LEVEL": "WARNING", "MEMVAULT_EMBEDDER": "minilm"}
    started = [time.perf_counter()]
    argv = [sys.executable, "-m", "server"] if code else [MEMVAULT]
    procs = [Proc(argv, env, cwd=code) for _ in range(servers)]
    first: list[dict] = []
    try:
        for n, proc in enumerate(procs):
            t0 = time.perf_counter()
            proc.request("initialize", INIT)
            proc.notify("notifications/initialized")
            while True:  # until the model answers: spawn -> first semantic recall
                t = time.perf_counter()
                reply = proc.request("tools/call", {"name": "recall", "arguments": {"query": "which database does billing use?", "thread": "*"}})
                if "structuredContent" not in reply.get("result", {}):
                    raise RuntimeError(f"recall failed: {json.dumps(reply)[:1500]}\nserver log:\n{proc.log_tail()}")
                if reply["result"]["structuredContent"]["search"] == "hybrid":
                    first.append({"spawn_to_first_hybrid_recall_s": round(time.perf_counter() - t0, 2),
                                  "that_recall_s": round(time.perf_counter() - t, 2)})
                    break
                time.sleep(0.2)
        for proc in procs:
            for q in range(20):
                arguments = {"query": f"deploy the billing worker {q}", "thread": "*" if q % 2 else thread}
                proc.request("tools/call", {"name": "recall", "arguments": arguments})
        probes = [subprocess.Popen([sys.executable, "-c", HOOK_PROBE, thread], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, text=True, env={**env, "PYTHONPATH": str(code or HERE.parent)},
                                   cwd=code)
                  for _ in range(hooks)]
        answers = [json.loads(p.stdout.readline()) for p in probes]
        time.sleep(0.5)
        per_server = [smaps_mb(p.p.pid) for p in procs]
        per_hook = [smaps_mb(p.pid) for p in probes]
        for p in probes:
            p.communicate("\n", timeout=30)
    finally:
        for proc in procs:
            proc.close()
    everything = per_server + per_hook
    return {"store": str(home), "code": str(code) if code else MEMVAULT, "servers": per_server, "hooks": per_hook, "hook_answers": answers,
            "first_recall": first, "total_rss_mb": round(sum(p["rss"] for p in everything), 1),
            "total_pss_mb": round(sum(p["pss"] for p in everything), 1),
            "load_average_1min": os.getloadavg()[0], "since_start_s": round(time.perf_counter() - started[0], 1)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="the ONNX runtime only (CI)")
    ap.add_argument("--processes", type=int, default=4)
    ap.add_argument("--runtimes", help="comma-separated (default: onnx,torch; quick: onnx)")
    ap.add_argument("--out", default=str(HERE / "results" / "memory.json"))
    ap.add_argument("--store", help="a data directory to measure N servers + --hooks hook processes on "
                    "(e.g. a 1M store of bench/scale.py --keep) instead of the small stores")
    ap.add_argument("--hooks", type=int, default=2)
    ap.add_argument("--thread", default="project-3", help="the thread of the one-thread recalls (--store)")
    ap.add_argument("--code", help="with --store: comma-separated checkouts to measure in turn (their `python -m "
                    "server` and hook code) instead of the installed memvault, e.g. before,after")
    args = ap.parse_args()
    if args.store:
        codes = [Path(c).resolve() for c in args.code.split(",")] if args.code else [None]
        results = []
        for code in codes:
            result = measure_store(Path(args.store), args.processes, args.hooks, args.thread, code)
            results.append(result)
            print(f"{args.processes} servers + {args.hooks} hooks on {args.store} ({result['code']}): total RSS "
                  f"{result['total_rss_mb']:.0f} MB, PSS {result['total_pss_mb']:.0f} MB (load {result['load_average_1min']:.1f})")
            for kind in ("servers", "hooks"):
                print(f"  {kind}: " + "; ".join(f"RSS {p['rss']:.0f} / PSS {p['pss']:.0f} / private {p['private']:.0f} MB"
                                                for p in result[kind]))
            print("  first recall: " + "; ".join(f"{f['spawn_to_first_hybrid_recall_s']} s from spawn ({f['that_recall_s']} s "
                                                 "for that recall)" for f in result["first_recall"]))
            print("  hooks' first answer: " + "; ".join(f"{a['first_answer_s']} s" for a in result["hook_answers"]))
        target = Path(args.out)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(results[0] if len(results) == 1 else results, indent=2) + "\n")
        print(f"wrote {target}")
        return 0
    runtimes = (args.runtimes or ("onnx" if args.quick else "onnx,torch")).split(",")
    results: dict = {"processes": args.processes, "target_total_mb": TARGET_MB, "runtimes": {}}
    with tempfile.TemporaryDirectory(prefix="memvault-memory-") as tmp:
        for runtime in runtimes:
            for attempt in (1, 2):
                try:
                    results["runtimes"][runtime] = measure(runtime, args.processes, Path(tmp) / f"attempt-{attempt}")
                    break
                except Exception:  # noqa: BLE001 - measured again once; what went wrong is printed and kept
                    # Once, on CI's shared machine, this run failed in 4 s with its output lost; the
                    # traceback (with the server's log) is kept in the results to find why.
                    failure = traceback.format_exc()
                    print(f"{runtime}: attempt {attempt} failed:\n{failure}", file=sys.stderr, flush=True)
                    results.setdefault("failed_attempts", []).append({"runtime": runtime, "traceback": failure})
                    if attempt == 2:
                        raise

    print(f"{'runtime':8} {'idle before model':>18} {'after model':>12} {'HWM':>7} "
          f"{f'{args.processes} processes RSS':>20} {'PSS':>8}  per process RSS (MB)")
    for runtime, r in results["runtimes"].items():
        s = r["single"]
        flag = "" if s["measured_before_model_load"] else "*"
        print(f"{runtime:8} {s['rss_before_model_mb']:>17.0f}{flag:1} {s['rss_after_model_mb']:>12.0f} "
              f"{s['hwm_mb']:>7.0f} {r['total_rss_mb']:>20.0f} {r['total_pss_mb']:>8.0f}  "
              + " ".join(f"{p['rss_mb']:.0f}" for p in r["processes"]))
    if any(not r["single"]["measured_before_model_load"] for r in results["runtimes"].values()):
        print("* the model had started loading when the idle RSS was read")
    onnx = results["runtimes"].get("onnx")
    if onnx:
        verdict = "meets" if onnx["total_rss_mb"] <= TARGET_MB else "MISSES"
        print(f"onnx: {args.processes} processes {onnx['total_rss_mb']:.0f} MB, {verdict} the {TARGET_MB} MB target")
    results["machine"] = {"cpus": os.cpu_count(), "python": sys.version.split()[0]}
    target = Path(args.out)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {target}")
    bad = onnx is not None and any(p["torch_mapped"] for p in onnx["processes"])
    if bad:
        print("error: a server on the onnx runtime has libtorch mapped: "
              + "; ".join(f"pid {p['pid']}: {p['torch_mapped']}" for p in onnx["processes"] if p["torch_mapped"]))
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
