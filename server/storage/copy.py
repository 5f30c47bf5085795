"""`memvault migrate`: copy a store into another, SQLite <-> PostgreSQL, resumable and verified.

Per namespace (= PostgreSQL tenant) everything is copied through the store's Copying role
(server/storage/protocol.py), never re-derived: memories with every field (forgotten ones,
pins, tags, supersede links, compression tier, who wrote them, file units), archived
originals of compressed memories, the daily-log queue, vectors exactly as stored
(never re-embedded; a memory waiting for its vector stays waiting, and one whose update check
waits for it still waits), threads with their
system prompts, the recent-message windows, global prompts, MEMORY.md promotions,
meta (the embedding model) and the id high-water mark. Only the keyword index is
rebuilt from the content, as every write builds it (SQLite's FTS5 index keeps no text
to copy).

Ids are kept: daily logs, MEMORY.md promotions and archives name memories by id.
PostgreSQL numbers ids per tenant; SQLite numbers them across the file, so several
tenants whose ids overlap cannot share one SQLite file (refused before anything is
written: migrate them one per file). Message ids are not kept (nothing refers to
them); their order and times are.

Resuming: the target records, in meta key `migration:<namespace>` and in the same
transaction as each batch, where the copy came from and the last memory id copied.
A rerun of the same command after any interruption (kill -9 included) continues
after that id; what follows the memories (links, threads, messages, prompts,
promotions, meta) is one transaction that also marks the namespace done. A target
namespace holding anything else is refused. The end is a verification: counts and
SHA-256 of each kind of data, source against target, per namespace.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from server.errors import MemvaultError, SetupError
from server.storage import opener
from server.storage.fingerprint import MODEL_KEYS, compare, fingerprint
from server.storage.protocol import Copying, Database, MemoryDump
from server.textindex import index_text

#: meta key in the target that records a namespace's copy (source, cursor, phase)
STATE_KEY = "migration:{}"
DEFAULT_DIMENSIONS = 384
TENANT_TABLES = ("memories", "threads", "thread_messages", "global_prompts")


class VerificationFailed(MemvaultError):
    """The copy differs from its source (counts or hashes)."""


@dataclass
class Side:
    """One end of a migration: an open database and how to get a namespace's store."""

    location: str  # as shown to people (no password)
    identity: str  # what a resumed migration must match: absolute path or URL without password
    db: Database

    @property
    def postgres(self) -> bool:
        return self.db.backend == "postgres"

    def store(self, namespace: str) -> Copying:
        return opener.make_store(self.db.for_tenant(namespace), namespace)

    def close(self) -> None:
        self.db.close()


def _check_scheme(location: str, flag: str) -> None:
    if "://" in location and not opener.is_postgres(location):
        scheme = location.split("://", 1)[0]
        raise SetupError(
            f"{flag} {location.split('@')[-1]!r}: unknown scheme {scheme!r}. Give a SQLite file path "
            "(e.g. ~/.local/share/memvault/memvault.db) or a postgresql://user:password@host/db URL."
        )


def _side(db: Database, dimensions: int | None) -> Side:
    """The opened end, its schema prepared when `dimensions` is known (closed again if that fails)."""
    try:
        if dimensions is not None:
            opener.prepare_schema(db, dimensions)
    except BaseException:
        db.close()
        raise
    return Side(db.path, db.path, db)  # path: a resolved file path, or the URL without its password


def open_source(location: str) -> Side:
    _check_scheme(location, "--from")
    if opener.is_postgres(location):
        # The schema is checked once the source's own meta gives its dimensions (run()).
        return _side(opener.connect(location, pool_size=2, check_reachable=True), None)
    path = Path(location).expanduser().resolve()
    if not path.is_file():
        raise SetupError(
            f"--from {location}: no such SQLite file. Give the store file (memvault.db under MEMVAULT_HOME) "
            "or a postgresql:// URL."
        )
    try:
        db = opener.connect(str(path))
    except opener.NotAStore as exc:
        raise SetupError(f"--from {location}: not a memvault SQLite store ({exc}).") from None
    # Brings an older store to this version's schema, exactly as serving it would.
    return _side(db, DEFAULT_DIMENSIONS)


