"""Keeps the index in step with the memory files a person edits.

MEMORY.md and a person's own notes in daily logs are split into units (bullets,
paragraphs) and indexed as global memories (a `## Project: <name>` section of
MEMORY.md: that project's) with source `file:<relative path>`, so
recall finds them with their file and line. Before each recall the files are stat-ed
(no polling in between); a changed file is re-parsed and only the units whose text
changed are re-indexed: a unit keeps its id (and its vector) while its text is
unchanged, wherever it moves in the file. A deleted bullet disappears from recall at
the next call.

SOUL.md is not indexed: it is the assistant's identity, delivered whole by
thread_prompt and memory://soul, not facts to recall (its template's rules of
conduct came back for "how do I run the tests?"). Units a store indexed from it
before are removed at the first sync.

A recall never waits for the store's write lock on the index's behalf: when another
process is writing (or the disk is full), the refresh is left for a later call and the
recall answers from what is indexed, saying so. Only the first MEMVAULT_MAX_FILE_BYTES
of a file are indexed, and a file that is a link is not indexed at all (its units are
dropped); `notes()` says which files are cut or refused.
"""

from __future__ import annotations

import codecs
import hashlib
import logging
import re
from contextlib import suppress
from pathlib import Path

from server.clock import Clock, to_millis
from server.errors import DiskFull, InvalidInput, MissingFile, RefusedFile, StoreBusy, StoreUnavailable
from server.files.atomic import atomic_write, backup
from server.files.folder import DAILY_DIR, MEMORY_FILE, MemoryFiles, truncation_note
from server.files.dailylog import parse_daily
from server.files.markdown import parse_markdown_units
from server.files.promote import PROJECT_PREFIX
from server.files.safe import read_head
from server.validation import thread_name
from server.guard.redact import redact
from server.storage.protocol import GLOBAL, FileUnits, NewMemory
from server.textindex import index_text

log = logging.getLogger(__name__)

FILE_SOURCE = "file:"
_LIST_MARKER = re.compile(r"^\s*(?:[-*+]|[0-9]{1,9}[.)])[ \t]+")
#: Sections of a daily log that memvault itself writes (not a person's notes).
GENERATED_SECTIONS = ("curation log",)


def unit_hash(source: str, key: str) -> str:
    """A file unit's content_hash: of its file and key, not its text (MEMORY.md and a daily note, or
    a global memory, may hold the same words; the store keeps one live memory per hash and thread)."""
    return hashlib.sha256(f"{source}\n{key}".encode()).hexdigest()


def unit_content(text: str) -> str:
    """A unit's text as a memory: without its list marker."""
    return _LIST_MARKER.sub("", text, count=1)


def thread_for(section: str) -> str:
    """The thread of a unit: a project's section of MEMORY.md (`## Project: shopfront`, see
    files.promote) belongs to that project, so another project's recall does not find it; the
    rest is global."""
    top = section.split(" > ", 1)[0]
    if top.lower().startswith(PROJECT_PREFIX.lower()):
        name = top[len(PROJECT_PREFIX):].strip()
        with suppress(InvalidInput):
            return thread_name(name)
    return GLOBAL


def kind_for(section: str) -> str:
    lowered = section.lower()
    for word, kind in (("decision", "decision"), ("preference", "preference"), ("fact", "fact"), ("project", "fact")):
        if word in lowered:
            return kind
    return "note"


