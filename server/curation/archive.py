"""The JSON archive format: export a store (or a thread / date range) and import it back exactly.

This module is the format only (documents, writing, loading and validation, restore
into a store, verification); the CLI and curate_memory's export/import actions
(curation.curator) drive it. An import reports what it did as an ``ImportReport``.

Format (``format: "memvault-archive"``, ``version: 1``), indented UTF-8 JSON::

    {"format", "version", "exported_at", "memvault_version", "namespace", "scope", "counts",
     "sha256": sha256 of the canonical JSON of "payload" (sorted keys, no spaces),
     "payload": {"memories": [...every field, forgotten, superseded and compressed ones too,
                               a compressed memory's archived original in "original"...],
                 "threads": [...with their prompts...], "global_prompts": [...],
                 "files": [{"path": "MEMORY.md" | "SOUL.md" | "daily/YYYY-MM-DD.md", "text"}]}}

Times are ISO-8601 UTC to the millisecond, so they round-trip exactly. ``--split-by-month``
writes one self-contained archive per month of creation (``YYYY/YYYY-MM.json``) plus
``shared.json`` (threads, prompts, MEMORY.md, SOUL.md). A link to a memory in a later
month is made when that month is imported newest-first, or repaired by importing again;
``memvault import FOLDER`` imports shared.json, then the months newest first.

Import checks everything before changing anything (format, version, checksum, every
field, every content hash), then inserts in one transaction: ids, timestamps, tags,
threads and prompts are kept; a memory already present (same thread, text and creation
time) is skipped, so importing twice adds nothing; an id taken by another memory gets a
new id (links follow). Memory files are written only where missing: a file that exists
and differs is kept, and the archived copy is saved under ``files/imported/``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from server import __version__
from server import validation as check
from server.clock import iso, to_millis
from server.errors import InvalidInput, NotFound
from server.files.atomic import atomic_write
from server.models import KINDS
from server.redact import redact
from server.service import MemoryService, content_hash
from server.storage.protocol import Curation, MemoryRow, Original
from server.textindex import index_text
from server.threads import thread_scope

FORMAT = "memvault-archive"
VERSION = 1
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_FILE_PATH = re.compile(r"(MEMORY\.md|SOUL\.md|daily/[0-9]{4}-[0-9]{2}-[0-9]{2}\.md)")
_NAME_PART = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
Progress = Callable[[int, int], None]


class ArchiveError(InvalidInput):
    """The archive cannot be imported (damaged, newer, or not an archive); nothing was imported."""


@dataclass(frozen=True)
class ImportCounts:
    """The figures of one import (or its preview), in the order the CLI and curate_memory show them."""

    in_archive: int = 0
    imported: int = 0
    already_present: int = 0  # the same thread, text and creation time, or the same live text
    merged_same_text: int = 0  # of those, a live memory with the same text but another creation time
    new_ids: int = 0  # imported under a new id: the archived one was taken by another memory
    threads_added: int = 0
    prompts_added: int = 0
    links_restored: int = 0  # supersede links made for memories already present (split archives)
    texts_redacted: int = 0  # archived texts whose secrets were replaced before importing
    files_written: int = 0
    files_kept_existing: int = 0
    verified: int = 0  # content hashes checked against the store
    verify_failed: int = 0

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


@dataclass(frozen=True)
class FileReport:
    """What became of the archive's memory files (paths relative to the files folder)."""

    written: list[str] = field(default_factory=list)  # were missing: written
    unchanged: list[str] = field(default_factory=list)  # already the same
    kept_existing: list[str] = field(default_factory=list)  # differ: kept, "path (archived copy: imported/...)"

    def as_dict(self) -> dict[str, list[str]]:
        return asdict(self)


@dataclass(frozen=True)
class Restored:
    """What `restore` put into the store, or would put (a preview is rolled back)."""

    mapping: dict[int, int]  # archived id -> id in the store, for every memory of the archive
    inserted: list[int]  # store ids of the memories added
    counts: ImportCounts  # the store's figures; files and verification still 0


@dataclass(frozen=True)
class ImportReport:
    """One archive file imported (or previewed) and verified."""

    counts: ImportCounts
    inserted: list[int]  # store ids of the memories added (a preview: those that would be)
    files: FileReport


