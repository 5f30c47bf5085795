"""Who is calling: the tenant a store is confined to, and the user and agent behind a write.

Over stdio there is one principal per process: tenant = MEMVAULT_NAMESPACE, user and
agent from MEMVAULT_USER / MEMVAULT_AGENT (both optional). A multi-tenant transport
(HTTP with bearer tokens) maps each request's token to a Principal instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from server.config import Settings


@dataclass(frozen=True)
class Principal:
    tenant: str
    user: str | None = None
    agent: str | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> Principal:
        return cls(tenant=settings.namespace, user=settings.user, agent=settings.agent)
