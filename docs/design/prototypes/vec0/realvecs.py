"""Real MiniLM vectors of real text for recall measurements, embedded once into bench/.cache.

Corpus: every LoCoMo turn (conversations: what automatic capture stores) plus paragraphs of
the docstrings of the Python packages installed in this venv (developer prose: what a coding
assistant remembers), deduplicated, 60-600 characters. Queries: LoCoMo questions, the scale
benchmark's questions, and held-out docstring paragraphs cut to their first sentence (a query
phrased like a stored note but not stored). Embedding runs at ~100-300 texts/s here.

    python realvecs.py --docstrings 30000
"""

from __future__ import annotations

import argparse
import ast
import json
import random
import re
import sys
import time
from pathlib import Path

from common import CACHE, REPO, _embedder

import numpy as np


def docstring_paragraphs(limit: int) -> list[str]:
    site = next((REPO / ".venv" / "lib").glob("python3*/site-packages"))
    seen: set[str] = set()
    out: list[str] = []
    for path in sorted(site.rglob("*.py")):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8", errors="ignore"))
        except (SyntaxError, ValueError, RecursionError):
            continue
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
                continue
            doc = ast.get_docstring(node, clean=True)
            if not doc:
                continue
            for para in re.split(r"\n\s*\n", doc):
                text = " ".join(para.split())
                if 60 <= len(text) <= 600 and not text.startswith((">>>", "..", ":param", "Args:", "Returns")) \
                        and sum(c.isalpha() for c in text) > 0.6 * len(text) and text not in seen:
                    seen.add(text)
                    out.append(text)
    random.Random(5).shuffle(out)
    return out[:limit]


def embed_sorted(texts: list[str]) -> np.ndarray:
    """Vectors of the texts, embedded in batches of similar length (a batch pads to its longest)."""
    embedder = _embedder()
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    out = np.zeros((len(texts), 384), dtype=np.float32)
    t0 = time.perf_counter()
    for start in range(0, len(order), 64):
        chunk = order[start : start + 64]
        out[chunk] = embedder.embed([texts[i] for i in chunk])
        if start % 6400 == 0:
            print(f"{start:,}/{len(texts):,} {time.perf_counter() - t0:.0f}s", file=sys.stderr, flush=True)
    return out


def extend(args) -> None:
    meta = json.loads((CACHE / "vec0-real-meta.json").read_text())
    skip = args.held_out + meta["docstring_paragraphs"]  # the same shuffled order: these are taken
    more = docstring_paragraphs(skip + args.extend)[skip:]
    t0 = time.perf_counter()
    np.save(CACHE / "vec0-real-corpus-extra.npy", embed_sorted(more))
    meta["extra_docstring_paragraphs"] = len(more)
    meta["extra_embed_s"] = time.perf_counter() - t0
    (CACHE / "vec0-real-meta.json").write_text(json.dumps(meta, indent=2))
    print(meta)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--docstrings", type=int, default=30_000)
    ap.add_argument("--held-out", type=int, default=300)
    ap.add_argument("--data", default=str(REPO.parent.parent / "shared" / "data" / "locomo"))
    ap.add_argument("--extend", type=int, default=0, help="embed this many further paragraphs and append them")
    args = ap.parse_args()
    if args.extend:
        extend(args)
        return
    from scale import MORE_QUERIES

    lines = lambda name: [json.loads(x) for x in (Path(args.data) / name).read_text().splitlines() if x.strip()]  # noqa: E731
    turns = [t["content"] for t in lines("memories.jsonl")]
    questions = [q["question"] for q in lines("queries.jsonl")][::4]
    paras = docstring_paragraphs(args.docstrings + args.held_out)
    held, docs = paras[: args.held_out], paras[args.held_out :]
    held_queries = [re.split(r"(?<=[.!?])\s", p)[0][:120] for p in held]
    corpus = turns + docs
    queries = questions + MORE_QUERIES + held_queries
    embedder = _embedder()
    t0 = time.perf_counter()
    # Batches of similar length: a batch is padded to its longest text, so mixing lengths wastes work.
    order = sorted(range(len(corpus)), key=lambda i: len(corpus[i]))
    corpus_v = np.zeros((len(corpus), 384), dtype=np.float32)
    for start in range(0, len(order), 64):
        chunk = order[start : start + 64]
        corpus_v[chunk] = embedder.embed([corpus[i] for i in chunk])
        if start % 6400 == 0:
            print(f"{start:,}/{len(corpus):,} {time.perf_counter() - t0:.0f}s", file=sys.stderr, flush=True)
    query_v = np.concatenate([embedder.embed(queries[i : i + 64]) for i in range(0, len(queries), 64)]).astype(np.float32)
    CACHE.mkdir(exist_ok=True)
    np.save(CACHE / "vec0-real-corpus.npy", corpus_v)
    np.save(CACHE / "vec0-real-queries.npy", query_v)
    meta = {"corpus": len(corpus), "locomo_turns": len(turns), "docstring_paragraphs": len(docs),
            "queries": len(queries), "locomo_questions": len(questions), "scale_questions": len(MORE_QUERIES),
            "held_out_docstring_queries": len(held_queries), "embed_s": time.perf_counter() - t0}
    (CACHE / "vec0-real-meta.json").write_text(json.dumps(meta, indent=2))
    print(meta)


if __name__ == "__main__":
    main()
