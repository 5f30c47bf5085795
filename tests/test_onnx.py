"""The torch-free embedding runtimes: same vectors as sentence-transformers, one export, no torch in the server."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from spawn import ROOT, RawSession, call, handshake

from server.embedding import export as modelprep
from server.embedding.embedders import MiniLMEmbedder

pytestmark = pytest.mark.model

REFERENCE = Path(__file__).with_name("data") / "minilm_reference.json"


def reference() -> tuple[list[str], np.ndarray]:
    data = json.loads(REFERENCE.read_text(encoding="utf-8"))
    vectors = np.frombuffer(base64.b64decode(data["vectors"]), dtype=np.float16)
    return data["texts"], vectors.reshape(len(data["texts"]), 384).astype(np.float32)


def assert_same_vectors(got: np.ndarray, want: np.ndarray) -> None:
    # The reference is stored as float16 (~5e-4 relative rounding); a different
    # tokenisation or pooling moves cosines by 1e-2 or more.
    cosines = (got * want).sum(1) / np.linalg.norm(want, axis=1)
    assert cosines.min() > 0.99999, cosines
    assert np.abs(got - want).max() < 1e-3


@pytest.fixture(scope="module")
def onnx_embedder(model_cache: Path) -> MiniLMEmbedder:
    embedder = MiniLMEmbedder(runtime="onnx", precision="float32")  # the export itself: sentence-transformers' vectors
    assert embedder.wait_ready(600), embedder.error
    assert embedder.runtime == "onnx"
    return embedder


def test_runtime_and_cache_come_from_the_environment_and_a_bad_runtime_stops_start_up(tmp_path):
    from server.config import Settings
    from server.errors import SetupError

    settings = Settings.from_env({"MEMVAULT_EMBED_RUNTIME": "numpy", "MEMVAULT_MODEL_CACHE": str(tmp_path)})
    assert (settings.embed_runtime, settings.model_cache) == ("numpy", tmp_path)
    assert Settings.from_env({}).embed_runtime == "onnx"
    with pytest.raises(SetupError, match="MEMVAULT_EMBED_RUNTIME='cuda'.*'onnx'"):
        Settings.from_env({"MEMVAULT_EMBED_RUNTIME": "cuda"})


def test_the_reference_covers_the_tokenizer_traps():
    """Texts past 128 and past 256 tokens, empty, CJK, emoji and code are all in the reference set."""
    from server.embedding.minilm import tokenizer

    texts, _ = reference()
    tok = tokenizer(modelprep.source_dir())
    tok.no_truncation()
    lengths = [len(tok.encode(t).ids) for t in texts]
    assert any(128 < n <= 256 for n in lengths) and any(n > 256 for n in lengths)
    assert "" in texts and any("日本語" in t for t in texts) and any("🚀" in t for t in texts)
    assert any("def " in t for t in texts)


@pytest.mark.parametrize("batch", [1, 7, 32])
def test_onnx_vectors_equal_sentence_transformers(onnx_embedder, batch):
    texts, want = reference()
    onnx_embedder._max_batch = batch  # the batch size must not change a vector (padding is masked)
    try:
        got = onnx_embedder.embed(texts)
    finally:
        onnx_embedder._max_batch = 32
    assert got.shape == want.shape and got.dtype == np.float32
    assert_same_vectors(got, want)


def test_numpy_vectors_equal_sentence_transformers():
    embedder = MiniLMEmbedder(runtime="numpy")
    assert embedder.wait_ready(120), embedder.error
    texts, want = reference()
    assert embedder.runtime == "numpy"
    assert_same_vectors(embedder.embed(texts), want)


def test_an_export_that_cannot_be_made_falls_back_to_numpy(tmp_path):
    """A cache that cannot be written (here: a file where the folder should be) leaves the NumPy runtime serving."""
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("")
    embedder = MiniLMEmbedder(runtime="onnx", cache=blocked, precision="float32")
    assert embedder.wait_ready(120), embedder.error
    assert embedder.runtime == "numpy"
    texts, want = reference()
    assert_same_vectors(embedder.embed(texts[:5]), want[:5])


def test_the_session_export_is_valid_and_described(model_cache, onnx_embedder):
    folder = modelprep.cache_dir()
    assert folder.parent == model_cache
    assert modelprep.problem(folder) is None
    manifest = json.loads((folder / modelprep.MANIFEST_FILE).read_text())
    assert manifest["opset"] == modelprep.OPSET and manifest["max_seq_length"] == 256
    assert manifest["source_sha256"] == modelprep.sha256(modelprep.source_dir() / "model.safetensors")
    assert manifest["torch"] and manifest["transformers"]
    assert not list(folder.glob("*.tmp")), "temporary files left behind"


@pytest.fixture
def copied_export(tmp_path, onnx_embedder) -> Path:
    """A private copy of the session's valid export, to damage."""
    folder = tmp_path / "cache" / modelprep.MODEL_NAME
    folder.mkdir(parents=True)
    for name in (modelprep.ONNX_FILE, modelprep.MANIFEST_FILE):
        shutil.copy2(modelprep.cache_dir() / name, folder / name)
    assert modelprep.problem(folder, thorough=False) is None
    return folder


