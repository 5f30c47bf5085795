"""The web page's changes: log in and out, remember, edit, forget, restore, pin; curation as a
preview then apply; thread settings, global prompts, SOUL.md and MEMORY.md.

Every POST reads its form through `Gate.posted` (the CSRF check) and calls the same code as
the terminal (server/curation/editing.py, the curator, the service); after a change the
browser is sent to a page that shows its result (post/redirect/get).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from server import browse
from server.curation import editing
from server.curation.curator import ACTIONS
from server.errors import InvalidInput, NotFound
from server.files import editor
from server.web.site import Web, page_words, path_id

#: What each curation parameter is, for the form (name -> label, input type).
PARAMS = {
    "ids": ("memory ids (comma-separated)", "text"),
    "replacement_id": ("replacement memory id", "number"),
    "thread": ("thread ('global' for global memories; empty: every thread)", "text"),
    "older_than_days": ("forgotten more than this many days ago", "number"),
    "threshold": ("similarity threshold (0-1]", "text"),
    "since": ("from (ISO-8601 date)", "text"),
    "until": ("until (ISO-8601 date)", "text"),
    "origin": ("written by this client (origin)", "text"),
    "source": ("arrived this way (source)", "text"),
    "split_by_month": ("one archive per month", "checkbox"),
    "archive": ("archive name in the archives folder", "text"),
}
ABOUT = {
    "promote": "copy durable memories into MEMORY.md (by retention score)",
    "dedupe": "mark near-duplicates in a thread superseded by the newest wording",
    "supersede": "the memories in ids are replaced by the replacement memory",
    "compress": "shorten old memories by age; originals are archived",
    "restore": "undo forget, compression or supersede",
    "retention": "every memory's retention score (a report)",
    "pin": "mark memories important", "unpin": "undo pin",
    "forget-list": "forgotten memories (a report)",
    "forget-matching": "forget everything from a time window, a client or a source",
    "purge": "erase forgotten memories for good",
    "stats": "counts and health (a report)",
    "export": "write a JSON archive into the archives folder",
    "import": "import an archive from the archives folder",
    "review": "the open questions, newest first: a later memory that may replace an earlier one (a report; "
              "settle each with supersede or keep, or one by one on the Review page)",
    "keep": "the memories in ids stay current beside the replacement memory (not asked again)",
}


def _ids(raw: Any) -> list[int] | None:
    if not raw:
        return None
    try:
        return [int(p) for p in str(raw).replace(",", " ").split()]
    except ValueError:
        raise InvalidInput("ids are whole numbers separated by commas, e.g. 3, 7") from None


def curation_params(action: str, values: Any) -> dict[str, Any]:
    """The action's parameters from a query string or form (empty fields are not given)."""
    out: dict[str, Any] = {}
    for name in sorted(ACTIONS[action].params):
        raw = values.get(name)
        if name == "split_by_month":
            out[name] = True if raw else None
        elif raw in (None, ""):
            continue
        elif name == "ids":
            out[name] = _ids(raw)
        elif name in ("replacement_id", "older_than_days"):
            try:
                out[name] = int(raw)
            except ValueError:
                raise InvalidInput(f"{name.replace('_', ' ')} must be a whole number") from None
        elif name == "threshold":
            try:
                out[name] = float(raw)
            except ValueError:
                raise InvalidInput("threshold must be a number above 0 and at most 1") from None
        else:
            out[name] = str(raw)
    return out


