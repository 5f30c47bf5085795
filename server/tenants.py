"""One MemoryService per tenant, chosen by the identity of the request being served.

A tenant is a namespace (Settings.namespace): its own rows, vec0 partition and
memory files. Over stdio there is one identity, so `current()` is always the
service the process was started with. Over HTTP with tokens, the transport sets
`current_identity` for each message from its bearer token, and `current()` fails
closed when none is set: no request can fall through to some default tenant.

Services of other tenants are created on first use and share the process's one
database connection, embedder and backfill thread (the backfill already serves
every namespace of the file), so a tenant costs a few objects, not a model.
"""

from __future__ import annotations

import logging
import threading
from contextvars import ContextVar

from server.compose import open_service
from server.curation.curator import Curator
from server.config import Settings
from server.errors import MemvaultError
from server.models import Principal
from server.service import MemoryService
from server import validation as check

log = logging.getLogger(__name__)


class NoIdentity(MemvaultError):
    """A tenant's data was asked for outside an authenticated request."""


def http_origin(identity: Principal) -> str:
    """What `origin` records for writes over HTTP: e.g. 'alice/claude-code via http'."""
    return f"{identity.user or '-'}/{identity.agent or '-'} via http"


#: Who the message being served acts as (tenant = namespace; user and agent for
#: provenance): the same type as a stdio process's own principal, so writes record both
#: the same way. Set by the transport for the duration of one message; read by the MCP handlers.
current_identity: ContextVar[Principal | None] = ContextVar("memvault_identity", default=None)


class Tenants:
    def __init__(self, base: MemoryService, *, require_identity: bool = False) -> None:
        self.base = base
        self.require_identity = require_identity
        self._services: dict[str, MemoryService] = {base.settings.namespace: base}
        self._curators: dict[str, Curator] = {}
        self._lock = threading.Lock()
        self._started = False

    @classmethod
    def open(cls, settings: Settings, require_identity: bool) -> Tenants:
        """One service per tenant over the configured store (server.compose): the HTTP server's and the web page's."""
        # The index check runs in start_background's thread, not before the server answers.
        return cls(open_service(settings, check_index=False), require_identity=require_identity)

    def current(self) -> MemoryService:
        """The service of the tenant the current request acts for."""
        identity = current_identity.get()
        if identity is None:
            if self.require_identity:
                raise NoIdentity("this request carries no tenant identity; authenticate with a bearer token")
            return self.base
        return self.get(identity.tenant)

    def get(self, tenant: str) -> MemoryService:
        service = self._services.get(tenant)
        if service is not None:
            return service
        tenant = check.tenant_name(tenant)
        with self._lock:
            service = self._services.get(tenant)
            if service is None:
                base = self.base
                # PostgreSQL: the same pool, confined to this tenant by row-level security.
                # SQLite: the same database (each store's statements name its namespace).
                db = base.db.for_tenant(tenant)
                service = MemoryService(db, base.embedder, base.settings.with_(namespace=tenant), base.clock)
                if db is base.db:
                    # One backfill for the whole file: remember() in this tenant wakes it.
                    service.indexer = service.reads.indexer = base.indexer  # its recalls embed with it too
                elif self._started:
                    # Row-level security shows a backfill only its own tenant's queue.
                    service.indexer.start()
                service.write_daily_backlog(older_than_ms=0)
                self._services[tenant] = service
                log.info("tenant %s: first request, service ready", tenant)
        return service

    def curator(self, service: MemoryService) -> Curator:
        namespace = service.settings.namespace
        curator = self._curators.get(namespace)
        if curator is None:
            curator = self._curators.setdefault(namespace, Curator(service))
        return curator

    def start_background(self, model_delay: float = 0.0) -> None:
        self._started = True
        self.base.start_background(model_delay=model_delay)

    def stop(self) -> None:
        for service in list(self._services.values()):
            service.indexer.stop()

    def close(self) -> None:
        """Close the shared database; every tenant's service goes with it."""
        self.base.close()
