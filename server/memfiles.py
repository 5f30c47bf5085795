"""The human-editable memory files, as plain Python (no SQL, no MCP).

memvault keeps three kinds of Markdown files in its files folder (``Settings.files_dir``):

``SOUL.md``
    The assistant's identity. Free-form Markdown; indexed as units (see below).
``MEMORY.md``
    Curated long-term memory, sections ``User Facts``, ``Project Context``, ``Preferences``,
    ``Important Decisions`` and a ``Last updated:`` line. Indexed as units.
``daily/YYYY-MM-DD.md``
    A readable log, one line per stored memory, appended by the server::

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

Units: ``parse_markdown_units`` splits SOUL.md / MEMORY.md into searchable pieces, each
with a stable ``key`` so an indexer can add and remove pieces as a person edits the file.

Files memvault creates here are private to the user (mode 0600 on POSIX); files a person
created keep their mode when rewritten.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import re
import stat
import tempfile
import time
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import date, datetime
from datetime import time as clock_time
from pathlib import Path

from server.errors import InvalidInput, SetupError
from server.errors import NotFound as _NotFound

try:  # POSIX advisory locks
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]
try:  # Windows byte-range locks
    import msvcrt
except ImportError:
    msvcrt = None  # type: ignore[assignment]

SOUL_FILE = "SOUL.md"
MEMORY_FILE = "MEMORY.md"
DAILY_DIR = "daily"
BACKUP_DIR = "backups"

# O_BINARY keeps Windows from turning "\n" into "\r\n" behind our back (0 elsewhere).
_O_BINARY = getattr(os, "O_BINARY", 0)
_PRIVATE = 0o600


class NotFound(_NotFound, FileNotFoundError):
    """A memory file (or a day's log) does not exist. Also a FileNotFoundError."""


class InvalidDay(InvalidInput, ValueError):
    """A day string is not a real ``YYYY-MM-DD`` date. Also a ValueError."""


# --------------------------------------------------------------------------- days

_DAY_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")  # [0-9], not \d: \d matches ２０２６ too


def safe_day(text: str) -> date:
    """Parse a user-supplied day. Accepts exactly ``YYYY-MM-DD`` (ASCII digits) naming a real date.

    Everything else raises ``InvalidDay`` (a ValueError): traversal (``..``, ``%2e%2e``),
    separators, NUL, surrounding whitespace, non-ASCII digits, impossible dates.
    """
    if not isinstance(text, str):
        raise InvalidDay(f"day must be a string like 2026-01-31, not {type(text).__name__}")
    shown = repr(text[:40]) + ("…" if len(text) > 40 else "")
    if not _DAY_RE.fullmatch(text):
        raise InvalidDay(f"day {shown} is not in YYYY-MM-DD form; send a date like 2026-01-31")
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise InvalidDay(f"day {shown} is not a real calendar date; check the month and day") from None


def _as_day(day: date) -> date:
    # A datetime is a date too; keep only its calendar day so isoformat() has no time part.
    if isinstance(day, datetime):
        return day.date()
    if isinstance(day, date):
        return day
    raise TypeError(f"day must be a datetime.date, not {type(day).__name__}; parse text with safe_day() first")


# --------------------------------------------------------------------------- daily log


@dataclass(frozen=True)
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


def _escape(text: str, also: str = "") -> str:
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
    parts = [f"- {when:%H:%M} [{_escape(entry.kind, ']')}]"]
    if entry.thread is not None:
        parts.append(f"({_escape(entry.thread, ')')})")
    content = _escape(entry.content.strip())
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
def _append_lock(fd: int) -> Iterator[None]:
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


def _read_fd(fd: int) -> bytes:
    os.lseek(fd, 0, os.SEEK_SET)  # reads only: O_APPEND writes always go to the end
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    return b"".join(chunks)


# --------------------------------------------------------------------------- units


@dataclass(frozen=True)
class Unit:
    """A searchable piece of SOUL.md / MEMORY.md: one bullet (with its continuation lines,
    nested bullets included) or one paragraph or one fenced code block.

    ``key`` depends only on the source, the section and the text with whitespace and the
    list marker normalised, so it survives edits elsewhere in the file and renumbering.
    """

    source: str
    section: str  # heading path, e.g. "Important Decisions" or "Tools > Python"; "" before any
    line: int  # 1-based first line
    end_line: int  # 1-based last line
    text: str
    key: str


_HEADING_RE = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))??(?:[ \t]+#+)?[ \t]*")
_BULLET_RE = re.compile(r"( *)(?:[-*+]|[0-9]{1,9}[.)])(?:[ \t]+.*)?")
_FENCE_RE = re.compile(r" {0,3}(`{3,}|~{3,}).*")
_RULE_RE = re.compile(r" {0,3}([-*_=])(?:[ \t]*\1){2,}[ \t]*")
# "Last updated: ..." in any dress ("- **Last updated:** ..."), but not "Last updated the schema".
_LAST_UPDATED_RE = re.compile(r"[\W_]*last[ _-]?updated[*_]*[ \t]*:", re.I)
_MARKER_RE = re.compile(r"\s*(?:[-*+]|[0-9]{1,9}[.)])(?:\s+|$)")
_PLACEHOLDERS = {"", "tbd", "todo", "none", "none yet", "nothing yet", "nothing here yet", "n a", "na", "empty"}


def _normalise(text: str) -> str:
    text = unicodedata.normalize("NFC", text)
    text = _MARKER_RE.sub("", text, count=1)  # renumbering or "-" -> "*" is not an edit
    return " ".join(text.split())


def _is_placeholder(norm: str) -> bool:
    core = " ".join(re.sub(r"[*_`()\[\]<>.:/…-]+", " ", norm).split()).lower()
    return core in _PLACEHOLDERS


def _strip_comments(line: str, in_comment: bool) -> tuple[str, bool, bool]:
    """(visible text, still inside a comment, whether the line had a comment)."""
    out, pos, had = [], 0, in_comment
    while True:
        if in_comment:
            end = line.find("-->", pos)
            if end < 0:
                return "".join(out), True, True
            pos, in_comment = end + 3, False
        else:
            start = line.find("<!--", pos)
            if start < 0:
                out.append(line[pos:])
                return "".join(out), False, had
            out.append(line[pos:start])
            pos, in_comment, had = start + 4, True, True


def parse_markdown_units(text: str, source: str) -> list[Unit]:
    """Split a Markdown memory file into ``Unit`` s.

    Skipped: headings (they become the ``section``), HTML comments, thematic breaks, the
    ``Last updated:`` line, and blank template placeholders ("-", "...", "TBD", "(none yet)").
    The first heading of the file, if it is a level-1 heading, is the document's title and
    not part of section paths. Setext (underlined) headings are not recognised as headings.
    Identical units in one section get distinct keys by occurrence (``key.2``, ``key.3``).
    """
    units: list[Unit] = []
    seen_keys: dict[str, int] = {}
    headings: list[tuple[int, str]] = []
    title_checked = False
    cur: dict | None = None  # {"kind", "start", "end", "lines", "indent", "blank"}
    fence: tuple[str, int] | None = None  # (fence char, length) while inside a code block
    fence_unit = False  # the open fence is a unit of its own (not inside a bullet)
    in_comment = False

    def flush() -> None:
        nonlocal cur
        if cur is None:
            return
        body = "\n".join(cur["lines"]).strip("\n")
        norm = _normalise(body)
        if not _is_placeholder(norm):
            section = " > ".join(title for _, title in headings)
            base = hashlib.sha256(f"{source}\0{section}\0{norm}".encode()).hexdigest()[:20]
            seen_keys[base] = seen_keys.get(base, 0) + 1
            key = base if seen_keys[base] == 1 else f"{base}.{seen_keys[base]}"
            units.append(Unit(source, section, cur["start"], cur["end"], body, key))
        cur = None

    def start(kind: str, number: int, line: str, indent: int) -> None:
        nonlocal cur
        cur = {"kind": kind, "start": number, "end": number, "lines": [line], "indent": indent, "blank": False}

    def add(number: int, line: str) -> None:
        assert cur is not None
        cur["lines"].append(line)
        cur["end"] = number
        cur["blank"] = False

    for number, raw in enumerate(text.split("\n"), start=1):
        raw = raw.rstrip("\r").rstrip()
        if fence is not None:  # inside a code block everything is literal
            if cur is not None:
                add(number, raw)
            marks = raw.strip()
            # A closing fence: the same character, at least as long, and nothing after it.
            if marks and set(marks) == {fence[0]} and len(marks) >= fence[1] and len(raw) - len(raw.lstrip()) <= 3:
                fence = None
                if fence_unit:
                    flush()
            continue

        line, in_comment, had_comment = _strip_comments(raw, in_comment)
        line = line.rstrip()
        expanded = line.expandtabs(4)
        indent = len(expanded) - len(expanded.lstrip(" "))
        if not line.strip():
            if had_comment:
                continue  # a comment-only line neither ends nor continues anything
            if cur is not None and cur["kind"] == "bullet":
                cur["blank"] = True  # an indented line may still continue the bullet
            else:
                flush()
            continue

        if m := _FENCE_RE.fullmatch(expanded):
            if cur is not None and cur["kind"] == "bullet" and indent > cur["indent"]:
                add(number, line)
                fence_unit = False
            else:
                flush()
                start("fence", number, line, indent)
                fence_unit = True
            fence = (m.group(1)[0], len(m.group(1)))
            continue
        if h := _HEADING_RE.fullmatch(expanded):
            flush()
            level, title = len(h.group(1)), (h.group(2) or "").strip()
            if not title_checked and level == 1:
                title_checked = True  # the document's title: not part of section paths
                continue
            title_checked = True
            while headings and headings[-1][0] >= level:
                headings.pop()
            headings.append((level, title))
            continue
        if _RULE_RE.fullmatch(expanded) or _LAST_UPDATED_RE.match(line):
            flush()
            continue
        continues = cur is not None and cur["kind"] == "bullet" and (indent > cur["indent"] or not cur["blank"])
        if _BULLET_RE.fullmatch(expanded):
            if cur is not None and cur["kind"] == "bullet" and indent > cur["indent"]:
                add(number, line)  # a nested bullet belongs to its parent
            else:
                flush()
                start("bullet", number, line, indent)
        elif continues or (cur is not None and cur["kind"] == "para"):
            add(number, line)
        else:
            flush()
            start("para", number, line, indent)
    flush()
    return units


_COMMENT_RE = re.compile(r"[ \t]*<!--.*?-->", re.S)


def strip_comments(text: str) -> str:
    """``text`` without HTML comments (template guidance is for people, not for the model),
    with the blank lines they leave behind collapsed. Use before putting a file in a prompt."""
    text = _COMMENT_RE.sub("", text)
    text = re.sub(r"\n[ \t]+(?=\n)", "\n", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n") + ("\n" if text.strip() else "")


# --------------------------------------------------------------------------- change detection

# How recent an mtime must be, relative to the moment we look, for us to distrust it.
# mtime has a granularity: 2 s on FAT, 1 s on some network file systems, a kernel clock
# tick (a few ms) on ext4/NTFS/APFS. A write that lands in the same tick as our look leaves
# mtime (and maybe size) unchanged. Once a file's mtime is more than one granularity older
# than the moment we looked, any later write must produce a newer mtime, so comparing stat
# fields is enough; only while it is younger do we also keep and compare a content hash.
# That keeps the common case (files untouched for seconds or more) to one stat() call.
RECENT_NS = 2_000_000_000


@dataclass(frozen=True)
class Fingerprint:
    """What ``changed`` compares: stat fields, plus a content hash while the mtime is recent."""

    mtime_ns: int
    size: int
    inode: int
    digest: str | None  # sha256 of the content; only taken when the mtime was recent
    taken_ns: int = field(compare=False)  # wall clock when this fingerprint was taken

    def same_stat(self, other: Fingerprint) -> bool:
        return (self.mtime_ns, self.size, self.inode) == (other.mtime_ns, other.size, other.inode)


def _hash_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 16):
            digest.update(chunk)
    return digest.hexdigest()


def fingerprint(path: Path, now_ns: int | None = None) -> Fingerprint | None:
    """The file's fingerprint, or None if it does not exist. Hashes only a recent file."""
    now_ns = time.time_ns() if now_ns is None else now_ns
    try:
        st = os.stat(path)
        recent = now_ns - st.st_mtime_ns < RECENT_NS  # a future mtime (clock skew) counts as recent
        digest = _hash_file(Path(path)) if recent else None
    except FileNotFoundError:
        return None
    return Fingerprint(st.st_mtime_ns, st.st_size, st.st_ino, digest, now_ns)


# --------------------------------------------------------------------------- writing


# Temp files of atomic writes: ".<name>.<mkstemp's 8 characters>.tmp" beside the target.
_TEMP_NAME = re.compile(r"\..+\.[A-Za-z0-9_]{8}\.tmp")
#: Without POSIX locks a live writer cannot be told from a dead one: only this old is swept.
_TEMP_MAX_AGE_S = 3600


def _temp_file(path: Path) -> tuple[int, str]:
    """A new temp file beside ``path``, held under an exclusive lock (POSIX) until it is closed.

    The lock is how ``sweep_temp_files`` tells a write in progress (in any process) from one
    whose process was killed: the kernel drops the lock when the process dies.
    """
    while True:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        if fcntl is None:
            return fd, tmp
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)  # waits only while a sweep is looking at this very file
        except OSError:  # no locks on this file system: the sweep leaves unlocked files alone
            return fd, tmp
        try:
            if os.stat(tmp).st_ino == os.fstat(fd).st_ino:
                return fd, tmp
        except FileNotFoundError:
            pass
        os.close(fd)  # a sweep removed it between mkstemp and the lock: take another name


