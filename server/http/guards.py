"""The checks in front of MCP over HTTP that the SDK leaves loose: Host/Origin, 401 wording, sessions per token.

* **Host and Origin, parsed exactly.** The SDK compares headers by prefix
  (``localhost:*`` accepts ``localhost:8765@evil.com``) and by case (refuses a
  legitimate ``LOCALHOST:8765``). Here both are parsed by their grammar (RFC 9110
  ``host[:port]``, RFC 6454 ``scheme://host[:port]``): names are case-insensitive,
  ports are numbers, and anything else -- userinfo, a path, a second colon,
  whitespace -- is refused. Accepted headers are passed on lower-cased.
* **401 without an OAuth detour.** With memvault's own bearer tokens there is no
  authorization server, so the 401 names no protected-resource metadata (the
  2026-07-28 authorization rules make OAuth optional; a client only starts OAuth
  discovery from ``resource_metadata`` or ``/.well-known/oauth-protected-resource``,
  which this server does not serve). It says what is wrong and what to do:
  ``invalid or revoked token`` for a refused token (``error="invalid_token"``), and
  a plain ``Bearer realm`` challenge with no error code when none was sent (RFC 6750 §3.1).
* **Sessions per token.** The SDK expires idle sessions
  (``MEMVAULT_HTTP_SESSION_IDLE_SECONDS``) and caps them per process; a client
  that opens sessions and abandons them could still fill that cap for everyone.
  ``SessionCap`` counts each token's open sessions (bookkeeping from the
  responses: an ``mcp-session-id`` issued, a DELETE, a 404, idle time) and refuses
  a new one past ``MEMVAULT_HTTP_SESSIONS_PER_TOKEN`` with 429.
* **Slow clients.** uvicorn waits for a request's headers forever (1,100 connections
  with unfinished headers were all held open). ``guarded_http_protocol`` gives each
  request ``MEMVAULT_HTTP_HEADER_TIMEOUT_SECONDS`` to send its headers (then 408 and the
  connection is closed) and lets one client address hold at most
  ``MEMVAULT_HTTP_CONNECTIONS_PER_CLIENT`` connections (503 and closed past it). The
  body's own limit, ``MEMVAULT_HTTP_BODY_TIMEOUT_SECONDS``, is kept where the body is
  read (``BodyLimit`` in transport.py).
"""

from __future__ import annotations

import asyncio
import hashlib
import ipaddress
import json
import logging
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.auto import AutoHTTPProtocol

log = logging.getLogger(__name__)


def is_loopback(host: str) -> bool:
    """Whether a host name or address (IPv6 with or without brackets) is this machine's loopback."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


_PORT = r"(?::(?P<port>[0-9]{1,5}))?"
# reg-name (letters, digits, '.', '-', '_'), IPv4, or a bracketed IPv6 literal.
_NAME = r"(?P<name>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)"
_HOST = re.compile(_NAME + _PORT)
_ORIGIN = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://" + _NAME + _PORT)


@dataclass(frozen=True)
class Authority:
    """A parsed host: lower-case name, port (None = none given), scheme for origins ('' for hosts)."""

    name: str
    port: int | None
    scheme: str = ""

    def render(self) -> str:
        base = f"{self.scheme}://{self.name}" if self.scheme else self.name
        return base if self.port is None else f"{base}:{self.port}"


def _authority(match: re.Match[str] | None, scheme: str = "") -> Authority | None:
    if match is None:
        return None
    name = match.group("name").lower()
    if not name.strip(".") or ".." in name:
        return None
    port = match.group("port")
    if port is not None and not 0 < int(port) <= 65535:
        return None
    return Authority(name, None if port is None else int(port), scheme)


def parse_host(value: str) -> Authority | None:
    """``name[:port]`` exactly, or None: ``localhost:8765@evil.com`` is not a host."""
    return _authority(_HOST.fullmatch(value))


def parse_origin(value: str) -> Authority | None:
    """``scheme://name[:port]`` exactly (no userinfo, no path), or None."""
    m = _ORIGIN.fullmatch(value)
    return None if m is None else _authority(m, m.group("scheme").lower())


class Allowed:
    """Allowed hosts or origins from patterns such as ``localhost:*``, ``memvault.internal:8765``,
    ``http://127.0.0.1:*`` (``*`` = any port, no port given = the header names none)."""

    def __init__(self, patterns: Iterable[str], origins: bool) -> None:
        self.exact: set[Authority] = set()
        self.any_port: set[tuple[str, str]] = set()
        parse = parse_origin if origins else parse_host
        for raw in patterns:
            pattern = raw.strip()
            wildcard = pattern.endswith(":*")
            parsed = parse(pattern[:-2] if wildcard else pattern)
            if parsed is None:
                raise ValueError(f"not a {'origin' if origins else 'host'}: {raw!r}")
            if wildcard:
                self.any_port.add((parsed.scheme, parsed.name))
                self.exact.add(parsed)  # the name without a port is fine too
            else:
                self.exact.add(parsed)

    def allows(self, found: Authority) -> bool:
        return found in self.exact or (found.port is not None and (found.scheme, found.name) in self.any_port)


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope.get("headers") or ():
        if key.lower() == name:
            return value
    return None


