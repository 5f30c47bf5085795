"""Resident memory of memvault server processes (VmRSS from /proc), in one run.

  * one idle spawned `memvault serve`: RSS right after `initialize` (before the
    model loads; checked by the absence of the runtime's library in its memory
    map) and after its first semantic recall (model loaded);
  * N processes (default 4) on ONE data directory, as N assistant windows would
    run them: RSS of each after it answered a semantic recall, and the total
    (target <= 1.5 GB for 4). PSS (shared pages split between processes) beside it.

Full mode measures the torch runtime (MEMVAULT_EMBED_RUNTIME=torch, the old
in-process sentence-transformers) the same way as the reference.

    python bench/memory.py            # onnx and torch, 4 processes each
    python bench/memory.py --quick    # CI: onnx only
Linux only (reads /proc).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
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
    return name in Path(f"/proc/{pid}/maps").read_text()


class Server(Proc):
    """A spawned `memvault` spoken to over stdio, one request at a time."""

    def __init__(self, home: Path, runtime: str) -> None:
        env = {**os.environ, "MEMVAULT_HOME": str(home), "MEMVAULT_LOG_LEVEL": "WARNING",
               "MEMVAULT_EMBEDDER": "minilm", "MEMVAULT_EMBED_RUNTIME": runtime}
        super().__init__([MEMVAULT], env)

    def initialize(self) -> None:
        self.request("initialize", INIT)
        self.notify("notifications/initialized")

    def tool(self, name: str, arguments: dict) -> dict:
        return self.request("tools/call", {"name": name, "arguments": arguments})["result"]["structuredContent"]

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
    # One idle server: before and after the model loads.
    home = root / f"{runtime}-single"
    for attempt in range(3):
        # The loader starts 0.5 s after start-up; on a busy machine the first
        # reading can come later than that: try again with a new process (and
        # after the third, go on with it: `measured_before_model_load` says so).
        one = Server(home, runtime)
        one.initialize()
        before = status_mb(one.p.pid)
        before_clean = not mapped(one.p.pid, lib)  # the loader had not started yet
        if before_clean or attempt == 2:
            break
        one.close()
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
                "torch_mapped": mapped(s.p.pid, "libtorch")} for s in servers]
    finally:
        for s in servers:
            s.close()
    return {
        "single": single,
        "processes": per,
        "total_rss_mb": round(sum(p["rss_mb"] for p in per), 1),
        "total_pss_mb": round(sum(p["pss_mb"] for p in per), 1),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="the ONNX runtime only (CI)")
    ap.add_argument("--processes", type=int, default=4)
    ap.add_argument("--runtimes", help="comma-separated (default: onnx,torch; quick: onnx)")
    ap.add_argument("--out", default=str(HERE / "results" / "memory.json"))
    args = ap.parse_args()
    runtimes = (args.runtimes or ("onnx" if args.quick else "onnx,torch")).split(",")
    results: dict = {"processes": args.processes, "target_total_mb": TARGET_MB, "runtimes": {}}
    with tempfile.TemporaryDirectory(prefix="memvault-memory-") as tmp:
        for runtime in runtimes:
            results["runtimes"][runtime] = measure(runtime, args.processes, Path(tmp))

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
        print("error: a server on the onnx runtime has libtorch mapped")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
