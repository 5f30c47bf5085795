"""The files folder, as plain Python (no SQL, no MCP): SOUL.md, MEMORY.md and daily/.

``SOUL.md``
    The assistant's identity. Free-form Markdown.
``MEMORY.md``
    Curated long-term memory, sections ``User Facts``, ``Project Context``, ``Preferences``,
    ``Important Decisions`` and a ``Last updated:`` line. Indexed as units (files.markdown).
``daily/YYYY-MM-DD.md``
    A readable log, one line per stored memory (the format: files.dailylog).

Files memvault creates here are private to the user (mode 0600 on POSIX); files a person
created keep their mode when rewritten (files.atomic).
"""

from __future__ import annotations

import os
from contextlib import suppress
from datetime import date, datetime
from pathlib import Path

from server.errors import MissingFile, SetupError
from server.files.atomic import O_BINARY, PRIVATE, create_once
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

SOUL_FILE = "SOUL.md"
MEMORY_FILE = "MEMORY.md"
DAILY_DIR = "daily"


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
            if create_once(target, data):
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
            raise MissingFile(f"{path} does not exist; {missing}") from None

    def read_soul(self) -> str:
        return self._read(self.soul_path, "the server creates it from the template on start (install_templates)")

    def read_memory(self) -> str:
        return self._read(self.memory_path, "the server creates it from the template on start (install_templates)")

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
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | O_BINARY, PRIVATE)
        try:
            with append_lock(fd):
                existing = read_fd(fd)
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
        line = f"- {when:%H:%M} {CURATION_PREFIX} {escape(' '.join(text.split()))}"
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | O_BINARY, PRIVATE)
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
                digest = new.digest if new.digest is not None else hash_file(path)
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
