"""Faults injected from outside a memvault process, shared by bench/faults.py and the tests.

Each is what a real user's machine can do to a running server: another process holding
the store's write lock, a disk that fills up, a data directory that turns read-only,
memory files replaced by links. Nothing here patches memvault itself.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_HOLDER = textwrap.dedent("""
    import sys
    try:
        import sqlean as sqlite3
    except ImportError:
        import sqlite3
    conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=60)
    conn.execute("BEGIN IMMEDIATE")
    print("locked", flush=True)
    sys.stdin.read()  # until the parent closes the pipe (or dies)
    conn.execute("ROLLBACK")
""")


@contextmanager
def write_lock_held(db_path: Path) -> Iterator[subprocess.Popen]:
    """Another process holds the SQLite write lock of `db_path` (BEGIN IMMEDIATE) until the block ends."""
    proc = subprocess.Popen([sys.executable, "-c", _HOLDER, str(db_path)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        if line.strip() != "locked":
            raise RuntimeError(f"the lock holder did not lock {db_path}: {proc.stderr.read()}")
        yield proc
    finally:
        if proc.poll() is None:
            proc.stdin.close()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for pipe in (proc.stdout, proc.stderr):
            pipe.close()


def can_mount() -> bool:
    """Whether this process may mount a tmpfs (root with CAP_SYS_ADMIN, Linux): a real full or read-only disk."""
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        return False
    probe = Path(f"/tmp/memvault-mount-probe-{os.getpid()}")
    probe.mkdir(exist_ok=True)
    try:
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(probe)],
                          capture_output=True).returncode != 0:
            return False
        subprocess.run(["umount", str(probe)], capture_output=True)
        return True
    except OSError:
        return False
    finally:
        probe.rmdir()


@contextmanager
def small_disk(folder: Path, size: str) -> Iterator[Path]:
    """`folder` on a tmpfs of `size` (e.g. '4m'): writes past it fail with ENOSPC, as on a full disk."""
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(folder)], check=True)
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def remount(folder: Path, mode: str) -> None:
    """Turn the tmpfs at `folder` read-only ('ro') or writable again ('rw'): root cannot write to 'ro' either."""
    subprocess.run(["mount", "-o", f"remount,{mode}", str(folder)], check=True)


def fill(folder: Path, leave: int = 0) -> Path:
    """Fill the file system of `folder` until at most `leave` bytes are free; returns the filler file."""
    filler = folder / "filler.bin"
    with open(filler, "wb") as f:
        block = b"\0" * 65536
        while True:
            free = os.statvfs(folder).f_bavail * os.statvfs(folder).f_frsize
            if free <= leave:
                break
            try:
                f.write(block[: max(1, min(len(block), free - leave))])
                f.flush()
            except OSError:
                break
    return filler


def link_memory_files(files: Path, target: Path, day: str) -> list[str]:
    """Replace MEMORY.md, SOUL.md and the daily log of `day` (YYYY-MM-DD) with links to `target`."""
    linked = []
    (files / "daily").mkdir(parents=True, exist_ok=True)
    for name in ("MEMORY.md", "SOUL.md", f"daily/{day}.md"):
        path = files / name
        if path.exists() or path.is_symlink():
            path.unlink()
        path.symlink_to(target)
        linked.append(name)
    return linked
