"""Recall@10 of the vector pre-scan on real MiniLM vectors, by the share of rows it passes on.

bench/scale.py measures the pre-scan where it runs (a million memories), but its
vectors are synthetic mixtures of 3,000 real ones. This measures the same code
(Store.knn with the pre-scan forced on) on vectors of real text: every LoCoMo
turn and the 3,000 corpus notes, searched with LoCoMo questions and the scale
queries. At a few thousand rows the pre-scan's floor of PRESCAN_MIN candidates
would make it exact, so the floor is lowered and the share of rows passed on to
exact scoring is varied: a share that holds recall here is what a million rows
need, since a true neighbour's rank in the projection grows with the number of
rows (docs/design/vector-prescan.md).

    python bench/prescan.py            # real vectors (embedded once, cached in bench/.cache)
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

SHARES = (0.002, 0.004, 0.01, 0.02)


def locomo(data: Path, every: int) -> tuple[list[str], list[str]]:
    """LoCoMo turns and every `every`-th question ([] when the dataset is absent)."""
    if not (data / "memories.jsonl").exists():
        return [], []
    lines = lambda name: (json.loads(x) for x in (data / name).read_text().splitlines() if x.strip())  # noqa: E731
    return [t["content"] for t in lines("memories.jsonl")], [q["question"] for q in lines("queries.jsonl")][::every]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--data", default=str(HERE.parent.parent / "shared" / "data" / "locomo"))
    ap.add_argument("--out", default=str(HERE / "results" / "prescan.json"))
    args = ap.parse_args()
    from server.storage.sqlite import vectors as vecindex
    from server.storage.sqlite.db import Database
    from server.embedding.embedders import make_embedder
    from server.storage.sqlite.migrations import SchemaContext, migrate
    from server.storage.protocol import NewMemory, Scope
    from server.storage.sqlite.store import Store

    name = "hash" if args.quick else "minilm"
    embedder = make_embedder(name)
    embedder.wait_ready(600)
    notes = base_texts(1500 if args.quick else 3000)
    turns, questions = ([], []) if args.quick else locomo(Path(args.data), every=5)
    vectors = np.concatenate([base_vectors(embedder, notes, name)]
                             + ([embed_cached(embedder, turns, f"prescan-{name}-turns")] if turns else []))
    queries = embed_cached(embedder, questions + MORE_QUERIES, f"prescan-{name}-queries")
    home = Path(tempfile.mkdtemp(prefix="memvault-prescan-"))
    db = Database(home / "v.db")
    migrate(db, SchemaContext(dimensions=vectors.shape[1]))
    store = Store(db, "default", vector_prescan_from=1)
    with db.write() as conn:
        ids = [store.insert_memory(conn, NewMemory(
            thread="t", content=f"v{n}", kind="note", source="bench", origin=None, importance=0.5, tags=(),
            content_hash=f"v{n}", created_at=n, updated_at=n, index_text=f"v{n}", log_daily=False))
            for n in range(len(vectors))]
    store.store_vectors(dict(zip(ids, vectors)))
    ids = np.asarray(ids)
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    exact = [set(ids[np.argsort(-(unit @ q), kind="stable")[:10]].tolist()) for q in queries]
    vecindex.PRESCAN_MIN = 10
    rows = []
    for share in SHARES:
        vecindex.PRESCAN_SHARE = share
        started = time.perf_counter()
        found = sum(len(e & set(store.knn(q, 10, Scope()))) for q, e in zip(queries, exact))
        rows.append({"share": share, "candidates": max(10, int(share * len(ids))),
                     "recall_at_10": found / (10 * len(queries)),
                     "ms_per_query": (time.perf_counter() - started) * 1000 / len(queries)})
    index = store._vectors
    kept = None
    if index._basis is not None:
        spectrum = np.linalg.eigvalsh(unit.T @ unit)[::-1]
        kept = float(spectrum[: index._basis.shape[1]].sum() / spectrum.sum())
    db.close()
    result = {"embedder": name, "vectors": len(ids), "locomo_turns": len(turns), "queries": len(queries),
              "dims": int(vectors.shape[1]), "prescan_dims": vecindex.PRESCAN_DIMS, "variance_kept": kept,
              "by_share": rows}
    print(f"{name}: {len(ids):,} vectors ({len(turns):,} LoCoMo turns), {len(queries)} queries; "
          f"projection {vecindex.PRESCAN_DIMS} of {vectors.shape[1]} dims keeps {kept or 0:.1%} of the variance")
    print(f"{'share passed on':>16} {'candidates':>11} {'recall@10':>10}")
    for r in rows:
        print(f"{r['share']:>16.1%} {r['candidates']:>11,} {r['recall_at_10']:>10.3f}")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
