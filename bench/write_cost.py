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
    python bench/write_cost.py --code ../main --passes 2       # against another checkout, in the same run
    python bench/write_cost.py --sizes 100000 --links 50       # the links of 50 update pairs, window or none
    python bench/write_cost.py --sizes 100000 --links 300 --gap 3000 --against MATCH_BUDGET=2000,COMMON_BUDGET=20000

With --code, each size's store is built once per pass and a copy of it is written to by this checkout's server
and by the other checkout's, one after the other (which goes first alternates by pass and size): on a loaded
machine the two curves come from the same minutes, and the ratios to compare are each code's own.

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


def measure(size: int, writes: int, warmup: int, codes: tuple[Path, ...] = (ROOT,)) -> list[dict]:
    """Each code's writes into a copy of one store of `size` notes, in the order given."""
    home = Path(tempfile.mkdtemp(prefix=f"memvault-writecost-{size}-"))
    try:
        built = fill(home, size)
        rows = []
        for code in codes:
            copy = Path(tempfile.mkdtemp(prefix=f"memvault-writecost-{size}-copy-")) / "home"
            shutil.copytree(home, copy)
            try:
                rows.append({**run(copy, code, size, writes, warmup), "build_seconds": round(built, 1)})
            finally:
                shutil.rmtree(copy.parent, ignore_errors=True)
        return rows
    finally:
        shutil.rmtree(home, ignore_errors=True)  # a 100k store is ~100 MB; each run made new ones


def run(home: Path, code: Path, size: int, writes: int, warmup: int) -> dict:
    """`writes` remember calls into THREAD through a server of the checkout `code` on the store at `home`."""
    env = {**os.environ, "MEMVAULT_HOME": str(home), "MEMVAULT_EMBEDDER": "hash", "PYTHONPATH": str(code)}
    proc = Proc([sys.executable, "-m", "server"], env, cwd=code)  # (-m puts the working directory first)
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
    return {"size": size, "checkout": str(code), "code": _commit(code), "writes": len(times),
            "p50_ms": round(pct(times, 0.5), 2), "p95_ms": round(pct(times, 0.95), 2), "max_ms": round(max(times), 2),
            "cpu_ms_per_write": round(cpu, 2)}


def links(size: int, pairs: int, gap: int = 0, against: dict[str, int] | None = None) -> dict:
    """`pairs` update pairs of bench/data/updates (an older memory, then the newer one that changes it) written in
    process into copies of a store of `size` notes, with the linker as it is and with the linker constants
    `against` (by default no window: linker.WINDOW past any thread): which memory each newer one was linked to.
    Every older memory is written first, then `gap` notes of the corpus (bulk, as fill), then every newer one: a
    gap past a recency bound shows what the bound costs. Pairs of the held-out projects (fit_update_model.HELD_OUT)
    are counted apart too. The hash embedder: its cosines are lexical and the rules
    judge alone, so this shows the candidates' effect on links, not the model's."""
    import random

    from server import linker
    from server.config import Settings
    from server.embedding.embedders import HashEmbedder
    from server.service import MemoryService, content_hash
    from server.storage.protocol import NewMemory
    from server.textindex import index_text
    from server.updates import analyses, statements

    against = {"WINDOW": 1 << 40} if against is None else against
    from fit_update_model import HELD_OUT  # (the projects never tuned on: their pairs are counted apart)

    chosen = [(u["old"], u["new"]) for f in sorted((HERE / "data" / "updates").glob("*.json"))
              for u in json.loads(f.read_text())["updates"]]
    held = {(u["old"], u["new"]) for name in HELD_OUT
            for u in json.loads((HERE / "data" / "updates" / f"{name}.json").read_text())["updates"]}
    random.Random(7).shuffle(chosen)
    chosen = chosen[:pairs]
    home = Path(tempfile.mkdtemp(prefix=f"memvault-writecost-links-{size}-"))
    made: dict[str, list] = {}
    cpu: dict[str, float] = {}
    try:
        fill(home, size)
        for name, constants in (("as_is", {}), ("against", against)):
            copy = Path(tempfile.mkdtemp(prefix="memvault-writecost-links-copy-")) / "home"
            shutil.copytree(home, copy)
            saved = {k: getattr(linker, k) for k in constants}
            for k, v in constants.items():
                setattr(linker, k, v)
            embedder = HashEmbedder()
            service = MemoryService.open(Settings(home=copy, embedder="hash"), embedder=embedder)
            try:
                olds = [service.remember(old, thread=THREAD).id for old, _ in chosen]
                texts = memories(gap, seed=5)
                at = int(time.time() * 1000)
                with service.db.write() as conn:
                    ids = [service.store.insert_memory(conn, NewMemory(
                        thread=THREAD, content=t, kind="note", source="import", origin=None, importance=0.5, tags=(),
                        content_hash=content_hash(f"{t} gap"), created_at=at + i, updated_at=at + i,
                        index_text=index_text(t), log_daily=False)) for i, t in enumerate(texts)]
                if ids:
                    service.store.store_vectors(dict(zip(ids, embedder.embed(texts))))
                    service.store.store_analyses({i: (analyses.text_key(t), analyses.encode(statements.analyse(t)))
                                                  for i, t in zip(ids, texts)}, analyses.version())
                started = time.process_time()
                made[name] = [(older, service.remember(new, thread=THREAD).updates)
                              for older, (_, new) in zip(olds, chosen)]
                cpu[name] = (time.process_time() - started) * 1000 / len(chosen)
            finally:
                service.close()
                for k, v in saved.items():
                    setattr(linker, k, v)
                shutil.rmtree(copy.parent, ignore_errors=True)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return {"size": size, "pairs": len(chosen), "gap": gap, "against": against,
            **{f"{name}_linked": sum(1 for _, u in rows if u is not None) for name, rows in made.items()},
            **{f"{name}_linked_to_its_older": sum(1 for o, u in rows if u == o) for name, rows in made.items()},
            "held_out_pairs": sum(1 for p in chosen if p in held),
            **{f"{name}_held_out_linked_to_its_older": sum(1 for (o, u), p in zip(rows, chosen) if u == o and p in held)
               for name, rows in made.items()},
            **{f"{name}_cpu_ms_per_write": round(ms, 1) for name, ms in cpu.items()},
            "differ": [{"pair": i, "older": a[0], "as_is": a[1], "against": b[1]}
                       for i, (a, b) in enumerate(zip(made["as_is"], made["against"])) if a != b]}


