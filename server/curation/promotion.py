"""``promote``: which memories earn a line in MEMORY.md, within its size cap.

Candidates are live memories, not superseded, not units of the memory files themselves
(a promoted line is indexed back as one: promoting it again would copy the file into
itself), and not yet promoted (by the store's record or by an id already in the file).
Pinned ones and those scoring at least MEMVAULT_PROMOTE_MIN_SCORE go in, best first,
until MEMVAULT_MEMORY_MAX_CHARS, except a memory that says what MEMORY.md already says
or what a better candidate says (updates.duplicate: the same text, or the same fact in
other words at the dedupe threshold). So a second run proposes nothing. A project's
memories go to its own section (`## Project: <thread>`; thread_prompt shows a thread
only its own); the lines and where they go are files.promote's (text in, text out).
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

from server import updates
from server.clock import from_millis, to_millis
from server.curation.plan import Plan, is_file_unit, listing, now
from server.curation.scoring import retention_score
from server.files import promote as memory_md
from server.files.atomic import atomic_write, backup
from server.files.folder import MEMORY_FILE
from server.files.index import unit_content
from server.files.markdown import parse_markdown_units
from server.service import MemoryService
from server.storage.protocol import MemoryRow
from server.threads import thread_scope

if TYPE_CHECKING:  # NumPy loads where vectors are compared (_already_said), not at import: see linking.duplicates
    import numpy as np


def promote(service: MemoryService, thread: str | None = None) -> Plan:
    at = now(service)
    files, store, settings = service.files, service.store, service.settings
    files.install_templates()
    text = files.read_memory()
    in_file = memory_md.promoted_ids(text)
    with service.db.read() as conn:
        done = store.promoted(conn)
        rows = store.rows(conn, thread_scope(thread))
        candidates = [
            r for r in rows
            if r.superseded_by is None and not is_file_unit(r) and r.id not in done and r.id not in in_file
        ]
        originals = store.originals(conn, [r.id for r in candidates if r.compression])
    scored = [(retention_score(r, at), r) for r in candidates]
    chosen = sorted(
        ((s, r) for s, r in scored if r.pinned or s >= settings.promote_min_score),
        key=lambda p: (-p[0], p[1].created_at, p[1].id),
    )
    said = _already_said(service, text, [r for _, r in chosen])
    cap = settings.memory_max_chars
    size = len(text)
    entries: dict[str, list[str]] = {}
    picked: list[tuple[MemoryRow, str, str]] = []
    left_out: list[int] = []
    repeats: list[tuple[int, str]] = []
    for score, row in chosen:
        repeat = said(row)
        if repeat:
            repeats.append((row.id, repeat))
            continue
        section = memory_md.section_for(row.kind, row.thread)
        body = originals[row.id].content if row.id in originals else row.content
        day = from_millis(row.created_at).date().isoformat() if row.kind == "decision" else None
        line = memory_md.entry(body, row.id, daily_source(service, row), day)
        grow = len(line) + 1 + (0 if section in entries or f"## {section}" in text else len(section) + 6)
        if size + grow > cap:
            left_out.append(row.id)
            continue
        size += grow
        entries.setdefault(section, []).append(line)
        picked.append((row, section, line))

    def apply() -> None:
        stamp = service.clock()
        current = files.read_memory()
        # Re-check the file: a person may have added entries since the preview.
        fresh = {s: [l for l in ls if not (memory_md.promoted_ids(l) & memory_md.promoted_ids(current))]
                 for s, ls in entries.items()}
        backup(files.memory_path, stamp)
        atomic_write(files.memory_path, memory_md.insert(current, fresh, stamp.date().isoformat()))
        store.record_promotions([(row.id, section) for row, section, _ in picked], to_millis(stamp))

    details = [{"id": r.id, "section": s, "entry": line} for r, s, line in picked]
    details += [{"id": i, "skipped": why} for i, why in repeats]
    details += [{"id": i, "skipped": f"MEMORY.md would exceed {cap} characters"} for i in left_out]
    counts = {"promoted": len(picked), "candidates": len(chosen), "skipped_already_said": len(repeats),
              "left_out_by_size_cap": len(left_out), "memory_md_chars": size}
    summary = f"{len(picked)} memories into MEMORY.md ({listing([r.id for r, _, _ in picked])})"
    if repeats:
        summary += f"; {len(repeats)} skipped as saying what MEMORY.md or a better candidate already says"
    if left_out:
        summary += (f"; size cap of {cap} characters reached, {len(left_out)} candidates left out "
                    "(raise MEMVAULT_MEMORY_MAX_CHARS or tidy MEMORY.md)")
    return Plan(counts, [r.id for r, _, _ in picked], details, summary, apply)


def _already_said(service: MemoryService, text: str, candidates: list[MemoryRow]):  # noqa: ANN202
    """A check, in candidate order: the reason a candidate repeats MEMORY.md (any of its bullets) or a
    better candidate checked before it, or None. Similar wording counts at the dedupe threshold when
    the embedding model is at hand; without it, only equal text does."""
    bullets = [unit_content(u.text) for u in parse_markdown_units(text, MEMORY_FILE)]
    vectors = _vectors(service, [r.content for r in candidates] + bullets)
    threshold = service.settings.dedupe_threshold
    kept: list[tuple[str, np.ndarray | None, str]] = [
        (b, vectors[len(candidates) + i] if vectors is not None else None, "MEMORY.md already says it")
        for i, b in enumerate(bullets)
    ]
    position = {r.id: i for i, r in enumerate(candidates)}

    # lazy: NumPy, ~0.1 s of CPU before a stdio server's `initialize` reply otherwise (linking.duplicates)
    import numpy as np

    def said(row: MemoryRow) -> str | None:
        mine = vectors[position[row.id]] if vectors is not None else None
        for other, vector, why in kept:
            cosine = float(np.dot(mine, vector)) if mine is not None and vector is not None else None
            if updates.duplicate(row.content, other, cosine, threshold):
                return why
        kept.append((row.content, mine, f"repeats memory {row.id}, a better candidate"))
        return None

    return said


def _vectors(service: MemoryService, texts: list[str]) -> np.ndarray | None:
    """Unit embeddings of `texts`, or None when the model is not available."""
    if not texts or not service.embedder.wait_ready(service.settings.model_wait_seconds):
        return None
    return service.embedder.embed(texts)


def daily_source(service: MemoryService, row: MemoryRow) -> str | None:
    """`daily/<day>.md:<line>` of the memory's line in the daily log, when there is one."""
    created = from_millis(row.created_at)
    for day in (created.date(), (created - timedelta(days=1)).date(), (created + timedelta(days=1)).date()):
        try:
            entries = service.files.daily_entries(day)
        except FileNotFoundError:
            continue
        for e in entries:
            if e.id == row.id:
                return f"daily/{day.isoformat()}.md:{e.line}"
    return None

