"""The errors memvault raises, and what each means for the caller.

    MemvaultError
    ├── InvalidInput        the caller's arguments are wrong; the message says how to fix them
    ├── NotFound            an id or name that does not exist (or no longer does)
    │   └── MissingFile         a memory file or a day's log is not there (also a FileNotFoundError)
    ├── RefusedFile         a memory file that is a symbolic link or not a regular file
    ├── StoreUnavailable    the store cannot take this write now; nothing was stored
    │   ├── StoreBusy           another process held the write lock for the whole bounded wait
    │   ├── DiskFull            the disk (or the database's size limit) is full
    │   └── StoreReadOnly       the database file or its folder cannot be written
    └── SetupError          the installation or the store cannot be used as it is
        ├── DataDirUnusable     the data directory cannot be written (read-only, not a folder, full)
        ├── StoreDamaged        the database file is damaged or is not a memvault store
        ├── DriverUnavailable   no SQLite driver here can load extensions
        └── ModelMismatch       the store was embedded with another model

Only the edges (the MCP layer and the CLI) turn these into user-facing results. The CLI
exits with the `exit_status` of the error that stopped it (server/cli/output.py and the README's
"Exit codes" list them): 2 a setting or argument, 3 not found, 4 the data directory or store cannot
be written, 5 a damaged store, 6 the installation.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from server.frozen import record


class MemvaultError(Exception):
    """Base class for every error memvault raises on purpose."""


class InvalidInput(MemvaultError):
    """An argument is invalid; the message says what is wrong and what to send instead."""


class NotFound(MemvaultError):
    """The memory, thread or prompt asked for does not exist."""


#: How to find ids, worded once for every "no such memory" (forget, show, edit, curation); the
#: CLI and the web page reword it for their own commands (server/cli/output.py, server/web/site.py).
FIND_IDS = "use recall to find current memory ids"


_CALL = re.compile(r"curate_memory\((?P<args>[^()]*)\)")
_ARG = re.compile(r"(\w+)=(\[[^\]]*\]|\"[^\"]*\"|'[^']*'|[\w.-]+)")


@record
class Call:
    """A curate_memory call a message suggests, for an edge to say in its own words."""

    action: str
    ids: list[str]
    others: dict[str, str]  # the other arguments, e.g. {"replacement_id": "5"}
    apply: bool  # dry_run=false


def reword_hints(text: str, find_ids: str, call: Callable[[Call], str]) -> str:
    """`text` (a message written for the assistant) with its hints in another surface's words: FIND_IDS as
    `find_ids`, each curate_memory(...) call as `call` renders it."""
    def render(match: re.Match[str]) -> str:
        args = {k: v.strip("\"'") for k, v in _ARG.findall(match.group("args"))}
        ids = [i for i in args.pop("ids", "").strip("[]").replace(",", " ").split() if i]
        apply = args.pop("dry_run", "") == "false"
        return call(Call(args.pop("action", ""), ids, args, apply))

    return _CALL.sub(render, text.replace(FIND_IDS, find_ids))


def no_memory(ids: int | list[int]) -> NotFound:
    """The error for memory ids that name no memory (never stored, or purged)."""
    listed = ", ".join(map(str, ids)) if isinstance(ids, list) else str(ids)
    return NotFound(f"No memory {listed}; {FIND_IDS}.")


class MissingFile(NotFound, FileNotFoundError):
    """A memory file (or a day's log) does not exist. Also a FileNotFoundError, for file-handling callers."""


class RefusedFile(MemvaultError):
    """A memory file is a symbolic link, or not a regular file: it is neither read nor written."""


class StoreUnavailable(MemvaultError):
    """The store cannot take a write right now; the transaction was rolled back, nothing was stored."""

    exit_status = 4


class StoreBusy(StoreUnavailable):
    """Another process held the store's write lock for longer than the bounded wait."""


class DiskFull(StoreUnavailable):
    """The disk holding the store is full (or the database reached its size limit)."""


class StoreReadOnly(StoreUnavailable):
    """The database file, or the folder it lives in, cannot be written."""


class SetupError(MemvaultError):
    """memvault cannot run with this installation or store until someone acts."""

    exit_status = 2


class DataDirUnusable(SetupError):
    """The data directory (or a folder memvault needs in it) cannot be created or written."""

    exit_status = 4


class StoreDamaged(SetupError):
    """The database file is damaged or is not a SQLite database (a newer memvault's store is a plain SetupError: upgrade)."""

    exit_status = 5


class DriverUnavailable(SetupError):
    """No SQLite driver available to this Python can load the sqlite-vec extension."""

    exit_status = 6


class ModelMismatch(SetupError):
    """The store's vectors come from a different embedding model than the configured one."""
