"""The MCP prompt: thread_prompt, the assembled memory context as a message a host can insert."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

from server.app.edge import Edge
from server.thread_prompt import build_thread_prompt


def register(mcp: MCPServer, edge: Edge) -> None:
    """Add the prompts to `mcp`."""

    @mcp.prompt(
        name="thread_prompt",
        title="Start with memory",
        description="Insert the assembled memory context (identity, global prompts, thread prompt, MEMORY.md, relevant memories, recent messages) for a thread.",
    )
    async def thread_prompt_prompt(thread: str = "", query: str = "") -> str:
        result = await edge.call(build_thread_prompt, edge.current(), thread or None, query or None, None)
        return result.text
