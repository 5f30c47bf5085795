"""OAuth resource-server mode for `serve --http` (MEMVAULT_HTTP_AUTH=oauth): your identity provider's tokens.

memvault does not issue these tokens; it asks the provider about each one through
token introspection (RFC 7662) and serves protected-resource metadata (RFC 9728)
so clients can discover which authorization server to use. A token counts only if
the provider says it is active, it was issued for this server (its audience is
MEMVAULT_HTTP_PUBLIC_URL, checked by the SDK), and it carries a tenant claim
(MEMVAULT_OAUTH_TENANT_CLAIM, default `tenant`). Introspection runs per request,
so a token the provider revokes is refused from the next request on.
"""

from __future__ import annotations

import logging
from typing import Any

import httpx2
from mcp.server.auth.provider import AccessToken

from server.config import Settings
from server.errors import InvalidInput, SetupError
from server import validation as check

log = logging.getLogger(__name__)

_REQUIRED = (
    ("oauth_issuer", "MEMVAULT_OAUTH_ISSUER", "the authorization server's URL, e.g. https://login.example.com"),
    ("oauth_introspection_url", "MEMVAULT_OAUTH_INTROSPECTION_URL",
     "its token introspection endpoint, e.g. https://login.example.com/oauth2/introspect"),
    ("http_public_url", "MEMVAULT_HTTP_PUBLIC_URL", "this server's MCP URL as clients reach it, e.g. https://memvault.example.com/mcp"),
)


def check_settings(settings: Settings) -> None:
    missing = [f"{key} ({what})" for name, key, what in _REQUIRED if not getattr(settings, name)]
    if missing:
        raise SetupError("MEMVAULT_HTTP_AUTH=oauth needs " + "; ".join(missing))


def _same_url(a: str, b: str) -> bool:
    return a.rstrip("/").lower() == b.rstrip("/").lower()


class IntrospectionVerifier:
    """The SDK's TokenVerifier, answered by the identity provider's introspection endpoint."""

    def __init__(self, settings: Settings, timeout: float = 10.0) -> None:
        self.url = settings.oauth_introspection_url
        self.resource = settings.http_public_url
        self.tenant_claim = settings.oauth_tenant_claim
        self.auth = (
            (settings.oauth_client_id, settings.oauth_client_secret) if settings.oauth_client_id else None
        )
        self.timeout = timeout

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            async with httpx2.AsyncClient(timeout=self.timeout) as http:
                response = await http.post(
                    self.url, data={"token": token, "token_type_hint": "access_token"}, auth=self.auth
                )
        except httpx2.HTTPError as exc:
            log.warning("token introspection at %s failed: %s", self.url, exc)
            return None
        if response.status_code != 200:
            log.warning("token introspection at %s answered HTTP %d", self.url, response.status_code)
            return None
        try:
            data: dict[str, Any] = response.json()
        except ValueError:
            log.warning("token introspection at %s answered something that is not JSON", self.url)
            return None
        return self.access_token(data)

    def access_token(self, data: dict[str, Any]) -> AccessToken | None:
        """Map an introspection response to an AccessToken; None unless active and naming a valid tenant."""
        if data.get("active") is not True:
            return None
        try:
            tenant = check.tenant_name(str(data.get(self.tenant_claim, "")))
        except InvalidInput:
            log.warning("an active token has no usable %r claim; refused (it names no tenant)", self.tenant_claim)
            return None
        audience = data.get("aud")
        audiences = [audience] if isinstance(audience, str) else [a for a in (audience or []) if isinstance(a, str)]
        # The SDK compares `resource` with MEMVAULT_HTTP_PUBLIC_URL (validate_token_resource).
        resource = next((a for a in audiences if _same_url(a, self.resource)), audiences[0] if audiences else None)
        user = str(data.get("username") or data.get("sub") or "")[:64] or None
        agent = str(data.get("client_id") or "")[:64] or None
        expires = data.get("exp")
        return AccessToken(
            token="introspected",  # the raw token is not kept
            client_id=agent or "oauth-client",
            scopes=str(data.get("scope") or "").split(),
            expires_at=expires if isinstance(expires, int) else None,
            resource=resource,
            subject=str(data["sub"]) if data.get("sub") else None,
            claims={"tenant": tenant, "user": user, "agent": agent, "iss": data.get("iss")},
        )
