"""What the service returns: pydantic models, so the MCP layer can publish them as output schemas."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

KINDS = ("fact", "preference", "decision", "note", "summary", "event", "task", "snippet")
Kind = Literal["fact", "preference", "decision", "note", "summary", "event", "task", "snippet"]

#: The thread name that means "global memory, shared by every thread".
GLOBAL_THREAD = "global"
#: In recall, the thread name that means "search every thread".
ALL_THREADS = "*"


class Memory(BaseModel):
    id: int
    content: str
    kind: str
    thread: str | None = Field(description="The thread it belongs to; null for a global memory.")
    tags: list[str]
    importance: float
    source: str = Field(description="How it arrived: remember, import, ...")
    created_at: str = Field(description="ISO-8601, UTC.")
    superseded_by: int | None = Field(default=None, description="Id of the memory that replaces this one.")
    score: float | None = Field(
        default=None, description="Relevance in [0, 1] (recall only); see the README for its meaning."
    )
    match: Literal["keyword", "semantic", "both"] | None = Field(
        default=None, description="Which search found it (recall only)."
    )
    label: str | None = Field(
        default=None, description="Curation state worth knowing: superseded, compressed or pinned."
    )


class RememberResult(BaseModel):
    id: int = Field(description="The stored memory's id, or the id of the identical memory already stored.")
    status: Literal["stored", "duplicate"]
    thread: str | None
    message: str


class RecallResult(BaseModel):
    memories: list[Memory]
    search: Literal["hybrid", "keyword"] = Field(
        description="hybrid: keyword and semantic; keyword: the embedding model was not available."
    )
    note: str | None = None


class ForgetResult(BaseModel):
    id: int
    status: Literal["forgotten", "already_forgotten"]
    message: str


class CurateResult(BaseModel):
    action: str
    dry_run: bool = Field(description="True: nothing was changed; the counts and ids say what would change.")
    counts: dict[str, int | float] = Field(description="What changed (or would), e.g. {'superseded': 2}.")
    ids: list[int] = Field(description="Memory ids the action changed (or would change).")
    details: list[dict[str, Any]] = Field(description="One entry per affected item: its id and what happens to it.")
    message: str
