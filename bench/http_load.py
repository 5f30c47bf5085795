"""Many HTTP clients, several tenants, one `memvault serve --http`: throughput, latency, zero errors, zero leaks.

Starts the server of this checkout on a free port, creates one bearer token per
tenant with `memvault token create`, and drives it with the SDK's streamable HTTP
client: C clients spread over T tenants, each looping over a mix of calls for a
bounded time once every client is connected:

    35 % recall          (the query names every tenant's marker, to tempt a leak)
    30 % remember        (near-identical content in every tenant, plus its own marker)
    15 % thread_prompt   (with a query, as a host starting a conversation would)
    20 % resources       (memory://threads, memory://threads/{thread}, memory://global-prompts, memory://daily)

Each tenant's content carries a marker word unique to it; every reply a client gets
is searched for the *other* tenants' markers. A leak is one reply containing one.

    python bench/http_load.py                    # 21 clients x 3 tenants x 20 s
    python bench/http_load.py --quick            # 21 clients x 3 tenants x 4 s (CI)
    python bench/http_load.py --clients 30 --tenants 5 --seconds 60

The server inherits this process's environment (MEMVAULT_* settings, e.g. a database
URL for another backend) except MEMVAULT_HOME, which is a fresh temporary folder unless
--home is given, and MEMVAULT_EMBEDDER (--embedder, default hash: the load measures the
transport and the store, not the model). Prints a table, writes bench/results/http_load.json,
exits 1 on any error or leak.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx2  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

WORDS = "sqlite postgres billing deploy cache index vector kernel editor release branch invoice queue".split()
THREADS = ["api", "web", "infra"]
RESOURCES = ["memory://threads", "memory://threads/{thread}", "memory://global-prompts", "memory://daily"]
MIX = [("recall", 35), ("remember", 30), ("thread_prompt", 15), ("resource", 20)]


@dataclass
class Run:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: list[str] = field(default_factory=list)
    leaks: list[str] = field(default_factory=list)
    calls_by_tenant: dict[str, int] = field(default_factory=lambda: defaultdict(int))


def server_env(home: Path, embedder: str) -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path, "MEMVAULT_HOME": str(home), "MEMVAULT_EMBEDDER": embedder,
            "MEMVAULT_LOG_LEVEL": os.environ.get("MEMVAULT_LOG_LEVEL", "WARNING")}


def create_token(env: dict[str, str], tenant: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "server", "token", "create", "--tenant", tenant, "--user", f"bench-{tenant}",
         "--agent", "http-load", "--expires", "1d", "--label", "bench/http_load.py"],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=120,
    )
    if proc.returncode != 0:
        raise SystemExit(f"token create failed: {proc.stderr}")
    return proc.stdout.strip()


class Server:
    """`memvault serve --http --port 0`, with its stderr kept (and its URL read from it)."""

    def __init__(self, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "server", "serve", "--http", "--port", "0"], cwd=ROOT, env=env,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        self.stderr = bytearray()
        self.url = ""
        self.ready = threading.Event()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        for line in iter(self.proc.stderr.readline, b""):
            self.stderr += line
            found = re.search(rb"listening on (http://\S+/mcp)", line)
            if found:
                self.url = found.group(1).decode()
                self.ready.set()
        self.ready.set()

    def cpu_seconds(self) -> float | None:
        """User + system CPU the server used so far (Linux /proc; None elsewhere)."""
        try:
            fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            return None

    def stop(self) -> int:
        self.proc.terminate()
        try:
            return self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait(timeout=10)


class Start:
    """Every client connects first; the timed run starts when the last one is in."""

    def __init__(self, clients: int) -> None:
        self.waiting = clients
        self.event = asyncio.Event()
        self.deadline = 0.0

    def arrive(self, seconds: float) -> None:
        self.waiting -= 1
        if self.waiting == 0:
            self.deadline = time.perf_counter() + seconds
            self.event.set()


async def client_loop(n: int, url: str, tenant: str, bearer: str, markers: dict[str, str], start: Start,
                      seconds: float, run: Run, seed: int) -> None:
    rng = random.Random(seed * 1000 + n)
    own = markers[tenant]
    others = [m for t, m in markers.items() if t != tenant]
    kinds = [k for k, w in MIX for _ in range(w)]

    def check(kind: str, payload: str) -> None:
        for marker in others:
            if marker in payload:
                run.leaks.append(f"client {n} ({tenant}) saw {marker} in a {kind} reply")

    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {bearer}"},
                                  timeout=httpx2.Timeout(60, read=120)) as http:
        async with Client(streamable_http_client(url, http_client=http), mode="legacy") as client:  # type: ignore[arg-type]
            start.arrive(seconds)
            await start.event.wait()
            i = 0
            while time.perf_counter() < start.deadline:
                kind = rng.choice(kinds)
                thread = rng.choice(THREADS)
                words = " ".join(rng.sample(WORDS, 4))
                began = time.perf_counter()
                try:
                    if kind == "remember":
                        r = await client.call_tool("remember", {
                            "content": f"{own} client {n} note {i}: the {words} decision", "thread": thread})
                        payload, failed = json.dumps(r.structured_content), r.is_error
                    elif kind == "recall":
                        r = await client.call_tool("recall", {
                            "query": f"{words} {' '.join(markers.values())}", "thread": "*", "k": 10})
                        payload, failed = json.dumps(r.structured_content), r.is_error
                    elif kind == "thread_prompt":
                        r = await client.call_tool("thread_prompt", {
                            "thread": thread, "query": f"{words} {' '.join(others)}", "token_budget": 2000})
                        payload, failed = json.dumps(r.structured_content), r.is_error
                    else:
                        uri = rng.choice(RESOURCES).format(thread=thread)
                        contents = (await client.read_resource(uri)).contents
                        payload, failed = "\n".join(getattr(c, "text", "") for c in contents), False
                except Exception as exc:  # noqa: BLE001 - every failure is counted, none ends the run
                    run.errors.append(f"client {n} ({tenant}) {kind}: {type(exc).__name__}: {exc}"[:300])
                    continue
                run.latencies[kind].append(time.perf_counter() - began)
                run.calls_by_tenant[tenant] += 1
                if failed:
                    run.errors.append(f"client {n} ({tenant}) {kind}: error result {payload[:200]}")
                check(kind, payload)
                i += 1


async def seed_tenants(url: str, tokens: dict[str, str], markers: dict[str, str]) -> None:
    """Per tenant: a global prompt and thread system prompts that carry its marker, so prompts can leak too."""
    for tenant, bearer in tokens.items():
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {bearer}"}, timeout=60) as http:
            async with Client(streamable_http_client(url, http_client=http), mode="legacy") as client:  # type: ignore[arg-type]
                await client.call_tool("global_prompts", {
                    "action": "set", "name": "house-rules", "content": f"{markers[tenant]} house rules for {tenant}"})
                for thread in THREADS:
                    await client.call_tool("thread_prompt", {
                        "thread": thread, "set_system_prompt": f"{markers[tenant]} system prompt of {thread}"})
                # Warm-up: the timed run starts once recall is hybrid, i.e. the model has loaded
                # (instant with the hash embedder; seconds with minilm).
                deadline = time.perf_counter() + 180
                while time.perf_counter() < deadline:
                    r = await client.call_tool("recall", {"query": "warm up", "thread": "*"})
                    if r.structured_content["search"] == "hybrid":
                        break


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


async def main_async(args: argparse.Namespace) -> int:
    home = Path(args.home) if args.home else Path(tempfile.mkdtemp(prefix="memvault-http-load-")) / "home"
    env = server_env(home, args.embedder)
    tenants = [f"tenant-{chr(ord('a') + i)}" for i in range(args.tenants)]
    # A marker per tenant: a word no other content has, never a substring of another marker.
    markers = {t: f"zq{secrets.token_hex(5)}" for t in tenants}
    tokens = {t: create_token(env, t) for t in tenants}
    server = Server(env)
    try:
        server.ready.wait(120)
        if not server.url:
            print(server.stderr.decode(errors="replace")[-3000:], file=sys.stderr)
            return 1
        await seed_tenants(server.url, tokens, markers)
        run = Run()
        start = Start(args.clients)
        began = time.perf_counter()
        cpu_before = server.cpu_seconds(), time.process_time()
        await asyncio.gather(*(
            client_loop(n, server.url, tenants[n % len(tenants)], tokens[tenants[n % len(tenants)]], markers,
                        start, args.seconds, run, args.seed)
            for n in range(args.clients)
        ))
        elapsed = time.perf_counter() - max(began, start.deadline - args.seconds)
        server_cpu = server.cpu_seconds()
        cpu = {"server": None if server_cpu is None or cpu_before[0] is None else round(server_cpu - cpu_before[0], 2),
               "clients": round(time.process_time() - cpu_before[1], 2)}
    finally:
        code = server.stop()
    calls = sum(len(v) for v in run.latencies.values())
    result = {
        "clients": args.clients, "tenants": args.tenants, "seconds": args.seconds, "embedder": args.embedder,
        "backend": "postgresql" if os.environ.get("MEMVAULT_DATABASE_URL") else "sqlite",
        "calls": calls, "calls_per_second": round(calls / elapsed, 1), "errors": len(run.errors),
        "leaks": len(run.leaks), "server_exit_code": code,
        "calls_by_tenant": dict(run.calls_by_tenant),
        # CPU seconds over the run (connecting included): on a small machine the client
        # process competes with the server for the same cores.
        "cpu_seconds": cpu, "wall_seconds": round(elapsed, 2),
        "latency_ms": {
            kind: {"calls": len(v), "p50": round(percentile(v, 0.5) * 1000, 1),
                   "p95": round(percentile(v, 0.95) * 1000, 1), "max": round(max(v) * 1000, 1)}
            for kind, v in sorted(run.latencies.items())
        },
        "error_samples": run.errors[:20], "leak_samples": run.leaks[:20],
        "python": sys.version.split()[0], "cpus": os.cpu_count(),
    }
    try:
        result["commit"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                          cwd=ROOT).stdout.strip()
    except OSError:
        pass
    print(f"\n{args.clients} HTTP clients x {args.tenants} tenants x {args.seconds:g} s, embedder {args.embedder}, "
          f"backend {result['backend']}")
    print(f"{'call':<15}{'calls':>8}{'p50 ms':>10}{'p95 ms':>10}{'max ms':>10}")
    for kind, row in result["latency_ms"].items():
        print(f"{kind:<15}{row['calls']:>8}{row['p50']:>10}{row['p95']:>10}{row['max']:>10}")
    print(f"total {calls} calls, {result['calls_per_second']} calls/s; errors {len(run.errors)}; "
          f"leaks {len(run.leaks)}; server exit {code}")
    print(f"CPU seconds over {elapsed:.1f} s: server {cpu['server']}, clients {cpu['clients']}")
    for line in (run.errors[:5] + run.leaks[:5]):
        print("  " + line)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {out}")
    ok = calls > 0 and not run.errors and not run.leaks and code == 0
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=21, help="concurrent MCP clients (default 21)")
    parser.add_argument("--tenants", type=int, default=3, help="tenants the clients are spread over (default 3)")
    parser.add_argument("--seconds", type=float, default=20.0, help="timed run length (default 20)")
    parser.add_argument("--quick", action="store_true", help="a 4-second run for CI")
    parser.add_argument("--embedder", choices=("hash", "minilm"), default="hash")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--home", help="data directory (default: a new temporary folder)")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "http_load.json"))
    parser.add_argument("--postgres", action="store_true",
                        help="serve from a throwaway PostgreSQL + pgvector (the tests' embedded server) "
                             "instead of SQLite")
    args = parser.parse_args(argv)
    if args.quick:
        args.seconds = min(args.seconds, 4.0)
    if args.clients < 1 or args.tenants < 2 or args.tenants > 26:
        parser.error("--clients at least 1, --tenants from 2 to 26")
    if not args.postgres:
        return asyncio.run(main_async(args))
    sys.path.insert(0, str(ROOT / "tests"))
    from pgharness import initialised_server

    with initialised_server() as (_, url):
        # The server and the token commands inherit the URL of the application role (RLS applies).
        os.environ["MEMVAULT_DATABASE_URL"] = url
        return asyncio.run(main_async(args))


if __name__ == "__main__":
    raise SystemExit(main())
