"""The daily log's line format, its curation-log section, and the lock that keeps appends whole.

``daily/YYYY-MM-DD.md`` is a readable log, one line per stored memory, appended by the server::

    # 2026-01-31

    - 14:05 [decision] (memvault) Use SQLite for the index  <!-- id:42 -->
    - 14:07 [fact] Prefers pytest over unittest  <!-- id:43 -->

``- HH:MM [kind] (thread) content  <!-- id:N -->``: the thread part is left out for
global memories, the id comment when the memory has no id. The content is kept on one
line by escaping, so any text round-trips through ``parse_daily``:
``\\`` -> ``\\\\``, line feed -> ``\\n``, carriage return -> ``\\r``, tab -> ``\\t``,
other control and line/paragraph-separator characters -> ``\\uXXXX``, ``<!--`` ->
``<\\!--`` (an HTML comment in a memory would hide the rest of the log when rendered),
a leading ``(`` -> ``\\(`` (it would read as a thread), and ``]`` in the kind / ``)`` in
the thread are backslash-escaped. Leading and trailing whitespace of the content is
dropped. Lines that do not have this shape (a person's own notes) are left alone and
ignored by ``parse_daily``.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from datetime import time as clock_time

from server.frozen import record

try:  # POSIX advisory locks
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]
try:  # Windows byte-range locks
    import msvcrt
except ImportError:
    msvcrt = None  # type: ignore[assignment]




@record
class DailyEntry:
    """One line of a daily log. ``at`` and ``line`` are filled in by ``parse_daily``."""

    kind: str
    content: str
    thread: str | None = None
    id: int | None = None
    at: clock_time | None = None  # HH:MM of the line
    line: int | None = None  # 1-based line number in the file


_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_UNESCAPES = {"n": "\n", "r": "\r", "t": "\t"}
_UNESCAPE_RE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)", re.S)


def escape(text: str, also: str = "") -> str:
    out = []
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ch in also:
            out.append("\\" + ch)
        elif unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp"):
            # Control characters and U+2028/U+2029 break lines in editors and in str.splitlines();
            # lone surrogates (possible from JSON) cannot be written as UTF-8.
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    # Escapes only add backslashes, so any "<!--" left here came from the text itself.
    return "".join(out).replace("<!--", "<\\!--")


def _unescape(text: str) -> str:
    def one(m: re.Match[str]) -> str:
        code = m.group(1)
        if len(code) == 5:
            return chr(int(code[1:], 16))
        return _UNESCAPES.get(code, code)

    return _UNESCAPE_RE.sub(one, text)


def format_daily_line(when: datetime, entry: DailyEntry) -> str:
    """The log line for ``entry`` at ``when`` (no trailing newline). See the module docstring."""
    parts = [f"- {when:%H:%M} [{escape(entry.kind, ']')}]"]
    if entry.thread is not None:
        parts.append(f"({escape(entry.thread, ')')})")
    content = escape(entry.content.strip())
    if content.startswith("("):
        content = "\\" + content
    if content:
        parts.append(content)
    line = " ".join(parts)
    if entry.id is not None:
        line += f"  <!-- id:{int(entry.id)} -->"
    return line


_LINE_RE = re.compile(
    r"- (?P<hh>[0-9]{2}):(?P<mm>[0-9]{2}) "
    r"\[(?P<kind>(?:\\.|[^\]\\])*)\]"
    r"(?: \((?P<thread>(?:\\.|[^)\\])*)\))?"
    r"(?: (?P<content>.*?))?"
    r"(?:\s+<!-- id:(?P<id>[0-9]+) -->)?\s*"
)


def parse_daily(text: str) -> list[DailyEntry]:
    """Entries of a daily log, with ``at``, ``line`` (1-based) and ``id`` (None if absent).

    Lines that are not log lines (the heading, blank lines, a person's notes, lines mangled
    by hand) are skipped, so reconciling with the database is a matter of comparing ids.
    """
    entries = []
    for number, raw in enumerate(text.split("\n"), start=1):
        m = _LINE_RE.fullmatch(raw.rstrip("\r"))
        if not m:
            continue
        try:
            at = clock_time(int(m["hh"]), int(m["mm"]))
        except ValueError:  # "- 25:99 ..." was not written by us
            continue
        entries.append(
            DailyEntry(
                kind=_unescape(m["kind"]),
                content=_unescape(m["content"] or ""),
                thread=None if m["thread"] is None else _unescape(m["thread"]),
                id=None if m["id"] is None else int(m["id"]),
                at=at,
                line=number,
            )
        )
    return entries


CURATION_HEADING = "## Curation log"
CURATION_PREFIX = "curation:"
_CURATION_RE = re.compile(r"- (?P<hh>[0-9]{2}):(?P<mm>[0-9]{2}) curation: (?P<text>.*)")


def parse_curation(text: str) -> list[tuple[str, str]]:
    """(HH:MM, text) of each curation line of a daily log, in file order."""
    out = []
    for raw in text.split("\n"):
        if m := _CURATION_RE.fullmatch(raw.rstrip("\r")):
            out.append((f"{m['hh']}:{m['mm']}", _unescape(m["text"])))
    return out


# Windows locks are mandatory, so locking real bytes would block readers of the log;
# lock one byte far beyond the end of any daily file instead (allowed on Windows).
_WINDOWS_LOCK_OFFSET = 2**40


@contextmanager
def append_lock(fd: int) -> Iterator[None]:
    """Hold an exclusive lock on the open log file, or go on unlocked if the OS cannot lock.

    Without the lock, O_APPEND still keeps each whole line together on POSIX; the lock is
    what keeps the "is the file new?" check and the line count consistent between processes.
    """
    unlock = None
    if fcntl is not None:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            unlock = lambda: fcntl.flock(fd, fcntl.LOCK_UN)  # noqa: E731
        except OSError:  # e.g. ENOLCK on some network file systems: append unlocked
            pass
    elif msvcrt is not None:  # pragma: no cover - Windows only
        try:
            os.lseek(fd, _WINDOWS_LOCK_OFFSET, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_LOCK, 1)  # retries for ~10 s, then raises

            def unlock() -> None:
                os.lseek(fd, _WINDOWS_LOCK_OFFSET, os.SEEK_SET)
                msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        except OSError:
            pass
    try:
        yield
    finally:
        if unlock is not None:
            unlock()


def read_fd(fd: int) -> bytes:
    os.lseek(fd, 0, os.SEEK_SET)  # reads only: O_APPEND writes always go to the end
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    return b"".join(chunks)
