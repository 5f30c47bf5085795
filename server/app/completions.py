"""Argument completion (`completion/complete`): what a memory server can suggest while a person types.

- the prompts' `thread` argument and the template `memory://threads/{thread}`: thread names,
  most recently active first ('global' and, for recall, '*' too);
- `memory://global-prompts/{name}`: global prompt names;
- `memory://daily/{day}`: the days that have a log, newest first;
- the recall prompt's `kind`: the kinds of memory.

Values start with what was typed (case-insensitive), at most 100 (the specification's cap),
with the total. A prompt or template this server does not have is -32602, as the
specification's error handling says for an invalid prompt name.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, Completion, PromptReference, ResourceTemplateReference

from server.app.edge import Edge
from server.models import ALL_THREADS, GLOBAL_THREAD, KINDS
from server.service import MemoryService

MAX_VALUES = 100


def _threads(service: MemoryService) -> list[str]:
    return [t.id for t in service.store.list_threads()]


def _prompts(service: MemoryService) -> list[str]:
    return sorted(p.name for p in service.store.global_prompts(active_only=False))


def _days(service: MemoryService) -> list[str]:
    return [d.isoformat() for d in reversed(service.files.list_days())]


def candidates(service: MemoryService, ref: Any, argument: str) -> list[str]:
    """Every value that fits `argument` of `ref`, best first (blocking: reads the store)."""
    if isinstance(ref, PromptReference):
        if argument == "thread":
            extra = [ALL_THREADS] if ref.name == "recall" else []
            return _threads(service) + [GLOBAL_THREAD, *extra]
        if argument == "kind":
            return list(KINDS)
        return []
    if isinstance(ref, ResourceTemplateReference):
        lists = {
            ("memory://threads/{thread}", "thread"): _threads,
            ("memory://global-prompts/{name}", "name"): _prompts,
            ("memory://daily/{day}", "day"): _days,
        }
        fill = lists.get((ref.uri, argument))
        if fill is not None:
            return fill(service)
        if not any(uri == ref.uri for uri, _ in lists):
            raise MCPError(INVALID_PARAMS, f"Unknown resource template {ref.uri!r}; completions exist for "
                           + ", ".join(sorted({uri for uri, _ in lists})))
    return []


def register(mcp: MCPServer, edge: Edge) -> None:
    """Serve `completion/complete` (and so declare the `completions` capability)."""

    @mcp.completion()
    async def complete(ref: Any, argument: Any, context: Any) -> Completion:
        values = await edge.service_call(candidates, edge.current(), ref, argument.name)
        typed = (argument.value or "").lower()
        fitting = [v for v in dict.fromkeys(values) if v.lower().startswith(typed)]
        return Completion(values=fitting[:MAX_VALUES], total=len(fitting), has_more=len(fitting) > MAX_VALUES)
