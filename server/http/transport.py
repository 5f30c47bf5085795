"""`memvault serve --http`: MCP over the SDK's streamable HTTP transport, with bearer tokens.

What each request passes through, outermost first:
  (connection)         headers within MEMVAULT_HTTP_HEADER_TIMEOUT_SECONDS, at most
                       MEMVAULT_HTTP_CONNECTIONS_PER_CLIENT connections per client address (guards.py)
  BodyLimit            a body over MEMVAULT_HTTP_MAX_BODY_BYTES gets 413 before it is read, one not
                       whole within MEMVAULT_HTTP_BODY_TIMEOUT_SECONDS gets 408; when the
                       SDK refuses a body as unreadable (400), its JSON-RPC error is replaced by
                       the one a stdio client gets for the same line, with the request's id
                       (server/app/stdio.py) instead of id null and pydantic's text
  HostOriginCheck      Host / Origin parsed exactly and matched (DNS-rebinding protection)
  MessageCheck         a body the SDK would read but JSON-RPC 2.0 refuses (a bare NaN, an id that is
                       null, an object, ..., a lone surrogate escape) gets 400 with the error a stdio
                       client gets for the same line (before authentication: the body is never handled)
  SessionCap           at most MEMVAULT_HTTP_SESSIONS_PER_TOKEN open sessions per token
  PlainBearer401       (tokens mode) the 401 says "invalid or revoked token", no OAuth metadata
  SDK bearer auth      TokenStore.verify; a missing, wrong, expired or revoked token gets 401
  SDK transport        sessions bound to the token that opened them, closed after
                       MEMVAULT_HTTP_SESSION_IDLE_SECONDS without a request
  identity middleware  the token's (tenant, user, agent) becomes `current_identity` for the
                       message, so every tool, resource and prompt works on that tenant only
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlparse

import anyio
import anyio.to_thread
import uvicorn
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import jsonrpc_message_adapter
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server.app import build_server
from server.app.stdio import reply_to_lenient, reply_to_unreadable
from server.clock import to_millis
from server.config import Settings
from server.errors import SetupError
from server.http.guards import (Allowed, HostOriginCheck, PlainBearer401, SessionCap, guarded_http_protocol,
                                is_loopback, send_json)
from server.tenants import Tenants, current_identity
from server.models import Principal
from server.http.oauth import IntrospectionVerifier, check_settings
from server.http.tokens import TokenStore

log = logging.getLogger(__name__)

PATH = "/mcp"
LOOPBACK_HOSTS = ["127.0.0.1:*", "localhost:*", "[::1]:*", "127.0.0.1", "localhost", "[::1]"]
LOOPBACK_ORIGINS = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]


def _listed(raw: str) -> list[str]:
    return [item.strip() for item in raw.split(",") if item.strip()]


def check_bind(settings: Settings, host: str) -> None:
    """Refuse configurations that would expose memory to the network unprotected."""
    if is_loopback(host):
        return
    if settings.http_auth == "none":
        raise SetupError(
            f"refusing to serve {host} without authentication: anyone who can reach it could read and "
            "change every memory. Keep MEMVAULT_HTTP_AUTH=tokens (the default) and create tokens with "
            "`memvault token create --tenant NAME` (or use MEMVAULT_HTTP_AUTH=oauth), or bind to 127.0.0.1."
        )
    if host in ("0.0.0.0", "::", "") and not settings.http_allowed_hosts:
        raise SetupError(
            f"serving on every interface ({host}) needs the names clients reach this server by: set "
            "MEMVAULT_HTTP_ALLOWED_HOSTS, e.g. 'memvault.internal:8765,10.0.0.5:8765' (Host headers "
            "not listed are refused, which stops DNS-rebinding attacks)."
        )


def allowed_hosts_and_origins(settings: Settings, host: str) -> tuple[Allowed, Allowed]:
    """Host / Origin values accepted (DNS-rebinding protection, always on): loopback ones, the bind
    address, MEMVAULT_HTTP_PUBLIC_URL's host, and MEMVAULT_HTTP_ALLOWED_HOSTS / _ORIGINS."""
    hosts = list(LOOPBACK_HOSTS)
    if not is_loopback(host) and host not in ("0.0.0.0", "::", ""):
        shown = f"[{host}]" if ":" in host else host
        hosts += [f"{shown}:*", shown]
    if settings.http_public_url:  # the name clients reach the server by (OAuth mode's audience)
        hosts.append(urlparse(settings.http_public_url).netloc)
    try:
        return (Allowed(hosts + _listed(settings.http_allowed_hosts), origins=False),
                Allowed(LOOPBACK_ORIGINS + _listed(settings.http_allowed_origins), origins=True))
    except ValueError as exc:
        raise SetupError(
            f"MEMVAULT_HTTP_ALLOWED_HOSTS / MEMVAULT_HTTP_ALLOWED_ORIGINS: {exc}; list hosts as 'name:port' or "
            "'name:*' and origins as 'https://name[:port]', comma-separated"
        ) from None