def _made_from_other_weights(manifest: Path) -> None:
    """As if the installed weights changed since the export (another package version)."""
    data = json.loads(manifest.read_text())
    data["source_sha256"] = "0" * 64
    data["source_stamp"] = [1, 1]
    manifest.write_text(json.dumps(data))


def _flip_a_byte(path: Path) -> None:
    """Damage the file in place, same size and same mtime: only the hash can tell."""
    info = path.stat()
    with open(path, "r+b") as f:
        f.seek(info.st_size // 2)
        byte = f.read(1)
        f.seek(info.st_size // 2)
        f.write(bytes([byte[0] ^ 0xFF]))
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))


@pytest.mark.parametrize(
    "damage, reason",
    [
        (lambda d: (d / "model.onnx").unlink(), "ONNX file missing"),
        (lambda d: (d / "model.onnx").write_bytes(b"not onnx"), "size"),
        (lambda d: (d / "manifest.json").unlink(), "no export yet"),
        (lambda d: (d / "manifest.json").write_text("{torn"), "unreadable manifest"),
        (lambda d: _made_from_other_weights(d / "manifest.json"), "other weights"),
    ],
    ids=["onnx-missing", "onnx-torn", "manifest-missing", "manifest-torn", "other-weights"],
)
def test_a_damaged_or_stale_export_is_detected(copied_export, damage, reason):
    damage(copied_export)
    found = modelprep.problem(copied_export, thorough=False)
    assert found is not None and reason in found


def test_a_same_size_corruption_is_found_by_the_thorough_check(copied_export):
    """`memvault model prepare` hashes everything; a server start trusts size + mtime (checked above)."""
    _flip_a_byte(copied_export / modelprep.ONNX_FILE)
    assert modelprep.problem(copied_export, thorough=False) is None
    assert "sha256" in modelprep.problem(copied_export, thorough=True)


