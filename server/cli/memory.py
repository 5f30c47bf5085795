"""The memory commands: what a person does with memories from a terminal, through the same service
code as the MCP tools (server/service.py, server/browse.py, server/curation/).

    recall QUERY          search as the assistant does (hybrid, same scores)
    list                  memories with filters, newest first, a page at a time
    show ID               one memory in full: provenance, states, links, original, history
    remember TEXT         store a memory ('-' reads it from stdin)
    edit ID               change its text (a new revision), kind, tags, importance or thread
    forget / restore ID   soft-delete / bring back (also undoes compression and supersede)
    pin / unpin ID        mark important (never compressed, always promoted)
    threads, stats        threads; figures per thread
    curate ACTION         curate_memory: a preview, applied with --apply
    prompts               the global prompts
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from server import browse
from server.browse import MAX_PAGE, PAGE
from server.cli.output import NOT_FOUND, OK, USAGE, Output, short, terminal_words
from server.compose import open_service
from server.config import Settings
from server.curation import editing
from server.curation.curator import ACTIONS, Curator
from server.errors import InvalidInput, MemvaultError, NotFound
from server.models import KINDS

#: What writes from the terminal record as their origin (provenance).
ORIGIN = "memvault cli"


def _open(settings: Settings, model: bool = False) -> Any:
    """The service of this process's namespace. `model`: check the store's embedding model
    (only recall embeds); the model itself loads only when a recall needs it. No index check: a
    command of the terminal pays no whole-table read (a server, or `memvault doctor --fix`, repairs;
    a drifted index finds fewer memories, never wrong ones)."""

    return open_service(settings, check_model=model, check_index=False)


def _text(value: str) -> str:
    """A text argument; '-' reads it from stdin (for long or multi-line text)."""
    return sys.stdin.read() if value == "-" else value


def _ids(values: list[str]) -> list[int]:
    out = []
    for value in values:
        for part in value.replace(",", " ").split():
            try:
                out.append(int(part))
            except ValueError:

                raise InvalidInput(f"{part!r} is not a memory id; ids are whole numbers, as `memvault list` shows them") from None
    return out


def _tags(value: str | None) -> list[str] | None:
    return None if value is None else [t for t in value.replace(",", " ").split() if t]


def _state_cell(out: Output, states: list[str]) -> Any:
    text = ", ".join(states)
    return out.styled(text, states[0]) if states else ""


# -- search and browse ---------------------------------------------------------------------
def recall(settings: Settings, args: argparse.Namespace, out: Output) -> int:
    service = _open(settings, model=True)
    try:
        with out.working("searching"):
            # Omitted: MEMVAULT_THREAD, else every thread (the service's own default, global, is
            # for a client that writes there too; the terminal searches what it has).
            thread = args.thread if args.thread is not None else settings.default_thread or "*"
            result = service.recall(
                args.query, k=args.k, thread=thread, kinds=args.kind, tags=_tags(args.tags), since=args.since,
                until=args.until, min_score=args.min_score,
            )
    finally:
        service.close()
    if out.as_json:
        out.json(result.model_dump())
        return OK
    rows = [[m.id, f"{m.score:.2f}", m.match, m.kind, m.thread or "global", m.created_at[:10],
             m.content if out.tty else short(m.content, 10_000), terminal_words(m.label or "")]
            for m in result.memories]
    out.table(["id", "score", "match", "kind", "thread", "created", "memory", "state"], rows, wide="memory",
              styles=["dim" if (m.score or 0) < 0.3 else None for m in result.memories])
    if result.note:
        out.say(result.note)
    return OK


def list_(settings: Settings, args: argparse.Namespace, out: Output) -> int:
    state = "all" if args.all else "forgotten" if args.forgotten else "superseded" if args.superseded else (
        "pinned" if args.pinned else "live")
    service = _open(settings)
    try:
        where = browse.memory_filter(service, args.thread, args.kind, args.since, args.until, state,
                                     files=None if args.files else False)
        listing = browse.list_memories(service, where, args.limit, args.offset)
    finally:
        service.close()
    if out.as_json:
        out.json(listing.as_dict())
        return OK
    out.table(
        ["id", "kind", "thread", "created", "memory", "state"],
        [[e.id, e.kind, e.thread or "global", e.created_at[:16].replace("T", " "),
          e.content if out.tty else short(e.content, 10_000), _state_cell(out, e.states)] for e in listing.entries],
        wide="memory", styles=["dim" if e.forgotten else None for e in listing.entries],
    )
    if listing.total == 0:
        out.say("no memories match")
    elif listing.more or listing.offset:
        out.say(f"showing {listing.offset + 1}-{listing.offset + len(listing.entries)} of {listing.total}"
                + (f"; --offset {listing.offset + len(listing.entries)} for more" if listing.more else ""))
    return OK


def show(settings: Settings, args: argparse.Namespace, out: Output) -> int:
    service = _open(settings)
    try:
        detail = browse.show(service, args.id)
    finally:
        service.close()
    if out.as_json:
        out.json(detail.as_dict())
        return OK
    m = detail.memory
    pairs: list[tuple[str, Any]] = [
        ("id", m.id), ("thread", m.thread or "global"), ("kind", m.kind), ("tags", m.tags),
        ("importance", m.importance), ("state", ", ".join(m.states) or "live"),
        ("created", m.created_at), ("changed", detail.updated_at),
        ("source", m.source + (f" ({m.location})" if m.location else "")), ("origin", m.origin),
        ("written by", " / ".join(x for x in (detail.user, detail.agent) if x) or None),
        ("recalled", f"{detail.recall_count} times" + (f", last {detail.last_recalled_at}" if detail.last_recalled_at else "")),
        ("vector", "waiting for the backfill" if detail.waiting_for_vector else "indexed" if not m.forgotten else "-"),
    ]
    if m.flags:
        pairs.append(("flags", ", ".join(m.flags) + " — instruction-shaped: data, not an instruction"))
    if detail.promoted:
        pairs.append(("promoted", f"MEMORY.md ({detail.promoted})"))
    if detail.superseded_by:
        pairs.append(("superseded by", f"{detail.superseded_by.id}: {short(detail.superseded_by.content, 80)}"))
    if detail.current:
        pairs.append(("current version", f"{detail.current.id}: {short(detail.current.content, 80)}"))
        pairs.append(("chain", " → ".join(map(str, detail.chain))))
    for later in detail.possibly_updated_by:
        pairs.append(("possibly outdated by", f"{later.memory.id} (p {later.probability:.2f}; not linked — `memvault curate "
                      f"supersede --ids {m.id} --replacement-id {later.memory.id} --apply` confirms): "
                      f"{short(later.memory.content, 80)}"))
    if detail.possibly_updates:
        earlier = detail.possibly_updates
        pairs.append(("possibly updates", f"{earlier.memory.id} (p {earlier.probability:.2f}; not linked): "
                      f"{short(earlier.memory.content, 80)}"))
    out.record(pairs, title=f"memory {m.id}")
    out.heading("content")
    out.text(m.content, wrap=True)
    if detail.original is not None:
        out.heading(f"original (archived when compressed, {detail.compressed_at})")
        out.text(detail.original, wrap=True)
    if detail.supersedes:
        out.heading("replaces")
        out.table(["id", "created", "memory", "state"],
                  [[e.id, e.created_at[:10], short(e.content, 200), ", ".join(e.states)] for e in detail.supersedes],
                  wide="memory")
    out.heading("history")
    out.table(["when", "what"], [[e.at, e.what] for e in detail.history], wide="what")
    return OK


def threads(settings: Settings, args: argparse.Namespace, out: Output) -> int:
    service = _open(settings)
    try:
        listed = browse.thread_stats(service, duplicates=False, include_archived=args.archived)
    finally:
        service.close()
    if out.as_json:
        out.json([t.as_dict() for t in listed])
        return OK
    out.table(["thread", "title", "memories", "newest", "last active", "archived"],
              [[t.thread, t.title, t.live, (t.newest or "")[:10], (t.last_active_at or "")[:10],
                "yes" if t.archived else ""] for t in listed], wide="title")
    return OK


def stats(settings: Settings, args: argparse.Namespace, out: Output) -> int:
    service = _open(settings)
    try:
        listed = browse.thread_stats(service)
    finally:
        service.close()
    if args.thread:
        wanted = "global" if args.thread == "global" else args.thread
        listed = [t for t in listed if t.thread == wanted]
        if not listed:
            out.say(f"no thread {args.thread!r} (`memvault threads` lists them)")
            return NOT_FOUND
    if out.as_json:
        out.json([t.as_dict() for t in listed])
        return OK
    columns = ["thread", "memories", "size", "newest", "pending", "duplicates", "superseded", "pinned",
               "compressed", "forgotten", "file lines", "by kind"]
    rows = [[t.thread, t.live, _size(t.chars), (t.newest or "")[:10], t.pending, t.duplicates, t.superseded, t.pinned,
             t.compressed, t.forgotten, t.files, " ".join(f"{k}:{n}" for k, n in t.by_kind.items())] for t in listed]
    if len(listed) > 1:
        total = lambda name: sum(getattr(t, name) or 0 for t in listed)  # noqa: E731
        rows.append(["(all)", total("live"), _size(total("chars")), max((t.newest or "") for t in listed)[:10],
                     total("pending"), total("duplicates"), total("superseded"), total("pinned"), total("compressed"),
                     total("forgotten"), total("files"), ""])
    out.table(columns, rows, wide="by kind", styles=[None] * len(listed) + (["bold"] if len(listed) > 1 else []))
    return OK


def _size(chars: int) -> str:
    return f"{chars} chars" if chars < 10_000 else f"{chars / 1000:.0f}k chars"


# -- changes ---------------------------------------------------------------------------------
def remember(settings: Settings, args: argparse.Namespace, out: Output) -> int:
    service = _open(settings)
    try:
        result = service.remember(
            _text(args.text), kind=args.kind, thread=args.thread, tags=_tags(args.tags), importance=args.importance,
            pinned=args.pinned, origin=ORIGIN,
        )
    finally:
        service.close()
    if out.as_json:
        out.json(result.model_dump())
    else:
        out.text(str(result.id))
        out.say(result.message)
    return OK


def edit(settings: Settings, args: argparse.Namespace, out: Output) -> int:
    service = _open(settings)
    try:
        result = editing.edit(
            service, args.id, content=_text(args.text) if args.text is not None else None, kind=args.kind,
            tags=_tags(args.tags), importance=args.importance, thread=args.thread, origin=ORIGIN,
        )
    finally:
        service.close()
    if out.as_json:
        out.json(result.as_dict())
    else:
        out.text(str(result.id))
        out.say(result.message)
    return OK


def forget(settings: Settings, args: argparse.Namespace, out: Output) -> int:
    """Each id on its own (not all or nothing): one that cannot be forgotten does not stop the others.

    Every id's outcome is reported; the exit status is that of the first id refused for another
    reason than not existing, else 3 (NOT_FOUND) when an id does not exist, else 0.
    """

    ids = _ids(args.ids)  # a word that is no id at all is a usage error before anything is forgotten
    outcomes: list[dict[str, Any]] = []
    code = OK
    service = _open(settings)
    try:
        for i in ids:
            try:
                outcomes.append(editing.forget(service, i, "from the terminal").model_dump())
            except NotFound as exc:
                outcomes.append({"id": i, "status": "not_found", "message": str(exc)})
                code = code or NOT_FOUND
            except MemvaultError as exc:  # e.g. a memory-file line edited since it was indexed
                outcomes.append({"id": i, "status": "refused", "message": str(exc)})
                code = code if code not in (OK, NOT_FOUND) else getattr(exc, "exit_status", USAGE)
    finally:
        service.close()
    if out.as_json:
        out.json(outcomes)
    for outcome in outcomes:
        # One id: its message alone, worded as show's and restore's; several: each refused one names its id.
        out.say(outcome["message"] if outcome["status"] in ("forgotten", "already_forgotten") or len(ids) == 1
                else f"{outcome['id']}: not forgotten: {outcome['message']}")
    if len(ids) > 1 and code != OK:
        done = sum(o["status"] in ("forgotten", "already_forgotten") for o in outcomes)
        out.say(f"{done} of {len(ids)} ids forgotten; the others are listed above with the reason.")
    return code


def _curator_action(action: str) -> Any:
    def run(settings: Settings, args: argparse.Namespace, out: Output) -> int:
        service = _open(settings)
        try:
            result = Curator(service).run(action, dry_run=False, ids=_ids(args.ids))
        finally:
            service.close()
        if out.as_json:
            out.json(result.model_dump())
        else:
            _details(out, result.details)
            out.say(result.message)
        return OK

    return run


def _details(out: Output, details: list[dict[str, Any]]) -> None:
    if not details:
        return
    columns: list[str] = []
    for d in details:
        columns += [k for k in d if k not in columns]
    out.table(columns, [[_cell(d.get(c)) for c in columns] for d in details],
              wide="preview" if "preview" in columns else "text" if "text" in columns else None)


def _cell(value: Any) -> Any:
    if isinstance(value, dict):
        return " ".join(f"{k}={_cell(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(str(_cell(v)) for v in value)
    return value


def curate(settings: Settings, args: argparse.Namespace, out: Output) -> int:
    params = {name: getattr(args, name) for name in (
        "replacement_id", "thread", "older_than_days", "threshold", "since", "until", "archive", "origin", "source")}
    params["ids"] = _ids(args.ids) if args.ids else None
    params["split_by_month"] = True if args.split_by_month else None
    service = _open(settings)
    try:
        with out.working(f"curate {args.action}" + (" (applying)" if args.apply else " (preview)")):
            result = Curator(service).run(args.action, dry_run=not args.apply, limit=args.limit, **params)
    finally:
        service.close()
    if out.as_json:
        out.json(result.model_dump())
        return OK
    _details(out, result.details)
    if result.counts:
        out.record(list(result.counts.items()), title="counts")
    out.say(result.message)
    return OK


def prompts(settings: Settings, args: argparse.Namespace, out: Output) -> int:
    service = _open(settings)
    try:
        result = service.global_prompts.run(
            args.action, args.name, _text(args.content) if args.content is not None else None, args.priority)
    finally:
        service.close()
    if out.as_json:
        out.json(result.model_dump())
        return OK
    out.table(["name", "priority", "active", "prompt"],
              [[p.name, p.priority, "yes" if p.active else "no", p.content if out.tty else short(p.content, 10_000)]
               for p in result.prompts], wide="prompt")
    if args.action != "list":
        out.say(result.message)
    return OK


# -- the parsers -----------------------------------------------------------------------------
def add_parsers(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    def command(name: str, run: Any, help: str, **kw: Any) -> argparse.ArgumentParser:
        p = sub.add_parser(name, parents=[common], help=help, **kw)
        p.set_defaults(run=run)
        return p

    rc = command("recall", recall, "search memories as the assistant does (by meaning and by keyword)")
    rc.add_argument("query")
    rc.add_argument("--thread", help="this thread plus global memories; '*' every thread, 'global' only global "
                    "(default: MEMVAULT_THREAD, else every thread)")
    rc.add_argument("-k", type=int, default=10, help="how many memories (1-50, default 10)")
    rc.add_argument("--kind", action="append", choices=KINDS, help="only this kind (repeatable)")
    rc.add_argument("--tags", help="only memories with one of these tags (comma-separated)")
    rc.add_argument("--since", help="only memories created at or after this ISO-8601 date")
    rc.add_argument("--until", help="only memories created at or before this ISO-8601 date")
    rc.add_argument("--min-score", type=float, default=0.0, help="drop results scoring below this (0-1)")

    ls = command("list", list_, "list memories, newest first, with filters")
    ls.add_argument("--thread", help="only this thread ('global' for global memories; default: every thread)")
    ls.add_argument("--kind", action="append", choices=KINDS, help="only this kind (repeatable)")
    ls.add_argument("--since", help="only memories created at or after this ISO-8601 date")
    ls.add_argument("--until", help="only memories created at or before this ISO-8601 date")
    state = ls.add_mutually_exclusive_group()
    state.add_argument("--forgotten", action="store_true", help="only forgotten memories (restore brings one back)")
    state.add_argument("--superseded", action="store_true", help="only memories another one replaces")
    state.add_argument("--pinned", action="store_true", help="only pinned memories")
    state.add_argument("--all", action="store_true", help="live and forgotten alike")
    ls.add_argument("--files", action="store_true",
                    help="also the lines of SOUL.md, MEMORY.md and daily notes (indexed for recall; edit the files to change them)")
    ls.add_argument("--limit", type=int, default=PAGE, help=f"memories per page (1-{MAX_PAGE}, default {PAGE})")
    ls.add_argument("--offset", type=int, default=0, help="skip this many (the next page)")

    command("show", show, "one memory in full: provenance, states, links, original text, history"
            ).add_argument("id", type=int)

    rm = command("remember", remember, "store a memory (prints its id)")
    rm.add_argument("text", help="one self-contained statement ('-' reads it from stdin)")
    rm.add_argument("--kind", default="note", choices=[k for k in KINDS], help="default note")
    rm.add_argument("--thread", help="the thread (default: MEMVAULT_THREAD, else global)")
    rm.add_argument("--tags", help="comma-separated one-word labels")
    rm.add_argument("--importance", type=float, default=0.5, help="0 to 1 (default 0.5)")
    rm.add_argument("--pinned", action="store_true", help="mark it important (never compressed)")

    ed = command("edit", edit, "change a memory: new text (a new revision that supersedes it), kind, tags, "
                 "importance or thread (prints the id it has now)")
    ed.add_argument("id", type=int)
    ed.add_argument("--text", help="the new text ('-' reads it from stdin)")
    ed.add_argument("--kind", choices=KINDS)
    ed.add_argument("--tags", help="the new tags, comma-separated ('' removes them)")
    ed.add_argument("--importance", type=float)
    ed.add_argument("--thread", help="move it to this thread ('global' for global)")

    command("forget", forget, "forget memories: they leave recall, and stay in the store (restore brings them back; "
            "what the hooks captured is erased)",
            description="Forget memories: they leave recall, and stay in the store (restore brings them back); "
            "what the hooks captured is erased for good, with its daily-log line. "
            "Each id is forgotten on its own, not all or nothing: an id that does not exist (or cannot be forgotten) "
            "is reported with the reason and the other ids are still forgotten. Exit status 0 when every id was "
            "forgotten (or already was), 3 when an id does not exist, the refusal's own status otherwise; "
            "--json prints each id's outcome (forgotten, already_forgotten, not_found, refused)."
            ).add_argument("ids", nargs="+", metavar="ID")
    command("restore", _curator_action("restore"), "undo forget, compression or supersede"
            ).add_argument("ids", nargs="+", metavar="ID")
    command("pin", _curator_action("pin"), "mark memories important (never compressed or deduped, always promoted)"
            ).add_argument("ids", nargs="+", metavar="ID")
    command("unpin", _curator_action("unpin"), "undo pin").add_argument("ids", nargs="+", metavar="ID")

    command("threads", threads, "threads with their titles and memory counts, most recently active first"
            ).add_argument("--archived", action="store_true", help="also archived threads")
    command("stats", stats, "per thread: memories by kind, size, newest, pending vectors, duplicates, superseded, "
            "forgotten").add_argument("--thread", help="only this thread ('global' for global memories)")

    cu = command("curate", curate, "run a curation action: a preview, applied only with --apply",
                 description="The actions of the curate_memory tool (README: Curation). Every action previews "
                 "what it would change; --apply makes the change, and the curation log of the day records it.")
    cu.add_argument("action", choices=list(ACTIONS))
    cu.add_argument("--apply", action="store_true", help="make the change (default: preview only)")
    cu.add_argument("--ids", help="memory ids (comma-separated)")
    cu.add_argument("--replacement-id", type=int, help="supersede: the memory that replaces --ids")
    cu.add_argument("--thread", help="limit to one thread ('global' for global memories)")
    cu.add_argument("--older-than-days", type=int, help="purge: forgotten more than this many days ago")
    cu.add_argument("--threshold", type=float, help="dedupe: cosine similarity counted as duplicate")
    cu.add_argument("--since", help="export, forget-matching: from this ISO-8601 date")
    cu.add_argument("--until", help="export, forget-matching: until this ISO-8601 date")
    cu.add_argument("--split-by-month", action="store_true", help="export: one archive per month")
    cu.add_argument("--archive", help="import: an archive's name in the archives folder")
    cu.add_argument("--origin", help="forget-matching: only what this client wrote")
    cu.add_argument("--source", help="forget-matching: only what arrived this way")
    cu.add_argument("--limit", type=int, default=50, help="most detail rows shown (1-1000, default 50)")

    gp = command("prompts", prompts, "global prompts: standing instructions in every thread's context")
    gp.add_argument("action", nargs="?", default="list", choices=("list", "set", "activate", "deactivate", "delete"))
    gp.add_argument("name", nargs="?")
    gp.add_argument("--content", help="set: the prompt's text ('-' reads it from stdin)")
    gp.add_argument("--priority", type=int, help="higher comes first (-1000 to 1000)")
