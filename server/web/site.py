"""What every handler of the web page shares: the Web object (templates, tenants, the gate, worker
threads, recall timings) and the small request helpers."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
import anyio.to_thread
from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse

from server import __version__, browse
from server.errors import Call, InvalidInput, NotFound, reword_hints
from server.tenants import Tenants
from server.models import KINDS
from server.service import MemoryService
from server.web.security import Gate, Session

T = TypeVar("T")
HERE = Path(__file__).parent
#: Worker threads for service calls at once (the page has one user; this bounds a reload storm).
WORKERS = 4
#: The largest form a change may send (SOUL.md and MEMORY.md are edited whole).
MAX_BODY = 2 * 1024 * 1024
#: Recall latencies kept for the health page (this process's searches).
LATENCIES = 200


class Web:
    """What the handlers share: the tenants' services, the sessions, the templates."""

    def __init__(self, tenants: Tenants, gate: Gate) -> None:
        self.tenants = tenants
        self.gate = gate
        self.limiter = anyio.CapacityLimiter(WORKERS)
        self.latencies: dict[str, deque[tuple[str, float]]] = {}
        self.templates = Environment(
            loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(default=True),
            trim_blocks=True, lstrip_blocks=True,
        )
        self.templates.globals.update(version=__version__, kinds=KINDS, states=browse.STATES)
        self.templates.filters["day"] = lambda s: (s or "")[:10]
        self.templates.filters["minute"] = lambda s: (s or "")[:16].replace("T", " ")
        self.templates.filters["columns"] = lambda rows: list(dict.fromkeys(k for r in rows for k in r))
        self.templates.filters["words"] = lambda text: page_words(text or "")

    def session(self, request: Request) -> Session:
        return request.state.session

    def service(self, request: Request) -> MemoryService:
        """The service of the tenant this session acts for."""
        return self.tenants.get(self.session(request).principal.tenant)

    def origin(self, request: Request) -> str:
        """What this session's writes record as their origin (provenance)."""
        p = self.session(request).principal
        return "memvault web page" if self.gate.launch_token else f"{p.user or '-'}/{p.agent or '-'} via web page"

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        return await anyio.to_thread.run_sync(lambda: fn(*args, **kwargs), limiter=self.limiter)

    def page(self, request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
        session: Session | None = request.state.session
        flash, session_flash = [], getattr(session, "flash", None)
        if session_flash:
            flash, session_flash[:] = list(session_flash), []
        html = self.templates.get_template(template).render(
            request=request, session=session, csrf=session.csrf if session else "", flash=flash,
            tenant=session.principal.tenant if session else None, path=request.url.path, **context,
        )
        return HTMLResponse(html, status_code=status)

    def done(self, request: Request, to: str, message: str) -> RedirectResponse:
        """After a change: say what happened on the next page (post/redirect/get)."""
        self.session(request).flash.append(page_words(message))
        return RedirectResponse(to, status_code=303)

    def timed_recall(self, service: MemoryService, query: str, **kwargs: Any) -> Any:
        started = time.perf_counter()
        result = service.recall(query, **kwargs)
        taken = (time.perf_counter() - started) * 1000
        self.latencies.setdefault(service.settings.namespace, deque(maxlen=LATENCIES)).append(
            (f"search page ({result.search})", taken))
        return result


def page_words(text: str) -> str:
    """A service message with its hints in the page's words: its buttons and pages, not the assistant's
    curate_memory calls or the terminal's commands."""
    return reword_hints(text, "the Memories and Search pages show current memory ids", _on_the_page)


def _on_the_page(call: Call) -> str:
    if call.action == "restore" and len(call.ids) == 1 and not call.others:
        return f"Restore on memory {call.ids[0]}'s page"
    named = [f"ids {', '.join(call.ids)}"] if call.ids else []
    named += [f"{k.replace('_', ' ')} {v}" for k, v in call.others.items()]
    return f"{call.action} on the Curate page" + (f" ({', '.join(named)})" if named else "")


# -- pages that read ------------------------------------------------------------------------------
def int_param(value: str | None, default: int, low: int, high: int, what: str) -> int:
    if value in (None, ""):
        return default
    try:
        number = int(value)  # type: ignore[arg-type]
    except ValueError:
        raise InvalidInput(f"{what} must be a whole number") from None
    if not low <= number <= high:
        raise InvalidInput(f"{what} must be from {low} to {high}")
    return number




def path_id(request: Request) -> int:
    raw = request.path_params.get("id", "")
    if not raw.isdigit():
        raise NotFound(f"No memory {raw!r}; memory ids are whole numbers.")
    return int(raw)


