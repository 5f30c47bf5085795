"""Change detection for memory files: a stat check, and a content hash while the mtime is recent."""

from __future__ import annotations

import hashlib
import os
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path



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


def hash_file(path: Path, limit: int | None = None) -> str:
    """sha256 of the file's first `limit` bytes (all of it with None): only what is indexed matters."""
    digest = hashlib.sha256()
    left = limit
    with open(path, "rb") as f:
        while left is None or left > 0:
            chunk = f.read(1 << 16 if left is None else min(1 << 16, left))
            if not chunk:
                break
            digest.update(chunk)
            if left is not None:
                left -= len(chunk)
    return digest.hexdigest()


def fingerprint(path: Path, now_ns: int | None = None, limit: int | None = None) -> Fingerprint | None:
    """The file's fingerprint, or None if it does not exist. Hashes only a recent file (its first `limit` bytes).

    A link is fingerprinted as itself (lstat), never followed: turning MEMORY.md into a link
    is a change, and what the link points to is never read.
    """
    now_ns = time.time_ns() if now_ns is None else now_ns
    try:
        st = os.lstat(path)
        recent = now_ns - st.st_mtime_ns < RECENT_NS  # a future mtime (clock skew) counts as recent
        digest = hash_file(Path(path), limit) if recent and stat.S_ISREG(st.st_mode) else None
    except FileNotFoundError:
        return None
    return Fingerprint(st.st_mtime_ns, st.st_size, st.st_ino, digest, now_ns)
