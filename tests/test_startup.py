"""What a server pays before and right after it answers: the first vector search it makes in the
background at start, and the warm-up it leaves until the first recall is answered."""

from __future__ import annotations

import gc
import subprocess
import sys
import time
from pathlib import Path

import pytest

from server import service as service_module
from server.config import Settings
from server.embedding.embedders import HashEmbedder
from server.guard import lazyre
from server.guard.lazyre import LazyRe, compile_all
from server.service import MemoryService
from server.storage.sqlite.search import SqliteSearch

ROOT = Path(__file__).resolve().parent.parent


def test_compile_all_compiles_every_pattern_made_and_keeps_none_alive():
    pattern = LazyRe(r"\bwarm(?:ed)? up\b")
    assert "search" not in vars(pattern)  # compiled on first use only
    assert compile_all() >= 1
    assert "search" in vars(pattern), "compile_all left a pattern for the first recall to compile"
    assert pattern.search("the server warmed up").group() == "warmed up"
    assert compile_all() == 0, "a second pass compiles nothing"
    dropped = LazyRe("dropped")
    del dropped
    gc.collect()
    assert all(p.pattern != "dropped" for p in lazyre._made), "the registry kept a dropped pattern alive"


def test_the_stemmer_loads_english_alone():
    """Comparing memories needs the English stemmer only: the snowballstemmer package's own import
    loads all 30 languages (3 MB of every server's memory), so it must stay unimported."""
    script = """
import sys
from server.updates.statements import stem
assert [stem(w) for w in ("running", "databases", "shown")] == ["run", "databas", "show"]
loaded = sorted(m for m in sys.modules if "stemmer" in m)
assert "snowballstemmer" not in sys.modules and not any("french" in m for m in loaded), loaded
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=str(ROOT))
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


def _service(home: Path) -> MemoryService:
    return MemoryService.open(Settings(home=home, embedder="hash"), embedder=HashEmbedder(), check_index=False)


def test_the_warm_up_waits_for_the_first_recall(tmp_path, monkeypatch):
    """Compiling every pattern holds the GIL for ~0.5 s (2 s on a busy machine): run beside a server's
    first recall it slowed that recall by as much, so it waits until the first recall is answered."""
    monkeypatch.setattr(service_module, "WARM_UP_AFTER", 60.0)
    pattern = LazyRe(r"\bafter the first recall\b")
    service = _service(tmp_path)
    try:
        service.start_background()
        time.sleep(0.5)
        assert "search" not in vars(pattern), "the warm-up ran before any recall"
        service.recall("which database does billing use?")
        deadline = time.monotonic() + 30
        while "search" not in vars(pattern) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert "search" in vars(pattern), "the warm-up never ran after the first recall"
    finally:
        service.close()


def test_the_warm_up_runs_without_a_recall_too(tmp_path, monkeypatch):
    monkeypatch.setattr(service_module, "WARM_UP_AFTER", 0.2)
    pattern = LazyRe(r"\bno recall came\b")
    service = _service(tmp_path)
    try:
        service.start_background()
        deadline = time.monotonic() + 30
        while "search" not in vars(pattern) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert "search" in vars(pattern)
    finally:
        service.close()


def test_a_server_makes_its_first_vector_search_before_any_recall(tmp_path, monkeypatch):
    """The vector index's set-up (the sidecar's row map, 0.3-0.5 s of a busy machine at 1M memories)
    is done in the background at start, not left to the first recall."""
    service = _service(tmp_path)
    try:
        for n in range(20):
            service.remember(f"The billing worker number {n} runs on host b{n}.", thread="billing")
        service.embed_backlog()
    finally:
        service.close()
    searches = []
    real = SqliteSearch.knn

    def counted(self, vector, k, scope):
        found = real(self, vector, k, scope)
        searches.append(found)
        return found

    monkeypatch.setattr(SqliteSearch, "knn", counted)
    service = _service(tmp_path)
    try:
        service.start_background()
        service._first_search.join(30)
        assert len(searches) == 1 and len(searches[0]) == 1, "no vector search (or no answer) before the first recall"
        assert service.store._vectors._mapped > 0, "the sidecar's rows were left for the first recall to map"
    finally:
        service.close()


async def _serve_until(service, first_reply, steps):
    """Drive build_server's low-level runner on memory streams (as run_stdio drives it on stdio), with
    the write side announcing its first message to `first_reply`; `steps(send, receive)` talks to it."""
    import anyio
    from mcp.shared.message import SessionMessage
    from mcp_types import JSONRPCRequest

    from server.app import build_server
    from server.app.stdio import announcing

    mcp = build_server(service, first_reply=first_reply)
    lowlevel = mcp._lowlevel_server
    to_server, server_reads = anyio.create_memory_object_stream(10)
    server_writes, from_server = anyio.create_memory_object_stream(10)

    async def send(rid, method, params):
        await to_server.send(SessionMessage(JSONRPCRequest(jsonrpc="2.0", id=rid, method=method, params=params)))

    async with to_server, server_reads, server_writes, from_server, anyio.create_task_group() as tg:
        tg.start_soon(lambda: lowlevel.run(server_reads, announcing(server_writes, first_reply),
                                           lowlevel.create_initialization_options()))
        await steps(send, from_server)
        await to_server.aclose()


INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}


@pytest.mark.anyio
async def test_a_stdio_server_starts_its_background_work_once_initialize_is_answered(service, monkeypatch):
    """The model's load and the other start-up threads took ~0.2-0.3 s of CPU and the GIL from the
    server's construction when they began at open: the host's `initialize` waited for them."""
    import anyio

    from server.app.stdio import FirstReply

    started = []
    monkeypatch.setattr(service, "start_background", lambda model_delay=0.0: started.append(model_delay))

    async def steps(send, receive):
        await anyio.sleep(0.3)
        assert started == [], "background work began before `initialize` was answered"
        await send(1, "initialize", INIT)
        reply = await receive.receive()
        assert reply.message.id == 1 and "serverInfo" in reply.message.result
        with anyio.fail_after(5):
            while not started:
                await anyio.sleep(0.01)
        assert started == [0.0], "the model's load waits no more once `initialize` is answered"

    await _serve_until(service, FirstReply(), steps)


@pytest.mark.anyio
async def test_a_server_never_asked_to_initialize_starts_its_background_work_anyway(service, monkeypatch):
    import anyio

    from server import app
    from server.app.stdio import FirstReply

    monkeypatch.setattr(app, "START_AFTER", 0.2)
    started = []
    monkeypatch.setattr(service, "start_background", lambda model_delay=0.0: started.append(model_delay))

    async def steps(send, receive):
        with anyio.fail_after(5):
            while not started:
                await anyio.sleep(0.01)

    await _serve_until(service, FirstReply(), steps)
    assert started == [0.0]
