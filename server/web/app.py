"""The web page's application: routes, the pages that only read, and what every handler shares.

Pages that change something are in changes.py; both reach memory only through the service,
browse and curation code the terminal and the MCP tools use (never SQL). Blocking calls run
on worker threads. Each request acts for its session's tenant (security.py), through the
same one-service-per-tenant table the HTTP server uses (server.http.tenants).
"""

from __future__ import annotations

import statistics
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
import anyio.to_thread
from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from server import __version__, browse
from server.errors import InvalidInput, MemvaultError, NotFound
from server.http.tenants import Tenants
from server.models import KINDS
from server.service import MemoryService
from server.web import charts
from server.web.security import Gate, Guard, Refused, Session

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
        self.session(request).flash.append(message)
        return RedirectResponse(to, status_code=303)

    def timed_recall(self, service: MemoryService, query: str, **kwargs: Any) -> Any:
        started = time.perf_counter()
        result = service.recall(query, **kwargs)
        taken = (time.perf_counter() - started) * 1000
        self.latencies.setdefault(service.settings.namespace, deque(maxlen=LATENCIES)).append(
            (f"search page ({result.search})", taken))
        return result


# -- pages that read ------------------------------------------------------------------------------
def _int(value: str | None, default: int, low: int, high: int, what: str) -> int:
    if value in (None, ""):
        return default
    try:
        number = int(value)  # type: ignore[arg-type]
    except ValueError:
        raise InvalidInput(f"{what} must be a whole number") from None
    if not low <= number <= high:
        raise InvalidInput(f"{what} must be from {low} to {high}")
    return number


def routes(web: Web) -> list[Any]:
    async def threads(request: Request) -> Response:
        service = web.service(request)
        listed = await web.run(browse.thread_stats, service, False, True)
        return web.page(request, "threads.html", threads=listed,
                        totals={k: sum(getattr(t, k) for t in listed) for k in ("live", "forgotten", "superseded", "pending")})

    async def memories(request: Request) -> Response:
        service, q = web.service(request), request.query_params
        page = _int(q.get("page"), 1, 1, 100_000, "page")
        state = q.get("state") or "live"
        thread = q.get("thread") or None
        kind = q.get("kind") or None
        files = bool(q.get("files"))
        where = await web.run(browse.memory_filter, service, thread, [kind] if kind else None, q.get("since") or None,
                              q.get("until") or None, state, None if files else False)
        listing = await web.run(browse.list_memories, service, where, browse.PAGE, (page - 1) * browse.PAGE)
        names = [t.thread for t in await web.run(browse.thread_stats, service, False, True)]
        return web.page(request, "memories.html", listing=listing, page=page, thread=thread or "", kind=kind or "",
                        state=state, since=q.get("since", ""), until=q.get("until", ""), thread_names=names,
                        files=files)

    async def search(request: Request) -> Response:
        service, q = web.service(request), request.query_params
        query = (q.get("q") or "").strip()
        result = None
        if query:
            k = _int(q.get("k"), 10, 1, service.settings.max_k, "k")
            kind = q.get("kind") or None
            result = await web.run(web.timed_recall, service, query, k=k, thread=q.get("thread") or "*",
                                   kinds=[kind] if kind else None)
        return web.page(request, "search.html", q=query, thread=q.get("thread", ""), kind=q.get("kind", ""),
                        k=q.get("k", "10"), result=result)

    async def memory(request: Request) -> Response:
        detail = await web.run(browse.show, web.service(request), _path_id(request))
        return web.page(request, "memory.html", d=detail, m=detail.memory)

    async def thread(request: Request) -> Response:
        service = web.service(request)
        name = request.path_params["name"]
        if name == "global":
            return RedirectResponse("/memories?thread=global", status_code=303)
        info = await web.run(service.threads.get, name)
        messages = await web.run(service.store.recent_messages, info.id, service.settings.window_size)
        stats = next((t for t in await web.run(browse.thread_stats, service, True, True) if t.thread == info.id), None)
        return web.page(request, "thread.html", t=info, stats=stats, messages=messages)

    async def health(request: Request) -> Response:
        from server.cli import doctor

        service = web.service(request)
        weeks = await web.run(browse.weekly, service, 26)
        figures = await web.run(_store_figures, service)
        samples = await web.run(_latency_samples, web, service)
        checks = await web.run(doctor.checks, service.settings)
        return web.page(request, "health.html", charts=_charts(weeks, samples), figures=figures, checks=checks,
                        latency=_latency_summary(samples), backend=service.db.backend)

    async def favicon(request: Request) -> Response:
        return Response(status_code=204)

    from server.web import changes

    return [
        Route("/", threads), Route("/memories", memories), Route("/search", search),
        Route("/memory/{id}", memory), Route("/thread/{name}", thread), Route("/health", health),
        Route("/favicon.ico", favicon),
        *changes.routes(web),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]


