"""Storage faults: another process writing, a full disk, a read-only store, linked and huge memory files.

Reads never wait for the write lock; a write that cannot happen says why and stores
nothing; memory files are regular files inside the data directory or refused.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from datetime import datetime
from pathlib import Path

import pytest
from mcp import Client

from server.app import build_server
from server.embedding.embedders import HashEmbedder
from server.errors import DiskFull, RefusedFile, StoreBusy
from server.files.dailylog import DailyEntry
from server.service import MemoryService

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from injectors import link_memory_files, write_lock_held  # noqa: E402

sys.path.pop(0)

WAIT = 3.0  # MEMVAULT_WRITE_WAIT in these tests


@pytest.fixture
def busy_service(settings, clock):
    svc = MemoryService.open(settings.with_(write_wait_seconds=WAIT), embedder=HashEmbedder(), clock=clock)
    yield svc
    svc.close()


def _count(service: MemoryService) -> int:
    return service.store.count()["live"]


def test_recall_answers_while_another_process_holds_the_write_lock(busy_service):
    """Recall never waits for the lock: its counters and the file index are left for later."""
    stored = busy_service.remember("We deploy billing with blue-green releases", thread="ops").id
    busy_service.recall("deploy billing", thread="ops")  # warm: the file index and vectors are in step
    (busy_service.files.root / "MEMORY.md").write_text("# MEMORY\n\n- The staging cluster is called kestrel\n")
    with write_lock_held(busy_service.settings.db_path):
        started = time.monotonic()
        result = busy_service.recall("deploy billing", thread="ops")
        took = time.monotonic() - started
        assert [m.id for m in result.memories][:1] == [stored]
        assert "could not be updated now (another memvault process is writing)" in result.note
        # Nowhere near the write wait: the recall did not wait for the lock at all.
        assert took < WAIT / 3, took
    after = busy_service.recall("staging cluster name kestrel", thread="ops")  # ops and global
    assert after.memories[0].content == "The staging cluster is called kestrel"  # indexed once the lock was free
    assert after.note is None or "could not be updated" not in after.note
    assert busy_service.store.get([stored])[stored].recall_count == 3  # the count kept back was written later


def test_a_write_gives_up_after_the_bounded_wait_with_a_clear_message(busy_service):
    before = _count(busy_service)
    with write_lock_held(busy_service.settings.db_path):
        started = time.monotonic()
        with pytest.raises(StoreBusy, match=r"the store is busy \(another memvault process is writing\); retry"):
            busy_service.remember("Use uv for every Python project")
        took = time.monotonic() - started
    assert WAIT <= took < WAIT + 2
    assert _count(busy_service) == before  # nothing partial
    assert busy_service.remember("Use uv for every Python project").status == "stored"


@pytest.mark.anyio
async def test_other_calls_do_not_queue_behind_a_waiting_write(busy_service):
    """While one remember waits for another process's lock, recalls and resources keep answering."""
    import anyio

    busy_service.remember("The billing service is written in Go", thread="billing")
    async with Client(build_server(busy_service, start_background=False)) as client:
        with write_lock_held(busy_service.settings.db_path):
            answered: list[float] = []
            waiting: dict[str, object] = {}

            async def remember() -> None:
                waiting["result"] = await client.call_tool("remember", {"content": "Billing runs on Fridays"})
                waiting["at"] = time.monotonic()

            async with anyio.create_task_group() as tg:
                started = time.monotonic()
                tg.start_soon(remember)
                await anyio.sleep(0.2)  # the remember is waiting for the lock now
                for _ in range(5):
                    r = await client.call_tool("recall", {"query": "billing language", "thread": "billing"})
                    assert not r.is_error and r.structured_content["memories"]
                    await client.read_resource("memory://threads/billing")
                    answered.append(time.monotonic())
            result = waiting["result"]
            assert result.is_error
            assert "the store is busy (another memvault process is writing); retry" in result.content[0].text
            assert "Error executing tool" not in result.content[0].text
            # Every read was answered while the remember was still waiting for the lock.
            assert max(answered) < waiting["at"], (started, answered, waiting["at"])


def _fill_database(service: MemoryService) -> None:
    """Cap the file at its current size (PRAGMA max_page_count): the next page it needs is SQLITE_FULL, as on a full disk."""
    conn = service.db.conn
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages}")


def _unfill(service: MemoryService) -> None:
    service.db.conn.execute("PRAGMA max_page_count = 1073741823")


def test_a_full_disk_stores_nothing_and_says_so(busy_service):
    stored = busy_service.remember("The API gateway is Envoy").id
    _fill_database(busy_service)
    try:
        for n in range(200):  # free pages inside the file are used up first
            before = _count(busy_service)
            try:
                busy_service.remember(f"filler {n} " + "x " * 10_000)
            except DiskFull as exc:
                assert str(exc).startswith("disk full: nothing was stored")
                break
        else:
            pytest.fail("the database never filled up")
        assert _count(busy_service) == before  # the failed remember left nothing behind
        result = busy_service.recall("API gateway")  # reads keep working
        assert result.memories[0].id == stored
    finally:
        _unfill(busy_service)
    assert busy_service.remember("After freeing space it works again").status == "stored"