class StoredTokenVerifier:
    """The SDK's TokenVerifier over TokenStore: an AccessToken carries the token's tenant, user and agent."""

    def __init__(self, tokens: TokenStore) -> None:
        self.tokens = tokens
        self._limiter = anyio.CapacityLimiter(4)

    async def verify_token(self, token: str) -> AccessToken | None:
        info = await anyio.to_thread.run_sync(self.tokens.verify, token, limiter=self._limiter)
        if info is None:
            return None
        return AccessToken(
            # The raw token is not kept in memory beyond this call; sessions are bound to client_id.
            token=f"token-{info.id}",
            client_id=f"token-{info.id}",
            scopes=[],
            expires_at=None if info.expires_at is None else info.expires_at // 1000,
            subject=info.user,
            claims={"tenant": info.tenant, "user": info.user, "agent": info.agent, "token_id": info.id},
        )


async def identity_middleware(ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
    """Bind the message's token identity to `current_identity` while its handler runs.

    Read from the HTTP request that carried *this* message (not from the session),
    so each message is attributed to the token it was sent with.
    """
    request = getattr(ctx, "request", None)
    user = request.scope.get("user") if request is not None else None
    if not isinstance(user, AuthenticatedUser) or not user.access_token.claims:
        return await call_next(ctx)
    claims = user.access_token.claims
    reset = current_identity.set(Principal(tenant=claims["tenant"], user=claims["user"], agent=claims["agent"]))
    try:
        return await call_next(ctx)
    finally:
        current_identity.reset(reset)


class BodyLimit:
    """413 for bodies over the limit (declared or streamed), 408 for one that does not arrive in time."""

    def __init__(self, app: ASGIApp, max_bytes: int, seconds: float = 30.0) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.seconds = seconds

    async def _too_slow(self, send: Send) -> None:
        await send_json(send, 408, {
            "error": "request_timeout",
            "error_description": (
                f"The request body did not arrive within {self.seconds:g} seconds "
                "(MEMVAULT_HTTP_BODY_TIMEOUT_SECONDS); send it at once, or raise the limit on the server."
            ),
        }, extra=[(b"connection", b"close")])

    async def _refuse(self, send: Send) -> None:
        await send_json(send, 413, {
            "error": "request_too_large",
            "error_description": (
                f"The request body is over {self.max_bytes} bytes (MEMVAULT_HTTP_MAX_BODY_BYTES). Send less per "
                "call (one memory per remember, fewer add_messages), or raise the limit on the server."
            ),
        })

    @staticmethod
    def _answer_unreadable(body: bytes, send: Send) -> Send:
        """`send`, but a 400 the SDK gives for `body` carries memvault's JSON-RPC error for it instead.

        Only a 400 is touched, after authentication and the transport's own checks ran
        (an unauthenticated request still gets its 401 first).
        """
        held: list[Message] = []
        replaced: list[bool] = []

        async def answer(message: Message) -> None:
            if replaced and message["type"] == "http.response.body":
                return  # the rest of the SDK's body, already answered by ours
            if message["type"] == "http.response.start" and message.get("status") == 400:
                held.append(message)
                return
            if held and message["type"] == "http.response.body":
                start = held.pop()
                try:  # a readable message refused for another reason (no session id, ...) keeps its answer
                    jsonrpc_message_adapter.validate_json(body, by_name=False)
                    reply = None
                except ValueError:
                    reply = reply_to_unreadable(body.decode("utf-8", errors="replace"), unit="request body")
                if reply is not None:
                    data = reply.model_dump_json(by_alias=True, exclude_unset=True).encode()
                    headers = [(k, v) for k, v in start.get("headers", []) if k.lower() not in (b"content-length", b"content-type")]
                    start = {**start, "headers": [*headers, (b"content-type", b"application/json"),
                                                  (b"content-length", str(len(data)).encode())]}
                    if message.get("more_body"):
                        replaced.append(True)
                    message = {"type": "http.response.body", "body": data}
                await send(start)
            await send(message)

        return answer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await self._refuse(send)
            return
        # Read the whole body (bounded) before the app sees it: a chunked body that
        # declares no length is cut off at the limit just the same.
        chunks: list[bytes] = []
        size = 0
        trailing: Message | None = None
        # A body sent a byte at a time would hold its connection (and this task) for ever.
        with anyio.move_on_after(self.seconds) as late:
            while True:
                message = await receive()
                if message["type"] != "http.request":
                    trailing = message
                    break
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > self.max_bytes:
                    await self._refuse(send)
                    return
                chunks.append(chunk)
                if not message.get("more_body", False):
                    break
        if late.cancelled_caught:
            await self._too_slow(send)
            return
        body = b"".join(chunks)
        if scope.get("method") == "POST" and body:
            send = self._answer_unreadable(body, send)
        replay: list[Message] = [{"type": "http.request", "body": body, "more_body": False}]
        if trailing is not None:
            replay.append(trailing)

        async def replayed() -> Message:
            return replay.pop(0) if replay else await receive()

        await self.app(scope, replayed, send)


class MessageCheck:
    """400 and a JSON-RPC error for a POST body the SDK would accept but JSON-RPC 2.0 refuses.

    Without it a request with id null is taken for a notification (202, no answer ever), a
    bare NaN for a number, and an id with a lone surrogate fails the reply with a 500.
    The body arrives whole (BodyLimit reads it first).
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        first = await receive()
        reply = None
        if first["type"] == "http.request" and not first.get("more_body") and first.get("body"):
            reply = reply_to_lenient(first["body"].decode("utf-8", errors="replace"), unit="request body")
        if reply is not None:
            await send_json(send, 400, reply.model_dump_json(by_alias=True, exclude_unset=True).encode())
            return
        replay = [first]

        async def replayed() -> Message:
            return replay.pop() if replay else await receive()

        await self.app(scope, replayed, send)


def build_app(tenants: Tenants, settings: Settings, host: str, port: int) -> ASGIApp:
    """The ASGI app: MCP at /mcp behind the checks described in the module docstring."""
    verifier = auth = None
    if settings.http_auth == "tokens":
        verifier = StoredTokenVerifier(TokenStore(tenants.base.db, tenants.base.clock))
        # Static bearer tokens, no OAuth: no resource_server_url, so no protected-resource
        # metadata is advertised. issuer_url is required by the model but unused without it.
        auth = AuthSettings(issuer_url=f"http://{host}:{port or 80}", resource_server_url=None)
    elif settings.http_auth == "oauth":
        verifier = IntrospectionVerifier(settings)
        # resource_server_url: served as protected-resource metadata (RFC 9728), named in
        # WWW-Authenticate, and every token's audience must be it (validate_token_resource).
        auth = AuthSettings(
            issuer_url=settings.oauth_issuer, resource_server_url=settings.http_public_url,
            required_scopes=_listed(settings.oauth_scopes) or None, validate_token_resource=True,
        )
    mcp = build_server(tenants, token_verifier=verifier, auth=auth)
    mcp.middleware.append(identity_middleware)
    hosts, origins = allowed_hosts_and_origins(settings, host)
    app: ASGIApp = mcp.streamable_http_app(
        streamable_http_path=PATH,
        max_request_body_size=settings.http_max_body_bytes,
        # Host/Origin are checked exactly by HostOriginCheck (the SDK's check matches by prefix).
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        host=host,
        session_idle_timeout=settings.http_session_idle_seconds,
    )
    if settings.http_auth == "tokens":
        app = PlainBearer401(app)
    app = SessionCap(app, settings.http_sessions_per_token, settings.http_session_idle_seconds)
    return BodyLimit(HostOriginCheck(MessageCheck(app), hosts, origins), settings.http_max_body_bytes,
                     settings.http_body_timeout_seconds)


def _uvicorn_server() -> type:
    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            # SIGTERM/SIGINT is the normal way to stop a service: shut down gracefully,
            # close the store and exit 0. (uvicorn re-raises the signal after its
            # shutdown, which would kill the process before the store is closed.)
            super().handle_exit(sig, frame)
            self._captured_signals.clear()

    return Server


def serve(settings: Settings, host: str, port: int) -> None:
    """Run until SIGINT/SIGTERM. Prints `listening on http://HOST:PORT/mcp` once it accepts connections."""

    check_bind(settings, host)
    if settings.http_auth == "oauth":
        check_settings(settings)
    tenants = Tenants.open(settings, require_identity=settings.http_auth != "none")
    base = tenants.base
    try:
        now = to_millis(base.clock())
        if settings.http_auth == "tokens" and not any(t.state(now) == "active" for t in TokenStore(base.db).list()):
            log.warning("no tokens yet: every request will get 401. Create one with "
                        "`memvault token create --tenant NAME`")
        app = build_app(tenants, settings, host, port)
        # log_config=None: uvicorn logs through ours (stderr); no line per request.
        protocol = guarded_http_protocol(settings.http_header_timeout_seconds, settings.http_connections_per_client)
        config = uvicorn.Config(app, host=host, port=port, log_config=None, access_log=False,
                                log_level=settings.log_level.lower(), lifespan="on", http=protocol)
        server = _uvicorn_server()(config)

        async def announce() -> None:
            while not server.started:
                await anyio.sleep(0.05)
            for listener in server.servers:
                for sock in listener.sockets:
                    name = sock.getsockname()
                    shown = f"[{name[0]}]" if ":" in name[0] else name[0]
                    # Printed whatever the log level: scripts and tests wait for this line (--port 0).
                    print(f"memvault: listening on http://{shown}:{name[1]}{PATH} (auth: {settings.http_auth})",
                          file=sys.stderr, flush=True)

        async def main() -> bool:
            async with anyio.create_task_group() as tg:
                tg.start_soon(announce)
                try:
                    await server.serve()
                except SystemExit:  # uvicorn's answer to a failed bind, after logging the OS error
                    return False
                finally:
                    tg.cancel_scope.cancel()
            return True

        if not anyio.run(main):
            raise SetupError(
                f"could not listen on {host}:{port} (see the error above); if the port is taken, "
                "pick another with --port or MEMVAULT_HTTP_PORT"
            )
    finally:
        tenants.close()
