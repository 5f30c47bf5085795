"""The curator: keeps memory small and true without losing anything a person cannot get back.

Every action is previewed by default (``dry_run=True``) and reports what it changed or
would change; every applied change is written to the curation log of the day's daily
file. Nothing here runs unless asked (see ``run_scheduled`` for the opt-in start-up job).

Reversibility: dedupe and supersede only link memories (``superseded_by``); compress
archives the original first; forget is a soft delete. ``restore`` undoes all three. Only
``purge`` erases, and only memories already forgotten, named by id or by age.

Retention score (0..1), used to rank promotion candidates and shown by ``retention``::

    pinned                     -> 1.0
    otherwise  0.35 * kind weight        (decision, preference 1.0; fact 0.7; summary 0.6;
                                          snippet 0.5; task, note 0.4; event 0.3)
             + 0.25 * importance
             + 0.20 * min(1, ln(1 + recall_count) / ln(11))     (10 recalls = full marks)
             + 0.20 * 0.5 ** (days since created or last recalled / 90)

Pinned memories and those with importance >= 0.9 are exempt from compression and dedupe.
"""

from __future__ import annotations

import hashlib
import logging
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import numpy as np

from server.curation import compress as tiers
from server.files import promote
from server import validation as check
from server.clock import from_millis, iso, to_millis
from server.config import templates_dir
from server.errors import InvalidInput, NotFound
from server.files.folder import MemoryFiles
from server.files.atomic import backup, atomic_write
from server.models import CurateResult
from server.service import MemoryService, content_hash
from server.storage.protocol import Curation, MemoryRow, MemoryState
from server.textindex import index_text

log = logging.getLogger(__name__)

ACTIONS = (
    "promote", "dedupe", "supersede", "compress", "restore", "retention", "pin", "unpin",
    "forget-list", "forget-matching", "purge", "stats", "export", "import",
)
KIND_WEIGHT = {
    "decision": 1.0, "preference": 1.0, "fact": 0.7, "summary": 0.6,
    "snippet": 0.5, "task": 0.4, "note": 0.4, "event": 0.3, "turn": 0.3,
}
IMPORTANT = 0.9
DAY_MS = 86_400_000
#: Parameters each action accepts besides dry_run; anything else is a caller mistake.
PARAMS = {
    "promote": {"thread"},
    "dedupe": {"thread", "threshold"},
    "supersede": {"ids", "replacement_id"},
    "compress": {"thread", "ids"},
    "restore": {"ids"},
    "retention": {"thread", "ids"},
    "pin": {"ids"},
    "unpin": {"ids"},
    "forget-list": {"thread"},
    "forget-matching": {"thread", "since", "until", "origin", "source"},
    "purge": {"ids", "older_than_days"},
    "stats": set(),
    "export": {"thread", "since", "until", "split_by_month"},
    "import": {"archive"},
}


def retention_score(row: MemoryRow, now: int) -> float:
    if row.pinned:
        return 1.0
    use = min(1.0, math.log1p(row.recall_count) / math.log(11))
    days = max(0, now - max(row.created_at, row.last_recalled_at or 0)) / DAY_MS
    recency = 0.5 ** (days / 90)
    kind = KIND_WEIGHT.get(row.kind, 0.4)
    return round(0.35 * kind + 0.25 * row.importance + 0.2 * use + 0.2 * recency, 4)


def exempt(row: MemoryRow) -> bool:
    return row.pinned or row.importance >= IMPORTANT


def normalised_hash(text: str) -> str:
    """Equal for texts that differ only in case, spacing or final punctuation."""
    return hashlib.sha256(" ".join(text.lower().split()).rstrip(".!?;: ").encode()).hexdigest()


@dataclass
class Plan:
    """What an action does: applied only when not a dry run."""

    counts: dict[str, int | float]
    ids: list[int]
    details: list[dict[str, Any]]
    summary: str  # one line for the reply and the curation log, e.g. "superseded 2 memories"
    apply: Callable[[], dict[str, Any] | None] | None = None
    changes: int | None = None  # how many changes applying makes; default len(ids)


