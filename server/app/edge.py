"""What every MCP handler shares: the request's tenant, worker threads, and error mapping.

Blocking work runs on worker threads (at most four at once) so the event loop keeps
answering. A MemvaultError becomes a ToolError (tools) or a resource error (a
missing or invalid name: not found; a linked memory file: -32602); anything else the
SDK turns into an error result.
"""

from __future__ import annotations

import errno
from collections.abc import Callable
from typing import Any, TypeVar

import anyio
import anyio.to_thread
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from server.budget import bounded
from server.errors import InvalidInput, MemvaultError, NotFound, RefusedFile
from server.tenants import Tenants, current_identity, http_origin
from server.models import Principal
from server.service import MemoryService

T = TypeVar("T")
#: Worker threads one server runs at once; more requests wait their turn.
WORKERS = 4


def request_author() -> Principal | None:
    """The token's tenant, user and agent over HTTP; None over stdio (the process's own)."""
    return current_identity.get()


def client_origin(ctx: Context | None) -> str | None:
    identity = current_identity.get()
    if identity is not None:
        # Over HTTP the token says who writes; client_info is whatever the client claims.
        return http_origin(identity)
    try:
        info = ctx.session.client_params.client_info  # type: ignore[union-attr]
        return f"{info.name} {info.version}".strip()[:200]
    except AttributeError:
        return None


class Edge:
    """The handlers' way to the service: the current tenant's, on a worker thread, errors mapped."""

    def __init__(self, tenants: Tenants) -> None:
        self.tenants = tenants
        self.limiter = anyio.CapacityLimiter(WORKERS)

    def current(self) -> MemoryService:
        """The service of the tenant this request acts for (always the same one over stdio)."""
        return self.tenants.current()

    async def service_call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run blocking service work on a worker thread; errors are the caller's to map."""
        return await anyio.to_thread.run_sync(lambda: fn(*args, **kwargs), limiter=self.limiter)

    async def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run a tool's work; a MemvaultError is a tool error whose text says what to do."""
        try:
            return await self.service_call(fn, *args, **kwargs)
        except MemvaultError as exc:
            raise ToolError(str(exc)) from None
        except OSError as exc:
            if exc.errno == errno.ENOSPC:  # a memory file rewrite (promote, export) on a full disk
                raise ToolError(f"disk full: nothing was stored ({exc.filename or 'a memory file'} could not "
                                "be written). Free some space and retry.") from None
            raise

    async def read(self, fn: Callable[..., str], *args: Any) -> str:
        """Run a resource reader; a missing or invalid name is a not-found error that says why."""
        try:
            text = await anyio.to_thread.run_sync(lambda: fn(*args), limiter=self.limiter)
        except (NotFound, InvalidInput) as exc:
            raise ResourceNotFoundError(str(exc)) from None
        except RefusedFile as exc:
            # A linked memory file is refused on purpose, not an internal fault (-32603): the
            # request asks for what memvault will not serve, and the message says how to fix it.
            raise MCPError(INVALID_PARAMS, str(exc)) from None
        except MemvaultError as exc:
            raise ResourceError(str(exc)) from None
        return text

    def cap(self, text: str, where: str) -> str:
        """A resource's text within MEMVAULT_MAX_RESOURCE_CHARS, saying where the rest is."""
        return bounded(
            text,
            self.tenants.base.settings.max_resource_chars,
            f"the full text is in {where}; use recall to search it, or raise MEMVAULT_MAX_RESOURCE_CHARS",
        )