def fingerprint(result: Any) -> str:
    """What a preview showed, so an apply can tell whether the store changed since."""
    payload = json.dumps({"ids": result.ids, "counts": result.counts}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def routes(web: Web) -> list[Route]:
    gate = web.gate

    # -- sessions ------------------------------------------------------------------------------
    async def login(request: Request) -> Response:
        token = request.query_params.get("token")
        if request.method == "GET" and token is None:
            if request.state.session is not None:
                return RedirectResponse("/", status_code=303)
            return web.page(request, "login.html", tokens=gate.launch_token is None, failed=False)
        if request.method == "POST":
            form = await request.form()
            token = str(form.get("token") or "").strip()
            sid = await web.run(gate.login_bearer, token)
        else:
            sid = gate.login_local(token or "")
        if sid is None:
            return web.page(request, "login.html", status=403, tokens=gate.launch_token is None, failed=True)
        response = RedirectResponse("/", status_code=303)  # the token leaves the address bar and the history
        response.set_cookie(gate.cookie, sid, httponly=True, samesite="strict", path="/")
        return response

    async def logout(request: Request) -> Response:
        await gate.posted(request)
        gate.end(request.cookies.get(gate.cookie))
        response = RedirectResponse("/login", status_code=303)
        response.delete_cookie(gate.cookie, path="/")
        return response

    # -- one memory ----------------------------------------------------------------------------
    async def edit(request: Request) -> Response:
        service, memory_id = web.service(request), path_id(request)
        if request.method == "GET":
            detail = await web.run(_detail, service, memory_id)
            return web.page(request, "edit.html", m=detail.memory, error=None, values=None)
        form = await gate.posted(request)
        values = {k: str(form.get(k) or "") for k in ("content", "kind", "tags", "importance", "thread")}
        try:
            importance = float(values["importance"]) if values["importance"] else None
            result = await web.run(
                editing.edit, service, memory_id, content=values["content"], kind=values["kind"] or None,
                tags=[t for t in values["tags"].replace(",", " ").split() if t], importance=importance,
                thread=values["thread"] or "global", origin=web.origin(request), author=_author(web, request),
            )
        except (InvalidInput, ValueError) as exc:
            detail = await web.run(_detail, service, memory_id)
            message = page_words(str(exc)) if isinstance(exc, InvalidInput) else "importance must be a number from 0 to 1"
            return web.page(request, "edit.html", status=400, m=detail.memory, error=message, values=values)
        return web.done(request, f"/memory/{result.id}", result.message)

    async def forget(request: Request) -> Response:
        await gate.posted(request)
        memory_id = path_id(request)
        result = await web.run(editing.forget, web.service(request), memory_id, "from the web page")
        return web.done(request, f"/memory/{memory_id}", result.message)

    async def restore(request: Request) -> Response:
        await gate.posted(request)
        memory_id = path_id(request)
        result = await web.run(editing.restore, web.service(request), memory_id)
        return web.done(request, f"/memory/{memory_id}", result.message)

    async def pin(request: Request) -> Response:
        form = await gate.posted(request)
        memory_id = path_id(request)
        result = await web.run(editing.pin, web.service(request), memory_id, form.get("pinned") != "0")
        return web.done(request, f"/memory/{memory_id}", result.message)

    async def remember(request: Request) -> Response:
        service = web.service(request)
        if request.method == "GET":
            return web.page(request, "remember.html", error=None, values={"thread": request.query_params.get("thread", "")})
        form = await gate.posted(request)
        values = {k: str(form.get(k) or "") for k in ("content", "kind", "tags", "importance", "thread")}
        try:
            result = await web.run(
                service.remember, values["content"], kind=values["kind"] or "note", thread=values["thread"] or "global",
                tags=[t for t in values["tags"].replace(",", " ").split() if t],
                importance=float(values["importance"] or 0.5), origin=web.origin(request), author=_author(web, request),
            )
        except (InvalidInput, ValueError) as exc:
            message = page_words(str(exc)) if isinstance(exc, InvalidInput) else "importance must be a number from 0 to 1"
            return web.page(request, "remember.html", status=400, error=message, values=values)
        return web.done(request, f"/memory/{result.id}", result.message)

    # -- curation --------------------------------------------------------------------------------
    async def curate_index(request: Request) -> Response:
        return web.page(request, "curate.html", actions=ACTIONS, about=ABOUT, action=None)

    async def curate(request: Request) -> Response:
        form = await gate.posted(request) if request.method == "POST" else None  # the CSRF check before anything
        action = request.path_params["action"]
        if action not in ACTIONS:
            raise NotFound(f"No curation action {action!r}; the Curate page lists them.")
        service = web.service(request)
        curator = web.tenants.curator(service)
        fields = [(n, *PARAMS[n]) for n in sorted(ACTIONS[action].params)]
        if request.method == "GET":
            preview = None
            values = {n: request.query_params.get(n, "") for n in ACTIONS[action].params}
            if request.query_params.get("preview"):
                params = curation_params(action, request.query_params)
                preview = await web.run(curator.run, action, dry_run=True, limit=200, **params)
            return web.page(request, "curate.html", actions=ACTIONS, about=ABOUT, action=action, fields=fields,
                            values=values, preview=preview, mark=fingerprint(preview) if preview else "", stale=False)
        assert form is not None
        params = curation_params(action, form)
        fresh = await web.run(curator.run, action, dry_run=True, limit=200, **params)
        if fingerprint(fresh) != form.get("mark"):
            # The store changed since the preview (another window, the assistant): show what applying
            # would do now, and apply nothing.
            values = {n: str(form.get(n) or "") for n in ACTIONS[action].params}
            return web.page(request, "curate.html", status=409, actions=ACTIONS, about=ABOUT, action=action,
                            fields=fields, values=values, preview=fresh, mark=fingerprint(fresh), stale=True)
        result = await web.run(curator.run, action, dry_run=False, limit=200, **params)
        query = urlencode({k: v for k, v in ((n, str(form.get(n) or "")) for n in ACTIONS[action].params) if v})
        return web.done(request, f"/curate/{action}" + (f"?{query}" if query else ""), result.message)

    # -- threads, prompts, files -------------------------------------------------------------
    async def thread_settings(request: Request) -> Response:
        form = await gate.posted(request)
        name = request.path_params["name"]
        service = web.service(request)
        await web.run(service.threads.configure, name, title=str(form.get("title") or ""),
                      system_prompt=str(form.get("system_prompt") or ""), archived=form.get("archived") == "1")
        return web.done(request, f"/thread/{name}", f"Thread {name} saved.")

    async def prompts(request: Request) -> Response:
        service = web.service(request)
        if request.method == "POST":
            form = await gate.posted(request)
            priority = str(form.get("priority") or "0")
            if not priority.lstrip("-").isdigit():
                raise InvalidInput("priority must be a whole number from -1000 to 1000")
            result = await web.run(service.global_prompts.run, "set", str(form.get("name") or ""),
                                   str(form.get("content") or ""), int(priority))
            return web.done(request, "/prompts", result.message)
        result = await web.run(service.global_prompts.run, "list")
        return web.page(request, "prompts.html", prompts=result.prompts, confirm=None)

    async def prompt_action(request: Request) -> Response:
        if request.method == "POST":
            await gate.posted(request)  # the CSRF check before anything
        service, name, action = web.service(request), request.path_params["name"], request.path_params["action"]
        if action not in ("activate", "deactivate", "delete"):
            raise NotFound(f"No prompt action {action!r}")
        if request.method == "GET":  # delete asks first
            result = await web.run(service.global_prompts.run, "list")
            if not any(p.name == name for p in result.prompts):
                raise NotFound(f"No global prompt {name!r}")
            return web.page(request, "prompts.html", prompts=result.prompts, confirm=name)
        result = await web.run(service.global_prompts.run, action, name)
        return web.done(request, "/prompts", result.message)

    async def file(request: Request) -> Response:
        service, name = web.service(request), request.path_params["name"]
        if request.method == "GET":
            text, mark = await web.run(editor.read, service.files, name)
            return web.page(request, "file.html", name=name, text=text, mark=mark, error=None)
        form = await gate.posted(request)
        text = str(form.get("text") or "")
        try:
            saved = await web.run(editor.save, service.files, name, text, str(form.get("mark") or ""), service.clock())
        except editor.Conflict as exc:
            current, mark = await web.run(editor.read, service.files, name)
            return web.page(request, "file.html", status=409, name=name, text=text, mark=mark, error=str(exc),
                            current=current)
        return web.done(request, f"/files/{name}", saved.message)

    return [
        Route("/login", login, methods=["GET", "POST"]), Route("/logout", logout, methods=["POST"]),
        Route("/memory/{id}/edit", edit, methods=["GET", "POST"]),
        Route("/memory/{id}/forget", forget, methods=["POST"]),
        Route("/memory/{id}/restore", restore, methods=["POST"]),
        Route("/memory/{id}/pin", pin, methods=["POST"]),
        Route("/remember", remember, methods=["GET", "POST"]),
        Route("/curate", curate_index), Route("/curate/{action}", curate, methods=["GET", "POST"]),
        Route("/thread/{name}", thread_settings, methods=["POST"]),
        Route("/prompts", prompts, methods=["GET", "POST"]),
        Route("/prompts/{name}/{action}", prompt_action, methods=["GET", "POST"]),
        Route("/files/{name}", file, methods=["GET", "POST"]),
    ]


def _detail(service: Any, memory_id: int) -> Any:
    return browse.show(service, memory_id)


def _author(web: Web, request: Request) -> Any:
    """Who writes: the token's user and agent in tokens mode; the process's own otherwise (None)."""
    return None if web.gate.launch_token else web.session(request).principal