class Curator:
    def __init__(self, service: MemoryService) -> None:
        self.service = service
        self.store: Curation = service.store
        self.db = service.db
        self.settings = service.settings
        self.files = MemoryFiles(service.settings.files_dir, templates_dir())

    # -- entry point ----------------------------------------------------------
    def run(self, action: str, dry_run: bool = True, limit: int = 50, **params: Any) -> CurateResult:
        """Preview (dry_run) or apply one action; `limit` caps the detail rows returned."""
        if action not in PARAMS:
            raise InvalidInput(f"unknown action {action!r}; use one of: {', '.join(ACTIONS)}")
        given = {k for k, v in params.items() if v is not None}
        stray = given - PARAMS[action]
        if stray:
            allowed = ", ".join(sorted(PARAMS[action])) or "none besides dry_run"
            raise InvalidInput(f"{', '.join(sorted(stray))} does not apply to {action}; its parameters: {allowed}")
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 1000:
            raise InvalidInput("limit must be from 1 to 1000")
        method = getattr(self, "_" + action.replace("-", "_"))
        plan: Plan = method(**{k: v for k, v in params.items() if v is not None})
        changes = len(plan.ids) if plan.changes is None else plan.changes
        if not dry_run and plan.apply is not None and changes:
            after = plan.apply() or {}
            plan.counts.update(after.get("counts", {}))
            plan.details = after.get("details", []) + plan.details
            plan.summary = after.get("summary", plan.summary)
            self.log(f"{action}: {plan.summary}")
        shown = plan.details[:limit]
        more = len(plan.details) - len(shown)
        verb = "Would apply" if dry_run and plan.apply is not None else "Done"
        if plan.apply is None:
            verb = "Report"
        elif not changes:
            verb = "Nothing to do"
        message = f"{verb}: {action} — {plan.summary}."
        if dry_run and plan.apply is not None and changes:
            message += " Nothing changed yet; call again with dry_run=false to apply."
        if more:
            message += f" {more} more detail rows not shown (raise limit)."
        return CurateResult(
            action=action, dry_run=dry_run, counts=plan.counts, ids=plan.ids, details=shown, message=message
        )

    def log(self, text: str) -> None:
        """One line in today's curation log; the database is the record, so a failure only warns."""
        try:
            self.files.append_curation(self.service.clock(), text)
        except OSError as exc:
            log.warning("could not write the curation log: %s", exc)

    # -- helpers --------------------------------------------------------------
    def _now(self) -> int:
        return to_millis(self.service.clock())

    def _thread(self, thread: str | None) -> str | None:
        """None = every thread; 'global' = the global memories."""
        if thread is None or thread == "*":
            return None
        if thread == "global":
            return ""
        return check.thread_name(thread)

    def _ids(self, ids: Sequence[int] | None, action: str) -> list[int]:
        if not ids:
            raise InvalidInput(f"{action} needs ids: the memory ids to act on, as returned by recall")
        return list(dict.fromkeys(check.memory_id(i) for i in ids))

    def _existing(self, ids: list[int]) -> dict[int, MemoryRow]:
        rows = self.store.get(ids)
        missing = [i for i in ids if i not in rows]
        if missing:
            raise NotFound(
                f"No memory {', '.join(map(str, missing))}; use recall or curate_memory(action='forget-list') "
                "to find current ids."
            )
        return rows

    def _live(self, thread: str | None = None) -> list[MemoryRow]:
        with self.db.read() as conn:
            return self.store.rows(conn, self._thread(thread))

    # -- retention ------------------------------------------------------------
    def _retention(self, thread: str | None = None, ids: list[int] | None = None) -> Plan:
        now = self._now()
        rows = list(self._existing(self._ids(ids, "retention")).values()) if ids else self._live(thread)
        scored = sorted(((retention_score(r, now), r) for r in rows), key=lambda p: (-p[0], p[1].id))
        details = [
            {
                "id": r.id, "score": s, "kind": r.kind, "importance": r.importance, "pinned": r.pinned,
                "recall_count": r.recall_count, "age_days": round((now - r.created_at) / DAY_MS, 1),
                "exempt_from_compression": exempt(r),
            }
            for s, r in scored
        ]
        mean = round(sum(s for s, _ in scored) / len(scored), 4) if scored else 0.0
        counts = {"memories": len(rows), "exempt": sum(exempt(r) for r in rows), "mean_score": mean}
        return Plan(counts, [r.id for _, r in scored], details, f"{len(rows)} memories scored, highest first")

    # -- pin ------------------------------------------------------------------
    def _pin(self, ids: list[int] | None = None, pinned: bool = True) -> Plan:
        rows = self._existing(self._ids(ids, "pin" if pinned else "unpin"))
        change = [i for i, r in rows.items() if r.pinned != pinned]

        def apply() -> None:
            now = self._now()
            with self.db.write() as conn:
                for memory_id in change:
                    self.store.set_pinned(conn, memory_id, pinned, now)

        word = "pinned" if pinned else "unpinned"
        details = [{"id": i, "change": word} for i in change]
        return Plan({word: len(change)}, change, details, f"{word} {_list(change)}", apply)

    def _unpin(self, ids: list[int] | None = None) -> Plan:
        return self._pin(ids, pinned=False)

    # -- supersede and dedupe -------------------------------------------------
    def _supersede(self, ids: list[int] | None = None, replacement_id: int | None = None) -> Plan:
        if replacement_id is None:
            raise InvalidInput("supersede needs replacement_id (the newer memory) and ids (the memories it replaces)")
        old = self._ids(ids, "supersede")
        new = check.memory_id(replacement_id)
        rows = self._existing([*old, new])
        if new in old:
            raise InvalidInput(f"memory {new} cannot replace itself; list only the older memories in ids")
        for memory_id in [new, *old]:
            if rows[memory_id].deleted_at is not None:
                raise InvalidInput(f"memory {memory_id} is forgotten; restore it first or pick a live memory")
        # Following the replacement's own chain must not lead back to a memory it replaces.
        seen, cursor = {new}, rows[new].superseded_by
        while cursor is not None and cursor not in seen:
            if cursor in old:
                raise InvalidInput(f"memory {cursor} already (indirectly) replaces {new}; that would make a cycle")
            seen.add(cursor)
            step = self.store.get([cursor]).get(cursor)
            cursor = step.superseded_by if step else None
        change = [i for i in old if rows[i].superseded_by != new]

        def apply() -> None:
            now = self._now()
            with self.db.write() as conn:
                for memory_id in change:
                    self.store.set_superseded(conn, memory_id, new, now)

        details = [{"id": i, "superseded_by": new, "was": rows[i].superseded_by} for i in change]
        return Plan({"superseded": len(change)}, change, details, f"{_list(change)} superseded by {new}", apply)

    def _dedupe(self, thread: str | None = None, threshold: float | None = None) -> Plan:
        limit = self.settings.dedupe_threshold if threshold is None else threshold
        if isinstance(limit, bool) or not isinstance(limit, (int, float)) or not 0.0 < limit <= 1.0:
            raise InvalidInput("threshold is a cosine similarity in (0, 1], e.g. 0.92")
        rows = [r for r in self._live(thread) if r.superseded_by is None]
        by_thread: dict[str, list[MemoryRow]] = {}
        for row in rows:
            by_thread.setdefault(row.thread, []).append(row)
        pairs: list[tuple[int, int, float, str]] = []  # (older, survivor, similarity, reason)
        for group in by_thread.values():
            pairs += self._duplicates(group, float(limit))
        ids = [older for older, *_ in pairs]

        def apply() -> None:
            now = self._now()
            with self.db.write() as conn:
                for older, survivor, _, _ in pairs:
                    self.store.set_superseded(conn, older, survivor, now)

        details = [
            {"id": o, "superseded_by": s, "similarity": round(sim, 4), "reason": why} for o, s, sim, why in pairs
        ]
        survivors = len({s for _, s, _, _ in pairs})
        counts = {"checked": len(rows), "superseded": len(pairs), "survivors": survivors, "threshold": float(limit)}
        summary = f"{len(pairs)} duplicates in {survivors} groups" + (
            f" superseded by the newest wording ({_pairs(pairs)})" if pairs else ""
        )
        return Plan(counts, ids, details, summary, apply)

    def _duplicates(self, group: list[MemoryRow], threshold: float) -> list[tuple[int, int, float, str]]:
        """Newest first: each memory not yet claimed keeps older near-copies as its duplicates."""
        if len(group) < 2:
            return []
        group = sorted(group, key=lambda r: (-r.created_at, -r.id))
        with self.db.read() as conn:
            stored = self.store.vectors(conn, [r.id for r in group])
        missing = [r for r in group if r.id not in stored]
        if missing:  # not embedded yet: compute here, without storing
            for row, vector in zip(missing, self.service.embedder.embed([r.content for r in missing])):
                stored[row.id] = vector
        matrix = np.stack([np.asarray(stored[r.id], dtype=np.float32) for r in group])
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        matrix = matrix / np.where(norms == 0, 1, norms)
        hashes = [normalised_hash(r.content) for r in group]
        claimed: set[int] = set()
        out = []
        for i, survivor in enumerate(group):
            if i in claimed:
                continue
            sims = matrix[i + 1 :] @ matrix[i]
            for offset, sim in enumerate(sims):
                j = i + 1 + offset
                if j in claimed or exempt(group[j]):
                    continue
                if hashes[j] == hashes[i]:
                    out.append((group[j].id, survivor.id, 1.0, "same text"))
                elif sim >= threshold:
                    out.append((group[j].id, survivor.id, float(sim), "similar"))
                else:
                    continue
                claimed.add(j)
        return out

    # -- compress and restore -------------------------------------------------
    def _compress(self, thread: str | None = None, ids: list[int] | None = None) -> Plan:
        now = self._now()
        if ids:
            rows = [r for r in self._existing(self._ids(ids, "compress")).values() if r.deleted_at is None]
        else:
            rows = self._live(thread)
        with self.db.read() as conn:
            originals = self.store.originals(conn, [r.id for r in rows if r.compression])
        plans: list[tuple[MemoryRow, str, str]] = []
        skipped = {"exempt": 0, "too_short": 0}
        before = after = 0
        for row in rows:
            tier = tiers.tier_for_age(now - row.created_at)
            if not tiers.deeper(tier, row.compression):
                continue
            if exempt(row):
                skipped["exempt"] += 1
                continue
            source = originals[row.id].content if row.id in originals else row.content
            result = tiers.compress(source, tier, row.kind, row.created_at)
            if result is None or len(result) >= len(row.content):
                skipped["too_short"] += 1
                continue
            plans.append((row, tier, result))
            before += len(source)
            after += len(result)

        def apply() -> dict[str, Any] | None:
            stamp = self._now()
            changed = []
            with self.db.write() as conn:
                for row, tier, text in plans:
                    # The plan was read outside this transaction: a forget, restore or compress from
                    # another request or process may have landed since. Compressing such a row would
                    # re-index a forgotten memory or archive the wrong text as its original.
                    now_row = self.store.memory_state(conn, row.id)
                    if now_row is None or now_row != MemoryState(row.content, row.compression, None):
                        changed.append(row.id)
                        continue
                    original = row.content if row.compression is None else None
                    self.store.set_compressed(conn, row.id, text, tier, original, stamp, index_text(text))
            self.service.indexer.notify()
            if not changed:
                return None
            return {"counts": {"compressed": len(plans) - len(changed), "skipped_changed_meanwhile": len(changed)},
                    "details": [{"id": i, "skipped": "changed since the preview (forgotten, restored or "
                                 "compressed meanwhile)"} for i in changed]}

        details = [
            {
                "id": r.id, "tier": t, "chars_before": len(originals[r.id].content if r.id in originals else r.content),
                "chars_after": len(text),
                "ratio": round(len(text) / max(1, len(originals[r.id].content if r.id in originals else r.content)), 3),
                "text": text,
            }
            for r, t, text in plans
        ]
        ratio = round(after / before, 3) if before else 1.0
        counts = {"compressed": len(plans), "skipped_exempt": skipped["exempt"],
                  "skipped_too_short": skipped["too_short"], "chars_before": before, "chars_after": after,
                  "ratio": ratio}
        ids_out = [r.id for r, _, _ in plans]
        summary = f"{len(plans)} memories compressed to {ratio:.0%} of their length" + (
            f" ({_list(ids_out)}); originals archived, restore brings them back" if plans else ""
        )
        return Plan(counts, ids_out, details, summary, apply)

    def _restore(self, ids: list[int] | None = None) -> Plan:
        rows = self._existing(self._ids(ids, "restore"))
        with self.db.read() as conn:
            originals = self.store.originals(conn, list(rows))
            conflicts = {
                i: self.store.find_live(conn, r.thread, r.content_hash)
                for i, r in rows.items() if r.deleted_at is not None
            }
        steps: list[tuple[MemoryRow, list[str]]] = []
        details = []
        for memory_id, row in rows.items():
            todo = []
            if row.deleted_at is not None:
                if conflicts.get(memory_id):
                    details.append({"id": memory_id, "skipped": f"memory {conflicts[memory_id]} holds the same text"})
                    continue
                todo.append("undeleted")
            if row.compression is not None:
                original = originals[memory_id].content
                if content_hash(original) != row.content_hash:
                    raise InvalidInput(f"the archived original of memory {memory_id} does not match its hash; not restored")
                todo.append("original text back")
            if row.superseded_by is not None:
                todo.append(f"no longer superseded by {row.superseded_by}")
            if todo:
                steps.append((row, todo))
                details.append({"id": memory_id, "changes": todo})
            else:
                details.append({"id": memory_id, "skipped": "nothing to restore: live, full text, not superseded"})

        def apply() -> None:
            now = self._now()
            with self.db.write() as conn:
                for row, _ in steps:
                    text = originals[row.id].content if row.compression is not None else row.content
                    if row.compression is not None:
                        self.store.set_restored(conn, row.id, text, now, index_text(text))
                    if row.deleted_at is not None:
                        self.store.undelete(conn, row.id, now, index_text(text))
                    if row.superseded_by is not None:
                        self.store.set_superseded(conn, row.id, None, now)
            self.service.indexer.notify()

        ids_out = [r.id for r, _ in steps]
        counts = {
            "restored": len(steps),
            "undeleted": sum("undeleted" in t for _, t in steps),
            "decompressed": sum("original text back" in t for _, t in steps),
            "unsuperseded": sum(any(x.startswith("no longer") for x in t) for _, t in steps),
            "skipped": len(rows) - len(steps),
        }
        return Plan(counts, ids_out, details, f"restored {_list(ids_out)}", apply)

    # -- forgotten memories ---------------------------------------------------
    def _forget_list(self, thread: str | None = None) -> Plan:
        with self.db.read() as conn:
            rows = self.store.rows(conn, self._thread(thread), deleted=True)
        rows.sort(key=lambda r: (-(r.deleted_at or 0), -r.id))
        details = [
            {"id": r.id, "thread": r.thread or None, "kind": r.kind, "forgotten_at": iso(r.deleted_at or 0),
             "preview": r.content[:120]}
            for r in rows
        ]
        return Plan({"forgotten": len(rows)}, [r.id for r in rows], details,
                    f"{len(rows)} forgotten memories (restore brings one back; purge erases)")

    def _forget_matching(
        self,
        thread: str | None = None,
        since: str | None = None,
        until: str | None = None,
        origin: str | None = None,
        source: str | None = None,
    ) -> Plan:
        """Everything written in a time window and/or by one client or way in (e.g. after a poisoning)."""
        if since is None and until is None and origin is None and source is None:
            raise InvalidInput("forget-matching needs since/until (a time window), origin (a client) or source")
        start, end = check.timestamp(since, "since"), check.timestamp(until, "until")
        with self.db.read() as conn:
            rows = self.store.rows(
                conn, self._thread(thread), deleted=False,
                since=to_millis(start) if start else None, until=to_millis(end) if end else None,
            )
        rows = [
            r for r in rows
            if (origin is None or r.origin == origin) and (source is None or r.source == source)
            and not r.source.startswith("file:")  # a file's bullets go by editing the file
        ]
        details = [
            {"id": r.id, "thread": r.thread or None, "created_at": iso(r.created_at), "origin": r.origin,
             "source": r.source, "preview": r.content[:120]}
            for r in rows
        ]

        def apply() -> None:
            now = self._now()
            with self.db.write() as conn:
                for r in rows:
                    self.store.soft_delete(conn, r.id, now)

        return Plan({"forgotten": len(rows)}, [r.id for r in rows], details,
                    f"forgot {_list([r.id for r in rows])} (restore brings them back; purge erases)", apply)

    def _purge(self, ids: list[int] | None = None, older_than_days: int | None = None) -> Plan:
        if (ids is None) == (older_than_days is None):
            raise InvalidInput(
                "purge erases forgotten memories for good: name them with ids, or give older_than_days "
                "(forgotten more than that many days ago) — one of the two"
            )
        if ids is not None:
            rows = self._existing(self._ids(ids, "purge"))
            live = [i for i, r in rows.items() if r.deleted_at is None]
            if live:
                raise InvalidInput(
                    f"memory {', '.join(map(str, live))} is not forgotten; purge only erases forgotten memories "
                    "(call forget first)"
                )
            targets = list(rows.values())
        else:
            if isinstance(older_than_days, bool) or not isinstance(older_than_days, int) or older_than_days < 0:
                raise InvalidInput("older_than_days is a whole number of days, 0 or more")
            cutoff = self._now() - older_than_days * DAY_MS
            with self.db.read() as conn:
                targets = [r for r in self.store.rows(conn, None, deleted=True) if (r.deleted_at or 0) <= cutoff]
        gone = {r.id for r in targets}
        with self.db.read() as conn:
            chain = {r.id: r.superseded_by for r in self.store.rows(conn, None, deleted=None)}

        def successor(memory_id: int) -> int | None:
            nxt, seen = chain.get(memory_id), {memory_id}
            while nxt in gone and nxt not in seen:
                seen.add(nxt)
                nxt = chain.get(nxt)
            return None if nxt in gone else nxt

        def apply() -> None:
            with self.db.write() as conn:
                for row in targets:
                    self.store.hard_delete(conn, row.id, successor(row.id))

        ids_out = sorted(gone)
        details = [{"id": r.id, "forgotten_at": iso(r.deleted_at or 0), "erase": True} for r in targets]
        return Plan({"purged": len(ids_out)}, ids_out, details, f"erased {_list(ids_out)} for good", apply)

    # -- stats ----------------------------------------------------------------
    def _stats(self) -> Plan:
        with self.db.read() as conn:
            figures = self.store.stats(conn)
            rows = self.store.rows(conn)
            problems = self.store.integrity_errors(conn)
        current = [r for r in rows if r.superseded_by is None]
        seen: dict[tuple[str, str], int] = {}
        for r in current:
            key = (r.thread, normalised_hash(r.content))
            seen[key] = seen.get(key, 0) + 1
        extra = sum(n - 1 for n in seen.values())
        live = figures["live"]
        counts: dict[str, int | float] = {
            key: figures[key] for key in ("live", "deleted", "superseded", "pinned", "compressed", "pending_embeddings")
        }
        counts["exact_duplicates"] = extra
        counts["duplicate_rate"] = round(extra / live, 4) if live else 0.0
        counts["superseded_rate"] = round(figures["superseded"] / live, 4) if live else 0.0
        counts["database_bytes"] = figures["database_bytes"]
        counts["integrity_ok"] = 0 if problems else 1
        details: list[dict[str, Any]] = [
            {"oldest": iso(figures["oldest"]) if figures["oldest"] else None,
             "newest": iso(figures["newest"]) if figures["newest"] else None}
        ]
        details += [{"kind": k, "count": n} for k, n in figures["by_kind"].items()]
        details += [{"thread": t or "global", "count": n} for t, n in figures["by_thread"].items()]
        details += [{"compression": c or "full", "count": n} for c, n in figures["by_compression"].items()]
        if problems:
            details.append({"integrity_problems": problems[:10]})
        health = "healthy" if not problems else "DATABASE INTEGRITY PROBLEMS (see details)"
        summary = (
            f"{live} live memories, {figures['deleted']} forgotten, {figures['superseded']} superseded, "
            f"{figures['compressed']} compressed, exact duplicate rate {counts['duplicate_rate']:.1%}; {health}"
        )
        return Plan(counts, [], details, summary)

    # -- promote --------------------------------------------------------------
    def _promote(self, thread: str | None = None) -> Plan:
        now = self._now()
        self.files.install_templates()
        text = self.files.read_memory()
        in_file = promote.promoted_ids(text)
        with self.db.read() as conn:
            done = self.store.promoted(conn)
            rows = self.store.rows(conn, self._thread(thread))
            candidates = [r for r in rows if r.superseded_by is None and r.id not in done and r.id not in in_file]
            originals = self.store.originals(conn, [r.id for r in candidates if r.compression])
        scored = [(retention_score(r, now), r) for r in candidates]
        chosen = sorted(
            ((s, r) for s, r in scored if r.pinned or s >= self.settings.promote_min_score),
            key=lambda p: (-p[0], p[1].created_at, p[1].id),
        )
        cap = self.settings.memory_max_chars
        size = len(text)
        entries: dict[str, list[str]] = {}
        picked: list[tuple[MemoryRow, str, str]] = []
        left_out: list[int] = []
        for score, row in chosen:
            section = promote.section_for(row.kind, row.thread)
            body = originals[row.id].content if row.id in originals else row.content
            day = from_millis(row.created_at).date().isoformat() if row.kind == "decision" else None
            line = promote.entry(body, row.id, self._daily_source(row), day)
            grow = len(line) + 1 + (0 if section in entries or f"## {section}" in text else len(section) + 6)
            if size + grow > cap:
                left_out.append(row.id)
                continue
            size += grow
            entries.setdefault(section, []).append(line)
            picked.append((row, section, line))

        def apply() -> None:
            stamp = self.service.clock()
            current = self.files.read_memory()
            # Re-check the file: a person may have added entries since the preview.
            fresh = {s: [l for l in ls if not (promote.promoted_ids(l) & promote.promoted_ids(current))]
                     for s, ls in entries.items()}
            backup(self.files.memory_path, stamp)
            atomic_write(self.files.memory_path, promote.insert(current, fresh, stamp.date().isoformat()))
            with self.db.write() as conn:
                for row, section, _ in picked:
                    self.store.record_promotion(conn, row.id, section, to_millis(stamp))

        details = [{"id": r.id, "section": s, "entry": line} for r, s, line in picked]
        details += [{"id": i, "skipped": f"MEMORY.md would exceed {cap} characters"} for i in left_out]
        counts = {"promoted": len(picked), "candidates": len(chosen), "left_out_by_size_cap": len(left_out),
                  "memory_md_chars": size}
        summary = f"{len(picked)} memories into MEMORY.md ({_list([r.id for r, _, _ in picked])})"
        if left_out:
            summary += (f"; size cap of {cap} characters reached, {len(left_out)} candidates left out "
                        "(raise MEMVAULT_MEMORY_MAX_CHARS or tidy MEMORY.md)")
        return Plan(counts, [r.id for r, _, _ in picked], details, summary, apply)

    def _daily_source(self, row: MemoryRow) -> str | None:
        """`daily/<day>.md:<line>` of the memory's line in the daily log, when there is one."""
        created = from_millis(row.created_at)
        for day in (created.date(), (created - timedelta(days=1)).date(), (created + timedelta(days=1)).date()):
            try:
                entries = self.files.daily_entries(day)
            except FileNotFoundError:
                continue
            for e in entries:
                if e.id == row.id:
                    return f"daily/{day.isoformat()}.md:{e.line}"
        return None

    # -- archive --------------------------------------------------------------
    def _export(self, thread: str | None = None, since: str | None = None, until: str | None = None,
                split_by_month: bool | None = None) -> Plan:
        from server.curation import archive

        return archive.export_plan(self, thread, since, until, bool(split_by_month))

    def _import(self, archive: str | None = None) -> Plan:
        from server.curation import archive as archives

        if not archive:
            raise InvalidInput("import needs archive: a file name in the archives folder, as export reported it")
        return archives.import_plan(self, archives.archive_path(self.settings.archives_dir, archive))

    # -- opt-in schedule ------------------------------------------------------
    def run_scheduled(self) -> list[CurateResult]:
        """Run the actions of MEMVAULT_CURATE_ON_START, at most once per day; nothing when unset."""
        actions = [a.strip() for a in self.settings.curate_on_start.split(",") if a.strip()]
        if not actions:
            return []
        unknown = [a for a in actions if a not in ("compress", "dedupe", "promote")]
        if unknown:
            log.warning("MEMVAULT_CURATE_ON_START: %s not allowed (compress, dedupe, promote)", ", ".join(unknown))
            return []
        today = self.service.clock().date().isoformat()
        with self.db.write() as conn:
            if self.store.get_meta("curator_last_run") == today:
                return []
            self.store.set_meta(conn, "curator_last_run", today)
        return [self.run(a, dry_run=False) for a in actions]


def _list(ids: Sequence[int]) -> str:
    if not ids:
        return "none"
    return ("memory " if len(ids) == 1 else "memories ") + ", ".join(map(str, ids))


def _pairs(pairs: Sequence[tuple[int, int, float, str]]) -> str:
    return ", ".join(f"{o}→{s}" for o, s, _, _ in pairs)