def _ms(text: str | None) -> int | None:
    """ISO-8601 to milliseconds, exactly (no float arithmetic)."""
    if text is None:
        return None
    when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return (when - _EPOCH) // timedelta(milliseconds=1)


def _iso(ms: int | None) -> str | None:
    return None if ms is None else iso(ms)


def checksum(payload: dict[str, Any]) -> str:
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


# -- export ----------------------------------------------------------------------


def _memory_record(row: MemoryRow, original: Original | None) -> dict[str, Any]:
    return {
        "id": row.id, "thread": row.thread or None, "content": row.content, "kind": row.kind,
        "source": row.source, "origin": row.origin, "importance": row.importance, "tags": list(row.tags),
        "content_hash": row.content_hash, "created_at": iso(row.created_at), "updated_at": iso(row.updated_at),
        "deleted_at": _iso(row.deleted_at), "superseded_by": row.superseded_by,
        "recall_count": row.recall_count, "last_recalled_at": _iso(row.last_recalled_at),
        "pinned": row.pinned, "compression": row.compression,
        "original": None if original is None else {"content": original.content, "compressed_at": iso(original.compressed_at)},
    }


def _document(service: MemoryService, scope: dict[str, Any], payload: dict[str, Any]) -> dict[str, Any]:
    return {
        "format": FORMAT, "version": VERSION, "exported_at": iso(to_millis(service.clock())),
        "memvault_version": __version__, "namespace": service.settings.namespace, "scope": scope,
        "counts": {key: len(value) for key, value in payload.items()},
        "sha256": checksum(payload), "payload": payload,
    }


def _files(service: MemoryService, since: int | None, until: int | None, shared: bool, days: bool) -> list[dict[str, str]]:
    root = service.settings.files_dir
    out = []
    if shared:
        for name in ("MEMORY.md", "SOUL.md"):
            if (root / name).is_file():
                out.append({"path": name, "text": (root / name).read_text(encoding="utf-8", errors="replace")})
    if days and (root / "daily").is_dir():
        for path in sorted((root / "daily").glob("*.md")):
            if not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", path.stem):
                continue
            start = _ms(path.stem + "T00:00:00Z")
            if (since is not None and start + 86_400_000 <= since) or (until is not None and start > until):
                continue
            out.append({"path": f"daily/{path.name}", "text": path.read_text(encoding="utf-8", errors="replace")})
    return out


def export(
    service: MemoryService,
    thread: str | None = None,
    since: str | None = None,
    until: str | None = None,
    split_by_month: bool = False,
    progress: Progress | None = None,
) -> dict[str, dict[str, Any]]:
    """Archive documents by relative file name: one, or one per month plus shared.json."""
    stored_thread = thread_scope(thread)
    start, end = check.timestamp(since, "since"), check.timestamp(until, "until")
    lo, hi = (to_millis(start) if start else None), (to_millis(end) if end else None)
    store: Curation = service.store
    with service.db.read() as conn:
        rows = store.rows(conn, stored_thread, deleted=None, since=lo, until=hi)
        originals = store.archived_originals(conn, stored_thread)
        threads = store.threads(conn, stored_thread or None) if stored_thread != "" else []
        prompts = store.export_global_prompts(conn)
    records = []
    for n, row in enumerate(rows, 1):
        records.append(_memory_record(row, originals.get(row.id)))
        if progress and (n % 500 == 0 or n == len(rows)):
            progress(n, len(rows))
    scope = {"thread": thread, "since": since, "until": until}
    whole = stored_thread is None
    if not split_by_month:
        payload = {"memories": records, "threads": threads, "global_prompts": prompts,
                   "files": _files(service, lo, hi, shared=whole, days=whole)}
        return {"archive.json": _document(service, scope, payload)}
    by_month: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        by_month.setdefault(record["created_at"][:7], []).append(record)
    out = {}
    for month, items in sorted(by_month.items()):
        used = {r["thread"] for r in items}
        month_lo = _ms(f"{month}-01T00:00:00Z")
        nxt = _ms(f"{int(month[:4]) + (month[5:] == '12')}-{int(month[5:]) % 12 + 1:02d}-01T00:00:00Z") - 1
        payload = {"memories": items, "threads": [t for t in threads if t["id"] in used], "global_prompts": [],
                   "files": _files(service, month_lo, nxt, shared=False, days=whole)}
        out[f"{month[:4]}/{month}.json"] = _document(service, {**scope, "month": month}, payload)
    shared = {"memories": [], "threads": threads, "global_prompts": prompts,
              "files": _files(service, None, None, shared=whole, days=False)}
    out["shared.json"] = _document(service, {**scope, "shared": True}, shared)
    return out


