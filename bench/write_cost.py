"""What one `remember` costs over MCP as the store grows: the write-cost curve (issue 34 item 3).

Per size, a fresh store is filled in bulk (Store.insert_memory, store_vectors and store_analyses: the
SQL `remember` and the backfill run, and the statement analysis remember's update check stores, without
their judging) with developer notes of
bench/corpus.py, all in ONE thread: a small vocabulary in the thread written to is the
worst case for the update-candidate search (every word of a new note matches thousands
of memories). Then a spawned stdio server (`python -m server` from this checkout, hash
embedder, so the model is not measured) is sent --writes `remember` calls of new notes
into that thread, one at a time, and each round trip is timed. The first --warmup writes
are left out (the server's caches fill).

    python bench/write_cost.py                           # 1k, 10k, 100k memories, 200 writes each
    python bench/write_cost.py --sizes 1000,4000 --writes 50   # quick

Prints p50 / p95 / max per size and p50 and p95 as a ratio to the smallest size
(the goal: flat within 1.5x), and the server's CPU time per write (user + system, Linux: what
a write costs, where the wall time on a loaded machine is mostly waiting for a core), and writes
bench/results/write_cost.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from corpus import memories  # noqa: E402
from startup import INIT, Proc, pct  # noqa: E402

THREAD = "work"


def fill(home: Path, size: int) -> float:
    """A store of `size` notes in THREAD, with hash vectors; seconds it took."""
    from server.config import Settings
    from server.embedding.embedders import HashEmbedder
    from server.service import MemoryService, content_hash
    from server.storage.protocol import NewMemory
    from server.textindex import index_text
    from server.updates import analyses, statements

    embedder = HashEmbedder()
    service = MemoryService.open(Settings(home=home, embedder="hash"), embedder=embedder)
    started = time.perf_counter()
    texts = memories(size, seed=11)
    now = int(time.time() * 1000) - size * 1000
    for start in range(0, size, 5000):
        ids = []
        with service.db.write() as conn:
            for i in range(start, min(start + 5000, size)):
                at = now + i * 1000
                ids.append(service.store.insert_memory(conn, NewMemory(
                    thread=THREAD, content=texts[i], kind="note", source="import", origin=None, importance=0.5,
                    tags=(), content_hash=content_hash(texts[i]), created_at=at, updated_at=at,
                    index_text=index_text(texts[i]), log_daily=False)))
                service.store.touch_thread(conn, THREAD, at)
        chunk = texts[start : start + len(ids)]
        service.store.store_vectors(dict(zip(ids, embedder.embed(chunk))))
        service.store.store_analyses({i: (analyses.text_key(t), analyses.encode(statements.analyse(t)))
                                      for i, t in zip(ids, chunk)}, analyses.version())
    with service.db.write() as conn:
        conn.execute("DELETE FROM daily_log_queue")
    service.close()
    return time.perf_counter() - started


def measure(size: int, writes: int, warmup: int) -> dict:
    home = Path(tempfile.mkdtemp(prefix=f"memvault-writecost-{size}-"))
    built = fill(home, size)
    env = {**os.environ, "MEMVAULT_HOME": str(home), "MEMVAULT_EMBEDDER": "hash", "PYTHONPATH": str(ROOT)}
    proc = Proc([sys.executable, "-m", "server"], env)
    try:
        proc.request("initialize", INIT)
        proc.notify("notifications/initialized")
        texts = memories(writes + warmup, seed=size + 99)
        times = []
        cpu_before = 0.0
        for i, text in enumerate(texts):
            if i == warmup:
                cpu_before = cpu_ms(proc.p.pid)
            started = time.perf_counter()
            reply = proc.request("tools/call", {"name": "remember", "arguments": {
                "content": f"{text} (new {i})", "thread": THREAD}})
            took = (time.perf_counter() - started) * 1000
            if "error" in reply or reply["result"].get("isError"):
                raise RuntimeError(f"remember failed: {reply}")
            if i >= warmup:
                times.append(took)
        time.sleep(0.5)  # the backfill stores the last writes' vectors: part of what they cost
        cpu = (cpu_ms(proc.p.pid) - cpu_before) / len(times)
    finally:
        proc.close()
        shutil.rmtree(home, ignore_errors=True)  # a 100k store is ~100 MB; each run made new ones
    return {"size": size, "writes": len(times), "build_seconds": round(built, 1),
            "p50_ms": round(pct(times, 0.5), 2), "p95_ms": round(pct(times, 0.95), 2), "max_ms": round(max(times), 2),
            "cpu_ms_per_write": round(cpu, 2)}


def cpu_ms(pid: int) -> float:
    """CPU time (user + system) the server process has used, in ms (Linux /proc): on a loaded machine
    a write's wall time is mostly its wait for a core, its CPU time is what it costs."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--writes", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--out", default=str(HERE / "results" / "write_cost.json"))
    args = ap.parse_args()
    load = os.getloadavg()
    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        rows.append(measure(size, args.writes, args.warmup))
        r = rows[-1]
        print(f"{size:>8} memories: remember p50 {r['p50_ms']:7.2f} ms  p95 {r['p95_ms']:7.2f} ms  max {r['max_ms']:7.2f} ms"
              f"  (p50 x{r['p50_ms'] / rows[0]['p50_ms']:.2f}, p95 x{r['p95_ms'] / rows[0]['p95_ms']:.2f}"
              f" of {rows[0]['size']}; CPU {r['cpu_ms_per_write']:.1f} ms a write, x{r['cpu_ms_per_write'] / rows[0]['cpu_ms_per_write']:.2f};"
              f" built in {r['build_seconds']} s)", flush=True)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=HERE).stdout.strip()
    result = {"commit": commit, "load_before": [round(x, 2) for x in load], "load_after": [round(x, 2) for x in os.getloadavg()],
              "thread": THREAD, "embedder": "hash", "rows": rows}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"load {result['load_before']} -> {result['load_after']}; wrote {out}")


if __name__ == "__main__":
    main()