def cpu_ms(pid: int) -> float:
    """CPU time (user + system) the server process has used, in ms (Linux /proc): on a loaded machine
    a write's wall time is mostly its wait for a core, its CPU time is what it costs."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def _commit(code: Path) -> str:
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=code).stdout.strip()


def _print(rows: list[dict]) -> None:
    first = rows[0]
    for r in rows:
        print(f"{r['code']:>9} {r['size']:>8} memories: remember p50 {r['p50_ms']:7.2f} ms  p95 {r['p95_ms']:7.2f} ms"
              f"  max {r['max_ms']:7.2f} ms  (p50 x{r['p50_ms'] / first['p50_ms']:.2f}, p95 x{r['p95_ms'] / first['p95_ms']:.2f}"
              f" of {first['size']}; CPU {r['cpu_ms_per_write']:.1f} ms a write, x{r['cpu_ms_per_write'] / first['cpu_ms_per_write']:.2f})",
              flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--writes", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--out", default=str(HERE / "results" / "write_cost.json"))
    ap.add_argument("--code", default=None, help="another checkout whose server writes to a copy of each store too")
    ap.add_argument("--passes", type=int, default=1, help="the whole curve this many times (with --code: alternated)")
    ap.add_argument("--links", type=int, default=0, help="only: this many update pairs' links, as is and --against")
    ap.add_argument("--gap", type=int, default=0, help="with --links: notes written between the older and newer ones")
    ap.add_argument("--against", default="WINDOW=1099511627776",
                    help="with --links: the linker constants to compare with, NAME=VALUE,... (default: no window)")
    args = ap.parse_args()
    if args.links:
        for size in (int(s) for s in args.sizes.split(",")):
            against = {k: int(v) for k, v in (kv.split("=") for kv in args.against.split(","))}
            print(json.dumps(links(size, args.links, args.gap, against)), flush=True)
        return
    load = os.getloadavg()
    codes = (ROOT,) if args.code is None else (ROOT, Path(args.code).resolve())
    sizes = [int(s) for s in args.sizes.split(",")]
    passes = []
    for n in range(args.passes):
        rows: list[dict] = []
        pass_load = os.getloadavg()
        for i, size in enumerate(sizes):
            order = codes if (n + i) % 2 == 0 else codes[::-1]
            rows += measure(size, args.writes, args.warmup, order)
        print(f"pass {n + 1} (load {' '.join(f'{x:.1f}' for x in pass_load)} -> "
              f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}):")
        for code in codes:
            _print([r for r in rows if r["checkout"] == str(code)])
        passes.append({"load_before": [round(x, 2) for x in pass_load],
                       "load_after": [round(x, 2) for x in os.getloadavg()], "rows": rows})
    result = {"commit": _commit(ROOT), "load_before": [round(x, 2) for x in load],
              "load_after": [round(x, 2) for x in os.getloadavg()], "thread": THREAD, "embedder": "hash",
              "rows": [r for r in passes[0]["rows"] if r["checkout"] == str(ROOT)],
              **({"compared_with": _commit(codes[-1])} if args.code else {}), "passes": passes}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"load {result['load_before']} -> {result['load_after']}; wrote {out}")


if __name__ == "__main__":
    main()
