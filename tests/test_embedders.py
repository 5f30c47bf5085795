"""One Embedder protocol: every implementation answers all of it, and callers use it as declared."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from server.embedding.embedders import Embedder, HashEmbedder, MiniLMEmbedder
from server.hooks.relay import _NoWait
from server.hooks.work import KeywordOnly

SERVER = Path(__file__).resolve().parent.parent / "server"
#: Everything a caller may use of an embedder; the protocol must declare exactly these.
MEMBERS = {"model_id", "dimensions", "error", "state", "start", "loaded", "wait_ready", "embed", "embed_urgent"}


def _declared(protocol: type) -> set[str]:
    methods = {name for name, value in vars(protocol).items() if callable(value) and not name.startswith("_")}
    return set(protocol.__annotations__) | methods


IMPLEMENTATIONS = {
    "minilm": lambda: MiniLMEmbedder(),  # built, never started: nothing loads here
    "hash": HashEmbedder,
    "hook process": lambda: KeywordOnly(MiniLMEmbedder.model_id, MiniLMEmbedder.dimensions),
    "relay": lambda: _NoWait(HashEmbedder()),
}


def test_the_protocol_declares_what_callers_use():
    assert _declared(Embedder) == MEMBERS


@pytest.mark.parametrize("name", IMPLEMENTATIONS)
def test_every_implementation_satisfies_the_protocol(name):
    embedder = IMPLEMENTATIONS[name]()
    assert isinstance(embedder, Embedder)
    assert all(hasattr(embedder, member) for member in MEMBERS)
    assert isinstance(embedder.model_id, str) and embedder.dimensions > 0
    assert embedder.error is None or isinstance(embedder.error, str)
    assert isinstance(embedder.state, str) and embedder.state


@pytest.mark.parametrize("missing", sorted(MEMBERS))
def test_an_embedder_lacking_any_member_fails_the_check(missing):
    """The check above can fail: HashEmbedder's members but one are not an Embedder."""
    members = {name: getattr(HashEmbedder(), name) for name in MEMBERS if name != missing}
    assert not isinstance(type("Partial", (), members)(), Embedder)


def test_loaded_never_starts_the_model():
    """A write asks `loaded` (the update linker): it must not pull the model's delayed load forward."""
    minilm = MiniLMEmbedder()
    assert not minilm.loaded() and not minilm._started
    assert not _NoWait(minilm).loaded() and not minilm._started
    assert not KeywordOnly(minilm.model_id, minilm.dimensions).loaded()
    assert HashEmbedder().loaded()


def test_the_relay_view_is_the_servers_embedder_that_never_waits():
    """A hook through the relay reads the server's model state and does not wait for its load."""
    minilm = MiniLMEmbedder()
    minilm._started = True  # a load that never finishes
    view = _NoWait(minilm)
    assert not view.wait_ready(600)  # at once
    minilm.state = "the embedding model is being prepared"
    assert (view.error, view.state) == (None, "the embedding model is being prepared")
    minilm.error = "OSError: no weights"
    assert view.error == "OSError: no weights"
    hash_view = _NoWait(HashEmbedder())
    assert (hash_view.embed_urgent(["a b"]) == HashEmbedder().embed(["a b"])).all()


def test_the_hook_process_embedder_says_why_it_answers_by_keyword():
    keyword = KeywordOnly(MiniLMEmbedder.model_id, MiniLMEmbedder.dimensions)
    keyword.start(delay=0)
    assert not keyword.wait_ready(10) and not keyword.loaded()
    assert "keyword" in keyword.error
    with pytest.raises(RuntimeError, match="keyword"):
        keyword.embed_urgent(["a query"])