def _replace_header(scope: Scope, name: bytes, value: bytes) -> Scope:
    headers = [(k, v) for k, v in scope.get("headers") or () if k.lower() != name]
    return {**scope, "headers": [*headers, (name, value)]}


async def send_json(send: Send, status: int, payload: dict[str, str] | bytes,
                    extra: list[tuple[bytes, bytes]] = ()) -> None:  # type: ignore[assignment]
    """A whole JSON response (`payload` a dict, or a body already serialised) with its length."""
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *extra]})
    await send({"type": "http.response.body", "body": body})


class HostOriginCheck:
    """421 for a Host, 403 for an Origin that is not exactly one of the allowed ones (DNS rebinding)."""

    def __init__(self, app: ASGIApp, hosts: Allowed, origins: Allowed) -> None:
        self.app, self.hosts, self.origins = app, hosts, origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        raw_host = (_header(scope, b"host") or b"").decode("latin-1")
        host = parse_host(raw_host)
        if host is None or not self.hosts.allows(host):
            await send_json(send, 421, {
                "error": "misdirected_request",
                "error_description": f"Host {raw_host[:100]!r} is not one this server answers to; add the name "
                "clients use to MEMVAULT_HTTP_ALLOWED_HOSTS (e.g. 'memvault.internal:8765').",
            })
            return
        scope = _replace_header(scope, b"host", host.render().encode())
        raw_origin = _header(scope, b"origin")
        if raw_origin is not None:  # browsers send it; other clients usually do not
            origin = parse_origin(raw_origin.decode("latin-1"))
            if origin is None or not self.origins.allows(origin):
                await send_json(send, 403, {
                    "error": "forbidden_origin",
                    "error_description": f"Origin {raw_origin.decode('latin-1')[:100]!r} may not use this server; "
                    "allow a web app's origin with MEMVAULT_HTTP_ALLOWED_ORIGINS (e.g. 'https://app.example.com').",
                })
                return
            scope = _replace_header(scope, b"origin", origin.render().encode())
        await self.app(scope, receive, send)


UNAUTHORIZED_NO_TOKEN = (
    "This server needs a bearer token: send 'Authorization: Bearer <token>' with a token from "
    "`memvault token create --tenant NAME`."
)
UNAUTHORIZED_BAD_TOKEN = (
    "invalid or revoked token: it is unknown, expired or revoked. Ask the server's operator for a new one "
    "(`memvault token create`; `memvault token list` shows each token's state)."
)


