"""The stdio transport: the SDK's, plus an answer to every line it cannot read.

The SDK's `stdio_server` turns a line it cannot parse into an exception on its read
stream, and the server drops it without a word: `echo hello | memvault`, a request
carrying a lone-surrogate escape (`"\\ud800"`, which pydantic's JSON parser refuses) or
one nested 5,000 levels deep gets no reply at all, and its client waits forever. Over
HTTP the same body gets a prompt 400. Here every such line is answered as JSON-RPC 2.0
says, with the request's id whenever one can be read from the line:

- -32700 Parse error: not JSON, or JSON with a string that is not valid Unicode;
- -32600 Invalid Request: JSON, but not one JSON-RPC message (a batch, a wrong type,
  nesting deeper than the parser takes).

A line the SDK does read is still held to JSON and JSON-RPC 2.0 (`reply_to_lenient`): a
bare NaN is -32700, and a request whose id is null, an object, an array, a fraction or a
boolean -- which the SDK takes for a notification and never answers -- is -32600 with
id null. An id that is not valid Unicode is never echoed (the reply could not be written).

Nothing is answered for a blank line, for a response, or for a message without an id
that names a method (a notification, which JSON-RPC never answers).

The SDK's stdio_server still runs the transport and writes every reply, these included,
so lines never interleave; stdin and stdout are claimed here the way the SDK claims them
(private duplicates; fd 0 pointed at the null device, so child processes read EOF, and fd 1
at stderr, so a stray print cannot corrupt the channel), because the SDK only accepts
ready-made streams, and read and written on the event loop's thread (_FdReader, _FdWriter)
rather than by a worker thread per line and per reply.
"""

from __future__ import annotations

import codecs
import io
import json
import os
import select
import stat
import sys
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from io import TextIOWrapper
from typing import Any

import anyio
import anyio.to_thread
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError

from server import stages

#: pydantic-core parses at most this many levels of nesting (its recursion limit).
MAX_DEPTH = 200
_SHOWN = 40
_SURROGATE = ("Parse error: the message contains a lone surrogate escape (such as \\ud800), which is not valid "
              "Unicode; send the text as UTF-8")


def _scan(text: str) -> tuple[int, Any]:
    """(deepest nesting, the top-level "id" value if one can be read) of a JSON-ish line, without recursion.

    Reads a broken or enormous line as far as it goes; the id is only taken when it is a
    string or an integer (JSON-RPC's id types), as the first value of a top-level "id" key.
    """
    depth = deepest = 0
    i, n = 0, len(text)
    found: Any = None
    key: str | None = None
    expect_key = False
    while i < n:
        ch = text[i]
        if ch == '"':
            end = i + 1
            while end < n and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            literal = text[i : end + 1]
            if depth == 1:
                rest = text[end + 1 :].lstrip()
                if expect_key and rest.startswith(":"):
                    try:
                        key = json.loads(literal)
                    except ValueError:
                        key = None
                elif key == "id" and found is None:
                    try:
                        found = json.loads(literal)
                    except ValueError:
                        pass
                    key = None
            expect_key = False
            i = end + 1
            continue
        if ch in "{[":
            depth += 1
            deepest = max(deepest, depth)
            expect_key = ch == "{" and depth == 1
        elif ch in "}]":
            depth -= 1
        elif ch == "," and depth == 1:
            expect_key = True
            key = None
        elif depth == 1 and key == "id" and found is None and (ch == "-" or ch.isdigit()):
            end = i + 1
            while end < n and (text[end].isdigit()):
                end += 1
            if end >= n or text[end] not in ".eE":
                found = int(text[i:end]) if text[i:end] not in ("", "-") else None
            key = None
            i = end
            continue
        i += 1
    return deepest, found if _usable_id(found) else None


def _usable_id(value: Any) -> bool:
    """Whether a reply can carry `value` as its id: a string or an integer (not a bool), and valid Unicode.

    An id with a lone surrogate cannot be written back as UTF-8: echoing it would fail the
    reply (on stdio it used to kill the server), so such a request is answered with id null.
    """
    if isinstance(value, str):
        return not _has_surrogate(value)
    return isinstance(value, int) and not isinstance(value, bool)