def write(documents: dict[str, dict[str, Any]], target: Path) -> list[Path]:
    """Write one document to `target` (a file), or several under `target` (a folder)."""
    if len(documents) == 1 and "archive.json" in documents:
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(target, dump(documents["archive.json"]))
        return [target]
    written = []
    for name, document in documents.items():
        path = target / name
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, dump(document))
        written.append(path)
    return written


def dump(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=1, ensure_ascii=False) + "\n"


# -- validation --------------------------------------------------------------------


class _Original(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)
    content: str
    compressed_at: str


class _Memory(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)
    id: int
    thread: str | None
    content: str
    kind: str
    source: str
    origin: str | None
    importance: float
    tags: list[str]
    content_hash: str
    created_at: str
    updated_at: str
    deleted_at: str | None
    superseded_by: int | None
    recall_count: int
    last_recalled_at: str | None
    pinned: bool
    compression: str | None
    original: _Original | None

    @field_validator("kind")
    @classmethod
    def _kind(cls, value: str) -> str:
        if value not in KINDS:
            raise ValueError(f"unknown kind {value!r}")
        return value

    @field_validator("thread")
    @classmethod
    def _thread(cls, value: str | None) -> str | None:
        return None if value is None else check.thread_name(value)

    @field_validator("created_at", "updated_at", "deleted_at", "last_recalled_at")
    @classmethod
    def _time(cls, value: str | None) -> str | None:
        if value is not None:
            _ms(value)
        return value


class _Thread(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)
    id: str
    title: str | None
    system_prompt: str | None
    archived: int
    created_at: int
    last_active_at: int


class _Prompt(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)
    name: str
    content: str
    active: int
    priority: int
    created_at: int
    updated_at: int


class _File(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)
    path: str
    text: str


class _Payload(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)
    memories: list[_Memory]
    threads: list[_Thread]
    global_prompts: list[_Prompt]
    files: list[_File]
    redacted: int = 0  # texts whose secrets scrub() replaced (not part of the file)