def sweep_temp_files(root: Path) -> list[Path]:
    """Remove the temp files that atomic writes under ``root`` left when their process died.

    A kill -9 (or power loss) between creating the temp file and renaming it over the target
    leaves ``.MEMORY.md.xxxxxxxx.tmp`` behind: the target itself is intact (old or new), the
    temp file is garbage. A writer holds a lock on its temp file, so a file we can lock has no
    writer any more; files another process is writing right now are left alone.
    """
    removed: list[Path] = []
    root = Path(root)
    if not root.is_dir():
        return removed
    for path in root.rglob(".*.tmp"):
        if not _TEMP_NAME.fullmatch(path.name) or path.is_symlink() or not path.is_file():
            continue
        if fcntl is None:  # pragma: no cover - Windows
            with suppress(OSError):
                if time.time() - path.stat().st_mtime > _TEMP_MAX_AGE_S:
                    path.unlink()
                    removed.append(path)
            continue
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:  # a live writer holds it (or locks are unsupported): leave it
                continue
            with suppress(FileNotFoundError):
                if os.stat(path).st_ino == os.fstat(fd).st_ino:
                    path.unlink()
                    removed.append(path)
        finally:
            os.close(fd)
    return removed


def _fsync_dir(folder: Path) -> None:
    if os.name != "posix":
        return  # Windows cannot open a directory for fsync; os.replace is durable enough there
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    except OSError:  # some file systems refuse fsync on directories; nothing more we can do
        pass
    finally:
        os.close(fd)