class PlainBearer401:
    """Rewrites the SDK's 401 for memvault's own tokens (no OAuth): what went wrong, no metadata to chase."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        presented = (_header(scope, b"authorization") or b"").lower().startswith(b"bearer ")
        rewriting = False

        async def send_rewritten(message: Message) -> None:
            nonlocal rewriting
            if message["type"] == "http.response.start" and message["status"] == 401:
                rewriting = True
                if presented:
                    challenge = 'Bearer realm="memvault", error="invalid_token", error_description="invalid or revoked token"'
                    payload = {"error": "invalid_token", "error_description": UNAUTHORIZED_BAD_TOKEN}
                else:  # RFC 6750 3.1: no error code when the request had no credentials
                    challenge = 'Bearer realm="memvault"'
                    payload = {"error": "unauthorized", "error_description": UNAUTHORIZED_NO_TOKEN}
                await send_json(send, 401, payload, [(b"www-authenticate", challenge.encode())])
                return
            if rewriting:
                if message["type"] == "http.response.body" and not message.get("more_body", False):
                    rewriting = False
                return  # the SDK's own body is replaced by ours
            await send(message)

        await self.app(scope, receive, send_rewritten)


class SessionCap:
    """At most ``per_token`` open MCP sessions per bearer token; 429 past that, with what to do.

    Bookkeeping only from what passes through: a session counts from the response that
    issues its ``mcp-session-id`` until a DELETE of it succeeds, a request for it gets
    404 (the SDK forgot it), or it has had no request in flight for ``idle_seconds``
    (when the SDK closes it too). Tokens are keyed by a hash; the raw value is not kept.
    """

    def __init__(self, app: ASGIApp, per_token: int, idle_seconds: float | None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.app, self.per_token, self.idle_seconds, self.clock = app, per_token, idle_seconds, clock
        # token key -> session id -> [last activity, requests in flight]
        self._open: dict[str, dict[str, list[float]]] = {}
        self._pending: dict[str, int] = {}  # token key -> new-session requests being served

    def open_sessions(self, key: str) -> int:
        sessions = self._open.get(key)
        if not sessions:
            return 0
        if self.idle_seconds is not None:
            cutoff = self.clock() - self.idle_seconds
            for sid in [s for s, (seen, busy) in sessions.items() if busy == 0 and seen < cutoff]:
                del sessions[sid]
        if not sessions:
            self._open.pop(key, None)
        return len(sessions)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        auth = _header(scope, b"authorization") if scope["type"] == "http" else None
        if auth is None:
            await self.app(scope, receive, send)
            return
        key = hashlib.sha256(auth).hexdigest()
        sid_raw = _header(scope, b"mcp-session-id")
        sid = sid_raw.decode("latin-1") if sid_raw is not None else None
        opening = sid is None and scope.get("method") == "POST"
        if opening and self.open_sessions(key) + self._pending.get(key, 0) >= self.per_token:
            await send_json(send, 429, {
                "error": "too_many_sessions",
                "error_description": f"This token already has {self.per_token} open sessions "
                "(MEMVAULT_HTTP_SESSIONS_PER_TOKEN). Close sessions you no longer use (HTTP DELETE), or wait: "
                "idle ones close after MEMVAULT_HTTP_SESSION_IDLE_SECONDS.",
            }, [(b"retry-after", b"60")])
            return
        sessions = self._open.setdefault(key, {})
        entry = sessions.get(sid) if sid is not None else None
        if opening:  # a place is held while the request is served, so concurrent openers cannot overshoot
            self._pending[key] = self._pending.get(key, 0) + 1
        if entry is not None:
            entry[0] = self.clock()
            entry[1] += 1

        held = opening

        def release() -> None:
            nonlocal held
            if held:
                held = False
                self._pending[key] -= 1
                if not self._pending[key]:
                    del self._pending[key]

        async def watch(message: Message) -> None:
            if message["type"] == "http.response.start":
                release()  # from here the session (if one was issued) is counted as open instead
                status = message["status"]
                issued = next((v for k, v in message.get("headers") or () if k.lower() == b"mcp-session-id"), None)
                if sid is None and issued is not None and status < 400:
                    sessions[issued.decode("latin-1")] = [self.clock(), 0]
                elif sid is not None and (status == 404 or (scope["method"] == "DELETE" and status < 300)):
                    sessions.pop(sid, None)
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            release()
            if entry is not None:
                entry[0] = self.clock()
                entry[1] -= 1
            if not sessions:
                self._open.pop(key, None)


def _plain_response(status: str, payload: dict[str, str]) -> bytes:
    body = json.dumps(payload).encode()
    return (f"HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
            "connection: close\r\n\r\n").encode() + body


def guarded_http_protocol(header_seconds: float, per_client: int) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol with a deadline for each request's headers and a cap on one client's connections.

    Written at the connection level because neither reaches the app: a request whose headers
    never end is not a request yet. The deadline starts when the connection opens and again
    after each response (the next request on a kept-alive connection); a request whose
    headers arrived (a long answer, a listen stream) is never cut by it.
    """
    open_connections: dict[str, int] = {}
    too_slow = _plain_response("408 Request Timeout", {
        "error": "request_timeout",
        "error_description": f"The request's headers did not arrive within {header_seconds:g} seconds "
        "(MEMVAULT_HTTP_HEADER_TIMEOUT_SECONDS); send them at once.",
    })
    too_many = _plain_response("503 Service Unavailable", {
        "error": "too_many_connections",
        "error_description": f"This client already holds {per_client} open connections "
        "(MEMVAULT_HTTP_CONNECTIONS_PER_CLIENT); close some (or reuse them) and retry. Behind a proxy "
        "every client shares the proxy's address: raise the limit there.",
    })

    class Guarded(AutoHTTPProtocol):  # type: ignore[misc, valid-type]
        _counted: str | None = None
        _deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            client = self.client[0] if self.client else ""
            if open_connections.get(client, 0) >= per_client:
                log.warning("refused a connection from %s: it holds %d already (MEMVAULT_HTTP_CONNECTIONS_PER_CLIENT)",
                            client or "a local socket", per_client)
                transport.write(too_many)
                transport.close()
                return
            open_connections[client] = open_connections.get(client, 0) + 1
            self._counted = client
            self._arm()

        def _arm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
            self._deadline = self.loop.call_later(header_seconds, self._headers_late)

        def _headers_late(self) -> None:
            self._deadline = None
            waiting = self.cycle is None or self.cycle.response_complete
            if waiting and not self.transport.is_closing():
                if self._started:  # part of a request came: say why it is cut (an idle connection just closes)
                    self.transport.write(too_slow)
                self.transport.close()

        _started = False

        def data_received(self, data: bytes) -> None:
            self._started = True
            super().data_received(data)

        def on_response_complete(self) -> None:
            self._started = False
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None
            if self._counted is not None:
                left = open_connections.get(self._counted, 1) - 1
                if left > 0:
                    open_connections[self._counted] = left
                else:
                    open_connections.pop(self._counted, None)
                self._counted = None
            super().connection_lost(exc)

    return Guarded
