"""`memvault migrate` throughput: a SQLite store copied to PostgreSQL and back, with the real command.

The store is built through MemoryService (bench corpus, hash embedder): N memories over 20
threads with tags, 90% embedded and the rest still queued, 1 in 20 forgotten, 1 in 50
superseded, pins, a thread with a system prompt, messages and global prompts. Each direction
is the spawned `memvault migrate` (one process, its default batch of 500), timed end to end:
opening both stores, the copy, and the verification (both stores read again and hashed).

PostgreSQL is the throwaway embedded server of the tests (tests/pgharness.py), on tmpfs with
fsync off: figures are for comparing directions and batch sizes, not for sizing a server.

    python bench/migrate.py            # 10,000 memories
    python bench/migrate.py --quick    # CI: 300 memories, same code paths
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "tests"))

from corpus import memories  # noqa: E402


def build(home: Path, n: int) -> Path:
    from server.config import Settings
    from server.curation.curator import Curator
    from server.embedding.embedders import HashEmbedder
    from server.service import MemoryService

    settings = Settings(home=home, embedder="hash")
    svc = MemoryService.open(settings, embedder=HashEmbedder())
    try:
        ids = []
        for i, text in enumerate(memories(n)):
            ids.append(svc.remember(text, thread=f"project-{i % 20}", tags=[f"t{i % 7}"], pinned=i % 97 == 0).id)
        svc.indexer.run_once(limit=int(n * 0.9))
        for memory_id in ids[::20]:
            svc.forget(memory_id)
        curator = Curator(svc)
        for old, new in zip(ids[1::50], ids[2::50]):
            curator.run("supersede", ids=[old], replacement_id=new, dry_run=False)
        svc.threads.configure("project-1", title="Project 1", system_prompt="Prefer small diffs.")
        svc.threads.add_messages("project-1", [{"role": "user", "content": f"message {i}"} for i in range(20)])
        svc.global_prompts.run("set", name="style", content="Be brief.", priority=3)
    finally:
        svc.close()
    return home / "memvault.db"


def migrate(source: str, target: str, home: Path, *extra: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MEMVAULT_HOME": str(home), "MEMVAULT_EMBEDDER": "hash"}
    t = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "server", "migrate", "--from", source, "--to", target, *extra],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=3600)
    wall = time.perf_counter() - t
    if done.returncode != 0:
        raise SystemExit(f"migrate failed: {done.stderr[-3000:]}")
    report = json.loads(done.stdout)
    return {"memories": report["memories"], "wall_seconds": wall, "rows_per_second": report["memories"] / wall,
            "command_seconds": report["seconds"], "copy_rows_per_second": report["memories_per_second"]}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("-n", type=int)
    parser.add_argument("--out", type=Path, help="where to write the JSON (default: bench/results/)")
    args = parser.parse_args()
    n = args.n or (300 if args.quick else 10_000)

    from pgharness import initialised_server

    with initialised_server() as (_, url), tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        source = build(Path(tmp) / "src", n)
        build_seconds = time.perf_counter() - t
        results = {
            "n": n,
            "build_seconds": build_seconds,
            "sqlite_to_postgres": migrate(str(source), url, Path(tmp) / "cli"),
            "postgres_to_sqlite": migrate(url, str(Path(tmp) / "back" / "memvault.db"), Path(tmp) / "cli",
                                          "--namespace", "default"),
        }

    print(f"{n} memories (5% forgotten, 10% waiting for a vector), one namespace; the spawned command end to end "
          "(open, copy, verify); PostgreSQL 18 + pgvector on tmpfs, fsync off")
    print(f"{'direction':22}{'wall s':>10}{'rows/s':>10}{'before verify':>15}")
    for key in ("sqlite_to_postgres", "postgres_to_sqlite"):
        r = results[key]
        print(f"{key:22}{r['wall_seconds']:10.2f}{r['rows_per_second']:10.0f}{r['copy_rows_per_second']:15.0f}")
    out = args.out or HERE / "results" / ("migrate-quick.json" if args.quick else "migrate.json")
    out.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
