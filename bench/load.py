"""Many clients on one store: N memvault processes on ONE data directory, each driven over stdio by a real MCP client.

Each client runs mixed remember / recall / forget calls for a bounded time, as
several assistant windows (Claude Desktop, Claude Code, Cursor) sharing one memory
would. Afterwards, with every server stopped, the store is checked directly:

  * zero failed calls (an error result or an exception is a failure);
  * every acknowledged remember is stored, with its content, exactly once: unique
    contents have one row; a content several clients raced to remember in the
    shared thread has one live row, and every client got that row's id back;
  * every acknowledged forget is soft-deleted, and nothing else is;
  * a recall for another client's acknowledged memory finds it (read-your-writes
    across processes);
  * PRAGMA integrity_check is clean and the keyword index and the vectors agree
    with the memories table (after the embedding backlog is drained).

    python bench/load.py                     # 4 processes x 20 s
    python bench/load.py --quick             # 4 processes x 5 s
    python bench/load.py --processes 8 --seconds 60 --embedder minilm

Prints calls/s and p50/p95/p99 latency per tool, writes bench/results/load.json,
exits 1 on any violation.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

from server.storage import health  # noqa: E402
from server.config import Settings  # noqa: E402
from server.storage.sqlite.db import Database  # noqa: E402
from server.compose import open_service  # noqa: E402

SHARED_THREAD = "shared"
SHARED_FACTS = 40  # contents every client races to remember in the shared thread
WORDS = "sqlite postgres billing deploy cache index vector kernel editor release branch invoice queue".split()


@dataclass
class Run:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    failures: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    acked: dict[int, tuple[str, str]] = field(default_factory=dict)  # id -> (thread, content)
    owner: dict[int, int] = field(default_factory=dict)  # id -> client that stored it
    shared_ids: dict[str, set[int]] = field(default_factory=lambda: defaultdict(set))  # content -> ids acked
    forget_sent: set[int] = field(default_factory=set)
    forgotten: set[int] = field(default_factory=set)
    statuses: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    ended: float = 0.0  # when the last call of any client returned


def server_params(home: Path, embedder: str) -> StdioServerParameters:
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    env = {
        **os.environ,
        "PYTHONPATH": path,
        "MEMVAULT_HOME": str(home),
        "MEMVAULT_EMBEDDER": embedder,
        "MEMVAULT_LOG_LEVEL": "WARNING",
    }
    return StdioServerParameters(command=sys.executable, args=["-m", "server"], env=env, cwd=str(ROOT))


class Start:
    """Every client connects first; the timed run begins when the last one is ready."""

    def __init__(self, clients: int, seconds: float) -> None:
        self.waiting = clients
        self.seconds = seconds
        self.event = asyncio.Event()
        self.at = 0.0
        self.deadline = 0.0

    async def ready(self) -> float:
        self.waiting -= 1
        if self.waiting == 0:
            self.at = time.monotonic()
            self.deadline = self.at + self.seconds
            self.event.set()
        await self.event.wait()
        return self.deadline


async def client_loop(n: int, params: StdioServerParameters, start: Start, run: Run, seed: int) -> int:
    rng = random.Random(seed * 1000 + n)
    thread = f"client{n}"
    mine: list[int] = []
    calls = 0

    async def timed(tool: str, args: dict):
        nonlocal calls
        started = time.perf_counter()
        try:
            result = await client.call_tool(tool, args)
        except Exception as exc:  # noqa: BLE001 - every failure is counted and reported
            run.failures.append(f"client {n} {tool}: {type(exc).__name__}: {exc}")
            return None
        run.latencies[tool].append(time.perf_counter() - started)
        calls += 1
        if result.is_error:
            text = result.content[0].text if result.content else ""
            run.failures.append(f"client {n} {tool} {json.dumps(args)[:120]}: {text[:300]}")
            return None
        return result.structured_content

    async with Client(params, read_timeout_seconds=60) as client:
        deadline = await start.ready()
        first = True
        while time.monotonic() < deadline:
            opening, first = first, False
            roll = 0.45 if opening else rng.random()  # every client opens by racing for one shared fact
            if roll < 0.40:
                token = f"{rng.getrandbits(48):012x}"
                content = f"client {n} note {token}: {' '.join(rng.sample(WORDS, 4))}"
                out = await timed("remember", {"content": content, "thread": thread, "tags": rng.sample(WORDS, 2)})
                if out:
                    run.statuses[out["status"]] += 1
                    if out["status"] != "stored":
                        run.violations.append(f"fresh content came back {out['status']}: {content}")
                    run.acked[out["id"]] = (thread, content)
                    run.owner[out["id"]] = n
                    mine.append(out["id"])
            elif roll < 0.50:
                fact = 0 if opening else rng.randrange(SHARED_FACTS)
                content = f"shared fact {fact}: the team uses {WORDS[fact % len(WORDS)]}"
                out = await timed("remember", {"content": content, "thread": SHARED_THREAD})
                if out:
                    run.statuses[out["status"]] += 1
                    run.shared_ids[content].add(out["id"])
                    run.acked[out["id"]] = (SHARED_THREAD, content)
            elif roll < 0.60 and mine:
                target = mine.pop(rng.randrange(len(mine)))
                run.forget_sent.add(target)
                out = await timed("forget", {"id": target})
                if out:
                    if out["status"] != "forgotten":
                        run.violations.append(f"forget {target} came back {out['status']}")
                    run.forgotten.add(target)
            else:
                # Half the recalls look for another client's acknowledged memory by its token.
                others = [i for i, who in run.owner.items() if who != n] if rng.random() < 0.5 else []
                if others:
                    target = rng.choice(others)
                    target_thread, content = run.acked[target]
                    token = content.split()[3].rstrip(":")
                    out = await timed("recall", {"query": token, "thread": target_thread, "k": 5})
                    if out is not None and target not in {m["id"] for m in out["memories"]}:
                        if target not in run.forget_sent:
                            run.violations.append(f"client {n}: recall of {token} missed acknowledged memory {target}")
                else:
                    query = " ".join(rng.sample(WORDS, 2))
                    await timed("recall", {"query": query, "thread": rng.choice([thread, "*", SHARED_THREAD])})
        run.ended = max(run.ended, time.monotonic())
    return calls


def check_store(home: Path, embedder: str, run: Run) -> dict:
    db_path = home / "memvault.db"
    db = Database(db_path)
    try:
        rows = {r[0]: r[1:] for r in db.conn.execute("SELECT id, thread, content, deleted_at FROM memories")}
        dupes = db.conn.execute(
            "SELECT thread, content, count(*) FROM memories WHERE deleted_at IS NULL "
            "GROUP BY namespace, thread, content HAVING count(*) > 1"
        ).fetchall()
        all_dupes = db.conn.execute(
            "SELECT content, count(*) FROM memories WHERE thread != ? GROUP BY content HAVING count(*) > 1",
            (SHARED_THREAD,),
        ).fetchall()
    finally:
        db.close()
    v = run.violations
    for memory_id, (thread, content) in run.acked.items():
        row = rows.get(memory_id)
        if row is None:
            v.append(f"acknowledged memory {memory_id} is missing")
        elif (row[0], row[1]) != (thread, content):
            v.append(f"memory {memory_id} holds {row[:2]!r}, acknowledged {(thread, content)!r}")
        elif memory_id in run.forgotten and row[2] is None:
            v.append(f"acknowledged forget of {memory_id} is not recorded")
        elif memory_id not in run.forget_sent and row[2] is not None:
            v.append(f"memory {memory_id} was deleted though nobody forgot it")
    for content, ids in run.shared_ids.items():
        if len(ids) != 1:
            v.append(f"clients got different ids {sorted(ids)} for one shared content {content!r}")
    if dupes:
        v.append(f"duplicate live memories: {dupes[:5]}")
    if all_dupes:
        v.append(f"a unique content was stored more than once: {all_dupes[:5]}")
    report = health.check(db_path)
    v.extend(report.problems())
    # Drain the embedding backlog the way a next start-up would, then vectors must be complete.
    service = open_service(Settings(home=home, embedder=embedder))
    try:
        service.embedder.wait_ready(600)
        drained = service.indexer.run_once()
    finally:
        service.close()
    final = health.check(db_path)
    v.extend(f"after backfill: {p}" for p in final.problems(vectors_done=True))
    return {"live": final.live, "deleted": final.deleted, "pending_at_stop": report.pending, "backfilled_after": drained}


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


async def main_async(args: argparse.Namespace) -> int:
    home = Path(args.home) if args.home else Path(tempfile.mkdtemp(prefix="memvault-load-"))
    params = server_params(home, args.embedder)
    run = Run()
    start = Start(args.processes, args.seconds)
    tasks = [client_loop(n, params, start, run, args.seed) for n in range(args.processes)]
    per_client = await asyncio.gather(*tasks)
    elapsed = run.ended - start.at
    busy = sum(sum(v) for v in run.latencies.values())
    store = check_store(home, args.embedder, run)
    total = sum(per_client)
    result = {
        "processes": args.processes,
        "seconds": args.seconds,
        "embedder": args.embedder,
        "seed": args.seed,
        "wall_seconds": round(elapsed, 2),
        "calls": total,
        "calls_per_second": round(total / elapsed, 1),
        "calls_per_client": per_client,
        "failed_calls": len(run.failures),
        "remember_statuses": dict(run.statuses),
        "acknowledged_memories": len(run.acked),
        "acknowledged_forgets": len(run.forgotten),
        "tools": {
            tool: {
                "calls": len(lat),
                "p50_ms": round(statistics.median(lat) * 1000, 1),
                "p95_ms": round(percentile(lat, 0.95) * 1000, 1),
                "p99_ms": round(percentile(lat, 0.99) * 1000, 1),
                "max_ms": round(max(lat) * 1000, 1),
            }
            for tool, lat in sorted(run.latencies.items())
        },
        "store": store,
        "client_busy_seconds": round(busy, 1),
        "violations": run.violations[:50],
        "failures": run.failures[:50],
        "ok": not run.violations and not run.failures,
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(
        f"{args.processes} processes x {args.seconds:g} s on one store ({args.embedder} embedder): "
        f"{total} calls, {result['calls_per_second']} calls/s, {len(run.failures)} failed"
    )
    for tool, s in result["tools"].items():
        print(f"  {tool:9} {s['calls']:6} calls  p50 {s['p50_ms']:7.1f} ms  p95 {s['p95_ms']:7.1f} ms  max {s['max_ms']:7.1f} ms")
    print(f"  store: {store}")
    for line in (run.failures + run.violations)[:20]:
        print(f"  VIOLATION {line}", file=sys.stderr)
    print(f"  {'OK' if result['ok'] else 'FAILED'}; details in {out}")
    return 0 if result["ok"] else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--quick", action="store_true", help="5 seconds (CI)")
    parser.add_argument("--embedder", default="hash", choices=["hash", "minilm"])
    parser.add_argument("--home", help="data directory (default: a new temporary one)")
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "load.json"))
    args = parser.parse_args(argv)
    if args.quick:
        args.seconds = 5.0
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    raise SystemExit(main())