def open_target(location: str, dimensions: int) -> Side:
    _check_scheme(location, "--to")
    if opener.is_postgres(location):
        # initialised, current, and an application role under RLS
        return _side(opener.connect(location, pool_size=2, check_reachable=True), dimensions)
    path = Path(location).expanduser().resolve()
    try:
        db = opener.connect(str(path))
    except (OSError, opener.NotAStore) as exc:
        raise SetupError(f"--to {location}: cannot open or create a SQLite store there ({exc}).") from None
    return _side(db, dimensions)


def source_namespaces(source: Side, wanted: Sequence[str] | None, admin_url: str | None) -> list[str]:
    """The namespaces to copy: `wanted` (each must hold data), else every one in the source."""
    if wanted:
        names = list(dict.fromkeys(wanted))
        missing = []
        for ns in names:
            store = source.store(ns)
            with store.db.read() as conn:
                if ns not in store.namespaces(conn):
                    missing.append(ns)
        if missing:
            raise SetupError(
                f"The source {source.location} holds no data for namespace {', '.join(map(repr, missing))}; "
                "check the name (MEMVAULT_NAMESPACE of the servers that wrote it)."
            )
        return names
    if source.postgres:
        if not admin_url:
            raise SetupError(
                "Row-level security hides a PostgreSQL source's tenants from the application role: name the "
                "tenants to copy with --namespace (repeatable), or give --admin-url postgresql://<superuser>@"
                "<host>/<database> to copy every tenant."
            )
        names = opener.list_tenants(admin_url, TENANT_TABLES)
    else:
        store = source.store("default")
        with store.db.read() as conn:
            names = store.namespaces(conn)
    if not names:
        raise SetupError(f"The source {source.location} holds no memories, threads or prompts: nothing to migrate.")
    return names


# -- progress -------------------------------------------------------------------
class Progress:
    """A bar on a terminal (redrawn in place); one line per step otherwise (logs, pipes)."""

    def __init__(self, total: int, stream: TextIO | None = None, clock: Callable[[], float] = time.monotonic):
        self.total, self.done, self.skipped = total, 0, 0
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.clock = clock
        self.started = clock()
        self._drawn = 0.0

    def skip(self, namespace: str, count: int) -> None:
        """Memories an earlier, interrupted run already copied: shown as done, left out of the rate."""
        self.skipped += count
        self.advance(namespace, count)

    def advance(self, namespace: str, count: int) -> None:
        self.done += count
        now = self.clock()
        rate = (self.done - self.skipped) / max(now - self.started, 1e-9)
        if self.tty:
            if now - self._drawn < 0.1 and self.done < self.total:
                return
            self._drawn = now
            width = 30
            filled = width * self.done // max(self.total, 1)
            self.stream.write(
                f"\rmigrate {namespace}: [{'#' * filled}{'.' * (width - filled)}] "
                f"{self.done}/{self.total} memories, {rate:,.0f}/s "
            )
        else:
            self.stream.write(f"migrate {namespace}: {self.done}/{self.total} memories copied\n")
        self.stream.flush()

    def note(self, text: str) -> None:
        self.stream.write(("\n" if self.tty and self.done else "") + f"migrate {text}\n")
        self.stream.flush()


# -- copying --------------------------------------------------------------------
def _text(memory: MemoryDump) -> str | None:
    """The keyword-index text every write gives a memory (a file unit's section is part of it)."""
    if memory.deleted_at is not None:
        return None
    return index_text(memory.content, (memory.file_section or None) if memory.file_key else None)


def _state(store: Copying, namespace: str) -> dict[str, Any] | None:
    raw = store.get_meta(STATE_KEY.format(namespace))
    return json.loads(raw) if raw else None


@dataclass
class Plan:
    namespace: str
    src: Copying
    dst: Copying
    state: dict[str, Any] | None
    total: int
    ids: list[int] = field(default_factory=list)


