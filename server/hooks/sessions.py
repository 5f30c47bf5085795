"""Per-session state under the data directory: the transcript cursor and what was injected.

One small JSON file per host session (`hooks/sessions/<host>-<session>.json`), replaced
atomically, read and written under an exclusive lock on a sibling `.lock` file so that
a Stop and a PreCompact capture of the same session never read the same lines twice.
A host restart resumes from the saved offset; files untouched for 30 days are removed.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

from server.config import private_folder
from server.files.atomic import O_BINARY, PRIVATE
from server.files.dailylog import append_lock

KEEP_DAYS = 30
#: Injected ids remembered per session (older ones may be injected again: harmless).
MAX_INJECTED = 500
#: Recall counts a session's injections hold for its next capture, at most (older ones are dropped: a
#: retention score moves a little, as when a server's counts wait for a busy store).
MAX_RECALLED = 200
#: prune_daily's stamp file in the sessions folder, and how often it prunes.
PRUNED_STAMP = ".pruned"
PRUNE_EVERY_SECONDS = 86400


@dataclass
class SessionState:
    offset: int = 0  # bytes of the transcript already captured
    transcript: str = ""  # which file the offset belongs to (path + inode)
    injected: list[int] = field(default_factory=list)  # memory ids put in front of the model
    stored: list[int] = field(default_factory=list)  # memory ids this session's capture created
    nomem: bool = False  # "#nomem": capture is off for this session
    captures: int = 0
    tokens_injected: int = 0
    carry: dict = field(default_factory=dict)  # extraction state between captures (extract.Extraction.carry)
    recalled: list = field(default_factory=list)  # [[ids, ms], ...]: recall counts of injections, for the next capture

    @classmethod
    def from_json(cls, text: str) -> SessionState:
        try:
            data = json.loads(text)
        except ValueError:
            return cls()  # a damaged state file restarts the session's cursor: duplicates are suppressed anyway
        if not isinstance(data, dict):
            return cls()
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        try:
            return cls(**known)
        except TypeError:
            return cls()


def _replace(path: Path, text: str) -> None:
    """Write-then-rename, without fsync: a state lost to a power cut costs re-reading a transcript
    (duplicates are suppressed) or re-injecting a memory, not data, and two fsyncs per prompt do
    cost the host time on a busy disk."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | O_BINARY, PRIVATE)
    try:
        view = memoryview(text.encode("utf-8"))
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)
    os.replace(tmp, path)


class Sessions:
    def __init__(self, root: Path) -> None:
        self.root = root

    def _paths(self, host: str, session: str) -> tuple[Path, Path]:
        stem = f"{host}-{session}"
        return self.root / f"{stem}.json", self.root / f"{stem}.lock"

    def read(self, host: str, session: str) -> SessionState:
        """The state as last saved (no lock: for a quick look)."""
        path, _ = self._paths(host, session)
        try:
            return SessionState.from_json(path.read_text(encoding="utf-8"))
        except OSError:
            return SessionState()

    @contextmanager
    def locked(self, host: str, session: str) -> Iterator[SessionState]:
        """The session's state, held exclusively; saved when the block ends without error."""
        private_folder(self.root)  # the data directory too, when a hook runs before any server
        path, lock_path = self._paths(host, session)
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | O_BINARY, PRIVATE)
        try:
            with append_lock(fd):
                state = self.read(host, session)
                yield state
                state.injected = state.injected[-MAX_INJECTED:]
                state.recalled = state.recalled[-MAX_RECALLED:]
                _replace(path, json.dumps(asdict(state)))
        finally:
            os.close(fd)

    def prune_daily(self, keep_days: int = KEEP_DAYS) -> int:
        """prune, at most once a day (a stamp file's age says when it last ran): a session start runs it, and
        a stat of every session's two files (hundreds within the 30 days) cost each one milliseconds."""
        stamp = self.root / PRUNED_STAMP
        try:
            if time.time() - stamp.stat().st_mtime < PRUNE_EVERY_SECONDS:
                return 0
        except OSError:
            pass  # never pruned (or unreadable): prune now
        try:
            private_folder(self.root)
            stamp.touch()
        except OSError:
            pass  # a folder we cannot write: prune anyway, and again next time
        return self.prune(keep_days)

    def prune(self, keep_days: int = KEEP_DAYS) -> int:
        """Remove state files of sessions idle for `keep_days`; returns how many."""
        cutoff = time.time() - keep_days * 86400
        removed = 0
        try:
            names = list(self.root.iterdir())
        except OSError:
            return 0
        for path in names:
            try:
                if path.suffix in (".json", ".lock") and path.stat().st_mtime < cutoff:
                    path.unlink()
                    removed += 1
            except OSError:
                continue
        return removed
