"""Start-up, first recall, warm recall latency and RSS of the memvault server.

Measured in one run, each beside its reference:
  * spawn -> `initialize` reply and -> `tools/list` reply, memvault vs a bare hello-world MCPServer
    started the same way (same Python, same pipes), alternating A/B;
  * spawn -> first successful recall (model load included);
  * warm recall p50/p95 over N stored memories, query embedding included, through the service
    and through MCP stdio;
  * idle RSS of a server before and after the model loads.

    python bench/startup.py            # full: 10,000 memories
    python bench/startup.py --quick    # CI: small sizes, same code paths
    python bench/startup.py --spawns 5 --startup-only   # the start-up ratio alone (~1 min, no fill)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from corpus import QUERIES, memories  # noqa: E402

MEMVAULT = str(Path(sys.executable).with_name("memvault"))
INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Proc:
    """A spawned MCP stdio server spoken to one request at a time (bench/memory.py uses it too)."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path | None = None) -> None:
        self.started = time.perf_counter()
        # The server's log goes to a file, not a pipe nobody reads: kept to say why a server died.
        self.log = tempfile.TemporaryFile()
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, env=env,
                                  cwd=cwd)
        self.next_id = 1

    def log_tail(self, chars: int = 3000) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-chars:]

    def request(self, method: str, params: dict | None = None) -> dict:
        rid = self.next_id
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": rid, "method": method, **({"params": params} if params is not None else {})}
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError(f"server exited (code {self.p.wait(timeout=30)}) during {method}; its log:\n{self.log_tail()}")
            reply = json.loads(line)
            if reply.get("id") == rid:
                return reply

    def notify(self, method: str) -> None:
        self.p.stdin.write((json.dumps({"jsonrpc": "2.0", "method": method}) + "\n").encode())
        self.p.stdin.flush()

    def close(self) -> None:
        self.p.stdin.close()
        self.p.wait(timeout=30)
        self.p.stdout.close()
        self.log.close()


def precompile(code: Path) -> None:
    """Byte-compile a checkout's package, as installing a wheel does. This machine sets
    PYTHONDONTWRITEBYTECODE: without the .pyc files every spawned server compiles memvault's ~25k lines
    from source (the SDK's, in site-packages, are compiled), a cost no installed copy pays that once
    made the ratio 1.8x instead of 1.5x (bench/hooks.py does the same for its hook processes)."""
    import compileall

    compileall.compile_dir(str(code / "server"), quiet=1, workers=1)


def server_argv() -> list[str]:
    return [sys.executable, "-m", "server"]


def spawn_times(argv: list[str], env: dict[str, str], cwd: Path | None = None) -> tuple[float, float]:
    proc = Proc(argv, env, cwd=cwd)
    proc.request("initialize", INIT)
    t_init = time.perf_counter() - proc.started
    proc.notify("notifications/initialized")
    proc.request("tools/list")
    t_list = time.perf_counter() - proc.started
    proc.close()
    return t_init, t_list


