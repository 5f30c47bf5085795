"""Resource change notifications: MEMORY.md, SOUL.md, a daily log, a thread or a global prompt changed.

Two ways to ask, one source of truth:

- 2026-07-28 clients open a `subscriptions/listen` stream (the SDK's ListenHandler, one
  per tenant here, so a tenant never hears of another's resources) and get
  `notifications/resources/updated` for the URIs they listed;
- 2025 clients (Claude Desktop, the conformance suite) send `resources/subscribe` /
  `resources/unsubscribe` and get the same notification on their session.

What changed is found by comparing snapshots of `views.page_versions` (a stat per memory
file, two small queries), taken once a second while anyone listens, and at once after
each tool call of this process. So a change made by another memvault process, or a person
editing MEMORY.md, is announced within about a second; nothing is polled while nobody
listens. A subscription to a URI that does not exist (yet) is accepted and fires when it
appears, as the SDK does for listen streams.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ResourceUpdated
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    EmptyResult,
    SubscribeRequestParams,
    SubscriptionsListenRequestParams,
    UnsubscribeRequestParams,
)

from server import views
from server.app.edge import Edge
from server.errors import MemvaultError
from server.service import MemoryService

log = logging.getLogger(__name__)

#: Seconds between looks while anyone listens (changes made through this process's tools are seen at once).
POLL_SECONDS = 1.0


@dataclass
class _Session:
    """A 2025 client's session and the URIs it subscribed to."""

    session: Any
    tenant: str
    uris: set[str] = field(default_factory=set)


class ResourceChanges:
    def __init__(self, edge: Edge) -> None:
        self.edge = edge
        self._buses: dict[str, InMemorySubscriptionBus] = {}
        self._listen: dict[str, ListenHandler] = {}
        self._streams: dict[str, int] = defaultdict(int)
        self._sessions: dict[int, _Session] = {}
        self._seen: dict[str, Mapping[str, object]] = {}  # tenant -> last snapshot
        self._services: dict[str, MemoryService] = {}
        self._poke: anyio.Event | None = None  # made by watch(): an Event belongs to a running loop

    def register(self, mcp: MCPServer) -> None:
        """Serve `subscriptions/listen`, `resources/subscribe` and `resources/unsubscribe` on `mcp`.

        `mcp` must be built with `subscriptions=False`: the listen handler here picks the
        request's tenant before it hands over to the SDK's ListenHandler.
        """
        lowlevel = mcp._lowlevel_server  # noqa: SLF001 - the SDK's documented way to add request handlers
        lowlevel.add_request_handler("subscriptions/listen", SubscriptionsListenRequestParams, self._on_listen)
        lowlevel.add_request_handler("resources/subscribe", SubscribeRequestParams, self._on_subscribe)
        lowlevel.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, self._on_unsubscribe)

    # -- who listens ---------------------------------------------------------------
    def _tenant(self) -> tuple[str, MemoryService]:
        try:
            service = self.edge.current()
        except MemvaultError as exc:
            raise MCPError(INVALID_PARAMS, str(exc)) from None
        tenant = service.settings.namespace
        self._services[tenant] = service
        return tenant, service

    async def _baseline(self, tenant: str, service: MemoryService) -> None:
        if tenant not in self._seen:
            self._seen[tenant] = await self.edge.service_call(views.page_versions, service)

    async def _on_listen(self, ctx: Any, params: SubscriptionsListenRequestParams) -> Any:
        tenant, service = self._tenant()
        await self._baseline(tenant, service)
        bus = self._buses.setdefault(tenant, InMemorySubscriptionBus())
        handler = self._listen.setdefault(tenant, ListenHandler(bus))
        self._streams[tenant] += 1
        try:
            return await handler(ctx, params)
        finally:
            self._streams[tenant] -= 1

    async def _on_subscribe(self, ctx: Any, params: SubscribeRequestParams) -> EmptyResult:
        tenant, service = self._tenant()
        await self._baseline(tenant, service)
        entry = self._sessions.setdefault(id(ctx.session), _Session(ctx.session, tenant))
        entry.uris.add(str(params.uri))
        return EmptyResult()

    async def _on_unsubscribe(self, ctx: Any, params: UnsubscribeRequestParams) -> EmptyResult:
        entry = self._sessions.get(id(ctx.session))
        if entry is not None:
            entry.uris.discard(str(params.uri))
            if not entry.uris:
                del self._sessions[id(ctx.session)]
        return EmptyResult()

    def _listened(self) -> set[str]:
        return {t for t, n in self._streams.items() if n > 0} | {s.tenant for s in self._sessions.values()}

    # -- what changed ------------------------------------------------------------------
    def poke(self) -> None:
        """Look now (after a tool call of this process changed something)."""
        if self._poke is not None:
            self._poke.set()

    async def watch(self) -> None:
        """Until cancelled: while anyone listens, compare snapshots and announce what changed."""
        while True:
            self._poke = anyio.Event()
            with anyio.move_on_after(POLL_SECONDS):
                await self._poke.wait()
            listened = self._listened()
            for tenant in list(self._seen):
                if tenant not in listened:
                    del self._seen[tenant]  # nobody left: forget, so a new listener starts afresh
            for tenant in listened:
                try:
                    await self._check(tenant)
                except Exception:  # noqa: BLE001 - a failed look must not end the notifications
                    log.warning("could not check %s's resources for changes", tenant, exc_info=True)

    async def _check(self, tenant: str) -> None:
        service = self._services.get(tenant)
        if service is None:
            return
        now = await self.edge.service_call(views.page_versions, service)
        before = self._seen.get(tenant, now)
        self._seen[tenant] = now
        changed = [uri for uri in sorted(set(before) | set(now)) if before.get(uri) != now.get(uri)]
        for uri in changed:
            bus = self._buses.get(tenant)
            if bus is not None:
                await bus.publish(ResourceUpdated(uri=uri))
            for key, entry in list(self._sessions.items()):
                if entry.tenant == tenant and uri in entry.uris:
                    try:
                        await entry.session.send_resource_updated(uri)
                    except Exception:  # noqa: BLE001 - the session is gone: drop its subscriptions
                        self._sessions.pop(key, None)


class ToolCallsPoke:
    """Middleware: after each tool call, look for changes at once (it may have written something)."""

    def __init__(self, changes: ResourceChanges) -> None:
        self.changes = changes

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        try:
            return await call_next(ctx)
        finally:
            if ctx.method == "tools/call":
                self.changes.poke()