@pytest.mark.anyio
async def test_a_full_disk_is_a_clear_tool_error(busy_service):
    async with Client(build_server(busy_service, start_background=False)) as client:
        _fill_database(busy_service)
        try:
            for n in range(200):
                result = await client.call_tool("remember", {"content": f"filler {n} " + "y " * 10_000})
                if result.is_error:
                    break
        finally:
            _unfill(busy_service)
    assert result.is_error and result.content[0].text.startswith("disk full: nothing was stored")


# --------------------------------------------------------------------------- memory files


@pytest.fixture
def secret_file(tmp_path: Path) -> Path:
    target = tmp_path / "outside" / "passwd"
    target.parent.mkdir()
    target.write_text("root:x:0:0:root:/root:/bin/bash\n- a bullet that must never be indexed\n")
    return target


def test_linked_memory_files_are_never_read_indexed_or_appended_to(busy_service, secret_file, clock):
    day = clock().astimezone().date().isoformat()
    original = secret_file.read_bytes()
    link_memory_files(busy_service.files.root, secret_file, day)
    with pytest.raises(RefusedFile, match="symbolic link"):
        busy_service.files.read_memory()
    with pytest.raises(RefusedFile, match="symbolic link"):
        busy_service.files.read_soul()
    result = busy_service.recall("root bullet never indexed bash")
    assert not any("root" in m.content or "bullet" in m.content for m in result.memories)
    assert "MEMORY.md is not indexed: MEMORY.md is a symbolic link (to " in result.note
    # SOUL.md is identity, never indexed: only read_soul (above) and thread_prompt meet its link.
    stored = busy_service.remember("The release train leaves on Tuesdays")
    assert stored.status == "stored" and "could not be written" in stored.message  # the log line is refused
    assert secret_file.read_bytes() == original  # the target is untouched
    assert busy_service.files.list_days() == []  # a link is not a day's log


@pytest.mark.skipif(not hasattr(os, "link"), reason="hard links")
def test_hard_linked_memory_files_are_refused_like_symbolic_links(busy_service, secret_file, clock):
    """A hard link names the same file as one outside the data directory: never read, indexed or appended to."""
    from server.files import editor

    day = clock().astimezone().date().isoformat()
    original = secret_file.read_bytes()
    root = busy_service.files.root
    for name in ("MEMORY.md", "SOUL.md", f"daily/{day}.md"):
        (root / name).unlink(missing_ok=True)
        os.link(secret_file, root / name)
    with pytest.raises(RefusedFile, match="is a hard link"):
        busy_service.files.read_memory()
    with pytest.raises(RefusedFile, match="is a hard link"):
        busy_service.files.read_soul()
    result = busy_service.recall("root bullet never indexed bash")
    assert not any("root" in m.content or "bullet" in m.content for m in result.memories)
    assert "MEMORY.md is not indexed: MEMORY.md is a hard link" in result.note
    stored = busy_service.remember("The release train leaves on Tuesdays")
    assert stored.status == "stored" and "could not be written" in stored.message
    with pytest.raises(Exception, match="hard link"):
        editor.read(busy_service.files, "MEMORY.md")
    assert secret_file.read_bytes() == original


@pytest.mark.anyio
async def test_reading_a_linked_memory_file_as_a_resource_is_a_refused_request_not_an_internal_error(
        busy_service, secret_file, clock):
    from mcp.shared.exceptions import MCPError

    day = clock().astimezone().date().isoformat()
    link_memory_files(busy_service.files.root, secret_file, day)
    async with Client(build_server(busy_service, start_background=False)) as client:
        for uri in ("memory://memory", "memory://soul"):
            with pytest.raises(MCPError) as refused:
                await client.read_resource(uri)
            assert refused.value.error.code == -32602, (uri, refused.value.error)
            assert "is a symbolic link" in refused.value.error.message and "Replace it" in refused.value.error.message
        with pytest.raises(MCPError) as refused:  # a linked log is no day's log at all
            await client.read_resource(f"memory://daily/{day}")
        assert refused.value.error.code == -32602 and "No daily log" in refused.value.error.message


def test_a_linked_daily_folder_is_refused(busy_service, secret_file, clock):
    daily = busy_service.files.daily_dir
    daily.rmdir()
    elsewhere = secret_file.parent / "daily"
    elsewhere.mkdir()
    daily.symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(RefusedFile):
        busy_service.files.append_daily(datetime(2026, 5, 4, 9, 0), DailyEntry("fact", "x", None, 1))
    assert list(elsewhere.iterdir()) == []


def test_thread_prompt_leaves_out_a_linked_memory_file_and_says_why(busy_service, secret_file, clock):
    from server.thread_prompt import build_thread_prompt

    link_memory_files(busy_service.files.root, secret_file, clock().date().isoformat())
    result = build_thread_prompt(busy_service, None, None, None)
    assert "root:x:0:0" not in result.text
    notes = {p.name: p.note for p in result.parts}
    assert "symbolic link" in (notes["MEMORY.md"] or "") and "symbolic link" in (notes["SOUL.md"] or "")