class FileIndex:
    def __init__(self, store: FileUnits, files: MemoryFiles, clock: Clock, max_unit_bytes: int) -> None:
        self.store = store
        self.files = files
        self.clock = clock
        self.max_unit_bytes = max_unit_bytes
        self._checked_db = False
        # Per file: why it is not (wholly) searchable: cut at MEMVAULT_MAX_FILE_BYTES, or refused.
        self._file_notes: dict[str, str] = {}

    def _watched(self) -> dict[str, Path]:
        paths = {MEMORY_FILE: self.files.memory_path}
        for day in self.files.list_days():
            path = self.files.day_path(day)
            paths[f"{DAILY_DIR}/{path.name}"] = path
        return paths

    def notes(self) -> list[str]:
        """What a recall should tell: files only partly indexed, or refused (links)."""
        return [self._file_notes[name] for name in sorted(self._file_notes)]

    def sync(self, wait: float | None = None) -> str | None:
        """Re-index the files that changed since the last look.

        Waits at most `wait` seconds for the write lock (None: the store's default; recall
        passes 0). Returns None when the index is in step, else a note saying that the
        results come from the index as it was (the files stay marked as changed, so the
        next call tries again).
        """
        watched = self._watched()
        changed = {name: path for name, path in watched.items() if self.files.changed(path)}
        if not self._checked_db:
            # Files deleted while no server ran still have units in the index.
            with self.store.db.read() as conn:
                known = [s[len(FILE_SOURCE):] for s in self.store.file_sources(conn)]
            changed.update({name: self.files.root / name for name in known if name not in watched})
            self._checked_db = True
        for name, path in sorted(changed.items()):
            indexed = name in watched or name.startswith(DAILY_DIR + "/")
            # A file no longer indexed (SOUL.md) reads as empty: its old units go.
            text = self._text(name, path) if indexed else ""
            if text is None:
                continue
            try:
                self._sync_file(name, text, wait)
            except StoreUnavailable as exc:
                for left in changed.values():  # not indexed yet: look at them again next time
                    self.files.forget(left)
                why = {StoreBusy: "another memvault process is writing", DiskFull: "the disk is full"}.get(
                    type(exc), "the store is read-only")
                return (
                    f"Memory files changed since they were last indexed, but the index could not be updated now "
                    f"({why}); these results come from the index as it was. It is updated at the next call."
                )
        return None

    def _text(self, name: str, path: Path) -> str | None:
        """The part of the file to index ('' when it is gone or refused); None to leave its index alone."""
        self._file_notes.pop(name, None)
        try:
            text, size = self.files.read_head(path)
        except MissingFile:
            return ""
        except RefusedFile as exc:
            log.warning("%s", exc)
            # The refusal names the file by its full path; the note by its name, and keeps the why
            # ("is a symbolic link (to …)") and what to do.
            self._file_notes[name] = f"{name} is not indexed: " + str(exc).replace(str(path), name, 1)
            return ""  # whatever was indexed from it goes: it may have been replaced by the link
        except OSError as exc:
            log.warning("cannot read %s (%s); its index is left as it was", path, exc)
            return None
        if size > self.files.max_bytes:
            self._file_notes[name] = truncation_note(name, size, self.files.max_bytes)
        return text

    def _units(self, name: str, text: str):
        units = parse_markdown_units(text, name)
        if not name.startswith(DAILY_DIR + "/"):
            return units
        # In a daily log, index only what a person wrote: memvault's own lines
        # mirror memories that are already indexed.
        generated = {entry.line for entry in parse_daily(text)}
        return [
            u for u in units
            if not any(line in generated for line in range(u.line, u.end_line + 1))
            and not u.section.lower().startswith(GENERATED_SECTIONS)
        ]

    def _sync_file(self, name: str, text: str, wait: float | None = None) -> int:
        source = FILE_SOURCE + name
        units = self._units(name, text)
        now = to_millis(self.clock())
        changes = 0
        with self.store.db.read() as conn:
            known_units = self.store.file_units(conn, source)
        if {u.key: (u.line, u.section) for u in units} == {k: (u.line, u.section) for k, u in known_units.items()}:
            # The usual case after a remember: today's log changed only by memvault's own line,
            # which is not indexed. Nothing to write, so no write lock is needed.
            return 0
        with self.store.transaction(wait=wait) as conn:
            existing = dict(self.store.file_units(conn, source))
            seen = {unit.key for unit in units}
            # A unit moved to another section has a new key but the same text: it keeps its id.
            gone = {key: known for key, known in existing.items() if key not in seen}
            rows = self.store.get([known.id for known in gone.values()]) if gone else {}
            by_text = {}
            for key, known in sorted(gone.items(), key=lambda item: item[1].id):
                if known.id in rows:
                    by_text.setdefault((rows[known.id].thread, rows[known.id].content), []).append(key)
            for unit in units:
                if unit.key in existing:
                    known = existing[unit.key]
                    if (known.line, known.section) != (unit.line, unit.section):
                        self.store.move_file_unit(conn, known.id, unit.line, unit.section)
                    continue
                # The person's file is theirs; the index never holds a secret from it.
                content = redact(unit_content(unit.text)).text
                content = content.encode("utf-8", "replace")[: self.max_unit_bytes].decode("utf-8", "ignore")
                thread = thread_for(unit.section)
                if by_text.get((thread, content)):
                    key = by_text[(thread, content)].pop(0)
                    self.store.move_file_unit(conn, gone.pop(key).id, unit.line, unit.section, unit.key,
                                              unit_hash(source, unit.key))
                    existing.pop(key)
                    continue
                self.store.insert_memory(
                    conn,
                    NewMemory(
                        thread=thread,
                        content=content,
                        kind=kind_for(unit.section),
                        source=source,
                        origin=None,
                        importance=0.7,
                        tags=(),
                        content_hash=unit_hash(source, unit.key),
                        created_at=now,
                        updated_at=now,
                        index_text=index_text(content, unit.section or None),
                        file_key=unit.key,
                        file_line=unit.line,
                        file_section=unit.section,
                        log_daily=False,
                    ),
                )
                changes += 1
            for key, known in existing.items():
                if key not in seen:
                    self.store.delete_derived(conn, known.id)
                    changes += 1
        if changes:
            log.info("re-indexed %s: %d unit(s) changed", name, changes)
        return changes

    # -- forget -----------------------------------------------------------------------------
    def remove(self, memory_id: int, source: str) -> str:
        """Forget a file unit: cut its lines out of the file (backed up first, written atomically)
        and drop it from the index. Returns what was removed, for the caller's message.

        The file is the record, so a unit cannot be forgotten in the store alone: it would come
        back with every thread_prompt. Refused, naming the file and line, when the file no longer
        holds the unit as it was indexed (edited since) or cannot be written.
        """
        name = source[len(FILE_SOURCE):]
        path = self.files.root / name
        with self.store.db.read() as conn:
            key = next((k for k, unit in self.store.file_units(conn, source).items() if unit.id == memory_id), None)
            where = self.store.get([memory_id]).get(memory_id)
        line = where.file_line if where else None
        try:
            data, _ = read_head(self.files.root, name, None)  # a linked file is refused (RefusedFile)
        except OSError as exc:
            raise InvalidInput(
                f"memory {memory_id} is {name} line {line}, which cannot be read ({exc.strerror}); edit {path} by hand"
            ) from None
        text = data.decode("utf-8-sig", errors="replace")
        unit = next((u for u in self._units(name, text) if u.key == key), None)
        if key is None or unit is None:
            raise InvalidInput(
                f"memory {memory_id} was {name} line {line}, but {name} has changed since it was indexed; "
                f"edit {path} by hand (recall shows its current lines)"
            )
        lines = text.split("\n")
        cut = lines[: unit.line - 1] + lines[unit.end_line :]
        # The other lines are written back as the bytes they were: a byte that is not UTF-8
        # (decoded above as U+FFFD) stays what it was. Decoding never moves a line feed, so
        # line n of the text is line n of the bytes.
        raw = data.split(b"\n")
        kept = b"\n".join(raw[: unit.line - 1] + raw[unit.end_line :])
        if unit.line == 1 and data.startswith(codecs.BOM_UTF8):
            kept = codecs.BOM_UTF8 + kept
        try:
            backup(path, self.clock())
            atomic_write(path, kept)
        except OSError as exc:
            raise InvalidInput(
                f"memory {memory_id} is {name} line {unit.line}, which cannot be removed ({exc}); edit {path} by hand"
            ) from None
        self.files.forget(path)
        self._sync_file(name, "\n".join(cut))
        return f"{name} line {unit.line}" + (f"-{unit.end_line}" if unit.end_line > unit.line else "")

