"""A faster embedding runtime? int8 dynamic quantization, length buckets and batch size, measured
against today's float32 graph in the same run (issue 34 item 2).

Variants, each an ONNX Runtime session on one intra-op thread (the server's setting):
  * f32-b8      the float32 graph, batches of 8 in queue (id) order (the backfill before length windows);
  * f32-b8-len  the same batches of 8, the backlog sorted by length first (no padding to a long neighbour);
  * f32-b8-len-win64 sorted by length within each 64 of the queue (what the backfill does: Indexer.LENGTH_WINDOW);
  * f32-b8-len-win256 the same within each 256 (a wider read-ahead when the backlog is large);
  * f32-b32-len-win256 / f32-b32-len batches of 32 within each 256 / the whole list sorted (bigger batches for
    a large backlog);
  * int8-b8 / int8-b8-len / int8-b32-len the same on the graph that onnxruntime.quantization.quantize_dynamic
    makes of the float32 export (QInt8 weights, per-channel): the one `memvault model prepare` makes for
    MEMVAULT_EMBED_PRECISION=int8 (made here if the cache has none yet).
Texts: LoCoMo turns ("speaker: text", the first --texts of the dataset, the way the retrieval bench stores
them). Rounds interleave the variants (A/B/A/B...) so that the machine's load falls on all of them alike;
each reports memories/s (wall) and CPU ms per memory (this process's CPU time).

Quality: the int8 vectors' cosine to the float32 ones, and turn-level R@5 of a dense-only search on LoCoMo
(each question against its conversation's turns, categories 1-4, --conversations of them) with either graph,
so the difference is the runtime's alone.

    python bench/runtime.py                       # 800 texts x 3 rounds, 2 conversations for R@5
    python bench/runtime.py --texts 400 --rounds 2 --conversations 1

Writes bench/results/runtime.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from server.embedding import export as modelprep  # noqa: E402
from server.embedding.minilm import OnnxRunner  # noqa: E402

MAIN = {"single-hop", "multi-hop", "temporal", "open-domain"}
#: The variant that batches as the server's backfill does (BATCH_SIZE 8 within LENGTH_WINDOW 64).
BACKFILL = "b8-len-win64"


def load_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def quantized(folder: Path) -> Path:
    """The int8 graph the server would run (MEMVAULT_EMBED_PRECISION=int8), prepared from the cached export."""
    return Path(modelprep.prepare(folder, precision="int8")["path"])


def run_batches(runner: OnnxRunner, texts: list[str], batch: int, by_length: bool, window: int | None = None) -> np.ndarray:
    """Embed in batches; `by_length`: sorted by length first (the whole list, or each `window` of it in
    queue order: what the backfill does with the next Indexer.LENGTH_WINDOW memories)."""
    order = list(range(len(texts)))
    if by_length:
        step = window or len(texts)
        order = [i for at in range(0, len(texts), step) for i in sorted(order[at : at + step], key=lambda i: len(texts[i]))]
    out = np.empty((len(texts), 384), dtype=np.float32)
    for start in range(0, len(order), batch):
        rows = order[start : start + batch]
        out[rows] = runner([texts[i] for i in rows])
    return out


def dense_r5(runner: OnnxRunner, turns: list[dict], questions: list[dict]) -> float:
    texts = [f"{t['speaker']}: {t['content']}" for t in turns]
    vectors = run_batches(runner, texts, 32, True)
    by_thread: dict[str, list[int]] = {}
    for i, t in enumerate(turns):
        by_thread.setdefault(t["thread_id"], []).append(i)
    scores = []
    for q in questions:
        relevant = set(q["relevant_ids"])
        rows = by_thread[q["thread_id"]]
        query = runner([q["question"]])[0]
        sims = vectors[rows] @ query
        top = [turns[rows[i]]["id"] for i in np.argsort(-sims)[:5]]
        scores.append(len(set(top) & relevant) / len(relevant))
    return statistics.fmean(scores)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="/work/shared/data/locomo" if Path("/work/shared/data/locomo").exists()
                    else str(HERE.parent.parent / "shared" / "data" / "locomo"))
    ap.add_argument("--texts", type=int, default=800)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--conversations", type=int, default=2)
    ap.add_argument("--out", default=str(HERE / "results" / "runtime.json"))
    args = ap.parse_args()
    folder = modelprep.cache_dir()
    problem = modelprep.problem(folder)
    if problem:
        sys.exit(f"no usable export in {folder} ({problem}); run `memvault model prepare` first")
    f32_path = folder / modelprep.ONNX_FILE
    source = modelprep.source_dir()
    started = time.perf_counter()
    int8_path = quantized(folder)
    quantize_seconds = time.perf_counter() - started  # ~0 when the cache already held it
    runners = {"f32": OnnxRunner(f32_path, source), "int8": OnnxRunner(int8_path, source)}
    turns = load_jsonl(Path(args.data) / "memories.jsonl")
    texts = [f"{t['speaker']}: {t['content']}" for t in turns[: args.texts]]
    variants = [(graph, batch, by_length, window) for graph in ("f32", "int8")
                for batch, by_length, window in ((8, False, None), (8, True, None), (8, True, 64), (8, True, 256),
                                                 (32, True, 256), (32, True, None))]
    for graph in runners:  # warm both sessions
        runners[graph](texts[:8])
    wall: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    load_before = os.getloadavg()
    for _ in range(args.rounds):
        for graph, batch, by_length, window in variants:
            name = f"{graph}-b{batch}{'-len' if by_length else ''}{f'-win{window}' if window else ''}"
            w, c = time.perf_counter(), time.process_time()
            run_batches(runners[graph], texts, batch, by_length, window)
            wall.setdefault(name, []).append(time.perf_counter() - w)
            cpu.setdefault(name, []).append(time.process_time() - c)
    load_after = os.getloadavg()
    rows = {}
    base = statistics.median(wall["f32-b8"])
    base_cpu = statistics.median(cpu["f32-b8"])
    for name in wall:
        w, c = statistics.median(wall[name]), statistics.median(cpu[name])
        rows[name] = {"memories_per_s": round(len(texts) / w, 1), "cpu_ms_per_memory": round(c / len(texts) * 1000, 2),
                      "throughput_x": round(base / w, 2), "cpu_x": round(base_cpu / c, 2)}
    a = run_batches(runners["f32"], texts, 32, True)
    b = run_batches(runners["int8"], texts, 32, True)
    cos = np.sum(a * b, axis=1)
    threads = sorted({t["thread_id"] for t in turns})[: args.conversations]
    keep = set(threads)
    sub_turns = [t for t in turns if t["thread_id"] in keep]
    questions = [q for q in load_jsonl(Path(args.data) / "queries.jsonl")
                 if q["thread_id"] in keep and q["category"] in MAIN and q["relevant_ids"]]
    quality = {graph: round(dense_r5(runners[graph], sub_turns, questions), 4) for graph in runners}
    result = {
        "texts": len(texts), "rounds": args.rounds, "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in load_after], "quantize_seconds": round(quantize_seconds, 1),
        "int8_file_mb": round(int8_path.stat().st_size / 1e6, 1), "f32_file_mb": round(f32_path.stat().st_size / 1e6, 1),
        "variants": rows,
        # the decision's ratio (issue 34: adopt int8 at >= 1.8x): int8 against float32 in the backfill's own batches
        "int8_vs_f32_backfill": {"variant": BACKFILL, "throughput_x": round(
            rows[f"int8-{BACKFILL}"]["memories_per_s"] / rows[f"f32-{BACKFILL}"]["memories_per_s"], 2),
            "cpu_x": round(rows[f"f32-{BACKFILL}"]["cpu_ms_per_memory"] / rows[f"int8-{BACKFILL}"]["cpu_ms_per_memory"], 2)},
        "int8_cosine_to_f32": {"min": round(float(cos.min()), 4), "p5": round(float(np.percentile(cos, 5)), 4),
                               "mean": round(float(cos.mean()), 4)},
        "dense_r5": {"conversations": len(threads), "questions": len(questions), **quality},
    }
    for name, r in rows.items():
        print(f"{name:14} {r['memories_per_s']:7.1f} memories/s  {r['cpu_ms_per_memory']:6.2f} CPU ms/memory  "
              f"throughput x{r['throughput_x']:.2f}  CPU x{r['cpu_x']:.2f} (of f32-b8)")
    ratio = result["int8_vs_f32_backfill"]
    print(f"int8 against f32 in the backfill's batches ({BACKFILL}): throughput x{ratio['throughput_x']:.2f}, "
          f"CPU x{ratio['cpu_x']:.2f}")
    print(f"int8 vs f32 cosine: {result['int8_cosine_to_f32']}; dense-only R@5 on {len(questions)} LoCoMo questions "
          f"({len(threads)} conversations): f32 {quality['f32']}, int8 {quality['int8']}")
    print(f"load {result['load_before']} -> {result['load_after']}")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