def load(text: str, name: str = "archive") -> _Payload:
    """The validated payload of an archive, or ArchiveError saying why it is refused."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ArchiveError(f"{name} is damaged: not valid JSON ({exc}); nothing was imported") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ArchiveError(f"{name} is not a memvault archive (no \"format\": \"{FORMAT}\"); nothing was imported")
    version = document.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise ArchiveError(f"{name} has no valid version number; nothing was imported")
    if version > VERSION:
        raise ArchiveError(
            f"{name} is archive version {version}, written by a newer memvault; this one reads version {VERSION}. "
            "Upgrade memvault to import it; nothing was imported"
        )
    if version < 1:
        raise ArchiveError(f"{name} has unknown archive version {version}; nothing was imported")
    payload = document.get("payload")
    if not isinstance(payload, dict) or document.get("sha256") != checksum(payload):
        raise ArchiveError(
            f"{name} is damaged: its sha256 checksum does not match its content (edited or truncated); "
            "nothing was imported"
        )
    try:
        parsed = _Payload.model_validate(payload)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ArchiveError(f"{name} is damaged: {where}: {first['msg']}; nothing was imported") from None
    except (InvalidInput, ValueError) as exc:
        raise ArchiveError(f"{name} is damaged: {exc}; nothing was imported") from None
    for m in parsed.memories:
        text_of_record = m.original.content if m.original else m.content
        if content_hash(text_of_record) != m.content_hash:
            raise ArchiveError(f"{name} is damaged: memory {m.id}'s text does not match its content_hash; nothing was imported")
    for f in parsed.files:
        if not _FILE_PATH.fullmatch(f.path):
            raise ArchiveError(f"{name} names a file {f.path!r} outside the memory files; nothing was imported")
    return scrub(parsed)


def scrub(payload: _Payload) -> _Payload:
    """Secrets in every text of a verified archive replaced, as remember would have (an archive
    from another tool, or from before a pattern existed, must not bring them in).

    A memory whose text changes gets the content hash of its new text, so importing the same
    archive again finds it present, and verification compares what was stored.
    """
    changed = 0

    def clean(text: str) -> str:
        nonlocal changed
        found = redact(text)
        changed += found.changed
        return found.text

    for m in payload.memories:
        m.content = clean(m.content)
        m.tags = [clean(t) for t in m.tags]
        if m.original is not None:
            m.original.content = clean(m.original.content)
        m.content_hash = content_hash(m.original.content if m.original else m.content)
    for t in payload.threads:
        t.title = None if t.title is None else clean(t.title)
        t.system_prompt = None if t.system_prompt is None else clean(t.system_prompt)
    for p in payload.global_prompts:
        p.name, p.content = clean(p.name), clean(p.content)
    for f in payload.files:
        f.text = clean(f.text)
    payload.redacted = changed
    return payload


def archive_path(folder: Path, name: str) -> Path:
    """`name` inside the archives folder; anything that could leave it is refused."""
    parts = name.split("/") if isinstance(name, str) else []
    if (
        not parts or len(parts) > 3 or not name.endswith(".json")
        or not all(_NAME_PART.fullmatch(p) and ".." not in p for p in parts)
    ):
        raise InvalidInput(
            f"invalid archive name {str(name)[:80]!r}: give a file name from the archives folder as export "
            "reported it, e.g. 'memvault-2026-05-04T093000.json' (no absolute paths, no '..')"
        )
    root = folder.resolve()
    path = (folder / name).resolve()
    if root not in path.parents:
        raise InvalidInput(f"archive {name!r} is outside the archives folder")
    if not path.is_file():
        raise NotFound(f"No archive {name!r} in the archives folder; export one first, or check the name")
    return path


# -- import ------------------------------------------------------------------------


class _DryRun(Exception):
    """Raised inside the import transaction to roll a preview back; carries the preview out."""

    def __init__(self, preview: Restored) -> None:
        super().__init__("preview rolled back")
        self.preview = preview


def _row(m: _Memory) -> MemoryRow:
    return MemoryRow(
        id=m.id, thread=m.thread or "", content=m.content, kind=m.kind, source=m.source, origin=m.origin,
        importance=m.importance, tags=tuple(m.tags), content_hash=m.content_hash,
        created_at=_ms(m.created_at), updated_at=_ms(m.updated_at), deleted_at=_ms(m.deleted_at),  # type: ignore[arg-type]
        superseded_by=m.superseded_by, recall_count=m.recall_count, last_recalled_at=_ms(m.last_recalled_at),
        pinned=m.pinned, compression=m.compression,
    )


def restore(service: MemoryService, payload: _Payload, commit: bool, progress: Progress | None = None) -> Restored:
    """Insert what is missing, in one transaction (rolled back when `commit` is False)."""
    store: Curation = service.store
    try:
        with service.db.write() as conn:
            mapping: dict[int, int] = {}
            inserted: list[tuple[int, _Memory]] = []
            relink: list[tuple[int, _Memory]] = []  # present, but maybe without the link (split archives)
            present = merged = remapped = 0
            total = len(payload.memories)
            for n, m in enumerate(sorted(payload.memories, key=lambda m: m.id), 1):
                row = _row(m)
                same = store.find_identity(conn, row.thread, row.content_hash, row.created_at)
                if same is None and row.deleted_at is None:
                    same = store.find_live(conn, row.thread, row.content_hash)
                    merged += same is not None
                if same is not None:
                    mapping[m.id] = same
                    present += 1
                    if m.superseded_by is not None:
                        relink.append((same, m))
                else:
                    wanted = None if store.id_taken(conn, m.id) else m.id
                    remapped += wanted is None
                    original = None if m.original is None else Original(m.original.content, _ms(m.original.compressed_at))  # type: ignore[arg-type]
                    mapping[m.id] = store.insert_archived(conn, wanted, row, original, index_text(row.content))  # type: ignore[arg-type]
                    inserted.append((mapping[m.id], m))
                if progress and (n % 500 == 0 or n == total):
                    progress(n, total)
            links = 0
            unlinked = {i for i, _ in relink if store.get([i])[i].superseded_by is None}
            for new_id, m in inserted + [(i, m) for i, m in relink if i in unlinked]:
                relinked = new_id in unlinked
                if m.superseded_by is not None:
                    target = mapping.get(m.superseded_by)
                    if target is None and store.get([m.superseded_by]):
                        target = m.superseded_by  # a subset archive: the replacement is already here
                    if target is not None:
                        store.link_superseded(conn, new_id, target)
                        links += relinked
            threads = sum(store.put_thread(conn, t.model_dump()) for t in payload.threads)
            prompts = sum(store.import_global_prompt(conn, p.model_dump()) for p in payload.global_prompts)
            report = Restored(
                mapping=mapping,
                inserted=[i for i, _ in inserted],
                counts=ImportCounts(
                    in_archive=total, imported=len(inserted), already_present=present, merged_same_text=merged,
                    new_ids=remapped, threads_added=threads, prompts_added=prompts, links_restored=links,
                    texts_redacted=payload.redacted,
                ),
            )
            if not commit:
                raise _DryRun(report)
    except _DryRun as rolled_back:
        return rolled_back.preview
    if report.inserted:
        service.indexer.notify()
    return report


def verify(service: MemoryService, payload: _Payload, mapping: dict[int, int]) -> tuple[int, int]:
    """Content hashes of the archive's memories (those in `mapping`) checked against the store:
    (how many match, how many do not)."""
    rows = service.store.get(list(mapping.values()))
    with service.db.read() as conn:
        originals = service.store.originals(conn, [r.id for r in rows.values() if r.compression])
    ok = bad = 0
    for m in payload.memories:
        if m.id not in mapping:
            continue
        row = rows.get(mapping[m.id])
        text = None if row is None else (originals[row.id].content if row.id in originals else row.content)
        if text is not None and content_hash(text) == m.content_hash == row.content_hash:  # type: ignore[union-attr]
            ok += 1
        else:
            bad += 1
    return ok, bad


def restore_files(service: MemoryService, payload: _Payload, commit: bool) -> FileReport:
    """Write the archive's memory files where missing; a differing file is kept, the copy saved beside."""
    root = service.settings.files_dir
    out = FileReport()
    stamp = service.clock().strftime("%Y-%m-%dT%H%M%S")
    for f in payload.files:
        target = root / f.path
        if not target.exists():
            out.written.append(f.path)
            if commit:
                target.parent.mkdir(parents=True, exist_ok=True)
                atomic_write(target, f.text)
        elif target.read_text(encoding="utf-8", errors="replace") == f.text:
            out.unchanged.append(f.path)
        else:
            copy = root / "imported" / stamp / f.path
            out.kept_existing.append(f"{f.path} (archived copy: {copy.relative_to(root)})")
            if commit:
                copy.parent.mkdir(parents=True, exist_ok=True)
                atomic_write(copy, f.text)
    return out


