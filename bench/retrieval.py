"""Retrieval quality: LoCoMo turn-level recall plus a coding-assistant sanity set.

Everything goes through memvault's own service layer with its shipped defaults:
each conversation's turns are stored with `remember` (one thread per
conversation, content "<speaker>: <text>", the session time plus the turn's
order in seconds as its time), then every question is asked with `recall` on
that thread. Scores turn-level R@1/5/10 and NDCG@10 overall and per category
(adversarial reported separately), the score distribution of relevant vs
irrelevant top results, recall latency, and the coding set.

The coding set (bench/data/coding_set.json, hand-written) holds memories of
several invented projects (one thread each) and the user's global preferences,
and questions in categories: direct, paraphrase, identifier (hex ids, ticket
ids, CamelCase/snake_case names, paths, versions, each verbatim in the
memory), cross-project (asked over every thread, the same kind of fact stored
in each project), preference and what-changed (superseded pairs, linked with
`supersede` as a user would). Reported per category and identifier kind:
R@1/R@5 (the share of the relevant memories in the first 1 or 5; a what-changed
question has two, so its R@1 is at most 0.5), first (the primary answer ranked
first), and the calibration of the top score against questions nothing stored
answers (AUROC, see bench/quality.py).

    python bench/retrieval.py                      # full: 10 conversations, 1,986 questions
    python bench/retrieval.py --quick              # CI: 2 conversations
    python bench/retrieval.py --coding-only        # only the coding set (a minute)
    python bench/retrieval.py --data DIR           # another converted dataset directory
    python bench/retrieval.py --at-once            # asked at once: no settle (below)
    python bench/retrieval.py --precision float32  # the float32 graph (default: auto, int8 for a new store)

--at-once asks the way a client does right after writing: the server's backfill runs
in the background (start_background), each conversation is ingested and its questions
are asked immediately, without waiting for the backlog; the coding set likewise. It
also reports recall latency p50/p95/max, how many recalls ranked some keyword
candidates without a vector (search "mixed"), and how often the "No strong match"
note fired (categories 1-4), to set beside the settled run's.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime, timedelta, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from quality import calibration  # noqa: E402
from server import compose, ranking  # noqa: E402
from server.config import Settings  # noqa: E402
from server.service import MemoryService  # noqa: E402

MAIN = ["single-hop", "multi-hop", "temporal", "open-domain"]
BM25_REFERENCE_R5 = {"overall": 0.502}  # the dataset README's BM25 figure, categories 1-4


def load_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def utc(text: str) -> datetime:
    when = datetime.fromisoformat(text)
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def metrics(ranked: list[int], relevant: set[int]) -> dict[str, float]:
    out = {f"R@{k}": len(set(ranked[:k]) & relevant) / len(relevant) for k in (1, 5, 10)}
    dcg = sum(1 / math.log2(i + 2) for i, mid in enumerate(ranked[:10]) if mid in relevant)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(relevant), 10)))
    out["NDCG@10"] = dcg / ideal
    return out


def average(rows: list[dict[str, float]]) -> dict[str, float]:
    return {key: round(statistics.fmean(r[key] for r in rows), 4) for key in rows[0]} if rows else {}


#: Which ONNX graph embeds (--precision): the shipped default (auto: int8 for a new store) unless named.
PRECISION = Settings.embed_precision


def open_service(home: Path) -> MemoryService:
    return compose.open_service(Settings(home=home, embed_precision=PRECISION))  # the shipped defaults but --precision


def run_locomo(data: Path, conversations: int | None, at_once: bool = False) -> dict:
    turns = load_jsonl(data / "memories.jsonl")
    questions = load_jsonl(data / "queries.jsonl")
    threads = sorted({t["thread_id"] for t in turns})[:conversations]
    keep = set(threads)
    turns = [t for t in turns if t["thread_id"] in keep]
    questions = [q for q in questions if q["thread_id"] in keep]
    home = Path(tempfile.mkdtemp(prefix="memvault-retrieval-"))
    service = open_service(home)
    if at_once:
        service.embedder.wait_ready(600)  # a running server: its model loaded, its backfill thread running
        service.start_background()
    t0 = time.perf_counter()
    ids: dict[str, int] = {}

    def ingest_turns(batch: list[dict]) -> None:
        for turn in sorted(batch, key=lambda t: (t["thread_id"], t["timestamp"], t["order"])):
            when = utc(turn["timestamp"]) + timedelta(seconds=turn["order"])
            stored = service.remember(
                f"{turn['speaker']}: {turn['content']}",
                kind="turn",  # what these are: turns of a conversation, not standalone statements
                thread=turn["thread_id"].replace("/", "-"),
                created_at=when,
            )
            ids[turn["id"]] = stored.id

    per_category: dict[str, list[dict]] = defaultdict(list)
    top_relevant, top_irrelevant, latencies = [], [], []
    asked = {"recalls": 0, "mixed": 0, "with_pending": 0, "weak_note": 0, "unembedded_candidates": 0,
             "over_150ms": 0, "over_150ms_with_pending": 0}

    def ask(batch: list[dict]) -> None:
        for q in batch:
            relevant = {ids[r] for r in q["relevant_ids"] if r in ids}
            if not relevant:
                continue  # the README's 4 questions without resolvable evidence
            t = time.perf_counter()
            result = service.recall(q["question"], k=10, thread=q["thread_id"].replace("/", "-"))
            latencies.append((time.perf_counter() - t) * 1000)
            if latencies[-1] > 150:
                asked["over_150ms"] += 1
                asked["over_150ms_with_pending"] += bool(result.pending_embeddings or result.unembedded_candidates)
            ranked = [m.id for m in result.memories]
            per_category[q["category"]].append(metrics(ranked, relevant))
            if q["category"] in MAIN:
                asked["recalls"] += 1
                asked["mixed"] += result.search == "mixed"
                asked["with_pending"] += bool(result.pending_embeddings)
                asked["weak_note"] += bool(result.note and "No strong match" in result.note)
                asked["unembedded_candidates"] += result.unembedded_candidates or 0
            if result.memories and q["category"] in MAIN:
                (top_relevant if ranked[0] in relevant else top_irrelevant).append(result.memories[0].score)

    if at_once:  # each conversation asked the moment it is stored
        ingest = 0.0
        for thread in threads:
            started = time.perf_counter()
            ingest_turns([t for t in turns if t["thread_id"] == thread])
            ingest += time.perf_counter() - started
            ask([q for q in questions if q["thread_id"] == thread])
    else:
        ingest_turns(turns)
        service.embedder.wait_ready(600)
        service.indexer.run_once()
        ingest = time.perf_counter() - t0
        ask(questions)
    # Queries with no answer in the conversation: what does a miss score?
    unrelated = [
        service.recall(text, k=1, thread=threads[0].replace("/", "-")).memories
        for text in ("how do I rotate the production database credentials", "which linter does the repo use",
                     "what is the kubernetes namespace for staging", "parse_config TOML loader",
                     "who owns the billing microservice")
    ]
    service.indexer.stop(wait=10)  # --at-once: the backfill thread finishes its batch before the store closes
    service.close()
    main_rows = [r for c in MAIN for r in per_category[c]]
    return {
        "conversations": len(threads),
        "turns": len(turns),
        "questions_scored": len(main_rows),
        "overall": average(main_rows),
        "categories": {c: {**average(per_category[c]), "n": len(per_category[c])} for c in MAIN},
        "adversarial": {**average(per_category["adversarial"]), "n": len(per_category["adversarial"])},
        "score_distribution": {
            "top1_relevant": _quantiles(top_relevant),
            "top1_irrelevant": _quantiles(top_irrelevant),
            "unrelated_queries_top1": [round(m[0].score, 3) if m else None for m in unrelated],
        },
        "recall_ms": {"p50": round(statistics.median(latencies), 2), "p95": round(_pct(latencies, 0.95), 2),
                      "p99": round(_pct(latencies, 0.99), 2), "max": round(max(latencies), 2)},
        "ingest_seconds": round(ingest, 1),
        "at_once": at_once,
        "recalls": asked,
    }


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))] if values else float("nan")


def _quantiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    return {"n": len(values), **{f"p{int(q * 100)}": round(_pct(values, q), 3) for q in (0.05, 0.25, 0.5, 0.75, 0.95)}}


CODING_UNDATED_FROM = datetime(2025, 4, 1, 8, 0, tzinfo=timezone.utc)  # memories without created_at: 2 h apart


def run_coding(path: Path, at_once: bool = False) -> dict:
    from server.curation.curator import Curator

    spec = json.loads(path.read_text())
    service = open_service(Path(tempfile.mkdtemp(prefix="memvault-coding-")))
    if at_once:
        service.embedder.wait_ready(600)
        service.start_background()
    ids = {}
    for position, m in enumerate(spec["memories"]):
        when = utc(m["created_at"]) if "created_at" in m else CODING_UNDATED_FROM + timedelta(hours=2 * position)
        ids[m["id"]] = service.remember(m["content"], thread=m["thread"], created_at=when).id
    curator = Curator(service)
    for m in spec["memories"]:
        if "supersedes" in m:
            curator.run("supersede", dry_run=False, ids=[ids[m["supersedes"]]], replacement_id=ids[m["id"]])
    if not at_once:
        service.embedder.wait_ready(600)
        service.embed_backlog()
    rows, failures = [], []
    by_category: dict[str, list[dict]] = defaultdict(list)
    by_subtype: dict[str, list[dict]] = defaultdict(list)
    found, missed = [], []
    text = {ids[m["id"]]: m["content"] for m in spec["memories"]}
    # Issue 32's "stale alone": an update question (one about either side of a supersede) whose top 5 shows
    # the superseded memory without the memory that replaced it.
    replaced = {ids[m["supersedes"]]: ids[m["id"]] for m in spec["memories"] if "supersedes" in m}
    sides = set(replaced) | set(replaced.values())
    stale_alone: list[float] = []
    for q in spec["queries"]:
        wanted = [ids[i] for i in q["relevant"]]
        memories = service.recall(q["q"], k=10, thread=q["thread"]).memories
        ranked = [m.id for m in memories]
        row = {**metrics(ranked, set(wanted)), "first": 1.0 if ranked[:1] == wanted[:1] else 0.0}
        if sides & set(wanted):
            stale_alone.append(1.0 if any(old in ranked[:5] and new not in ranked[:5] for old, new in replaced.items())
                               else 0.0)
        rows.append(row)
        by_category[q["category"]].append(row)
        if q["category"] == "identifier":
            by_subtype[q["subtype"]].append(row)
        top = memories[0].score if memories else 0.0
        (found if row["first"] else missed).append(top)
        if not row["first"]:
            failures.append({"query": q["q"], "category": q.get("subtype", q["category"]), "expected_first": wanted[0],
                             "got": ranked[:3], "got_first": text.get(ranked[0], memories[0].content) if ranked else None,
                             "rank_of_expected": ranked.index(wanted[0]) + 1 if wanted[0] in ranked else None})
    nothing = []
    for q in spec.get("unanswerable", []):
        memories = service.recall(q["q"], k=10, thread=q["thread"]).memories
        nothing.append(memories[0].score if memories else 0.0)
    service.indexer.stop(wait=10)
    service.close()
    return {
        "queries": len(rows),
        **average(rows),
        "categories": {c: {**average(r), "n": len(r)} for c, r in by_category.items()},
        "identifier_kinds": {c: {**average(r), "n": len(r)} for c, r in by_subtype.items()},
        "calibration": calibration(found, missed, nothing, ranking.WEAK_MATCH),
        "stale_alone": {"update_questions": len(stale_alone),
                        "share": round(sum(stale_alone) / len(stale_alone), 4) if stale_alone else None},
        "unanswerable_top_scores": [round(v, 3) for v in nothing],
        "not_first": failures,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(HERE.parent.parent / "shared" / "data" / "locomo"))
    ap.add_argument("--quick", action="store_true", help="2 conversations (CI)")
    ap.add_argument("--conversations", type=int, default=None)
    ap.add_argument("--coding-only", action="store_true", help="skip LoCoMo, run only the coding set")
    ap.add_argument("--out", default=str(HERE / "results" / "retrieval.json"))
    ap.add_argument("--keyword-budget", type=int, default=None,
                    help="override ranking.KEYWORD_MATCH_BUDGET (how the budget's term split affects quality)")
    ap.add_argument("--at-once", action="store_true",
                    help="ask right after storing, the backfill running in the background (no settle)")
    ap.add_argument("--precision", choices=("auto", "float32", "int8"), default=Settings.embed_precision,
                    help="the ONNX graph that embeds: MEMVAULT_EMBED_PRECISION (auto: int8 for the bench's new store)")
    args = ap.parse_args()
    global PRECISION
    PRECISION = args.precision
    if args.keyword_budget is not None:
        ranking.KEYWORD_MATCH_BUDGET = args.keyword_budget
    conversations = args.conversations or (2 if args.quick else None)
    started = time.perf_counter()
    results: dict = {"dataset": str(args.data), "precision": args.precision}
    data = Path(args.data)
    if args.coding_only:
        pass
    elif (data / "memories.jsonl").exists():
        results["locomo"] = run_locomo(data, conversations, args.at_once)
    else:
        print(f"no dataset at {data}; LoCoMo skipped", file=sys.stderr)
    results["coding_set"] = run_coding(HERE / "data" / "coding_set.json", args.at_once)
    results["settings"] = {
        name: getattr(ranking, name)
        for name in ("DENSE_CANDIDATES", "KEYWORD_CANDIDATES", "KEYWORD_MATCH_BUDGET", "CONTEXT_PREVIOUS", "CONTEXT_MAX_GAP_SECONDS",
                     "CONTEXT_COLUMN_WEIGHT", "W_KEYWORD", "NEIGHBOR_WEIGHT", "SUPERSEDED_FACTOR", "COS_FLOOR", "CONFIDENCE_WEIGHTS", "CONFIDENCE_BIAS", "CROWD_RANK")
    }
    results["commit"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                       cwd=HERE).stdout.strip()
    results["seconds"] = round(time.perf_counter() - started, 1)
    results["load_after"] = [round(x, 2) for x in os.getloadavg()]  # 1/5/15-minute load: 2 cores shared

    if "locomo" in results:
        lo = results["locomo"]
        print(f"LoCoMo turn-level, {lo['questions_scored']} questions (categories 1-4), {lo['conversations']} conversations")
        print(f"{'':14}{'R@1':>7}{'R@5':>7}{'R@10':>7}{'NDCG@10':>9}{'n':>6}")
        for name, row in [("overall", lo["overall"]), *lo["categories"].items(), ("adversarial", lo["adversarial"])]:
            print(f"{name:14}{row['R@1']:>7.3f}{row['R@5']:>7.3f}{row['R@10']:>7.3f}{row['NDCG@10']:>9.3f}"
                  f"{row.get('n', lo['questions_scored']):>6}")
        d = lo["score_distribution"]
        print(f"top-1 score when relevant {d['top1_relevant']}, when not {d['top1_irrelevant']}")
        print(f"top-1 score of unrelated queries: {d['unrelated_queries_top1']}")
        print(f"recall latency p50 {lo['recall_ms']['p50']} ms, p95 {lo['recall_ms']['p95']} ms, p99 "
              f"{lo['recall_ms']['p99']} ms, max {lo['recall_ms']['max']} ms; ingest {lo['ingest_seconds']} s; "
              f"load after {results['load_after']}")
        r = lo["recalls"]
        print(f"recalls (categories 1-4) {r['recalls']}: mixed {r['mixed']}, with pending {r['with_pending']}, "
              f"'No strong match' {r['weak_note']} ({r['weak_note'] / max(1, r['recalls']):.1%}), "
              f"candidates ranked without a vector {r['unembedded_candidates']}; over 150 ms {r['over_150ms']} "
              f"({r['over_150ms_with_pending']} of them with a backlog in scope)")
    c = results["coding_set"]
    print(f"\ncoding set: {c['queries']} queries")
    print(f"{'':16}{'R@1':>7}{'R@5':>7}{'R@10':>7}{'first':>7}{'n':>6}")
    table = [("overall", {**c, "n": c["queries"]}), *c["categories"].items(),
             *[(f"  {k}", v) for k, v in c["identifier_kinds"].items()]]
    for name, row in table:
        print(f"{name:16}{row['R@1']:>7.3f}{row['R@5']:>7.3f}{row['R@10']:>7.3f}{row['first']:>7.3f}{row['n']:>6}")
    cal = c["calibration"]
    print(f"calibration: AUROC found vs nothing relevant {cal['auroc_found_vs_nothing']}, answerable vs nothing "
          f"{cal['auroc_answerable_vs_nothing']}; top score found {cal['top_score']['found']}, nothing relevant "
          f"{cal['top_score']['nothing_relevant']}")
    print(f"stale alone (a superseded memory in the top 5 without its replacement): {c['stale_alone']['share']} "
          f"of {c['stale_alone']['update_questions']} update questions")
    print(f"not first ({len(c['not_first'])}):")
    for miss in c["not_first"]:
        print(f"  [{miss['category']}] {miss['query']!r}: expected at {miss['rank_of_expected']}, first {miss['got_first']!r}")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {out} in {results['seconds']} s")


if __name__ == "__main__":
    main()
