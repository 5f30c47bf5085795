"""The stdio transport's own reader and writer (server/app/stdio.py): stdin and stdout served on the event
loop's thread, with no worker thread per line or per reply, reading and writing what the SDK's text
streams did (the protocol tests drive whole servers over them)."""

from __future__ import annotations

import os
import threading
import time
from io import BytesIO, TextIOWrapper

import anyio
import anyio.to_thread
import pytest

from server.app.stdio import _FdReader, _FdWriter

CHUNKS = [b'{"a": 1}\r\n{"b"', b': "caf\xc3', b'\xa9"}\n\xff\xfe bad bytes\n', b"lone\rcr\n\n", b"unterminated"]


def _reference(data: bytes) -> list[str]:
    """What the SDK's reader (TextIOWrapper, utf-8, errors=replace) made of the same bytes, line by line."""
    stream = TextIOWrapper(BytesIO(data), encoding="utf-8", errors="replace")
    return list(iter(stream.readline, ""))


def _count_hand_offs(monkeypatch) -> list[int]:
    calls = [0]
    real = anyio.to_thread.run_sync

    async def counting(*args, **kwargs):
        calls[0] += 1
        return await real(*args, **kwargs)

    monkeypatch.setattr(anyio.to_thread, "run_sync", counting)
    return calls


def test_lines_from_a_pipe_are_the_text_streams_lines_without_a_worker_thread(monkeypatch):
    hand_offs = _count_hand_offs(monkeypatch)
    read_end, write_end = os.pipe()

    def feed():
        for chunk in CHUNKS:  # split mid-line and mid-character, as a pipe delivers them
            os.write(write_end, chunk)
            time.sleep(0.01)
        os.close(write_end)

    async def main() -> list[str]:
        reader = _FdReader(read_end)
        return [line async for line in _until_eof(reader)]

    feeder = threading.Thread(target=feed)
    feeder.start()
    try:
        lines = anyio.run(main)
    finally:
        feeder.join()
        os.close(read_end)
    assert lines == _reference(b"".join(CHUNKS))
    assert lines[-1] == "unterminated" and "lone\n" in lines and "café" in lines[1]
    assert hand_offs[0] == 0  # every read waited on the event loop, none on a worker thread


def test_a_regular_file_on_stdin_is_read_on_a_worker_thread(tmp_path):
    path = tmp_path / "requests.jsonl"
    path.write_bytes(b"".join(CHUNKS))
    fd = os.open(path, os.O_RDONLY)  # `memvault < requests.jsonl`: a regular file cannot be polled

    async def main() -> list[str]:
        return [line async for line in _until_eof(_FdReader(fd))]

    try:
        assert anyio.run(main) == _reference(b"".join(CHUNKS))
    finally:
        os.close(fd)


async def _until_eof(reader: _FdReader):
    while line := await reader.readline():
        yield line


def test_a_reply_larger_than_the_pipe_reaches_a_slow_reader_whole_while_the_loop_keeps_serving(monkeypatch):
    hand_offs = _count_hand_offs(monkeypatch)
    read_end, write_end = os.pipe()
    reply = "".join(f'{{"n": {i}, "text": "é{"x" * 50}"}}\n' for i in range(5_000))  # ~300 kB, the pipe holds 64 KiB
    received = bytearray()

    def drain():
        time.sleep(0.2)  # the writer finds the pipe full first
        while chunk := os.read(read_end, 4096):
            received.extend(chunk)
            time.sleep(0.0005)

    ticks = []

    async def main() -> None:
        writer = _FdWriter(write_end)

        async def tick() -> None:
            while True:
                ticks.append(time.perf_counter())
                await anyio.sleep(0.01)

        async with anyio.create_task_group() as tg:
            tg.start_soon(tick)
            await writer.write(reply)
            await writer.flush()
            tg.cancel_scope.cancel()

    reader = threading.Thread(target=drain)
    reader.start()
    try:
        anyio.run(main)
    finally:
        os.close(write_end)
        reader.join()
        os.close(read_end)
    assert received.decode("utf-8") == reply
    assert len(ticks) >= 10  # the event loop ran other tasks while the reader was slow
    assert hand_offs[0] == 0


def test_a_reply_to_a_regular_file_is_written_whole(tmp_path):
    path = tmp_path / "out.jsonl"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT)  # `memvault > out.jsonl`

    async def main() -> None:
        writer = _FdWriter(fd)
        await writer.write('{"id": 1}\n')
        await writer.write("é" * 100_000 + "\n")

    try:
        anyio.run(main)
    finally:
        os.close(fd)
    assert path.read_text(encoding="utf-8") == '{"id": 1}\n' + "é" * 100_000 + "\n"


def test_a_reply_that_is_not_unicode_fails_as_the_sdks_writer_did():
    read_end, write_end = os.pipe()

    async def main() -> None:
        await _FdWriter(write_end).write('{"id": "\ud800"}\n')

    try:
        with pytest.raises(UnicodeEncodeError):
            anyio.run(main)
    finally:
        os.close(read_end)
        os.close(write_end)


def test_a_reply_that_fits_the_pipe_is_one_write_and_the_pipe_is_given_back_blocking(monkeypatch):
    read_end, write_end = os.pipe()
    writes = []
    real_write = os.write

    def counting(fd, data):
        writes.append(len(data))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", counting)
    reply = '{"jsonrpc": "2.0", "id": 7, "result": {"text": "' + "x" * 12_000 + '"}}\n'  # a recall's reply is ~10 kB

    async def main() -> _FdWriter:
        writer = _FdWriter(write_end)
        await writer.write(reply)
        return writer

    try:
        writer = anyio.run(main)
        assert writes == [len(reply)]  # the client wakes once for it, not once per PIPE_BUF
        assert not os.get_blocking(write_end)
        writer.restore()
        assert os.get_blocking(write_end)
        assert os.read(read_end, 1 << 16).decode() == reply
    finally:
        os.close(read_end)
        os.close(write_end)


def test_a_pipe_shared_with_stderr_stays_blocking_and_takes_chunks_that_cannot_block(monkeypatch):
    monkeypatch.setattr("server.app.stdio._same_file", lambda fd, other: True)  # `memvault 2>&1 | ...`
    read_end, write_end = os.pipe()
    reply = "y" * 10_000 + "\n"

    async def main() -> None:
        await _FdWriter(write_end).write(reply)

    try:
        anyio.run(main)
        assert os.get_blocking(write_end)  # logging writes to the same pipe: never made non-blocking
        assert os.read(read_end, 1 << 16).decode() == reply
    finally:
        os.close(read_end)
        os.close(write_end)
