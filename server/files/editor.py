"""Editing SOUL.md and MEMORY.md whole, as the web page does: never a lost edit, never half a file.

`read` gives the text and a mark (its SHA-256); `save` writes only if the file still has
that mark — someone (a person in an editor, `promote`) may have changed it since it was
read, and that change is kept, the save refused with a Conflict that says so. A save backs
the old file up under files/backups/ first (as promote does) and replaces it atomically.
The file index notices the new text at the next recall, as after any edit.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from server.errors import InvalidInput, NotFound
from server.files.atomic import atomic_write, backup
from server.files.folder import MEMORY_FILE, SOUL_FILE, MemoryFiles

EDITABLE = (SOUL_FILE, MEMORY_FILE)
#: The largest file the page saves (MEMORY.md's own cap is MEMVAULT_MEMORY_MAX_CHARS, for promote).
MAX_BYTES = 1024 * 1024


class Conflict(InvalidInput):
    """The file changed after it was read; the save was not made."""


@dataclass(frozen=True)
class Saved:
    path: Path
    backup: Path | None
    message: str


def _path(files: MemoryFiles, name: str) -> Path:
    if name not in EDITABLE:
        raise NotFound(f"No editable file {name!r}; the page edits {' and '.join(EDITABLE)}.")
    path = files.root / name
    if path.is_symlink():
        raise InvalidInput(f"{path} is a symbolic link; memvault edits only regular files in its folder "
                           "(replace the link by the file it points to)")
    if path.is_file() and path.stat().st_nlink > 1:
        raise InvalidInput(f"{path} is a hard link (another name of the same file exists); memvault edits only "
                           "files of its own (replace it by a copy: cp --remove-destination)")
    return path


def mark(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read(files: MemoryFiles, name: str) -> tuple[str, str]:
    """The file's text and its mark ('' and the mark of nothing when it does not exist)."""
    path = _path(files, name)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        data = b""
    return data.decode("utf-8-sig", errors="replace"), mark(data)


def save(files: MemoryFiles, name: str, text: str, expected: str, when: datetime) -> Saved:
    """Write `text` if the file still has the mark `expected` (read's); back the old one up first."""
    path = _path(files, name)
    text = text.replace("\r\n", "\n")  # a browser's textarea sends CRLF
    if len(text.encode("utf-8")) > MAX_BYTES:
        raise InvalidInput(f"{name} would be over {MAX_BYTES // 1024} KiB; keep it shorter")
    if "\x00" in text:
        raise InvalidInput(f"{name} cannot hold NUL characters")
    try:
        current = path.read_bytes()
    except FileNotFoundError:
        current = b""
    if mark(current) != expected:
        raise Conflict(f"{name} changed after you opened it (another editor, or promote); your text is below, "
                       "and the file as it is now above it. Merge them and save again.")
    if current.decode("utf-8-sig", errors="replace") == text:
        return Saved(path, None, f"{name} unchanged.")
    copy = backup(path, when) if current else None
    atomic_write(path, text)
    files.forget(path)  # the next look at it reads it again
    return Saved(path, copy, f"{name} saved" + (f"; the previous version is in backups/{copy.name}" if copy else "") + ".")
