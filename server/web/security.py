"""Who may use the web page, and the checks every request passes.

The page is for the person at this machine: it listens on loopback only, and nothing
works without a session. A session starts one of two ways:

  local   the random token in the URL `memvault ui` prints (`/login?token=...`): the session
          acts as this process's own namespace, as a stdio server does
  tokens  a bearer token of `memvault token create`, pasted into the login form: the session
          acts as that token's tenant, user and agent, as `serve --http` would, and the token is
          verified again on every request (a revoked token ends the session at once)

The session lives in this process only; the browser holds a random id in an HttpOnly,
SameSite=Strict cookie named after the port. Every request passes `Guard`, outermost:

  Host        only loopback names with this port (a DNS-rebinding page gets 421)
  session     no session: a redirect to /login (no data, no error detail)
  POST        Origin, when the browser sends it, must be this page's own (403 otherwise);
              the form's CSRF token must be the session's (checked by `Gate.posted`)
  headers     a strict Content-Security-Policy (no scripts at all, no framing), nosniff,
              no referrer to other sites, no caching of pages, and no CORS header anywhere,
              so no other origin can read a response
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from server.errors import MemvaultError
from server.models import Principal

#: A session unused for this long is gone (the next request logs in again).
IDLE_SECONDS = 12 * 3600
#: Paths served without a session: the login page and the stylesheet.
OPEN_PATHS = ("/login", "/static/", "/favicon.ico")
HEADERS = [
    (b"content-security-policy", b"default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; "
     b"frame-ancestors 'none'; base-uri 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    # same-origin, not no-referrer: under no-referrer a browser sends `Origin: null` with this
    # page's own form posts, and the Origin check would refuse them.
    (b"referrer-policy", b"same-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
]


class Refused(MemvaultError):
    """A request the page does not serve: wrong host, cross-site, a stale or missing CSRF token."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Session:
    principal: Principal  # the tenant it acts for, and who writes
    csrf: str
    bearer: str | None = None  # tokens mode: verified again on every request
    seen: float = field(default_factory=time.monotonic)
    flash: list[str] = field(default_factory=list)  # messages for the next page


class Gate:
    """The sessions of one `memvault ui` process and the checks that use them."""

    def __init__(self, port: int, principal: Principal, launch_token: str | None, verify: Any = None) -> None:
        self.port = port
        self.principal = principal  # the process's own (local mode)
        self.launch_token = launch_token  # local mode; None in tokens mode
        self.verify = verify  # tokens mode: bearer -> TokenInfo | None
        self._sessions: dict[str, Session] = {}
        self._lock = threading.Lock()

    @property
    def cookie(self) -> str:
        # Cookies are shared by every port of a host: one name per port keeps two pages apart.
        return f"memvault_ui_{self.port}"

    def hosts(self) -> set[str]:
        return {f"{name}:{self.port}" for name in ("127.0.0.1", "localhost", "[::1]")}

    def origins(self) -> set[str]:
        return {f"http://{h}" for h in self.hosts()}

    # -- sessions ---------------------------------------------------------------------------
    def start(self, principal: Principal, bearer: str | None = None) -> str:
        sid = secrets.token_urlsafe(32)
        with self._lock:
            now = time.monotonic()
            for key in [k for k, s in self._sessions.items() if now - s.seen > IDLE_SECONDS]:
                del self._sessions[key]
            self._sessions[sid] = Session(principal, secrets.token_urlsafe(32), bearer)
        return sid

    def end(self, sid: str | None) -> None:
        with self._lock:
            self._sessions.pop(sid or "", None)

    def session(self, sid: str | None) -> Session | None:
        """The live session of this cookie value; a stale one, or one whose bearer token no longer
        verifies (revoked, expired), is ended."""
        if not sid:
            return None
        with self._lock:
            found = self._sessions.get(sid)
        if found is None or time.monotonic() - found.seen > IDLE_SECONDS:
            self.end(sid)
            return None
        if found.bearer is not None and self.verify(found.bearer) is None:
            self.end(sid)
            return None
        found.seen = time.monotonic()
        return found

    def login_local(self, token: str) -> str | None:
        if self.launch_token is None or not hmac.compare_digest(token.encode(), self.launch_token.encode()):
            return None
        return self.start(self.principal)

    def login_bearer(self, token: str) -> str | None:
        if self.verify is None:
            return None
        info = self.verify(token)
        if info is None:
            return None
        return self.start(Principal(tenant=info.tenant, user=info.user, agent=info.agent), bearer=token)

    # -- a change's form ----------------------------------------------------------------------
    async def posted(self, request: Request) -> FormData:
        """The form of a change, once its CSRF token is the session's (403 otherwise)."""
        form = await request.form()
        session: Session = request.state.session
        sent = form.get("csrf")
        if not isinstance(sent, str) or not hmac.compare_digest(sent.encode(), session.csrf.encode()):
            raise Refused(403, "This form is out of date or did not come from this page (CSRF check). Reload the "
                          "page and try again.")
        return form


class Guard:
    """The ASGI middleware in front of every route (see the module docstring)."""

    def __init__(self, app: ASGIApp, gate: Gate) -> None:
        self.app = app
        self.gate = gate

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or []}

        async def secured(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = [h for h in message["headers"] if h[0].lower() not in dict(HEADERS)] + HEADERS
            await send(message)

        if headers.get("host", "") not in self.gate.hosts():
            await _plain(secured, 421, "This page answers only at 127.0.0.1, localhost or [::1] on its own port.")
            return
        if scope["method"] not in ("GET", "HEAD", "POST"):
            await _plain(secured, 405, "Only GET and POST.")
            return
        if scope["method"] == "POST":
            origin = headers.get("origin")
            # Browsers send Origin with every form POST (null from sandboxed or privacy contexts);
            # another site's page never gets its own origin accepted here.
            if origin is not None and origin not in self.gate.origins():
                await _plain(secured, 403, "Changes are accepted only from this page itself (Origin check).")
                return
            if headers.get("sec-fetch-site") not in (None, "same-origin", "none"):
                await _plain(secured, 403, "Changes are accepted only from this page itself (Fetch metadata check).")
                return
        path = scope["path"]
        sid = _cookie(headers.get("cookie", ""), self.gate.cookie)
        session = self.gate.session(sid)
        scope.setdefault("state", {})["session"] = session
        if session is None and not path.startswith(OPEN_PATHS):
            if scope["method"] == "POST":
                await _plain(secured, 403, "Your session has ended; open the page's URL again to log in.")
            else:
                await _redirect(secured, "/login")
            return
        await self.app(scope, receive, secured)


def _cookie(header: str, name: str) -> str | None:
    for part in header.split(";"):
        key, _, value = part.strip().partition("=")
        if key == name:
            return value
    return None


async def _plain(send: Send, status: int, text: str) -> None:
    body = text.encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


async def _redirect(send: Send, to: str) -> None:
    await send({"type": "http.response.start", "status": 303,
                "headers": [(b"location", to.encode()), (b"content-length", b"0")]})
    await send({"type": "http.response.body", "body": b""})
