"""The files folder, as plain Python (no SQL, no MCP): SOUL.md, MEMORY.md and daily/.

``SOUL.md``
    The assistant's identity. Free-form Markdown.
``MEMORY.md``
    Curated long-term memory, sections ``User Facts``, ``Project Context``, ``Preferences``,
    ``Important Decisions`` and a ``Last updated:`` line. Indexed as units (files.markdown).
``daily/YYYY-MM-DD.md``
    A readable log, one line per stored memory (the format: files.dailylog).

Files memvault creates here are private to the user (mode 0600 on POSIX); files a person
created keep their mode when rewritten (files.atomic). Every file is opened through
files.safe: a link or anything but a regular file is refused, never followed. Reads stop
after ``max_bytes`` (MEMVAULT_MAX_FILE_BYTES), however big a file has grown.
"""

from __future__ import annotations

import os
from contextlib import suppress
from datetime import date, datetime
from pathlib import Path

from server.config import private_folder
from server.errors import MissingFile, RefusedFile, SetupError
from server.files.atomic import PRIVATE, create_once
from server.files.changes import Fingerprint, fingerprint, hash_file
from server.files.dailylog import (
    CURATION_HEADING,
    CURATION_PREFIX,
    DailyEntry,
    append_lock,
    escape,
    format_daily_line,
    parse_daily,
    read_fd,
)
from server.files.days import as_day, safe_day
from server.files.safe import open_inside, read_head

SOUL_FILE = "SOUL.md"
MEMORY_FILE = "MEMORY.md"
DAILY_DIR = "daily"
#: Default of MEMVAULT_MAX_FILE_BYTES: the most of one memory file that is read, indexed or
#: put into thread_prompt (resources show 40,000 characters; a budget at most 200,000 tokens).
MAX_FILE_BYTES = 1024 * 1024


def truncation_note(name: str, size: int, limit: int) -> str:
    """What a reader is told when only the start of a memory file was read."""
    return (
        f"{name} is {size:,} bytes; only its first {limit:,} are read and searchable "
        "(MEMVAULT_MAX_FILE_BYTES). Move old parts elsewhere, or raise the setting."
    )


def _id_marker(memory_id: int) -> bytes:
    """The end of a memory's log line; exact ("id:42 -->" is not in "id:142 -->"), and never in content (escaped)."""
    return f"<!-- id:{int(memory_id)} -->".encode()


def _last_byte(fd: int, size: int) -> bytes:
    os.lseek(fd, size - 1, os.SEEK_SET)  # reads only: O_APPEND writes always go to the end
    return os.read(fd, 1)


