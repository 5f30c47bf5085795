"""The MCP resources: SOUL.md, MEMORY.md, the daily logs, global prompts and threads.

The pages are rendered by server.views (plain Python); here each is read on a worker
thread, capped at MEMVAULT_MAX_RESOURCE_CHARS (saying where the full text is), and a
missing name becomes a not-found error that says where the existing ones are listed.
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

from server import views
from server.app.edge import Edge


def register(mcp: MCPServer, edge: Edge) -> None:
    """Add the resources and resource templates to `mcp`."""

    @mcp.resource("memory://soul", name="SOUL.md", mime_type="text/markdown",
                  description="The assistant's identity: values, communication style, learned preferences, boundaries.")
    async def soul() -> str:
        service = edge.current()
        return edge.cap(await edge.read(service.files.read_soul), str(service.files.soul_path))

    @mcp.resource("memory://memory", name="MEMORY.md", mime_type="text/markdown",
                  description="Curated long-term memory: user facts, project context, preferences, decisions.")
    async def memory_md() -> str:
        service = edge.current()
        return edge.cap(await edge.read(service.files.read_memory), str(service.files.memory_path))

    @mcp.resource("memory://daily", name="Daily logs", mime_type="text/markdown",
                  description="The days that have a log, newest first.")
    async def daily_index() -> str:
        return await edge.read(views.daily_index, edge.current())

    @mcp.resource("memory://daily/{day}", name="Daily log", mime_type="text/markdown",
                  description="What was remembered on one day (YYYY-MM-DD).")
    async def daily(day: str) -> str:
        service = edge.current()
        return edge.cap(await edge.read(views.daily, service, day), f"daily/{day}.md in {service.files.root}")

    @mcp.resource("memory://global-prompts", name="Global prompts", mime_type="text/markdown",
                  description="The active global prompts, highest priority first.")
    async def active_prompts() -> str:
        return edge.cap(await edge.read(views.active_prompts, edge.current()), "the global_prompts tool (action list)")

    @mcp.resource("memory://global-prompts/{name}", name="Global prompt", mime_type="text/markdown",
                  description="One global prompt, active or not.")
    async def one_prompt(name: str) -> str:
        return edge.cap(await edge.read(views.global_prompt, edge.current(), name), "the global_prompts tool (action list)")

    @mcp.resource("memory://threads", name="Threads", mime_type="text/markdown",
                  description="Threads (projects, conversations), most recently active first; archived ones are not listed.")
    async def threads_index() -> str:
        return edge.cap(await edge.read(views.threads_index, edge.current()), "memvault's database")

    @mcp.resource("memory://threads/{thread}", name="Thread", mime_type="text/markdown",
                  description="A thread's title, system prompt, recent memories and recent messages.")
    async def thread_resource(thread: str) -> str:
        return edge.cap(await edge.read(views.thread, edge.current(), thread), "the thread_prompt and recall tools")