def atomic_write(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` (UTF-8, newlines as given) so readers see old or new, never half.

    Writes a temp file in the same directory, fsyncs it, ``os.replace`` s it over the target
    and fsyncs the directory (POSIX). An existing file keeps its permission bits.
    """
    path = Path(path)
    fd, tmp = _temp_file(path)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(text.encode("utf-8"))
            f.flush()
            os.fsync(f.fileno())
        with suppress(FileNotFoundError):
            os.chmod(tmp, stat.S_IMODE(os.stat(path).st_mode))
        os.replace(tmp, path)
    except BaseException:
        with suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


def _write_new(path: Path, data: bytes) -> None:
    """Create ``path`` with ``data``; FileExistsError if it exists (never overwrites)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_BINARY, _PRIVATE)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def _create_once(path: Path, data: bytes) -> bool:
    """Create ``path`` with ``data`` complete or not at all; False if it already exists.

    Writes a temp file and hard-links it into place: link() fails on an existing name, so
    nothing is overwritten and a crash never leaves a half-written file that would then be
    "kept" forever. Where hard links are unsupported, falls back to an exclusive create.
    """
    fd, tmp = _temp_file(path)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(tmp, path)
        except FileExistsError:
            return False
        except OSError:
            try:
                _write_new(path, data)
            except FileExistsError:
                return False
    finally:
        with suppress(FileNotFoundError):
            os.unlink(tmp)
    _fsync_dir(path.parent)
    return True


def backup(path: Path, when: datetime) -> Path:
    """Copy ``path`` to ``backups/<stem>.<YYYY-MM-DDTHHMMSS>[-n]<suffix>`` beside it; return the copy.

    Never overwrites an earlier backup (a second one in the same second gets ``-2`` ...).
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise NotFound(f"cannot back up {path}: it does not exist") from None
    folder = path.parent / BACKUP_DIR
    folder.mkdir(exist_ok=True)
    stamp = when.strftime("%Y-%m-%dT%H%M%S")  # no ':' so the name is valid on Windows
    for n in itertools.count(1):
        target = folder / f"{path.stem}.{stamp}{'' if n == 1 else f'-{n}'}{path.suffix}"
        # Complete or absent, never half a copy (a kill -9 mid-copy leaves only a temp file).
        if _create_once(target, data):
            return target
    raise AssertionError("unreachable")


def bounded(text: str, max_chars: int, how_to_see_more: str) -> str:
    """``text`` if it fits in ``max_chars``; otherwise its head, cut at a line end, plus a marker.

    The marker says how many characters and lines were left out, from which line, and
    ``how_to_see_more`` (e.g. "call read_memory with offset=120"). The result never exceeds
    ``max_chars`` unless even the bare marker does not fit, in which case only the marker
    is returned (so the reader still learns that there is something to fetch). A first line
    longer than the limit is cut at a space (or, with none, mid-word), and the marker says so.
    """
    if max_chars < 0:
        raise ValueError("max_chars must be 0 or more")
    if len(text) <= max_chars:
        return text

    def marker(chars: int, lines: int, from_line: int, partial: bool) -> str:
        where = f"from the middle of line {from_line}" if partial else f"from line {from_line}"
        return f"[… {chars} more characters in {lines} more lines not shown, {where}; {how_to_see_more}]"

    total_lines = _count_lines(text)
    # Reserve room for the widest marker this text could need (numbers only get smaller).
    room = max_chars - len(marker(len(text), total_lines, total_lines, True)) - 1
    if room <= 0:
        return marker(len(text), total_lines, 1, False)
    cut = text.rfind("\n", 0, room + 1)
    partial = cut < 0
    if partial:  # not even one whole line fits: cut at a space, else anywhere
        space = max(text.rfind(" ", 0, room + 1), text.rfind("\t", 0, room + 1))
        cut = space if space > 0 else room
    kept, rest = text[:cut], text[cut:]
    if not partial:
        rest = rest[1:]  # the newline we cut at
    from_line = kept.count("\n") + 1 + (0 if partial else 1)
    note = marker(len(rest), _count_lines(rest), from_line, partial)
    return f"{kept}\n{note}" if kept else note


def _count_lines(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


# --------------------------------------------------------------------------- the folder


class MemoryFiles:
    """The files folder: SOUL.md, MEMORY.md and daily/. ``templates`` holds the originals."""

    def __init__(self, root: Path, templates: Path) -> None:
        self.root = Path(root)
        self.templates = Path(templates)
        self._seen: dict[Path, Fingerprint | None] = {}

    @property
    def soul_path(self) -> Path:
        return self.root / SOUL_FILE

    @property
    def memory_path(self) -> Path:
        return self.root / MEMORY_FILE

    @property
    def daily_dir(self) -> Path:
        return self.root / DAILY_DIR

    # ---- first run

    def install_templates(self) -> list[str]:
        """Copy SOUL.md and MEMORY.md from the templates and create daily/, where missing.

        Never overwrites: a person's edits survive upgrades and restarts, and a file that
        exists (even empty, even a dangling symlink) is kept as it is. Safe to run from
        several processes at once. Returns what was created, e.g. ``["SOUL.md", "daily/"]``.
        """
        self.root.mkdir(parents=True, exist_ok=True)
        created = []
        for name in (SOUL_FILE, MEMORY_FILE):
            target = self.root / name
            if os.path.lexists(target):
                continue
            try:
                data = (self.templates / name).read_bytes()
            except FileNotFoundError:
                raise SetupError(
                    f"template {self.templates / name} is missing; reinstall memvault "
                    f"or create {target} by hand"
                ) from None
            if _create_once(target, data):
                created.append(name)
        try:
            self.daily_dir.mkdir()
            created.append(DAILY_DIR + "/")
        except FileExistsError:
            if not self.daily_dir.is_dir():
                raise SetupError(f"{self.daily_dir} exists but is not a folder; move it away and restart") from None
        return created

    # ---- reading

    def _read(self, path: Path, missing: str) -> str:
        try:
            # utf-8-sig drops a BOM some editors add; undecodable bytes (a file saved in
            # another encoding) become U+FFFD instead of making the file unreadable.
            return path.read_text(encoding="utf-8-sig", errors="replace")
        except FileNotFoundError:
            raise NotFound(f"{path} does not exist; {missing}") from None

    def read_soul(self) -> str:
        return self._read(self.soul_path, "the server creates it from the template on start (install_templates)")

    def read_memory(self) -> str:
        return self._read(self.memory_path, "the server creates it from the template on start (install_templates)")

    def day_path(self, day: date) -> Path:
        """The log file of ``day``. The name comes from the date object, never from user text."""
        return self.daily_dir / f"{_as_day(day).isoformat()}.md"

    def read_daily(self, day: date) -> str:
        """The raw log of ``day``; ``NotFound`` if nothing was logged that day."""
        hint = "nothing was logged that day; list_days() returns the days that have a log"
        return self._read(self.day_path(day), hint)

    def list_days(self) -> list[date]:
        """Days with a log file, oldest first. Other files in daily/ are ignored."""
        try:
            entries = list(os.scandir(self.daily_dir))
        except FileNotFoundError:
            return []
        days = []
        for entry in entries:
            if entry.name.endswith(".md") and entry.is_file():
                with suppress(ValueError):
                    days.append(safe_day(entry.name[:-3]))
        return sorted(days)

    # ---- the log

    def append_daily(self, when: datetime, entry: DailyEntry) -> tuple[Path, int]:
        """Append ``entry`` to the log of ``when``'s day; return (file, 1-based line number).

        The file (with a ``# YYYY-MM-DD`` heading) is created on the first entry of a day.
        The day and HH:MM are ``when``'s own wall clock: pass local time for a local log.
        Each call is one ``write`` on an O_APPEND descriptor under an exclusive advisory
        lock, so lines from concurrent processes never interleave. Not fsynced: the
        database is the record, and ``parse_daily`` lets the server repair the log.
        """
        path = self.day_path(when)
        path.parent.mkdir(parents=True, exist_ok=True)
        line = format_daily_line(when, entry)
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | _O_BINARY, _PRIVATE)
        try:
            with _append_lock(fd):
                existing = _read_fd(fd)
                if not existing:
                    data, number = f"# {when.date().isoformat()}\n\n{line}\n", 3
                elif existing.endswith(b"\n"):
                    data, number = f"{line}\n", existing.count(b"\n") + 1
                else:  # a person saved the file without a final newline
                    data, number = f"\n{line}\n", existing.count(b"\n") + 2
                payload = data.encode("utf-8")
                written = os.write(fd, payload)
                if written < len(payload):  # only on a full disk or similar; keep what we can
                    os.write(fd, payload[written:])
        finally:
            os.close(fd)
        return path, number

    def append_curation(self, when: datetime, text: str) -> tuple[Path, int]:
        """Append ``- HH:MM curation: text`` to the ``## Curation log`` section of ``when``'s log.

        The heading is added the first time a day's file gets a curation line; later lines
        are appended at the end of the file (the log is append-only), so they may follow
        memory lines. ``parse_daily`` skips curation lines; ``parse_curation`` reads them.
        Returns (file, 1-based line number).
        """
        path = self.day_path(when)
        path.parent.mkdir(parents=True, exist_ok=True)
        line = f"- {when:%H:%M} {CURATION_PREFIX} {_escape(' '.join(text.split()))}"
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | _O_BINARY, _PRIVATE)
        try:
            with _append_lock(fd):
                existing = _read_fd(fd)
                head = "" if existing else f"# {when.date().isoformat()}\n"
                if existing and not existing.endswith(b"\n"):
                    head = "\n"
                if CURATION_HEADING.encode() not in existing:
                    head += f"\n{CURATION_HEADING}\n\n"
                data = f"{head}{line}\n"
                number = existing.count(b"\n") + data.count("\n")
                payload = data.encode("utf-8")
                written = os.write(fd, payload)
                if written < len(payload):
                    os.write(fd, payload[written:])
        finally:
            os.close(fd)
        return path, number

    def daily_entries(self, day: date) -> list[DailyEntry]:
        """``parse_daily(read_daily(day))``."""
        return parse_daily(self.read_daily(day))

    # ---- change detection

    def _resolve(self, path: Path | str) -> Path:
        path = Path(path)
        return path if path.is_absolute() else self.root / path

    def changed(self, path: Path | str) -> bool:
        """Whether ``path`` (absolute, or relative to the folder) changed since the last call.

        True on the first call for a path, and when it appears or disappears. Costs one
        stat() for a file untouched for a while; hashes the content only while its mtime is
        within ``RECENT_NS`` of the previous look (see the comment there), which catches an
        edit that keeps size and mtime. A file whose mtime someone sets back to an old value
        with the same size is not noticed.
        """
        path = self._resolve(path)
        new = fingerprint(path)
        missing = object()
        old = self._seen.get(path, missing)
        if old is missing:
            result = True
        elif old is None or new is None:
            result = old is not new
        elif not new.same_stat(old):  # type: ignore[arg-type]
            result = True
        elif old.digest is None:  # type: ignore[union-attr]
            result = False  # mtime was already old when we last looked: a write would move it
        else:  # same stat, and the mtime was recent when we last looked: compare content
            try:
                digest = new.digest if new.digest is not None else _hash_file(path)
            except FileNotFoundError:  # deleted just now
                digest, new = None, None
            result = digest is None or digest != old.digest  # type: ignore[union-attr]
            # new.digest stays None if the mtime is old by now: from here on stat suffices.
        self._seen[path] = new
        return result

    def forget(self, path: Path | str | None = None) -> None:
        """Drop the remembered fingerprint of ``path`` (or of all), so the next ``changed`` is True."""
        if path is None:
            self._seen.clear()
        else:
            self._seen.pop(self._resolve(path), None)
