"""Changes a person makes by hand, from the terminal or the web page: edit, forget, restore, pin.

An edit of the text (or of the thread) is a new revision: a new memory with the new text
that supersedes the old one, in one transaction. The old text stays as the revision's
history (`memvault show` lists it; `restore` on it undoes the edit), recall ranks the new
one first, and everything the write path does (secrets redacted, keyword and vector index,
daily log) happens as for any memory. An edit of only the kind, tags or importance changes
the memory in place. Forget, restore and pin are the service's and the curator's own
actions; every change is written to the curation log of the day, which `show` reads back.
Hints in messages name curate_memory's calls, as the service's do; the terminal and the page
reword them as their own commands (server/cli/output.py, server/web/site.py).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from server import validation as check
from server.clock import to_millis
from server.curation.curator import Curator
from server.errors import InvalidInput, no_memory
from server.files.index import FILE_SOURCE
from server.models import CONVERSATION_KIND, CurateResult, ForgetResult, Principal
from server.guard.redact import redact
from server.service import MemoryService, content_hash
from server.storage.protocol import MemoryRow
from server.threads import thread_scope


@dataclass(frozen=True)
class EditResult:
    id: int  # the memory as it is now (a new id when the text changed)
    previous: int | None  # the memory it replaced, for a revision
    status: Literal["revised", "updated", "unchanged"]
    redacted: list[str]
    message: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _editable(row: MemoryRow) -> None:
    if row.deleted_at is not None:
        raise InvalidInput(f"memory {row.id} is forgotten; restore it first "
                           f"(curate_memory(action=\"restore\", ids=[{row.id}])), then edit it")
    if row.superseded_by is not None:
        raise InvalidInput(
            f"memory {row.id} is superseded by memory {row.superseded_by}: edit that one (the current version), "
            f"or restore {row.id} first to make it current again"
        )
    if row.source.startswith(FILE_SOURCE):
        raise InvalidInput(
            f"memory {row.id} is line {row.file_line} of {row.source[len(FILE_SOURCE):]}: edit the file itself "
            "(the web page's Files, or any editor); its index follows the file"
        )


def edit(
    service: MemoryService,
    memory_id: int,
    content: str | None = None,
    kind: str | None = None,
    tags: list[str] | tuple[str, ...] | None = None,
    importance: float | None = None,
    thread: str | None = None,
    origin: str | None = None,
    author: Principal | None = None,
) -> EditResult:
    """Change what is given (None leaves it as it is). `thread` moves the memory ('global' for
    global); `origin` and `author` say who edited, as remember records them."""
    memory_id = check.memory_id(memory_id)
    row = service.store.get([memory_id]).get(memory_id)
    if row is None:
        raise no_memory(memory_id)
    _editable(row)
    new_kind = check.kind(kind) if kind is not None else row.kind
    if (new_kind == CONVERSATION_KIND) != (row.kind == CONVERSATION_KIND):
        raise InvalidInput(
            "a conversation turn is indexed with the turns around it and stays a turn; remember the statement as "
            "a new memory of the kind you want instead"
        )
    tag_secrets: set[str] = set()
    new_tags = check.tags(tags, service.settings, redacted=tag_secrets) if tags is not None else row.tags
    new_importance = check.importance(importance) if importance is not None else row.importance
    new_thread = row.thread
    if thread is not None:
        scope = thread_scope(thread)
        if scope is None:
            raise InvalidInput("an edit moves a memory to one thread; name it, or 'global'")
        new_thread = scope
    redacted: list[str] = sorted(tag_secrets)
    new_content = row.content
    if content is not None:
        cleaned = redact(check.text(content, "content", service.settings.max_content_bytes))
        new_content, redacted = cleaned.text, sorted(tag_secrets | set(cleaned.kinds))
    now = to_millis(service.clock())

    if new_content == row.content and new_thread == row.thread:
        changes = _describe(row, new_kind, new_tags, new_importance)
        if not changes:
            return EditResult(memory_id, None, "unchanged", redacted, f"Memory {memory_id} already reads so; nothing changed.")
        # _editable on a re-read in the write: another process may have changed it
        service.store.edit_details(memory_id, new_kind, tuple(new_tags), new_importance, now, check=_editable)
        Curator(service).log(f"edit: memory {memory_id}: {changes}")
        return EditResult(memory_id, None, "updated", redacted, f"Memory {memory_id} updated: {changes}.")

    with service.store.transaction() as conn:  # the new text is remembered inside it
        current = service.store.get([memory_id])[memory_id]
        _editable(current)
        clash = service.store.find_live(conn, new_thread, content_hash(new_content))
        if clash is not None and clash != memory_id:
            raise InvalidInput(
                f"memory {clash} already says this in {'thread ' + new_thread if new_thread else 'the global memories'}; "
                f"to let it replace memory {memory_id}: curate_memory(action=\"supersede\", ids=[{memory_id}], "
                f"replacement_id={clash}, dry_run=false)"
            )
        stored = service.remember(
            new_content, kind=new_kind, thread=new_thread or "global", tags=list(new_tags), importance=new_importance,
            source="edit", origin=origin, pinned=current.pinned, author=author,
        )
        service.store.set_superseded(conn, memory_id, stored.id, now)
    service.indexer.notify()  # the backfill may have looked before the commit
    Curator(service).log(f"edit: memory {memory_id} → memory {stored.id} (new text" + (
        f", moved to {new_thread or 'global'}" if new_thread != row.thread else "") + ")")
    message = (f"Memory {memory_id} is now memory {stored.id}: the new text supersedes the old, which stays as its "
               f"history (curate_memory(action=\"restore\", ids=[{memory_id}]) undoes the edit).")
    if redacted:
        message += f" Secrets were replaced before storing: {', '.join(redacted)}."
    return EditResult(stored.id, memory_id, "revised", redacted, message)


def _describe(row: MemoryRow, kind: str, tags: tuple[str, ...] | list[str], importance: float) -> str:
    parts = []
    if kind != row.kind:
        parts.append(f"kind {row.kind} → {kind}")
    if tuple(tags) != tuple(row.tags):
        parts.append(f"tags [{', '.join(row.tags)}] → [{', '.join(tags)}]")
    if importance != row.importance:
        parts.append(f"importance {row.importance:g} → {importance:g}")
    return ", ".join(parts)


def forget(service: MemoryService, memory_id: int, by: str) -> ForgetResult:
    """The service's forget, written to the curation log (`by`: 'from the terminal', ...)."""
    result = service.forget(memory_id)
    if result.status == "forgotten":
        Curator(service).log(f"forget: memory {result.id} ({by})")
    return result


def restore(service: MemoryService, memory_id: int) -> CurateResult:
    """curate_memory's restore, applied: undoes forget, compression and supersede."""
    return Curator(service).run("restore", dry_run=False, ids=[memory_id])


def pin(service: MemoryService, memory_id: int, pinned: bool = True) -> CurateResult:
    return Curator(service).run("pin" if pinned else "unpin", dry_run=False, ids=[memory_id])
