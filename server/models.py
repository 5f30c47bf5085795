"""The vocabulary every layer shares: memory kinds, the special thread names, who is calling.

Plain Python (no pydantic): a hook process imports this and nothing heavier. The result
models the service returns live in server.results; their names are re-exported here and load
on first use (PEP 562), so `from server.models import RecallResult` keeps working.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Protocol

from server.frozen import record

if TYPE_CHECKING:
    from server.config import Settings

KINDS = ("fact", "preference", "decision", "note", "summary", "event", "task", "snippet", "turn")
Kind = Literal["fact", "preference", "decision", "note", "summary", "event", "task", "snippet", "turn"]
#: A turn of a conversation: unlike the other kinds it need not stand alone, so it
#: is indexed and ranked with the turns around it (see ranking.py).
CONVERSATION_KIND = "turn"
#: The source of what the hooks captured from a session: forgotten means erased (service.forget).
CAPTURED_SOURCE = "hook"


def is_statement(kind: str, source: str) -> bool:
    """A statement, what update links and recall's newer-first order compare: not a conversation turn
    (a chat says many things), not a memory-file unit (the file is its record)."""
    return kind != CONVERSATION_KIND and not source.startswith("file:")


class RowState(Protocol):
    """What linkable reads of a stored memory (storage's MemoryRow): the vocabulary needs no store."""

    @property
    def kind(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def deleted_at(self) -> int | None: ...
    @property
    def superseded_by(self) -> int | None: ...


def linkable(row: RowState) -> bool:
    """A statement (is_statement) neither forgotten nor already replaced."""
    return is_statement(row.kind, row.source) and row.deleted_at is None and row.superseded_by is None


#: The thread name that means "global memory, shared by every thread".
GLOBAL_THREAD = "global"
#: In recall, the thread name that means "search every thread".
ALL_THREADS = "*"


@record
class Principal:
    """Who is calling: the tenant a store is confined to, and the user and agent behind a write.

    Over stdio there is one principal per process: tenant = MEMVAULT_NAMESPACE, user and
    agent from MEMVAULT_USER / MEMVAULT_AGENT (both optional). A multi-tenant transport
    (HTTP with bearer tokens) maps each request's token to a Principal instead.
    """

    tenant: str
    user: str | None = None
    agent: str | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> Principal:
        return cls(tenant=settings.namespace, user=settings.user, agent=settings.agent)


_RESULTS = (
    "Memory", "RememberResult", "RecallResult", "ForgetResult", "ThreadInfo", "GlobalPromptInfo",
    "GlobalPromptsResult", "ContextPart", "ThreadPromptResult", "CurateResult",
)


def __getattr__(name: str) -> Any:
    if name in _RESULTS:
        # lazy: results is pydantic, ~0.33 s a hook process never needs; also results imports models
        from server import results

        return getattr(results, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