class MemoryFiles:
    """The files folder: SOUL.md, MEMORY.md and daily/. ``templates`` holds the originals."""

    def __init__(self, root: Path, templates: Path, max_bytes: int = MAX_FILE_BYTES) -> None:
        self.root = Path(root)
        self.templates = Path(templates)
        self.max_bytes = max_bytes
        self._seen: dict[Path, Fingerprint | None] = {}
        #: A daily log's (mtime_ns, size, inode) right after this process appended its own line to it,
        #: when the file was as `changed` last saw it (or as this process's previous append left it):
        #: nothing but memvault's own lines, never indexed, was added since (see changed).
        self._own_appends: dict[Path, tuple[int, int, int]] = {}

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
        private_folder(self.root)  # the data directory too, when the store (PostgreSQL) did not make it
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
            if create_once(target, data):
                created.append(name)
        try:
            self.daily_dir.mkdir(0o700)
            created.append(DAILY_DIR + "/")
        except FileExistsError:
            if not self.daily_dir.is_dir():
                raise SetupError(f"{self.daily_dir} exists but is not a folder; move it away and restart") from None
        return created

    # ---- reading

    def relative(self, path: Path | str) -> str:
        """`path` (absolute inside the folder, or relative to it) as 'MEMORY.md' or 'daily/2026-01-31.md'."""
        path = Path(path)
        return (path.relative_to(self.root) if path.is_absolute() else path).as_posix()

    def read_head(self, path: Path | str, limit: int | None = -1) -> tuple[str, int]:
        """(the file's text, up to `limit` bytes cut at a line end; its size in bytes).

        `limit` -1 means ``max_bytes``, None the whole file (for rewriting it). A link or a
        non-regular file raises RefusedFile, a missing one MissingFile.
        """
        data, size = read_head(self.root, self.relative(path), self.max_bytes if limit == -1 else limit)
        # utf-8-sig drops a BOM some editors add; undecodable bytes (a file saved in
        # another encoding) become U+FFFD instead of making the file unreadable.
        return data.decode("utf-8-sig", errors="replace"), size

    def _read(self, path: Path, missing: str, limit: int | None = -1) -> str:
        try:
            text, size = self.read_head(path, limit)
        except MissingFile:
            raise MissingFile(f"{path} does not exist; {missing}") from None
        shown = self.max_bytes if limit == -1 else limit
        if shown is not None and size > shown:
            text += f"\n\n[… {truncation_note(self.relative(path), size, shown)} …]\n"
        return text

    def read_soul(self) -> str:
        return self._read(self.soul_path, "the server creates it from the template on start (install_templates)")

    def read_memory(self, limit: int | None = -1) -> str:
        """MEMORY.md, up to ``max_bytes`` (with a marker when cut); `limit=None` reads it whole (to rewrite it)."""
        return self._read(self.memory_path, "the server creates it from the template on start (install_templates)", limit)

    def day_path(self, day: date) -> Path:
        """The log file of ``day``. The name comes from the date object, never from user text."""
        return self.daily_dir / f"{as_day(day).isoformat()}.md"

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
            # A link is not a day's log, wherever it points (files.safe refuses to open it).
            if entry.name.endswith(".md") and entry.is_file(follow_symlinks=False):
                with suppress(ValueError):
                    days.append(safe_day(entry.name[:-3]))
        return sorted(days)

    # ---- the log

    def holds_daily_line(self, day: date, memory_id: int) -> bool:
        """Whether the log of ``day`` has the line of memory ``memory_id`` (False when there is no readable log)."""
        try:
            data, _ = read_head(self.root, f"{DAILY_DIR}/{self.day_path(day).name}", None)
        except (MissingFile, RefusedFile):
            return False
        return _id_marker(memory_id) in data

    def append_daily(self, when: datetime, entry: DailyEntry, once: bool = False) -> tuple[Path, int]:
        """Append ``entry`` to the log of ``when``'s day; return (file, byte offset of the new line).

        The file (with a ``# YYYY-MM-DD`` heading) is created on the first entry of a day.
        The day and HH:MM are ``when``'s own wall clock: pass local time for a local log.
        Each call is one ``write`` on an O_APPEND descriptor under an exclusive advisory
        lock, so lines from concurrent processes never interleave. It costs the same on a
        300 MB log as on an empty one: only the size and the last byte are looked at. Not
        fsynced: the database is the record, and ``parse_daily`` lets the server repair the log.
        A linked or non-regular log file is refused (RefusedFile), never appended to.

        ``once``: append nothing when the file already has the entry's line (a retry from the
        queue: a process killed after its append but before it unqueued the line left one).
        """
        path = self.day_path(when)
        path.parent.mkdir(parents=True, exist_ok=True)
        line = format_daily_line(when, entry)
        fd = open_inside(self.root, f"{DAILY_DIR}/{path.name}", os.O_RDWR | os.O_APPEND | os.O_CREAT, PRIVATE)
        try:
            with append_lock(fd):
                before = os.fstat(fd)
                size = before.st_size
                if once and entry.id is not None and size:
                    existing = read_fd(fd)  # a retry only: rare, so reading the day's log is affordable
                    found = existing.find(_id_marker(entry.id))
                    if found >= 0:
                        return path, existing.rfind(b"\n", 0, found) + 1
                if size == 0:
                    head = f"# {when.date().isoformat()}\n\n"
                elif _last_byte(fd, size) != b"\n":  # a person saved it without a final newline
                    head = "\n"
                else:
                    head = ""
                payload = f"{head}{line}\n".encode("utf-8")
                written = os.write(fd, payload)
                if written < len(payload):  # only on a full disk or similar; keep what we can
                    os.write(fd, payload[written:])
                self._appended(path, before, os.fstat(fd), own_line_only=not head)
        finally:
            os.close(fd)
        return path, size + len(head.encode("utf-8"))

    def _appended(self, path: Path, before: os.stat_result, after: os.stat_result, own_line_only: bool) -> None:
        """Remember that this append added only memvault's own line to a log in the state last looked at.

        A recall re-indexes the daily log when it changed (FileIndex.sync): parsing the whole day's log,
        ~0.2 ms a line, so a recall right after a burst of remembers (a conversation ingested, 1,500
        lines) took 0.3-1.3 s for lines that are never indexed (memvault's own). The chain is
        broken -- the next look parses -- by anything else: another writer (the stat differs), a
        heading or newline written before the line, a failed index update (forget)."""
        path = self._resolve(path)
        state = (before.st_mtime_ns, before.st_size, before.st_ino)
        seen = self._seen.get(path)
        chained = self._own_appends.get(path) == state or (
            seen is not None and (seen.mtime_ns, seen.size, seen.inode) == state)
        if own_line_only and chained:
            self._own_appends[path] = (after.st_mtime_ns, after.st_size, after.st_ino)
        else:
            self._own_appends.pop(path, None)

    def append_curation(self, when: datetime, text: str) -> tuple[Path, int]:
        """Append ``- HH:MM curation: text`` to the ``## Curation log`` section of ``when``'s log.

        The heading is added the first time a day's file gets a curation line; later lines
        are appended at the end of the file (the log is append-only), so they may follow
        memory lines. ``parse_daily`` skips curation lines; ``parse_curation`` reads them.
        Returns (file, 1-based line number).
        """
        path = self.day_path(when)
        path.parent.mkdir(parents=True, exist_ok=True)
        line = f"- {when:%H:%M} {CURATION_PREFIX} {escape(' '.join(text.split()))}"
        # Rare (applied curation only), so reading the day's file for its heading is affordable.
        fd = open_inside(self.root, f"{DAILY_DIR}/{path.name}", os.O_RDWR | os.O_APPEND | os.O_CREAT, PRIVATE)
        try:
            with append_lock(fd):
                existing = read_fd(fd)
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

    def remove_daily_lines(self, ids: set[int], since: date | None = None) -> list[Path]:
        """Remove memvault's lines of these memories from the daily logs (of `since` and later); the files changed.

        For memories that must leave no readable copy (a captured memory forgotten, a #nomem
        session): no backup is kept. Each file is rewritten in place under the append lock, so a
        concurrent append waits and then lands after the shortened text (a rename would let it
        land in the replaced file and be lost). Lines a person wrote are left as they are.
        """
        markers = [f"<!-- id:{int(i)} -->".encode() for i in ids]
        changed = []
        for day in self.list_days():
            if since is not None and day < since:
                continue  # a line is written when its memory is stored: never on an earlier day
            name = f"{DAILY_DIR}/{self.day_path(day).name}"
            try:
                fd = open_inside(self.root, name, os.O_RDWR, PRIVATE)
            except (OSError, RefusedFile):
                continue  # gone meanwhile, or a link (never written to)
            try:
                with append_lock(fd):
                    data = read_fd(fd)
                    if not any(m in data for m in markers):
                        continue
                    text = data.decode("utf-8", "surrogateescape")
                    drop = {e.line for e in parse_daily(text) if e.id in ids}
                    kept = "\n".join(line for n, line in enumerate(text.split("\n"), start=1) if n not in drop)
                    payload = kept.encode("utf-8", "surrogateescape")
                    os.lseek(fd, 0, os.SEEK_SET)  # not O_APPEND: this write goes where it is told
                    view = memoryview(payload)
                    while view:
                        view = view[os.write(fd, view):]
                    os.ftruncate(fd, len(payload))
                    changed.append(self.day_path(day))
            finally:
                os.close(fd)
        return changed

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
        new = fingerprint(path, limit=self.max_bytes)
        missing = object()
        old = self._seen.get(path, missing)
        own = self._own_appends.pop(path, None)
        if old is not missing and old is not None and new is not None and own == (new.mtime_ns, new.size, new.inode):
            result = False  # only this process's own log lines were appended since the last look (_appended)
        elif old is missing:
            result = True
        elif old is None or new is None:
            result = old is not new
        elif not new.same_stat(old):  # type: ignore[arg-type]
            result = True
        elif old.digest is None:  # type: ignore[union-attr]
            result = False  # mtime was already old when we last looked: a write would move it
        else:  # same stat, and the mtime was recent when we last looked: compare content
            try:
                digest = new.digest if new.digest is not None else hash_file(path, self.max_bytes)
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
            self._own_appends.clear()
        else:
            self._seen.pop(self._resolve(path), None)
            self._own_appends.pop(self._resolve(path), None)