def test_no_caller_probes_an_embedder_with_getattr():
    """getattr(embedder, "x", default) hides a member the protocol lacks; hasattr and __getattr__ the same."""
    found = []
    for path in sorted(SERVER.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr"):
                if node.args and "embedder" in ast.unparse(node.args[0]).lower():
                    found.append(f"{path.relative_to(SERVER)}:{node.lineno}: {ast.unparse(node)}")
            if isinstance(node, ast.FunctionDef) and node.name == "__getattr__" and "embedder" in ast.unparse(node).lower():
                found.append(f"{path.relative_to(SERVER)}:{node.lineno}: __getattr__")
    assert found == []


@pytest.mark.model
def test_the_torch_runtime_gives_the_reference_vectors():
    """MEMVAULT_EMBED_RUNTIME=torch (sentence-transformers in-process) serves the same vectors as the others."""
    from test_onnx import assert_same_vectors, reference

    embedder = MiniLMEmbedder(runtime="torch")
    assert embedder.wait_ready(300), embedder.error
    assert embedder.runtime == "torch" and embedder._max_batch == embedder.batch_size
    texts, want = reference()
    assert_same_vectors(embedder.embed(texts), want)


# -- the int8 graph (MEMVAULT_EMBED_PRECISION) ---------------------------------------------------


def test_the_precision_comes_from_the_environment_and_a_bad_one_stops_start_up():
    from server.config import Settings
    from server.errors import SetupError

    assert Settings.from_env({}).embed_precision == "auto"
    assert Settings.from_env({"MEMVAULT_EMBED_PRECISION": "int8"}).embed_precision == "int8"
    with pytest.raises(SetupError, match="MEMVAULT_EMBED_PRECISION='int4'.*'float32'"):
        Settings.from_env({"MEMVAULT_EMBED_PRECISION": "int4"})
    # NumPy and torch compute float32 vectors: int8 there would be float32 under the int8 model id
    with pytest.raises(SetupError, match="ONNX Runtime only"):
        Settings.from_env({"MEMVAULT_EMBED_PRECISION": "int8", "MEMVAULT_EMBED_RUNTIME": "numpy"})
    with pytest.raises(ValueError, match="ONNX Runtime only"):
        MiniLMEmbedder(runtime="torch", precision="int8")


def test_int8_vectors_carry_a_model_id_of_their_own():
    """int8 vectors are close to float32's, not equal: a store must be able to tell them apart."""
    from server.compose import configured_embedder
    from server.config import Settings

    float32, int8 = MiniLMEmbedder(precision="float32"), MiniLMEmbedder(precision="int8")
    assert float32.model_id == MiniLMEmbedder.model_id == "sentence-transformers/all-MiniLM-L6-v2"
    assert int8.model_id != float32.model_id and int8.model_id.startswith(float32.model_id)
    assert (int8.precision, int8.dimensions, int8._started) == ("int8", 384, False)
    assert configured_embedder(Settings(embed_precision="int8")).model_id == int8.model_id


@pytest.mark.parametrize("runtime, recorded, runs", [
    ("onnx", None, "int8"),  # a new store: int8 (about twice the throughput, the same recall)
    ("onnx", "float32", "float32"),  # embedded before int8 was the default: kept, nothing re-embedded
    ("onnx", "int8", "int8"),
    ("numpy", None, "float32"),  # NumPy and torch compute float32 only
    ("numpy", "float32", "float32"),
    ("onnx", "hash", "int8"),  # another model's vectors: the check refuses them whatever runs
])
def test_auto_precision_follows_the_store(settings, runtime, recorded, runs):
    """MEMVAULT_EMBED_PRECISION=auto (the default) runs the graph the store's vectors were made with."""
    from server.compose import open_service
    from server.embedding.embedders import MODEL_IDS

    minilm = settings.with_(embedder="minilm", embed_runtime=runtime)
    if recorded is not None:
        maker = settings if recorded == "hash" else minilm.with_(embed_precision=recorded)
        open_service(maker).close()  # records the model: the store's vectors are that one's
    try:
        service = open_service(minilm, check_model=recorded != "hash")
    except Exception as exc:
        raise AssertionError(f"{runtime}/{recorded}: {exc}") from None
    try:
        assert (service.embedder.precision, service.embedder.model_id) == (runs, MODEL_IDS[runs])
        assert not service.embedder._started  # chosen before the model loads
        kept = recorded if recorded in MODEL_IDS else runs
        assert service.store.get_meta("embedding_model") == (HashEmbedder.model_id if recorded == "hash" else MODEL_IDS[kept])
    finally:
        service.close()


def test_an_explicit_precision_does_not_follow_the_store(settings):
    """MEMVAULT_EMBED_PRECISION=int8 on a float32 store: refused with the fix, as any model change."""
    from server.compose import open_service
    from server.errors import ModelMismatch

    minilm = settings.with_(embedder="minilm")
    open_service(minilm.with_(embed_precision="float32")).close()
    with pytest.raises(ModelMismatch, match="reembed"):
        open_service(minilm.with_(embed_precision="int8"))
    open_service(minilm).close()  # auto keeps float32


def _playing(precision: str) -> HashEmbedder:
    """The hash embedder under MiniLM's model id of `precision`: the store's check sees only the id."""
    embedder = HashEmbedder()
    embedder.model_id = MiniLMEmbedder(precision=precision).model_id
    return embedder


def test_a_store_embedded_with_float32_refuses_the_int8_graph_until_reembedded(settings, clock):
    """Vectors of the two graphs never mix in one store: a float32 store keeps float32 (the server refuses
    to start with int8 and says how to switch), and `memvault reembed` moves it to int8 as a whole."""
    from server.errors import ModelMismatch
    from server.service import MemoryService

    svc = MemoryService.open(settings, embedder=_playing("float32"), clock=clock)
    stored = svc.remember("The deploy script lives in ops/deploy.sh", thread="infra")
    svc.embed_backlog()
    svc.close()
    with pytest.raises(ModelMismatch, match="MEMVAULT_EMBED_PRECISION.*back|reembed"):
        MemoryService.open(settings, embedder=_playing("int8"), clock=clock)
    svc = MemoryService.open(settings, embedder=_playing("int8"), clock=clock, check_model=False)
    assert svc.reembed() == 1
    assert svc.store.get_meta("embedding_model") == MiniLMEmbedder(precision="int8").model_id
    assert [m.id for m in svc.recall("where is the deploy script", thread="infra").memories] == [stored.id]
    svc.close()
    MemoryService.open(settings, embedder=_playing("int8"), clock=clock).close()
    with pytest.raises(ModelMismatch):
        MemoryService.open(settings, embedder=_playing("float32"), clock=clock)


@pytest.mark.parametrize("precision, fitted", [("float32", True), ("int8", True), (None, False)])
def test_the_update_model_judges_int8_vectors_with_its_fitted_coefficients(settings, clock, monkeypatch,
                                                                            precision, fitted):
    """int8 vectors keep the coefficients fitted on float32's (bench/updates.py --precision int8 within
    noise); another model's (the hash embedder's) are judged by the rules alone."""
    from server import linker
    from server.service import MemoryService

    seen = []
    judge = linker.model.judge

    def spy(*args, **kwargs):
        seen.append(args[6] if len(args) > 6 else kwargs["fitted"])
        return judge(*args, **kwargs)

    monkeypatch.setattr(linker.model, "judge", spy)
    svc = MemoryService.open(settings, embedder=_playing(precision) if precision else HashEmbedder(), clock=clock)
    try:
        svc.remember("We deploy with ops/deploy.sh on Fridays", thread="infra")
        svc.remember("We deploy with ops/deploy.sh on Mondays now", thread="infra")
    finally:
        svc.close()
    assert seen and set(seen) == {fitted}
