"""Recall latency while the embedding backfill works through a 10k-memory backlog (issue 19).

A captured session (or an import) leaves thousands of memories waiting for their vectors.
recall must answer within its normal latency meanwhile: it searches the vectors written
so far, finds the rest by keyword, and says how many are not embedded yet. Here:

1. `--backlog` conversation turns (LoCoMo's 5,882 turns, repeated in a second set of threads
   to reach 10,000) are stored with `remember`, nothing embedded yet;
2. the backfill thread starts, and a recall (a LoCoMo question, in its conversation's
   thread) runs every `--interval` seconds for `--seconds` or until the queue is empty:
   latency p50/p95/max, and the pending count each recall reports against the true
   queue length of its scope counted right after it;
3. the backfill stops and the same recalls run again on the now idle store: the reference.

    python bench/backlog.py            # 10,000 turns, MiniLM, 60 s of recalls during the backfill
    python bench/backlog.py --quick    # 400 notes of bench/corpus.py as turns, hash embedder (CI)
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
from datetime import datetime, timedelta, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from server.config import Settings  # noqa: E402
from server.compose import open_service  # noqa: E402
from server.storage.protocol import Scope  # noqa: E402

DATA = HERE.parent.parent / "shared" / "data" / "locomo"


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summary(ms: list[float]) -> dict:
    return {"p50": round(statistics.median(ms), 1), "p95": round(pct(ms, 0.95), 1), "max": round(max(ms), 1),
            "n": len(ms)}


def load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def synthetic(backlog: int) -> tuple[list[dict], list[dict]]:
    """--quick: developer notes of bench/corpus.py as turns of four threads (no external data)."""
    from corpus import QUERIES, memories

    turns = [{"thread_id": f"proj-{n % 4}", "timestamp": "2025-01-10T09:00:00", "order": n, "speaker": "dev",
              "content": text} for n, text in enumerate(memories(backlog))]
    return turns, [{"question": q, "thread_id": f"proj-{n % 4}"} for n, q in enumerate(QUERIES)]


def turns_and_questions(data: Path, backlog: int) -> tuple[list[dict], list[dict]]:
    turns = sorted(load(data / "memories.jsonl"), key=lambda t: (t["thread_id"], t["timestamp"], t["order"]))
    questions = [q for q in load(data / "queries.jsonl") if q["category"] != "adversarial"]
    out, copy = [], 0
    while len(out) < backlog:  # a second pass over the turns goes to a second set of threads
        for t in turns[: backlog - len(out)]:
            out.append({**t, "thread_id": t["thread_id"] + (f"-copy{copy}" if copy else "")})
        copy += 1
    return out, questions


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--backlog", type=int, default=None)
    ap.add_argument("--seconds", type=float, default=None, help="how long to recall during the backfill")
    ap.add_argument("--interval", type=float, default=0.1)
    ap.add_argument("--data", default=str(DATA))
    ap.add_argument("--out", default=str(HERE / "results" / "backlog.json"))
    args = ap.parse_args()
    backlog = args.backlog or (400 if args.quick else 10_000)
    seconds = args.seconds or (3.0 if args.quick else 60.0)
    embedder = "hash" if args.quick else "minilm"
    turns, questions = synthetic(backlog) if args.quick else turns_and_questions(Path(args.data), backlog)
    home = Path(tempfile.mkdtemp(prefix="memvault-backlog-"))
    service = open_service(Settings(home=home, embedder=embedder))
    service.embedder.wait_ready(600)
    t0 = time.perf_counter()
    for turn in turns:
        when = datetime.fromisoformat(turn["timestamp"]).replace(tzinfo=timezone.utc) + timedelta(seconds=turn["order"])
        service.remember(f"{turn['speaker']}: {turn['content']}", kind="turn", thread=turn["thread_id"].replace("/", "-"),
                         created_at=when, daily=False)
    stored_s = time.perf_counter() - t0
    queued = service.store.count()["pending_embeddings"]
    print(f"{len(turns):,} turns stored in {stored_s:.1f} s; {queued:,} waiting for a vector", flush=True)
    asked = [(q["question"], q["thread_id"].replace("/", "-")) for q in questions]

    service.indexer.start()
    during, reported, true_counts, order = [], [], [], []
    started = time.perf_counter()
    i = 0
    while time.perf_counter() - started < seconds:
        question, thread = asked[i % len(asked)]
        t = time.perf_counter()
        result = service.recall(question, k=10, thread=thread)
        during.append((time.perf_counter() - t) * 1000)
        reported.append(result.pending_embeddings or 0)
        true_counts.append(service.store.pending_count(Scope(threads=(thread, ""))))
        order.append(i)
        i += 1
        if not service.store.has_pending():
            break
        time.sleep(args.interval)
    window = time.perf_counter() - started
    left = service.store.count()["pending_embeddings"]
    service.indexer.stop(wait=30)
    idle = []
    for n in order:  # the same recalls, the backfill stopped
        question, thread = asked[n % len(asked)]
        t = time.perf_counter()
        service.recall(question, k=10, thread=thread)
        idle.append((time.perf_counter() - t) * 1000)
    service.close()
    diffs = [abs(a - b) for a, b in zip(reported, true_counts)]
    result = {
        "embedder": embedder, "backlog": len(turns), "queued_at_start": queued,
        "window_s": round(window, 1), "embedded_in_window": queued - left, "left_after_window": left,
        "recall_during_backlog_ms": summary(during), "recall_idle_ms": summary(idle),
        "p50_ratio_during_vs_idle": round(statistics.median(during) / statistics.median(idle), 2),
        "pending_reported": {"first": reported[0], "last": reported[-1],
                             "max_abs_diff_from_true_queue": max(diffs),
                             "share_within_one_batch": round(sum(d <= 8 for d in diffs) / len(diffs), 3)},
        "load_average_1min": os.getloadavg()[0], "cpus": os.cpu_count(),
        "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                 cwd=HERE).stdout.strip(),
    }
    print(f"during the backfill: recall p50 {result['recall_during_backlog_ms']['p50']} ms, "
          f"p95 {result['recall_during_backlog_ms']['p95']} ms, max {result['recall_during_backlog_ms']['max']} ms "
          f"({len(during)} recalls, {queued - left:,} embedded in {window:.0f} s)")
    print(f"idle store:          recall p50 {result['recall_idle_ms']['p50']} ms, p95 {result['recall_idle_ms']['p95']} "
          f"ms, max {result['recall_idle_ms']['max']} ms; ratio {result['p50_ratio_during_vs_idle']}x; "
          f"load {result['load_average_1min']:.1f}")
    print(f"pending reported: {reported[0]} at first, {reported[-1]} at last; largest gap to the true queue "
          f"{max(diffs)} (the backfill commits while a recall runs)")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    subprocess.run(["rm", "-rf", str(home)], check=False)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