def preflight(source: Side, target: Side, namespaces: Sequence[str]) -> list[Plan]:
    """Everything that would make the copy fail or mix data, checked before anything is written."""
    if source.identity == target.identity:
        raise SetupError("--from and --to are the same store.")
    plans = []
    for ns in namespaces:
        src, dst = source.store(ns), target.store(ns)
        state = _state(dst, ns)
        with src.db.read() as conn:
            src_meta = src.meta_items(conn)
            ids = _all_ids(src, conn)
        with dst.db.read() as conn:
            holds = ns in dst.namespaces(conn)
            dst_meta = dst.meta_items(conn)
        if state is not None and (state.get("source"), state.get("namespace")) != (source.identity, ns):
            raise SetupError(
                f"Namespace {ns!r} in {target.location} is a copy of namespace {state.get('namespace')!r} of "
                f"{state.get('source')}, not of {source.location}. Migrate into an empty target, or leave "
                f"{ns!r} out with --namespace."
            )
        if state is None and holds:
            raise SetupError(
                f"{target.location} already holds data for namespace {ns!r} that did not come from this "
                "migration; nothing was copied. Migrate into an empty target (a new SQLite file or a fresh "
                f"PostgreSQL database), or copy the other namespaces only with --namespace."
            )
        for key in MODEL_KEYS:
            if key in src_meta and key in dst_meta and src_meta[key] != dst_meta[key]:
                raise SetupError(
                    f"The target's vectors come from {key} {dst_meta[key]!r}, the source's from {src_meta[key]!r}: "
                    "one store cannot mix them. Migrate into an empty target."
                )
        cursor = state["cursor"] if state else 0
        rest = [i for i in ids if i > cursor]
        with dst.db.read() as conn:
            taken = dst.ids_taken(conn, rest)
        if taken:
            raise SetupError(
                f"Memory ids {_ids_text(taken)} of namespace {ns!r} are already used in {target.location} by "
                "another namespace (a SQLite file numbers memories across all its namespaces, PostgreSQL per "
                f"tenant; ids are kept because daily logs and archives refer to them). Migrate {ns!r} into a "
                "file of its own (--namespace with another --to)."
            )
        plans.append(Plan(ns, src, dst, state, len(ids), ids))
    if not target.postgres:
        seen: dict[int, str] = {}
        for plan in plans:
            for memory_id in plan.ids:
                if memory_id in seen:
                    raise SetupError(
                        f"Namespaces {seen[memory_id]!r} and {plan.namespace!r} both have memory id {memory_id}; "
                        "a SQLite file numbers memories across namespaces and ids are kept, so they cannot share "
                        f"one file. Migrate them one per file (--namespace {plan.namespace} --to <another file>)."
                    )
                seen[memory_id] = plan.namespace
    return plans


def _ids_text(ids: set[int]) -> str:
    shown = sorted(ids)
    return ", ".join(map(str, shown[:10])) + (f", ... ({len(shown)} in all)" if len(shown) > 10 else "")


def _all_ids(store: Copying, conn: Any, page: int = 5000) -> list[int]:
    ids: list[int] = []
    while rows := store.dump_memories(conn, ids[-1] if ids else 0, page):
        ids.extend(r.id for r in rows)
    return ids


def copy_namespace(plan: Plan, source_identity: str, batch: int, progress: Progress) -> str:
    """Copy one namespace (or what an interrupted run left); returns copied, resumed or already copied."""
    src, dst, ns = plan.src, plan.dst, plan.namespace
    key = STATE_KEY.format(ns)
    state = plan.state
    if state and state["phase"] == "done":
        progress.skip(ns, plan.total)
        return "already copied"
    outcome = "resumed" if state else "copied"
    if state is None:
        state = {"source": source_identity, "namespace": ns, "cursor": 0, "phase": "memories"}
        with dst.db.write() as conn:
            dst.set_meta(conn, key, json.dumps(state))
    else:
        progress.skip(ns, sum(1 for i in plan.ids if i <= state["cursor"]))
    while True:
        with src.db.read() as conn:
            rows = src.dump_memories(conn, state["cursor"], batch)
            vectors = src.vectors(conn, [r.id for r in rows])
        if not rows:
            break
        with dst.db.write() as conn:
            dst.load_memories(conn, rows, [_text(r) for r in rows], vectors)
            state["cursor"] = rows[-1].id
            dst.set_meta(conn, key, json.dumps(state))
        progress.advance(ns, len(rows))
    progress.note(f"{ns}: links, possible updates, threads, messages, prompts, promotions")
    with src.db.read() as conn:
        links = [(r.id, r.superseded_by) for r in src.rows(conn, deleted=None) if r.superseded_by is not None]
        possible = src.possible_updates_all(conn)
        threads = src.threads(conn)
        messages = src.dump_messages(conn)
        prompts = src.export_global_prompts(conn)
        promotions = src.promotions(conn)
        meta = {k: v for k, v in src.meta_items(conn).items() if not k.startswith(STATE_KEY.format(""))}
        high_water = src.id_high_water(conn)
    with dst.db.write() as conn:
        for memory_id, by in links:
            dst.link_superseded(conn, memory_id, by)
        for memory_id, update in possible.items():
            dst.set_possible_update(conn, memory_id, update)
        for thread in threads:
            dst.put_thread(conn, thread)
        dst.load_messages(conn, messages)
        for prompt in prompts:
            dst.import_global_prompt(conn, prompt)
        for promotion in promotions:
            dst.record_promotion(conn, promotion.memory_id, promotion.section, promotion.promoted_at)
        for k, v in meta.items():
            dst.set_meta(conn, k, v)
        dst.raise_id_high_water(conn, high_water)
        state["phase"] = "done"
        dst.set_meta(conn, key, json.dumps(state))
    return outcome