def _has_surrogate(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if any("\ud800" <= c <= "\udfff" for c in item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _error(id: Any, code: int, message: str) -> JSONRPCError:
    return JSONRPCError(jsonrpc="2.0", id=id, error=ErrorData(code=code, message=message))


def reply_to_unreadable(line: str, unit: str = "line") -> JSONRPCError | None:
    """The error reply for a line the SDK could not read as a JSON-RPC message (None: answer nothing).

    `unit` is what carries one message: a "line" on stdio, a "request body" over HTTP.
    """
    text = line.strip()
    if not text:
        return None
    deepest, scanned_id = _scan(text)
    try:
        message = json.loads(text)
    except RecursionError:
        return _error(scanned_id, INVALID_REQUEST,
                      f"Invalid Request: the message is nested {deepest:,} levels deep; at most {MAX_DEPTH} are accepted")
    except ValueError:
        shown = text[:_SHOWN] + ("…" if len(text) > _SHOWN else "")
        return _error(scanned_id, PARSE_ERROR,
                      f"Parse error: this {unit} is not JSON ({shown!r}); send one JSON-RPC message per {unit}")
    if isinstance(message, dict):
        if "method" not in message and ("result" in message or "error" in message):
            return None  # a (malformed) response: JSON-RPC never answers those
        if "id" not in message and isinstance(message.get("method"), str):
            return None  # a notification: never answered, even when malformed
        raw_id = message.get("id")
        id = raw_id if _usable_id(raw_id) else None
    else:
        id = None
    if _has_surrogate(message):
        return _error(id, PARSE_ERROR, _SURROGATE)
    if deepest > MAX_DEPTH:
        return _error(id, INVALID_REQUEST,
                      f"Invalid Request: the message is nested {deepest:,} levels deep; at most {MAX_DEPTH} are accepted")
    if isinstance(message, list):
        return _error(None, INVALID_REQUEST, f"Invalid Request: batches are not supported; send one message per {unit}")
    return _error(id, INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message; a request is an object with "
                  '"jsonrpc": "2.0", an "id" (a string or an integer), a "method" string and optional "params" object')


class _NotJson(ValueError):
    """A bare NaN, Infinity or -Infinity: Python's and pydantic's parsers take them; JSON (RFC 8259) has none."""


def _no_constants(literal: str) -> Any:
    raise _NotJson(literal)


def _id_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return {dict: "an object", list: "an array", float: "a fraction"}.get(type(value), "not valid Unicode")


def reply_to_lenient(line: str, unit: str = "line") -> JSONRPCError | None:
    """The error reply for a line the SDK *accepted* but JSON-RPC 2.0 refuses (None: let the SDK handle it).

    The SDK's parsers are lenient in three ways this closes: a bare NaN or Infinity is read
    as a number (-32700: it is not JSON); a request whose id is null, an object, an array, a
    fraction or a boolean is read as a notification and never answered, so its client waits
    forever (-32600 with id null, as JSON-RPC 2.0 says for an id that cannot be read); over
    HTTP a lone surrogate escape anywhere is read as text (-32700, as on stdio).
    """
    try:
        message = json.loads(line, parse_constant=_no_constants)
    except _NotJson as exc:
        _, scanned_id = _scan(line.strip())
        return _error(scanned_id, PARSE_ERROR, f"Parse error: {exc.args[0]} is not a JSON value (JSON has no NaN or "
                      f"Infinity); send finite numbers, or the value as a string")
    except (ValueError, RecursionError):
        return None  # not JSON at all: the SDK refuses it too, and reply_to_unreadable answers it
    if not isinstance(message, dict) or not isinstance(message.get("method"), str):
        return None  # a batch, a response or no request at all: the SDK's refusal (or its silence) stands
    if _has_surrogate(message):
        raw_id = message.get("id")
        return _error(raw_id if _usable_id(raw_id) else None, PARSE_ERROR, _SURROGATE)
    if "id" in message and not _usable_id(message["id"]):
        return _error(None, INVALID_REQUEST, f"Invalid Request: the id is {_id_kind(message['id'])}; a request's id is "
                      "a string or an integer (leave the id out only for a notification, which gets no reply)")
    return None


class FirstReply:
    """Set once the server has sent its first message on stdout: the answer to `initialize`.

    A server starts its background work (the model's load, the backfill, the index check) when
    this is set rather than before `initialize` is read: that work holds the GIL for ~0.2-0.3 s of
    CPU (the model's imports and session, jsonschema), which before made the host wait that much
    longer for its `initialize` reply (bench/startup.py). Used from the event loop's thread only.
    """

    def __init__(self, then: Callable[[], None] | None = None) -> None:
        self._event: anyio.Event | None = None
        self._then = then  # called once, when the first reply is sent

    def _get(self) -> anyio.Event:
        if self._event is None:  # made in the running loop: anyio binds an Event to the loop that waits on it
            self._event = anyio.Event()
        return self._event

    def set(self) -> None:
        if not self._get().is_set():
            stages.mark("initialize answered")
        self.then()
        self._get().set()

    def then(self) -> None:
        """Run what waits for the first reply (once): at the reply, or when the server stops waiting for it."""
        then, self._then = self._then, None
        if then is not None:
            then()

    async def wait(self) -> None:
        await self._get().wait()


class _Announcing:
    """The SDK's write stream, setting a FirstReply once its first message is handed to the writer."""

    def __init__(self, stream: Any, first: FirstReply) -> None:
        self._stream = stream
        self._first = first

    async def send(self, item: Any) -> None:
        await self._stream.send(item)
        self._first.set()

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def __aenter__(self) -> _Announcing:
        await self._stream.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> bool | None:
        return await self._stream.__aexit__(*exc)


def announcing(write: Any, first: FirstReply | None) -> Any:
    """`write`, telling `first` when it has sent a message (unchanged when there is no FirstReply)."""
    return write if first is None else _Announcing(write, first)


class _Lines:
    """stdin as the SDK reads it (one line per iteration), keeping each line for the reply to it."""

    def __init__(self, source: Any) -> None:
        self.source = source
        self.kept: deque[str] = deque()

    def __aiter__(self) -> _Lines:
        return self

    async def __anext__(self) -> str:
        line = await self.source.readline()
        if not line:
            raise StopAsyncIteration
        self.kept.append(line)
        return line


#: Bytes one read of stdin takes at most.
READ_CHUNK = 1 << 16
#: Bytes one write to stdout gives the kernel at most: a pipe that polls writable takes this many without
#: blocking (POSIX: writes of at most PIPE_BUF bytes are atomic; Linux reports a pipe writable with a page free).
WRITE_CHUNK = getattr(select, "PIPE_BUF", 512)


class _FdReader:
    """stdin read on the event loop's own thread: wait until the descriptor is readable, then one read
    (which returns at once, with what has arrived or EOF), split into lines as TextIOWrapper would.

    The SDK reads each line with a blocking readline on a worker thread (anyio.wrap_file): a thread
    hand-off per request, ~0.3-1 ms of a recall's round trip on a busy machine (bench/profile_stdio.py).
    Where the descriptor cannot be polled (a regular file, Windows) each read runs on a worker thread.
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        # What TextIOWrapper(encoding="utf-8", errors="replace") does: bad bytes become U+FFFD, and
        # \r\n or a lone \r ends a line as \n does.
        self._decoder = io.IncrementalNewlineDecoder(codecs.getincrementaldecoder("utf-8")("replace"), translate=True)
        self._lines: deque[str] = deque()
        self._partial: list[str] = []
        self._eof = False
        self._pollable = sys.platform != "win32" and not stat.S_ISREG(os.fstat(fd).st_mode)

    async def _read(self) -> bytes:
        if self._pollable:
            try:
                await anyio.wait_readable(self.fd)
            except (OSError, NotImplementedError):  # this descriptor cannot be polled after all
                self._pollable = False
            else:
                return os.read(self.fd, READ_CHUNK)
        return await anyio.to_thread.run_sync(os.read, self.fd, READ_CHUNK)

    async def readline(self) -> str:
        while not self._lines and not self._eof:
            chunk = await self._read()
            self._eof = not chunk
            text = self._decoder.decode(chunk, final=self._eof)
            *ended, rest = text.split("\n")
            if ended:
                self._lines.append("".join(self._partial) + ended[0] + "\n")
                self._lines.extend(line + "\n" for line in ended[1:])
                self._partial = []
            if rest:
                self._partial.append(rest)
        if self._lines:
            return self._lines.popleft()
        last, self._partial = "".join(self._partial), []
        return last  # the unterminated last line, then "" (EOF)


class _FdWriter:
    """stdout written on the event loop's own thread; the SDK writes and flushes each reply on a worker
    thread (two hand-offs per reply).

    A pipe or socket that is this process's alone is set non-blocking while served (blocking again when
    given back): a reply goes out in one write whenever the pipe has room for it, so the client wakes
    once per reply, and a full pipe is waited for on the event loop. Anything else that polls (a
    terminal, a pipe shared with stderr, which logging writes to) gets at most WRITE_CHUNK bytes each
    time it polls writable, a write that cannot block; a regular file or Windows, a worker thread.
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        mode = os.fstat(fd).st_mode
        self._pollable = sys.platform != "win32" and not stat.S_ISREG(mode)
        self._nonblocking = False
        if self._pollable and (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)) and not _same_file(fd, 2):
            os.set_blocking(fd, False)
            self._nonblocking = True

    def restore(self) -> None:
        """The descriptor blocking again, as it was given."""
        if self._nonblocking:
            self._nonblocking = False
            os.set_blocking(self.fd, True)

    async def write(self, text: str) -> None:
        data = memoryview(text.encode("utf-8"))
        while data:
            if self._nonblocking:
                try:
                    data = data[os.write(self.fd, data):]
                except BlockingIOError:  # full: the client has not read yet
                    await anyio.wait_writable(self.fd)
            elif self._pollable:
                try:
                    await anyio.wait_writable(self.fd)
                except (OSError, NotImplementedError):  # this descriptor cannot be polled after all
                    self._pollable = False
                    continue
                data = data[os.write(self.fd, data[:WRITE_CHUNK]):]
            else:
                data = data[await anyio.to_thread.run_sync(os.write, self.fd, data):]

    async def flush(self) -> None:
        """Nothing is buffered here: each write has reached the descriptor."""


