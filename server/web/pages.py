"""The pages of the web page that only read: threads, memories, search, a memory, prompts, files,
the health page and its charts. Pages that change something are in changes.py."""

from __future__ import annotations

import statistics
import time
from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from server import browse, doctor
from server.models import KINDS
from server.search import search
from server.service import MemoryService
from server.storage.protocol import MemoryFilter, Scope
from server.web import changes, charts, queue

from server.web.site import HERE, Web, int_param, path_id


def routes(web: Web) -> list[Any]:
    async def threads(request: Request) -> Response:
        service = web.service(request)
        listed = await web.run(browse.thread_stats, service, False, True)
        return web.page(request, "threads.html", threads=listed,
                        totals={k: sum(getattr(t, k) for t in listed) for k in ("live", "forgotten", "superseded", "pending")})

    async def memories(request: Request) -> Response:
        service, q = web.service(request), request.query_params
        page = int_param(q.get("page"), 1, 1, 100_000, "page")
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
            k = int_param(q.get("k"), 10, 1, service.settings.max_k, "k")
            kind = q.get("kind") or None
            result = await web.run(web.timed_recall, service, query, k=k, thread=q.get("thread") or "*",
                                   kinds=[kind] if kind else None)
        return web.page(request, "search.html", q=query, thread=q.get("thread", ""), kind=q.get("kind", ""),
                        k=q.get("k", "10"), result=result)

    async def memory(request: Request) -> Response:
        detail = await web.run(browse.show, web.service(request), path_id(request))
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
        service = web.service(request)
        weeks = await web.run(browse.weekly, service, 26)
        figures = await web.run(_store_figures, service)
        samples = await web.run(_latency_samples, web, service)
        checks = await web.run(doctor.checks, service.settings)
        return web.page(request, "health.html", charts=_charts(weeks, samples), figures=figures, checks=checks,
                        latency=_latency_summary(samples), backend=service.db.backend)

    async def favicon(request: Request) -> Response:
        return Response(status_code=204)

    return [
        Route("/", threads), Route("/memories", memories), Route("/search", search),
        Route("/memory/{id}", memory), Route("/thread/{name}", thread), Route("/health", health),
        Route("/favicon.ico", favicon),
        *changes.routes(web), *queue.routes(web),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]


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
