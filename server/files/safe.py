"""Opening memory files without following links: regular files inside the files folder, or refused.

A memory file that is a symbolic link (MEMORY.md -> /etc/passwd) would otherwise be
served as a resource, put into thread_prompt and indexed for recall, and a linked daily
log would get remember's line appended to whatever it points at. Every open here walks
from the files folder down one name at a time with O_NOFOLLOW (so neither the file nor a
folder on the way, such as daily/, can be a link, and nothing can swap one in between a
check and the open), then checks that it opened a regular file: a FIFO or a device
would block or feed a reader forever. A hard link is refused the same way (checked on the
open descriptor): a daily log hard-linked to a file elsewhere would get remember's lines
appended to that file, and MEMORY.md linked to one would be served.

Where the OS has no O_NOFOLLOW or no `dir_fd` (Windows), each name is checked with
lstat before the open instead.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from server.errors import MissingFile, RefusedFile

O_BINARY = getattr(os, "O_BINARY", 0)
O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
# Opening a FIFO for reading would wait for a writer; a regular file ignores the flag.
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_WALK = bool(O_NOFOLLOW and _O_DIRECTORY) and os.open in os.supports_dir_fd
#: errno values an O_NOFOLLOW open gives for a link (Linux ELOOP; FreeBSD EMLINK; NetBSD EFTYPE).
_LINK_ERRNOS = {errno.ELOOP, getattr(errno, "EMLINK", -1), getattr(errno, "EFTYPE", -1)}


def refusal(path: Path, links: int = 1) -> RefusedFile:
    """The error for `path`, which is a link (`links`: its count of hard links) or not a regular file, saying what to do."""
    try:
        if links > 1:
            what = (f"a hard link (one of {links} names of the same file, which may lie outside the data "
                    "directory)")
        elif path.is_symlink():
            what = f"a symbolic link (to {os.readlink(path)})"
        elif path.is_dir():
            what = "a folder"
        else:
            what = "not a regular file"
    except OSError:
        what = "not a regular file"
    return RefusedFile(
        f"{path} is {what}: memory files must be regular files inside the data directory, so memvault "
        "neither reads nor writes it. Replace it with a regular file (e.g. a copy of what the link points to)."
    )


def _open_dir(name: str | Path, dir_fd: int | None, shown: Path) -> int:
    try:
        return os.open(name, os.O_RDONLY | _O_DIRECTORY | O_NOFOLLOW | _O_CLOEXEC, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in _LINK_ERRNOS or exc.errno == errno.ENOTDIR:
            raise refusal(shown) from None
        raise


def _check_names(root: Path, parts: list[str]) -> None:
    """Without O_NOFOLLOW: refuse when the folder, a folder on the way or the file is a link."""
    path = root
    for part in ["", *parts]:
        path = path / part if part else path
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            return  # the open says what is missing (or creates it)
        if stat.S_ISLNK(mode):
            raise refusal(path)


def open_inside(root: Path, relative: str, flags: int, mode: int = 0o600) -> int:
    """A descriptor for `root/relative` opened with `flags`, following no link on the way.

    RefusedFile when the files folder, a folder on the way or the file itself is a link,
    or the file is not a regular file; MissingFile (a FileNotFoundError) when it does not
    exist and `flags` do not create it.
    """
    parts = relative.split("/")
    shown = root / relative
    flags |= O_BINARY | O_NOFOLLOW | _O_NONBLOCK | _O_CLOEXEC
    try:
        if _WALK:
            folder = _open_dir(root, None, root)
            try:
                for i, part in enumerate(parts[:-1]):
                    inner = _open_dir(part, folder, root.joinpath(*parts[: i + 1]))
                    os.close(folder)
                    folder = inner
                try:
                    fd = os.open(parts[-1], flags, mode, dir_fd=folder)
                except OSError as exc:
                    if exc.errno in _LINK_ERRNOS:
                        raise refusal(shown) from None
                    raise
            finally:
                os.close(folder)
        else:  # pragma: no cover - Windows
            _check_names(root, parts)
            fd = os.open(shown, flags, mode)
    except FileNotFoundError:
        raise MissingFile(f"{shown} does not exist") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise refusal(shown)
        if st.st_nlink > 1:
            raise refusal(shown, st.st_nlink)
        if _O_NONBLOCK:
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_head(root: Path, relative: str, limit: int | None) -> tuple[bytes, int]:
    """(the first `limit` bytes of the file, cut after its last whole line, its size in bytes).

    `limit=None` reads it all. Never reads more than `limit` bytes, however big the file.
    """
    fd = open_inside(root, relative, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        want = size if limit is None else min(size, limit)
        chunks = []
        got = 0
        while got < want:
            chunk = os.read(fd, min(1 << 20, want - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        if limit is None:  # the file may have grown since fstat: read to its end
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if limit is not None and size > limit:
        cut = data.rfind(b"\n")
        data = data[: cut + 1] if cut >= 0 else data
    return data, max(size, len(data))