def archive_files(folder: Path) -> list[Path]:
    """The archives of a split export, in the order that restores every link: shared, then newest month first."""
    months = sorted((p for p in folder.glob("*/*.json")), reverse=True)
    shared = [folder / "shared.json"] if (folder / "shared.json").is_file() else []
    return shared + months


def import_file(service: MemoryService, path: Path, commit: bool = True, progress: Progress | None = None) -> ImportReport:
    """Validate, import (or preview) and verify one archive file."""
    limit = service.settings.max_archive_bytes
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise ArchiveError(f"cannot read {path.name}: {exc.strerror}; nothing was imported") from None
    if size > limit:
        raise ArchiveError(
            f"{path.name} is {size} bytes, over the import limit of {limit}; split the export by month "
            "(--split-by-month) or raise MEMVAULT_MAX_ARCHIVE_BYTES; nothing was imported"
        )
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ArchiveError(f"{path.name} is damaged: not UTF-8 text; nothing was imported") from None
    payload = load(text, path.name)
    restored = restore(service, payload, commit, progress)
    files = restore_files(service, payload, commit)
    inserted = set(restored.inserted)
    # A preview can only check what is already there; after a commit, everything is checked.
    mapping = restored.mapping if commit else {k: v for k, v in restored.mapping.items() if v not in inserted}
    verified, failed = verify(service, payload, mapping)
    counts = replace(
        restored.counts, files_written=len(files.written), files_kept_existing=len(files.kept_existing),
        verified=verified, verify_failed=failed,
    )
    return ImportReport(counts=counts, inserted=restored.inserted, files=files)
