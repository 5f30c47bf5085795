"""Writing memory files safely: atomic replace, create-once, dated backups, and sweeping temp files a crash left.

Files memvault creates are private to the user (mode 0600 on POSIX); files a person
created keep their mode when rewritten.
"""

from __future__ import annotations

import itertools
import os
import re
import stat
import time
from contextlib import suppress
from datetime import datetime
from pathlib import Path

from server.errors import MissingFile

try:  # POSIX advisory locks: a temp file still locked belongs to a live writer
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

# O_BINARY keeps Windows from turning "\n" into "\r\n" behind our back (0 elsewhere).
O_BINARY = getattr(os, "O_BINARY", 0)
PRIVATE = 0o600
BACKUP_DIR = "backups"




# Temp files of atomic writes: ".<name>.<mkstemp's 8 characters>.tmp" beside the target.
_TEMP_NAME = re.compile(r"\..+\.[A-Za-z0-9_]{8}\.tmp")
#: Without POSIX locks a live writer cannot be told from a dead one: only this old is swept.
_TEMP_MAX_AGE_S = 3600


def _temp_file(path: Path) -> tuple[int, str]:
    """A new temp file beside ``path``, held under an exclusive lock (POSIX) until it is closed.

    The lock is how ``sweep_temp_files`` tells a write in progress (in any process) from one
    whose process was killed: the kernel drops the lock when the process dies.
    """
    # lazy: tempfile brings shutil, random and the compression modules (~3 ms at import), which a hook
    # process that opens the store to read never needs
    import tempfile

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


def atomic_write(path: Path, text: str | bytes) -> None:
    """Replace ``path`` with ``text`` (UTF-8, newlines as given; bytes as they are) so readers see old or new, never half.

    Writes a temp file in the same directory, fsyncs it, ``os.replace`` s it over the target
    and fsyncs the directory (POSIX). An existing file keeps its permission bits.
    """
    path = Path(path)
    fd, tmp = _temp_file(path)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(text if isinstance(text, bytes) else text.encode("utf-8"))
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
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | O_BINARY, PRIVATE)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def create_once(path: Path, data: bytes) -> bool:
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
        raise MissingFile(f"cannot back up {path}: it does not exist") from None
    folder = path.parent / BACKUP_DIR
    folder.mkdir(exist_ok=True)
    stamp = when.strftime("%Y-%m-%dT%H%M%S")  # no ':' so the name is valid on Windows
    for n in itertools.count(1):
        target = folder / f"{path.stem}.{stamp}{'' if n == 1 else f'-{n}'}{path.suffix}"
        # Complete or absent, never half a copy (a kill -9 mid-copy leaves only a temp file).
        if create_once(target, data):
            return target
    raise AssertionError("unreachable")
