"""The JSON archive format: export a store (or a thread / date range) and import it back exactly.

This module is the format only (documents, writing, loading and validation, restore
into a store, verification); the CLI and curate_memory's export/import actions
(curation.curator) drive it. An import reports what it did as an ``ImportReport``.

Format (``format: "memvault-archive"``, ``version: 1``), indented UTF-8 JSON::

    {"format", "version", "exported_at", "memvault_version", "namespace", "scope", "counts",
     "sha256": sha256 of the canonical JSON of "payload" (sorted keys, no spaces),
     "payload": {"memories": [...every field, forgotten, superseded and compressed ones too,
                               a compressed memory's archived original in "original", a memory
                               file's unit with its "file_key", "file_line", "file_section"...],
                 "threads": [...with their prompts...], "global_prompts": [...],
                 "files": [{"path": "MEMORY.md" | "SOUL.md" | "daily/YYYY-MM-DD.md", "text"}],
                 "messages": [{"thread", "role", "content", "created_at"}: the recent-message windows],
                 "promotions": [{"memory_id", "section", "promoted_at"}: what promote put in MEMORY.md]}}

"messages", "promotions" and the file keys came later in version 1: an older archive
imports as before, except its file units (they carry no key; the file index rebuilds
them from the archived files) -- `file_units_skipped` counts them.

Times are ISO-8601 UTC to the millisecond, so they round-trip exactly. ``--split-by-month``
writes one self-contained archive per month of creation (``YYYY/YYYY-MM.json``) plus
``shared.json`` (threads, prompts, MEMORY.md, SOUL.md). A link to a memory in a later
month is made when that month is imported newest-first, or repaired by importing again;
``memvault import FOLDER`` imports shared.json, then the months newest first.

Import checks everything before changing anything (format, version, checksum, every
field, every content hash), then inserts in one transaction: ids, timestamps, tags,
threads and prompts are kept; a memory already present (same thread, text and creation
time) is skipped, so importing twice adds nothing; an id taken by another memory gets a
new id (links follow). A thread the import adds gets its archived message window. Memory files are written only where missing: a file that exists
and differs is kept, and the archived copy is saved under ``files/imported/``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any


from server import __version__
from server import validation as check
from server.clock import iso, to_millis
from server.errors import InvalidInput, NotFound
from server.files.atomic import atomic_write
from server.service import MemoryService, content_hash
from server.files.index import FILE_SOURCE
from server.storage.protocol import Copying, MemoryRow, Original, PossibleUpdate, Promotion, ThreadMessage
from server.textindex import index_text
from server.threads import thread_scope
from server.curation.archive_load import (  # noqa: F401 -- the format's names, re-exported
    FORMAT, VERSION, ArchiveError, _Memory, _Payload, _ms, checksum, load, scrub,
)

_NAME_PART = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class ImportCounts:
    """The figures of one import (or its preview), in the order the CLI and curate_memory show them."""

    in_archive: int = 0
    imported: int = 0
    already_present: int = 0  # the same thread, text and creation time, or the same live text
    merged_same_text: int = 0  # of those, a live memory with the same text but another creation time
    file_units_skipped: int = 0  # units of memory files in an archive too old to carry their keys
    new_ids: int = 0  # imported under a new id: the archived one was taken by another memory
    threads_added: int = 0
    prompts_added: int = 0
    links_restored: int = 0  # supersede links made for memories already present (split archives)
    messages_added: int = 0  # recent-message windows of the threads this import added
    promotions_added: int = 0
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


def _iso(ms: int | None) -> str | None:
    return None if ms is None else iso(ms)


# -- export ----------------------------------------------------------------------


def _memory_record(row: MemoryRow, original: Original | None, file_key: str | None,
                   possible: Sequence[PossibleUpdate]) -> dict[str, Any]:
    return {
        "id": row.id, "thread": row.thread or None, "content": row.content, "kind": row.kind,
        "source": row.source, "origin": row.origin, "importance": row.importance, "tags": list(row.tags),
        "content_hash": row.content_hash, "created_at": iso(row.created_at), "updated_at": iso(row.updated_at),
        "deleted_at": _iso(row.deleted_at), "superseded_by": row.superseded_by,
        "recall_count": row.recall_count, "last_recalled_at": _iso(row.last_recalled_at),
        "pinned": row.pinned, "compression": row.compression,
        "original": None if original is None else {"content": original.content, "compressed_at": iso(original.compressed_at)},
        # A unit of a memory file: where it is (its key is what the file index knows it by).
        "file_key": file_key, "file_line": row.file_line, "file_section": row.file_section,
        # The most probable one alone, as archives before several were recorded per memory read it, then all.
        "possible_update": None if not possible else {"older": possible[0].older, "probability": possible[0].probability},
        "possible_updates": [{"older": p.older, "probability": p.probability} for p in possible],
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
    store: Copying = service.store
    with service.db.read() as conn:
        rows = store.rows(conn, stored_thread, deleted=None, since=lo, until=hi)
        originals = store.archived_originals(conn, stored_thread)
        threads = store.threads(conn, stored_thread or None) if stored_thread != "" else []
        prompts = store.export_global_prompts(conn)
        keys = {unit.id: key for source in {r.source for r in rows if r.source.startswith(FILE_SOURCE)}
                for key, unit in store.file_units(conn, source).items()}
        exported = {t["id"] for t in threads}
        messages = [_message_record(m) for m in store.dump_messages(conn) if m.thread in exported]
        ids = {r.id for r in rows}
        promotions = [_promotion_record(p) for p in store.promotions(conn) if p.memory_id in ids]
        possible = service.store.possible_updates_all(conn)  # one read
    records = []
    for n, row in enumerate(rows, 1):
        records.append(_memory_record(row, originals.get(row.id), keys.get(row.id), possible.get(row.id, [])))
        if progress and (n % 500 == 0 or n == len(rows)):
            progress(n, len(rows))
    scope = {"thread": thread, "since": since, "until": until}
    whole = stored_thread is None
    if not split_by_month:
        payload = {"memories": records, "threads": threads, "global_prompts": prompts,
                   "files": _files(service, lo, hi, shared=whole, days=whole), "messages": messages,
                   "promotions": promotions}
        return {"archive.json": _document(service, scope, payload)}
    by_month: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        by_month.setdefault(record["created_at"][:7], []).append(record)
    out = {}
    for month, items in sorted(by_month.items()):
        used = {r["thread"] for r in items}
        month_lo = _ms(f"{month}-01T00:00:00Z")
        nxt = _ms(f"{int(month[:4]) + (month[5:] == '12')}-{int(month[5:]) % 12 + 1:02d}-01T00:00:00Z") - 1
        in_month = {r["id"] for r in items}
        payload = {"memories": items, "threads": [t for t in threads if t["id"] in used], "global_prompts": [],
                   "files": _files(service, month_lo, nxt, shared=False, days=whole), "messages": [],
                   "promotions": [p for p in promotions if p["memory_id"] in in_month]}
        out[f"{month[:4]}/{month}.json"] = _document(service, {**scope, "month": month}, payload)
    shared = {"memories": [], "threads": threads, "global_prompts": prompts,
              "files": _files(service, None, None, shared=whole, days=False), "messages": messages, "promotions": []}
    out["shared.json"] = _document(service, {**scope, "shared": True}, shared)
    return out


def _message_record(m: ThreadMessage) -> dict[str, Any]:
    return {"thread": m.thread, "role": m.role, "content": m.content, "created_at": iso(m.created_at)}


def _promotion_record(p: Promotion) -> dict[str, Any]:
    return {"memory_id": p.memory_id, "section": p.section, "promoted_at": iso(p.promoted_at)}


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
        pinned=m.pinned, compression=m.compression, file_line=m.file_line, file_section=m.file_section,
    )


def restore(service: MemoryService, payload: _Payload, commit: bool, progress: Progress | None = None) -> Restored:
    """Insert what is missing, in one transaction (rolled back when `commit` is False)."""
    store: Copying = service.store
    legacy = {m.id for m in payload.legacy_units()}
    memories = [m for m in payload.memories if m.id not in legacy]
    try:
        with service.store.transaction() as conn:
            mapping: dict[int, int] = {}
            inserted: list[tuple[int, _Memory]] = []
            relink: list[tuple[int, _Memory]] = []  # present, but maybe without the link (split archives)
            present = merged = remapped = 0
            total = len(memories)
            for n, m in enumerate(sorted(memories, key=lambda m: m.id), 1):
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
                    # A file unit is indexed with its section, as the file index does.
                    text = index_text(row.content, (m.file_section or None) if m.file_unit else None)
                    mapping[m.id] = store.insert_archived(conn, wanted, row, original, text, m.file_key)  # type: ignore[arg-type]
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
            for new_id, m in inserted:
                several = []
                for maybe in m.possible_updates or ([m.possible_update] if m.possible_update is not None else []):
                    older = mapping.get(maybe.older)
                    if older is None and store.get([maybe.older]):
                        older = maybe.older  # a subset archive: the older memory is already here
                    if older is not None:
                        several.append(PossibleUpdate(older, maybe.probability))
                if several:
                    service.store.set_possible_update(conn, new_id, several)
            added = {t.id for t in payload.threads if store.put_thread(conn, t.model_dump())}
            prompts = sum(store.import_global_prompt(conn, p.model_dump()) for p in payload.global_prompts)
            # A thread already here keeps its own window; one this import adds gets the archived one.
            messages = [ThreadMessage(m.thread, m.role, m.content, _ms(m.created_at))  # type: ignore[arg-type]
                        for m in payload.messages if m.thread in added]
            store.load_messages(conn, messages)
            done = store.promoted(conn)
            promotions = [(mapping[p.memory_id], p) for p in payload.promotions
                          if p.memory_id in mapping and mapping[p.memory_id] not in done]
            for memory_id, p in promotions:
                store.record_promotion(conn, memory_id, p.section, _ms(p.promoted_at))  # type: ignore[arg-type]
            report = Restored(
                mapping=mapping,
                inserted=[i for i, _ in inserted],
                counts=ImportCounts(
                    in_archive=total, imported=len(inserted), already_present=present, merged_same_text=merged,
                    file_units_skipped=len(legacy), new_ids=remapped, threads_added=len(added), prompts_added=prompts,
                    links_restored=links, messages_added=len(messages), promotions_added=len(promotions),
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
        if row is not None and m.file_unit:  # hashed by file and key: the text must be the archived one
            good = row.content == m.content and row.content_hash == m.content_hash
        else:
            good = text is not None and content_hash(text) == m.content_hash == row.content_hash  # type: ignore[union-attr]
        ok += good
        bad += not good
    return ok, bad


def restore_files(service: MemoryService, payload: _Payload, commit: bool) -> FileReport:
    """Write the archive's memory files where missing (or still the untouched template a new store
    starts with); a differing file is kept, the copy saved beside."""
    root = service.settings.files_dir
    out = FileReport()
    stamp = service.clock().strftime("%Y-%m-%dT%H%M%S")
    for f in payload.files:
        target = root / f.path
        if not target.exists() or _untouched_template(service, f.path, target):
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


def _untouched_template(service: MemoryService, name: str, target: Path) -> bool:
    """Whether `target` is SOUL.md or MEMORY.md exactly as the template installed it (nobody's
    words: an archive's copy replaces it, so a whole store round-trips into a new one)."""
    template = service.files.templates / name
    try:
        return "/" not in name and template.is_file() and target.read_bytes() == template.read_bytes()
    except OSError:
        return False


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