# -- the command ----------------------------------------------------------------
def run(
    source_location: str,
    target_location: str,
    namespaces: Sequence[str] | None = None,
    admin_url: str | None = None,
    batch: int = 500,
    stream: TextIO | None = None,
) -> dict[str, Any]:
    """Copy, then verify; returns the report. Raises SetupError (refused, nothing written for that
    reason) or VerificationFailed (the copy differs)."""
    if batch < 1:
        raise SetupError("--batch-size must be at least 1")
    started = time.monotonic()
    source = open_source(source_location)
    target = None
    try:
        names = source_namespaces(source, namespaces, admin_url)
        with source.store(names[0]).db.read() as conn:
            meta = source.store(names[0]).meta_items(conn)
        dimensions = int(meta.get("embedding_dimensions") or DEFAULT_DIMENSIONS)
        if source.postgres:
            opener.prepare_schema(source.db, dimensions)
        target = open_target(target_location, dimensions)
        plans = preflight(source, target, names)
        progress = Progress(sum(p.total for p in plans), stream)
        outcomes = {p.namespace: copy_namespace(p, source.identity, batch, progress) for p in plans}
        copy_seconds = time.monotonic() - started
        report: dict[str, Any] = {"from": source.location, "to": target.location, "namespaces": {}}
        failures = []
        for plan in plans:
            progress.note(f"{plan.namespace}: verifying")
            expected, got = fingerprint(plan.src), fingerprint(plan.dst)
            problems = compare(plan.namespace, expected, got)
            failures += [f"namespace {plan.namespace!r}: {p}" for p in problems]
            report["namespaces"][plan.namespace] = {
                "status": outcomes[plan.namespace], "verified": not problems,
                "counts": {k: v["count"] for k, v in got.items()}, "sha256": {k: v["sha256"] for k, v in got.items()},
            }
        total = sum(p.total for p in plans)
        report["memories"] = total
        report["seconds"] = round(time.monotonic() - started, 3)
        report["memories_per_second"] = round(total / max(copy_seconds, 1e-9))
        if failures:
            raise VerificationFailed(
                "the copy differs from its source: " + "; ".join(failures) + ". Was either store written to "
                "during or after the migration? Stop every memvault that uses them, empty the target (a new "
                "SQLite file, or a fresh PostgreSQL database) and migrate again."
            )
        report["verified"] = True
        return report
    finally:
        source.close()
        if target is not None:
            target.close()


def main(args: Any) -> int:
    """`memvault migrate` (argparse namespace from cli.py); prints the JSON report on stdout."""
    try:
        report = run(args.source, args.target, args.namespace, args.admin_url, args.batch_size)
    except VerificationFailed as exc:
        print(f"memvault migrate: verification failed: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(report, indent=2))
    names = ", ".join(f"{ns} ({r['status']})" for ns, r in report["namespaces"].items())
    print(
        f"migrate: {report['memories']} memories of {names} copied to {report['to']} and verified "
        f"in {report['seconds']} s",
        file=sys.stderr,
    )
    return 0

