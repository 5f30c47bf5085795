"""Shared helpers of the vec0 research prototypes (issue 19, phase 1): connections, vectors, timing.

Runnable record of the measurements in docs/design/vec0-index.md; not imported by server/.
Connections go through server.storage.sqlite.db (the driver that can load sqlite-vec here), so
every figure is for the SQLite and sqlite-vec builds memvault really runs on.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[3]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

#: Where big scratch stores go (1M-row builds are GBs; never inside the repository).
SCRATCH = Path(os.environ.get("VEC0_SCRATCH", "/tmp/vec0-research"))
CACHE = REPO / "bench" / ".cache"  # ignored by git; the benches cache their embeddings there too
RESULTS = HERE / "results"
DIMS = 384


def connect(path: Path | str, cache_mb: int = 64):
    """A connection as memvault opens one (driver with sqlite-vec, WAL, 8 KB pages, NORMAL sync)."""
    from server.storage.sqlite.db import _load_vec, driver

    conn = driver().connect(str(path), isolation_level=None, check_same_thread=False, timeout=10)
    _load_vec(conn)
    conn.execute("PRAGMA page_size = 8192")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute(f"PRAGMA cache_size = -{cache_mb * 1024}")
    return conn


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summary(ms: list[float]) -> dict:
    return {"p50": round(statistics.median(ms), 2), "p95": round(pct(ms, 0.95), 2), "n": len(ms)}


def timed(fn) -> tuple[float, object]:
    t = time.perf_counter()
    value = fn()
    return (time.perf_counter() - t) * 1000, value


def synthetic(n: int, seed: int) -> np.ndarray:
    """bench/scale.py's vectors: normalised mixtures of 2-3 real MiniLM vectors of 3,000 notes + noise."""
    from scale import BASE_TEXTS, base_texts, embed_cached, synthesise

    base = embed_cached(_embedder(), base_texts(BASE_TEXTS), "base-minilm")
    rng = np.random.default_rng(seed)
    out = np.empty((n, DIMS), dtype=np.float32)
    step = 200_000
    for start in range(0, n, step):  # synthesise builds texts too: only its vectors are kept, in blocks
        m = min(step, n - start)
        parts = rng.integers(0, len(base), size=(m, 3))
        weights = rng.random((m, 3)).astype(np.float32) + 0.2
        weights[rng.random(m) < 0.5, 2] = 0.0
        v = np.einsum("nk,nkd->nd", weights, base[parts]) + 0.04 * rng.standard_normal((m, DIMS)).astype(np.float32)
        out[start : start + m] = v / np.linalg.norm(v, axis=1, keepdims=True)
    del synthesise
    return out


def scale_queries() -> np.ndarray:
    from scale import MORE_QUERIES, embed_cached

    return embed_cached(_embedder(), MORE_QUERIES, "vec0-scale-queries")


_EMBEDDER = None


def _embedder():
    global _EMBEDDER
    if _EMBEDDER is None:
        from server.embedding.embedders import make_embedder

        _EMBEDDER = make_embedder("minilm")
        _EMBEDDER.wait_ready(600)
    return _EMBEDDER


def real() -> tuple[np.ndarray, np.ndarray, dict]:
    """Real MiniLM vectors of real text (realvecs.py builds them): (corpus, queries, description)."""
    corpus = np.load(CACHE / "vec0-real-corpus.npy")
    extra = CACHE / "vec0-real-corpus-extra.npy"  # realvecs.py --extend
    if extra.exists():
        corpus = np.concatenate([corpus, np.load(extra)])
    queries = np.load(CACHE / "vec0-real-queries.npy")
    meta = json.loads((CACHE / "vec0-real-meta.json").read_text())
    return corpus, queries, meta


def write_result(name: str, data: dict) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"{name}.json"
    data = {**data, "load_average_1min": os.getloadavg()[0], "cpus": os.cpu_count()}
    out.write_text(json.dumps(data, indent=2) + "\n")
    return out