def _path_id(request: Request) -> int:
    raw = request.path_params.get("id", "")
    if not raw.isdigit():
        raise NotFound(f"No memory {raw!r}; memory ids are whole numbers.")
    return int(raw)


def _store_figures(service: MemoryService) -> dict[str, Any]:
    with service.db.read() as conn:
        figures = service.store.stats(conn)
    return figures


# -- the health page's charts ----------------------------------------------------------------------
def _latency_samples(web: Web, service: MemoryService) -> list[tuple[str, float]]:
    """Recall latencies this page measured (its searches); when it has too few, a probe: the search
    part of recall (embedding, keyword and vector search, fusion) for a few queries made of stored
    words, timed now. The probe calls the search pipeline directly, so no memory's recall count moves."""
    kept = list(web.latencies.get(service.settings.namespace, ()))
    if len(kept) >= 5:
        return kept
    from server.search import search
    from server.storage.protocol import MemoryFilter, Scope

    with service.db.read() as conn:
        rows = service.store.browse(conn, MemoryFilter(files=False), 10)
    queries = [" ".join(r.content.split()[:4]) for r in rows] or ["what did we decide", "how do we run the tests"]
    ready = service.embedder.wait_ready(0)
    samples = []
    for query in queries:
        started = time.perf_counter()
        vector = service.embedder.embed([query])[0] if ready else None
        search(service.store, query, vector, 5, Scope())
        samples.append((f"probe ({'hybrid' if ready else 'keyword'})", (time.perf_counter() - started) * 1000))
    return kept + samples


def _latency_summary(samples: list[tuple[str, float]]) -> dict[str, Any]:
    values = sorted(ms for _, ms in samples)
    if not values:
        return {}
    p95 = values[min(len(values) - 1, int(round(0.95 * (len(values) - 1))))]
    return {"count": len(values), "p50": statistics.median(values), "p95": p95, "max": values[-1],
            "kinds": sorted({k for k, _ in samples}), "probed": any(k.startswith("probe") for k, _ in samples)}


def _charts(weeks: list[browse.Week], samples: list[tuple[str, float]]) -> dict[str, str]:
    labels = [w.start[5:] for w in weeks]
    kinds = {k: [w.created.get(k, 0) for w in weeks] for k in KINDS if any(w.created.get(k) for w in weeks)}
    totals: dict[str, int] = {}
    for w in weeks:
        for name, n in w.created_by_thread.items():
            totals[name] = totals.get(name, 0) + n
    top = sorted(totals, key=lambda n: -totals[n])[:7]
    threads = {n: [w.created_by_thread.get(n, 0) for w in weeks] for n in top}
    if len(totals) > len(top):
        threads["other"] = [sum(v for n, v in w.created_by_thread.items() if n not in top) for w in weeks]
    running, text = 0, []
    for w in weeks:
        running += w.chars
        text.append(running)
    return {
        "kinds": charts.stacked_bars("Memories created per week, by kind", labels, kinds or {"none": [0] * len(weeks)}),
        "threads": charts.stacked_bars("Memories created per week, by thread", labels,
                                       threads or {"none": [0] * len(weeks)}),
        "size": charts.lines("Characters stored by memories created in these weeks (running total)", labels,
                             {"characters": text}),
        "changes": charts.lines("Memories superseded and forgotten per week", labels,
                                {"superseded": [w.superseded for w in weeks], "forgotten": [w.forgotten for w in weeks]}),
        "latency": charts.lines("Recall latency, each search in order (ms)", [str(i + 1) for i in range(len(samples))],
                                {"ms": [round(ms, 1) for _, ms in samples]}),
    }


# -- the application -------------------------------------------------------------------------------
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
        return web.page(request, "error.html", status=status, message=str(exc))

    app = Starlette(routes=routes(web), exception_handlers={Refused: refused, MemvaultError: failed},
                    max_body_size=MAX_BODY)
    app.state.web = web
    return Guard(app, gate)