def ratio_summary(mv: list[tuple[float, float]], bare: list[tuple[float, float]]) -> dict:
    """Medians of one checkout's spawns and of the bare server's spawned right after each of them."""
    ratios = [a[0] / b[0] for a, b in zip(mv, bare)]
    return {
        "memvault_initialize_s": statistics.median(t[0] for t in mv),
        "bare_initialize_s": statistics.median(t[0] for t in bare),
        "memvault_tools_list_s": statistics.median(t[1] for t in mv),
        "bare_tools_list_s": statistics.median(t[1] for t in bare),
        "initialize_ratio_median": statistics.median(ratios),
        "tools_list_ratio_median": statistics.median(a[1] / b[1] for a, b in zip(mv, bare)),
        "initialize_ratios": [round(r, 3) for r in ratios],
        "load": os.getloadavg()[0],
    }


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--memories", type=int, default=None)
    ap.add_argument("--spawns", type=int, default=None)
    ap.add_argument("--startup-only", action="store_true",
                    help="measure spawn -> initialize / tools/list alone: the 10k fill and its embedding take minutes")
    ap.add_argument("--code", default=str(HERE.parent),
                    help="comma-separated checkouts whose start-up to measure, alternated (default: this one); "
                    "each is byte-compiled first (compare with a copy of main: `git archive main | tar -x -C DIR`)")
    ap.add_argument("--out", default=str(HERE / "results" / "startup.json"))
    args = ap.parse_args()
    n_mem = args.memories or (500 if args.quick else 10_000)
    spawns = args.spawns or (3 if args.quick else 10)
    home = Path(tempfile.mkdtemp(prefix="memvault-bench-"))
    env = {**os.environ, "MEMVAULT_HOME": str(home), "MEMVAULT_LOG_LEVEL": "WARNING"}
    results: dict = {"memories": n_mem, "spawns": spawns}

    # 1. spawn -> initialize / tools/list, each checkout then the bare server, round by round (the store
    # exists: the first spawn made it). `python -m server` from the checkout: the `memvault` script beside
    # the interpreter imports whichever checkout the venv was installed from.
    codes = [Path(c).resolve() for c in args.code.split(",")]
    for code in codes:
        precompile(code)
    spawn_times(server_argv(), env, codes[0])
    mv: dict[Path, list] = {c: [] for c in codes}
    bare: dict[Path, list] = {c: [] for c in codes}
    for r in range(spawns):
        for code in codes if r % 2 == 0 else codes[::-1]:
            mv[code].append(spawn_times(server_argv(), env, code))
            bare[code].append(spawn_times([sys.executable, str(HERE / "hello_server.py")], env))
    by_code = {str(c): ratio_summary(mv[c], bare[c]) for c in codes}
    results["startup"] = by_code[str(codes[0])]
    if len(codes) > 1:
        results["startup_by_code"] = by_code
    for code, s in by_code.items():
        print(f"{code}:")
        print(f"  spawn -> initialize   memvault {s['memvault_initialize_s']:.3f} s   bare {s['bare_initialize_s']:.3f} s   "
              f"ratio {s['initialize_ratio_median']:.2f}x (target <= 1.3x; load {s['load']:.1f})")
        print(f"  spawn -> tools/list   memvault {s['memvault_tools_list_s']:.3f} s   bare {s['bare_tools_list_s']:.3f} s   "
              f"ratio {s['tools_list_ratio_median']:.2f}x", flush=True)
    if args.startup_only:
        write(results, Path(args.out))
        return

    # 2. fill the store through the service (bulk path), embedding in batches
    from server.config import Settings
    from server.compose import open_service

    service = open_service(Settings(home=home))
    texts = memories(n_mem)
    t = time.perf_counter()
    for i, text in enumerate(texts):
        service.remember(text, thread=f"project-{i % 20}")
    t_write = time.perf_counter() - t
    service.embedder.wait_ready(600)
    t = time.perf_counter()
    service.indexer.run_once()
    t_embed = time.perf_counter() - t
    results["fill"] = {"remember_per_s": n_mem / t_write, "embed_per_s": n_mem / t_embed}

    # 3. warm recall through the service (query embedding included)
    for q in QUERIES:
        service.recall(q)
    lat, lat_thread = [], []
    rounds = 5 if args.quick else 20
    for r in range(rounds):
        for q in QUERIES:
            t = time.perf_counter()
            service.recall(q, thread="*")
            lat.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            service.recall(q, thread=f"project-{r % 20}")
            lat_thread.append((time.perf_counter() - t) * 1000)
    service.close()
    results["recall_service_ms"] = {
        "all_threads_p50": statistics.median(lat), "all_threads_p95": pct(lat, 0.95),
        "one_thread_p50": statistics.median(lat_thread), "one_thread_p95": pct(lat_thread, 0.95),
    }

    # 4. a fresh server process: RSS idle, first recall (model load included), warm recall over stdio
    proc = Proc(server_argv(), env, cwd=codes[0])
    proc.request("initialize", INIT)
    proc.notify("notifications/initialized")
    rss_idle = rss_mb(proc.p.pid)
    reply = proc.request("tools/call", {"name": "recall", "arguments": {"query": "which database does billing use?"}})
    first_recall = time.perf_counter() - proc.started
    assert reply["result"]["structuredContent"]["search"] == "hybrid", reply
    rss_loaded = rss_mb(proc.p.pid)
    stdio = []
    for _ in range(rounds):
        for q in QUERIES:
            t = time.perf_counter()
            proc.request("tools/call", {"name": "recall", "arguments": {"query": q, "thread": "*"}})
            stdio.append((time.perf_counter() - t) * 1000)
    proc.close()
    results["first_recall_s"] = first_recall
    results["recall_stdio_ms"] = {"p50": statistics.median(stdio), "p95": pct(stdio, 0.95)}
    results["rss_mb"] = {"idle_before_model": rss_idle, "after_model": rss_loaded}
    results["machine"] = {"cpus": os.cpu_count(), "python": sys.version.split()[0]}
    results["commit"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                       cwd=HERE).stdout.strip()

    print(f"spawn -> first recall {first_recall:.2f} s (model load included)")
    r = results["recall_service_ms"]
    print(f"warm recall, {n_mem} memories, service: all threads p50 {r['all_threads_p50']:.1f} ms p95 "
          f"{r['all_threads_p95']:.1f} ms; one thread p50 {r['one_thread_p50']:.1f} ms p95 {r['one_thread_p95']:.1f} ms")
    print(f"warm recall over MCP stdio: p50 {results['recall_stdio_ms']['p50']:.1f} ms p95 {results['recall_stdio_ms']['p95']:.1f} ms")
    print(f"RSS idle {rss_idle:.0f} MB, after model {rss_loaded:.0f} MB")
    print(f"fill: remember {results['fill']['remember_per_s']:.0f}/s, embed {results['fill']['embed_per_s']:.0f}/s")
    write(results, Path(args.out))


def write(results: dict, out: Path) -> None:
    results.setdefault("commit", subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                                text=True, cwd=HERE).stdout.strip())
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