def test_prepare_exports_a_corrupt_file_again(copied_export):
    (copied_export / modelprep.ONNX_FILE).write_bytes(b"\0" * 1000)
    done = subprocess.run(
        [sys.executable, "-m", "server.embedding.export", "--cache", str(copied_export.parent)],
        capture_output=True, text=True, timeout=600, cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "exported in" in done.stderr and "damaged" in done.stderr
    assert modelprep.problem(copied_export) is None
    # and a second run finds it valid: nothing exported
    again = subprocess.run(
        [sys.executable, "-m", "server.embedding.export", "--cache", str(copied_export.parent)],
        capture_output=True, text=True, timeout=600, cwd=ROOT,
    )
    assert again.returncode == 0 and "already prepared" in again.stderr


def test_prepare_makes_the_int8_graph_from_the_cached_export_without_exporting(copied_export, monkeypatch):
    """MEMVAULT_EMBED_PRECISION=int8: `memvault model prepare` quantizes the float32 file on disk (no
    torch export, no download), records which export it came from, and is a no-op the second time."""
    def no_export(*args, **kwargs):
        raise AssertionError("the float32 export is valid: it must not be made again")

    monkeypatch.setattr(modelprep, "_export", no_export)
    assert "no int8 graph" in modelprep.graph_problem(copied_export, "int8", thorough=False)
    done = modelprep.prepare(copied_export, precision="int8")
    assert done["exported"] and "int8" in done["reason"] and done["path"].endswith(modelprep.INT8_FILE)
    assert modelprep.graph_problem(copied_export, "int8") is None
    manifest = json.loads((copied_export / modelprep.INT8_MANIFEST_FILE).read_text())
    source = json.loads((copied_export / modelprep.MANIFEST_FILE).read_text())
    assert manifest["source_onnx_sha256"] == source["onnx_sha256"] and manifest["precision"] == "int8"
    size = (copied_export / modelprep.INT8_FILE).stat().st_size
    assert size < (copied_export / modelprep.ONNX_FILE).stat().st_size / 3  # int8 weights: ~23 MB of 90
    assert not modelprep.prepare(copied_export, precision="int8")["exported"]
    assert not list(copied_export.glob(".*.tmp")), "temporary files left behind"
    # a float32 export made again (other bytes) leaves the int8 graph stale
    source["onnx_sha256"] = "0" * 64
    (copied_export / modelprep.MANIFEST_FILE).write_text(json.dumps(source))
    assert "another float32 export" in modelprep.int8_problem(copied_export)
    _flip_a_byte(copied_export / modelprep.MANIFEST_FILE)  # torn: unreadable, not trusted
    assert modelprep.int8_problem(copied_export) is not None


def test_the_int8_graph_serves_close_to_float32_vectors_under_its_own_model_id(copied_export):
    embedder = MiniLMEmbedder(precision="int8", cache=copied_export.parent)
    assert embedder.wait_ready(600), embedder.error
    assert embedder.runtime == "onnx" and embedder.model_id.endswith("@int8")
    assert modelprep.int8_problem(copied_export) is None  # made on first load, as the float32 export is
    texts, want = reference()
    got = embedder.embed(texts)
    cosines = (got * want).sum(1) / np.linalg.norm(want, axis=1)
    assert got.dtype == np.float32 and np.allclose(np.linalg.norm(got, axis=1), 1, atol=1e-5)
    # close (bench/runtime.py: >= 0.98 on LoCoMo turns), and not the same vectors: another model id
    assert cosines.min() > 0.95 and cosines.mean() > 0.98, cosines
    assert cosines.min() < 0.9999, "the int8 graph gave float32's vectors: is it the float32 file?"


@pytest.mark.parametrize("precision", ["int8", "auto"])
def test_an_int8_graph_that_cannot_be_made_leaves_keyword_search_not_float32_vectors(tmp_path, precision):
    """No NumPy fallback for int8 (the default for a new store): NumPy's float32 vectors under the int8
    model id would mix two models in one store."""
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("")
    embedder = MiniLMEmbedder(precision=precision, cache=blocked)
    assert not embedder.wait_ready(120)
    assert embedder.runtime is None and "int8 graph is unavailable" in embedder.error
    assert "memvault model prepare" in embedder.error and "MEMVAULT_EMBED_PRECISION=float32" in embedder.error


def _torch_mapped(pid: int) -> tuple[bool, bool]:
    maps = Path(f"/proc/{pid}/maps").read_text()
    return "libtorch" in maps, "onnxruntime" in maps


def _recall_until_hybrid(session: RawSession, first_id: int, timeout: float = 600) -> tuple[dict, list[str]]:
    notes = []
    deadline = time.monotonic() + timeout
    rid = first_id
    while True:
        session.send(call("recall", {"query": "which database did we pick?", "k": 2}, rid))
        result = session.reply(rid, timeout=120)["result"]["structuredContent"]
        if result["search"] == "hybrid":
            return result, notes
        notes.append(result["note"])
        assert time.monotonic() < deadline, notes[-1]
        rid += 1
        time.sleep(1)


@pytest.mark.e2e
@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads /proc/<pid>/maps (Linux)")
def test_two_servers_and_a_prepare_on_an_empty_cache_make_one_export(tmp_path):
    """Servers started on an empty cache answer by keyword while one child process exports, then by meaning.

    Neither server process ever maps libtorch: only the export child does.
    """
    cache = tmp_path / "cache"
    env = {"MEMVAULT_EMBEDDER": "minilm", "MEMVAULT_MODEL_CACHE": str(cache), "MEMVAULT_MODEL_WAIT": "0.5"}
    sessions = [RawSession(tmp_path / f"home{i}", **env) for i in range(2)]
    prepare_log = tmp_path / "prepare.log"
    with open(prepare_log, "wb") as out:
        prepare = subprocess.Popen(
            [sys.executable, "-m", "server.embedding.export", "--cache", str(cache)], stderr=out, cwd=ROOT
        )
    try:
        for s in sessions:
            s.send(handshake())
            s.reply(0)
            s.send(call("remember", {"content": "we settled on PostgreSQL for billing"}, 1))
            assert s.reply(1)["result"]["structuredContent"]["status"] == "stored"
        waited = []
        for s in sessions:
            result, notes = _recall_until_hybrid(s, 10)
            assert "PostgreSQL" in result["memories"][0]["content"]
            assert result["memories"][0]["match"] in ("semantic", "both")
            waited += notes
        assert prepare.wait(timeout=600) == 0
        assert waited and all("Keyword search only" in n for n in waited)
        for s in sessions:
            torch_mapped, ort_mapped = _torch_mapped(s.proc.pid)
            assert ort_mapped and not torch_mapped
        for s in sessions:
            assert s.close() == 0
    finally:
        for s in sessions:
            s.kill()
        if prepare.poll() is None:
            prepare.kill()
            prepare.wait()
    stderr = prepare_log.read_text()
    log = (cache / modelprep.MODEL_NAME / modelprep.LOG_FILE)
    exports = stderr.count("exported in") + (log.read_text().count("exported in") if log.exists() else 0)
    # the prepare command prints both a log line and a summary for its own export
    exports -= stderr.count("memvault: model exported in")
    assert exports == 1, (stderr, log.read_text() if log.exists() else "")
    assert modelprep.problem(cache / modelprep.MODEL_NAME) is None


@pytest.mark.e2e
@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads /proc/<pid>/maps (Linux)")
def test_the_real_command_serves_with_onnx_and_never_loads_torch(tmp_path, onnx_embedder):
    """With the export in place, the first recall is semantic; the process never maps libtorch."""
    session = RawSession(tmp_path / "home", MEMVAULT_EMBEDDER="minilm")
    try:
        session.send(handshake())
        session.reply(0)
        session.send(call("remember", {"content": "we settled on PostgreSQL for billing"}, 1))
        session.send(call("remember", {"content": "the office coffee machine is on the third floor"}, 2))
        session.reply(2)
        session.send(call("recall", {"query": "which database did we pick?", "k": 2}, 3))
        result = session.reply(3, timeout=120)["result"]["structuredContent"]
        assert result["search"] == "hybrid" and "PostgreSQL" in result["memories"][0]["content"]
        assert _torch_mapped(session.proc.pid) == (False, True)
        assert session.close() == 0
    finally:
        session.kill()
    assert b"runtime: onnx" in session.stderr


def _runner_vectors(folder: Path, texts: list[str]) -> np.ndarray:
    from server.embedding import minilm

    return minilm.OnnxRunner(folder / modelprep.ONNX_FILE, modelprep.source_dir())(texts)


def test_the_graph_is_fused_once_and_later_loads_start_from_the_copy_with_the_same_vectors(copied_export):
    """The first load writes ONNX Runtime's optimised copy beside the export; the next loads it (not the
    graph) and gives the very same vectors; a damaged copy is dropped and the graph still serves."""
    import onnxruntime as ort

    from server.embedding import minilm

    texts, want = reference()
    graph = copied_export / modelprep.ONNX_FILE
    copy = minilm.optimized_path(graph, ort.__version__)
    assert not copy.exists()
    first = _runner_vectors(copied_export, texts)
    assert copy.is_file() and not list(copied_export.glob(".*.tmp")), "the copy is written whole, by rename"
    assert_same_vectors(first, want)
    made = copy.stat().st_mtime_ns
    loaded: list[str] = []
    real = ort.InferenceSession

    def session(path, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        loaded.append(Path(path).name)
        return real(path, *args, **kwargs)

    ort.InferenceSession = session
    try:
        again = _runner_vectors(copied_export, texts)
        assert loaded == [copy.name], "the second load fuses the graph again instead of reading the copy"
        assert np.array_equal(again, first)
        copy.write_bytes(b"not an onnx graph")  # damaged: dropped, and this load serves from the graph
        loaded.clear()
        assert np.array_equal(_runner_vectors(copied_export, texts), first)
        assert loaded[0] == copy.name and graph.name in loaded
    finally:
        ort.InferenceSession = real
    assert not copy.exists()
    assert np.array_equal(_runner_vectors(copied_export, texts), first)  # the next load makes it again
    assert copy.is_file() and copy.stat().st_mtime_ns != made


def test_a_new_graph_gets_its_own_copy_and_the_old_one_goes(copied_export):
    import onnxruntime as ort

    from server.embedding import minilm

    graph = copied_export / modelprep.ONNX_FILE
    _runner_vectors(copied_export, ["a"])
    old = minilm.optimized_path(graph, ort.__version__)
    os.utime(graph, ns=(time.time_ns(), time.time_ns()))  # as a new export would leave it
    _runner_vectors(copied_export, ["a"])
    new = minilm.optimized_path(graph, ort.__version__)
    assert new != old and new.is_file() and not old.exists()


def test_a_read_only_cache_still_loads_the_graph(copied_export, monkeypatch):
    from server.embedding import minilm

    monkeypatch.setattr(minilm.os, "access", lambda path, mode: False)  # as for a folder this user cannot write
    texts, want = reference()
    assert_same_vectors(_runner_vectors(copied_export, texts[:3]), want[:3])
    assert not list(copied_export.glob("*optimized*"))


def test_model_prepare_leaves_the_fused_copy_for_the_first_server(copied_export, monkeypatch):
    import onnxruntime as ort

    from server.embedding import minilm

    from server.cli import main

    graph = copied_export / modelprep.ONNX_FILE
    monkeypatch.setenv("MEMVAULT_MODEL_CACHE", str(copied_export.parent))
    monkeypatch.setenv("MEMVAULT_EMBED_PRECISION", "float32")
    assert main(["model", "prepare"]) == 0
    assert minilm.optimized_path(graph, ort.__version__).is_file()