def test_only_the_first_max_file_bytes_of_a_memory_file_are_indexed(settings, clock):
    settings = settings.with_(max_file_bytes=64 * 1024)
    bullets = "".join(f"- fact number {i} about the zebra-{i} service\n" for i in range(20_000))  # ~900 KB
    (settings.files_dir / "MEMORY.md").write_text("# MEMORY\n\n" + bullets)
    service = MemoryService.open(settings, embedder=HashEmbedder(), clock=clock)
    try:
        result = service.recall("zebra-3 service")
        assert "MEMORY.md is" in result.note and "only its first 65,536 are read and searchable" in result.note
        assert service.recall("zebra-19999 service").memories[0].content != "fact number 19999 about the zebra-19999 service"
        indexed = service.store.count()["file_units"]
        assert 0 < indexed < 2_000  # a bounded number of units, not 20,000
        text = service.files.read_memory()
        assert len(text.encode()) < 66 * 1024 and "MEMVAULT_MAX_FILE_BYTES" in text
    finally:
        service.close()


def test_appending_to_a_huge_daily_log_does_not_read_it(busy_service, clock, monkeypatch):
    """Each append looks at the file's size and last byte only (constant time on a 300 MB log)."""
    path = busy_service.files.day_path(clock().astimezone())
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        f.truncate(50 * 1024 * 1024)  # sparse: 50 MB of NUL bytes, never read
        f.seek(0, os.SEEK_END)
    with open(path, "ab") as f:
        f.write(b"\n")
    reads: list[int] = []
    real_read = os.read

    def counting(fd: int, n: int) -> bytes:
        reads.append(n)
        return real_read(fd, n)

    monkeypatch.setattr(os, "read", counting)
    busy_service.files.append_daily(clock().astimezone(), DailyEntry("fact", "appended", None, 7))
    monkeypatch.undo()
    assert sum(reads) <= 1, reads
    with open(path, "rb") as f:
        f.seek(-200, os.SEEK_END)
        assert f.read().endswith(b"- 09:30 [fact] appended  <!-- id:7 -->\n".replace(b"09:30", clock().astimezone().strftime("%H:%M").encode()))


def test_concurrent_recalls_and_a_waiting_writer_in_threads(busy_service):
    """In-process threads: a writer waiting for another process does not hold the connection."""
    busy_service.remember("Use Postgres for billing", thread="b")
    errors: list[BaseException] = []
    with write_lock_held(busy_service.settings.db_path):
        writer = threading.Thread(target=lambda: _expect_busy(busy_service, errors))
        writer.start()
        time.sleep(0.1)
        started = time.monotonic()
        for _ in range(20):
            busy_service.recall("billing database", thread="b")
        took = time.monotonic() - started
        assert writer.is_alive() and took < WAIT / 2, took
        writer.join()
    assert errors == []


def _expect_busy(service: MemoryService, errors: list[BaseException]) -> None:
    try:
        service.remember("waits for the lock")
    except StoreBusy:
        return
    except BaseException as exc:  # noqa: BLE001
        errors.append(exc)
    else:
        errors.append(AssertionError("remember succeeded while another process held the lock"))


@pytest.mark.e2e
def test_over_stdio_recalls_keep_answering_while_another_process_holds_the_lock(tmp_path):
    """The spawned server, as a host runs it: recalls answer in their normal time, a remember says busy."""
    import json
    import statistics

    from spawn import INIT, RawSession, call, rpc

    session = RawSession(tmp_path, MEMVAULT_WRITE_WAIT="10")
    try:
        session.send(rpc("initialize", INIT, 0) + rpc("notifications/initialized"))
        session.reply(0)
        for n in range(20):
            session.send(call("remember", {"content": f"service-{n} ships with blue-green deploys", "thread": "ops"}, 100 + n))
            session.reply(100 + n)

        def recall(id: int) -> float:
            started = time.monotonic()
            session.send(call("recall", {"query": "how does service-3 ship", "thread": "ops"}, id))
            assert session.reply(id)["result"]["structuredContent"]["memories"]
            return time.monotonic() - started

        free = [recall(200 + n) for n in range(10)]
        with write_lock_held(tmp_path / "memvault.db"):
            session.send(call("remember", {"content": "waits for the lock"}, 300))
            locked = [recall(400 + n) for n in range(10)]  # while the remember waits too
            busy = session.reply(300, timeout=30)["result"]
        assert busy["isError"] and busy["content"][0]["text"].startswith(
            "the store is busy (another memvault process is writing); retry")
        # If a recall waited for the lock it would take the whole 10 s write wait.
        assert max(locked) < 3, (free, locked)
        assert statistics.median(locked) < max(5 * statistics.median(free), 0.5), (free, locked)
        assert session.close() == 0
    finally:
        session.kill()
    assert all(json.loads(line).get("jsonrpc") == "2.0" for line in session.stdout)