def _same_file(fd: int, other: int) -> bool:
    try:
        a, b = os.fstat(fd), os.fstat(other)
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _claim(fd: int, divert_to: Callable[[], int]) -> tuple[int, Callable[[], None]] | None:
    """A private copy of `fd`, with `fd` pointed at `divert_to()` meanwhile, and how to give `fd` back;
    None where that cannot be done (Windows has no fcntl; no such descriptor)."""
    try:
        # lazy: POSIX only; Windows has no fcntl (the ImportError below serves the stream in place)
        import fcntl

        private = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
    except (ImportError, OSError):
        return None
    try:
        diversion = divert_to()
        os.dup2(diversion, fd)
        os.close(diversion)
    except OSError:
        os.close(private)
        return None
    return private, lambda: os.dup2(private, fd)


def _claim_stdin() -> tuple[Any, Callable[[], None]]:
    """A line source (readline) on a private copy of fd 0, and how to give fd 0 back; fd 0 reads EOF meanwhile."""
    claimed = _claim(0, lambda: os.open(os.devnull, os.O_RDONLY))
    if claimed is None:  # Windows, or no fd 0 to divert: read it in place
        return anyio.wrap_file(TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")), lambda: None
    # The descriptor is never closed: a worker thread may still block reading it after the server exits.
    private, give_back = claimed
    return _FdReader(private), give_back


def _claim_stdout() -> tuple[Any, Callable[[], None]]:
    """A writer on a private copy of fd 1, and how to give fd 1 back; fd 1 writes to stderr meanwhile (a
    stray print cannot corrupt the channel), as the SDK's own claim does. (None, ...): the SDK's writer."""
    try:
        backed = sys.stdout.buffer.fileno() == 1
    except (AttributeError, OSError, ValueError):
        backed = False
    claimed = _claim(1, lambda: os.dup(2)) if backed else None
    if claimed is None:  # as the SDK: a replaced sys.stdout, Windows, or no fd 1 to divert
        return None, lambda: None
    private, give_back = claimed
    writer = _FdWriter(private)

    def restore() -> None:
        writer.restore()
        give_back()

    return writer, restore


@asynccontextmanager
async def stdio_streams() -> AsyncIterator[tuple[Any, Any]]:
    """(read stream, write stream) for `Server.run`, like the SDK's stdio_server, answering unreadable lines."""
    source, give_back = _claim_stdin()
    writer, give_back_stdout = _claim_stdout()
    lines = _Lines(source)
    try:
        async with stdio_server(stdin=lines, stdout=writer) as (read, write):  # type: ignore[arg-type]
            send, receive = anyio.create_memory_object_stream[Any](0)

            async def pump() -> None:
                async with send:
                    async for item in read:
                        line = lines.kept.popleft() if lines.kept else ""
                        if isinstance(item, Exception):
                            reply = reply_to_unreadable(line)
                            if reply is not None:
                                await write.send(SessionMessage(reply))
                            continue
                        reply = reply_to_lenient(line)
                        if reply is not None:
                            await write.send(SessionMessage(reply))
                            continue
                        await send.send(item)

            async with anyio.create_task_group() as tg:
                tg.start_soon(pump)
                try:
                    yield receive, write
                finally:
                    tg.cancel_scope.cancel()
    finally:
        give_back_stdout()
        give_back()
