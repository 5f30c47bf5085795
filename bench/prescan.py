"""Recall@10 of the sidecar's approximate vector search on real MiniLM vectors, by the share it scores.

bench/scale.py measures the all-threads search where it matters (a million memories), but its
vectors are synthetic mixtures of 3,000 real ones. This measures the same code (Store.knn over
every thread, i.e. the shared sidecar: sign-bit Hamming -> asymmetric bit score -> float16
re-scoring; server/storage/sqlite/sidecar.py) on vectors of real text:
  * every LoCoMo turn and the 3,000 corpus notes, searched with LoCoMo questions and the scale
    queries (8,882 vectors, 420 queries);
  * with --corpus, the 75,882 real texts of the vec0 design research (LoCoMo turns + docstring
    paragraphs, bench/.cache/vec0-real-corpus*.npy, made by docs/design/prototypes/vec0/realvecs.py)
    and its 819 real queries.
At these sizes the search's floor (FLOOR rows always scored) makes it nearly exact, so the
floor is lowered and the share of rows scored exactly (NARROW; the Hamming stage keeps 10x that)
is varied; the shipped setting is measured too. At a fixed share, recall grows with the number
of rows (docs/design/vec0-index.md), so a share that holds here holds at a million.

    python bench/prescan.py            # real vectors (embedded once, cached in bench/.cache)
    python bench/prescan.py --corpus   # + the 75,882-vector research corpus, if cached
    python bench/prescan.py --quick    # CI: hash embedder, 1,500 corpus notes
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from scale import MORE_QUERIES, base_texts, base_vectors, embed_cached  # noqa: E402

SHARES = (0.002, 0.005, 0.01, 0.02)


def locomo(data: Path, every: int) -> tuple[list[str], list[str]]:
    """LoCoMo turns and every `every`-th question ([] when the dataset is absent)."""
    if not (data / "memories.jsonl").exists():
        return [], []
    lines = lambda name: (json.loads(x) for x in (data / name).read_text().splitlines() if x.strip())  # noqa: E731
    return [t["content"] for t in lines("memories.jsonl")], [q["question"] for q in lines("queries.jsonl")][::every]


def sweep(vectors: np.ndarray, queries: np.ndarray, label: str) -> dict:
    """Store.knn over every thread (the sidecar) at each share, against exact cosine."""
    from server.storage.protocol import NewMemory, Scope
    from server.storage.sqlite import sidecar
    from server.storage.sqlite.db import Database
    from server.storage.sqlite.migrations import SchemaContext, migrate
    from server.storage.sqlite.store import Store

    home = Path(tempfile.mkdtemp(prefix="memvault-prescan-"))
    db = Database(home / "v.db")
    migrate(db, SchemaContext(dimensions=vectors.shape[1]))
    store = Store(db, "default")
    with db.write() as conn:
        ids = [store.insert_memory(conn, NewMemory(
            thread="t", content=f"v{n}", kind="note", source="bench", origin=None, importance=0.5, tags=(),
            content_hash=f"v{n}", created_at=n, updated_at=n, index_text=f"v{n}", log_daily=False))
            for n in range(len(vectors))]
    for start in range(0, len(ids), 5000):
        store.store_vectors(dict(zip(ids[start : start + 5000], vectors[start : start + 5000])))
    ids = np.asarray(ids)
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    exact = [set(ids[np.argsort(-(unit @ q), kind="stable")[:10]].tolist()) for q in queries]
    shipped = (sidecar.FLOOR, sidecar.NARROW, sidecar.WIDE, sidecar.EXACT_ROWS, sidecar.WIDE_ROWS)
    rows = []
    for share in (*SHARES, None):
        if share is None:  # as shipped
            sidecar.FLOOR, sidecar.NARROW, sidecar.WIDE, sidecar.EXACT_ROWS, sidecar.WIDE_ROWS = shipped
        else:
            sidecar.FLOOR, sidecar.NARROW, sidecar.WIDE, sidecar.EXACT_ROWS, sidecar.WIDE_ROWS = 10, share, 10 * share, 0, 0
        started = time.perf_counter()
        found = sum(len(e & set(store.knn(q, 10, Scope()))) for q, e in zip(queries, exact))
        scored = max(sidecar.FLOOR, int(sidecar.NARROW * len(ids)))
        scored = len(ids) if len(ids) <= max(scored, sidecar.EXACT_ROWS) else scored
        rows.append({"share": "shipped" if share is None else share, "rows_scored": min(scored, len(ids)),
                     "recall_at_10": round(found / (10 * len(queries)), 4),
                     "ms_per_query": round((time.perf_counter() - started) * 1000 / len(queries), 2)})
    db.close()
    print(f"{label}: {len(ids):,} vectors, {len(queries)} queries")
    print(f"{'share scored':>14} {'rows':>7} {'recall@10':>10}")
    for r in rows:
        share = r["share"] if isinstance(r["share"], str) else f"{r['share']:.1%}"
        print(f"{share:>14} {r['rows_scored']:>7,} {r['recall_at_10']:>10.3f}")
    return {"vectors": len(ids), "queries": len(queries), "by_share": rows}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--corpus", action="store_true", help="also the cached 75,882-vector research corpus")
    ap.add_argument("--data", default=str(HERE.parent.parent / "shared" / "data" / "locomo"))
    ap.add_argument("--out", default=str(HERE / "results" / "prescan.json"))
    args = ap.parse_args()
    from server.embedding.embedders import make_embedder

    name = "hash" if args.quick else "minilm"
    embedder = make_embedder(name)
    embedder.wait_ready(600)
    notes = base_texts(1500 if args.quick else 3000)
    turns, questions = ([], []) if args.quick else locomo(Path(args.data), every=5)
    vectors = np.concatenate([base_vectors(embedder, notes, name)]
                             + ([embed_cached(embedder, turns, f"prescan-{name}-turns")] if turns else []))
    queries = embed_cached(embedder, questions + MORE_QUERIES, f"prescan-{name}-queries")
    result = {"embedder": name, "method": "Store.knn over every thread (the sidecar) vs exact cosine",
              "locomo_and_notes": {**sweep(vectors, queries, "LoCoMo turns + notes"), "locomo_turns": len(turns)}}
    cache = HERE / ".cache"
    if args.corpus and (cache / "vec0-real-corpus.npy").exists():
        corpus = np.load(cache / "vec0-real-corpus.npy")
        if (cache / "vec0-real-corpus-extra.npy").exists():
            corpus = np.concatenate([corpus, np.load(cache / "vec0-real-corpus-extra.npy")])
        result["research_corpus"] = sweep(corpus.astype(np.float32), np.load(cache / "vec0-real-queries.npy"),
                                          "research corpus (LoCoMo + docstrings)")
    result["load_average_1min"] = os.getloadavg()[0]
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
