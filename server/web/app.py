"""The web page's application: the routes behind the Guard, and how errors become pages.

The pages that only read are in pages.py, those that change something in changes.py, what
every handler shares in site.py. All reach memory only through the service,
browse and curation code the terminal and the MCP tools use (never SQL). Blocking calls run
on worker threads. Each request acts for its session's tenant (security.py), through the
same one-service-per-tenant table the HTTP server uses (server.tenants).
"""

from __future__ import annotations

from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from server.errors import MemvaultError, NotFound
from server.tenants import Tenants
from server.web import pages
from server.web.security import Gate, Guard, Refused
from server.web.site import MAX_BODY, Web, page_words


def build_app(tenants: Tenants, gate: Gate) -> Any:
    """The ASGI app: the routes behind Guard (security.py)."""
    web = Web(tenants, gate)

    async def refused(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, Refused)
        return PlainTextResponse(str(exc), status_code=exc.status)

    async def failed(request: Request, exc: Exception) -> Response:
        status = 404 if isinstance(exc, NotFound) else 400
        if request.state.session is None:
            return PlainTextResponse(str(exc), status_code=status)
        return web.page(request, "error.html", status=status, message=page_words(str(exc)))

    app = Starlette(routes=pages.routes(web), exception_handlers={Refused: refused, MemvaultError: failed},
                    max_body_size=MAX_BODY)
    app.state.web = web
    return Guard(app, gate)
