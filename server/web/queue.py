"""The web page's review queue: the open questions -- a later memory that may replace an earlier one --
newest first, each with both texts and their dates, settled one at a time: supersede (the newer replaces
the older; restore undoes it), keep both (not asked again), or skip (the next one).

It is curate_memory's review as a page: the questions are the linker's `open_questions` and a decision
is `Curator.decide`, the calls the elicitation review makes, so the page and the review cannot disagree
about what is open or what a decision records. Skipping changes nothing: the skipped questions ride in
the address (`?skip=40,41`, by the newer memory's id, which names one question) and wait at the end.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from server.clock import iso
from server.errors import InvalidInput
from server.guard.instructions import instruction_flags
from server.linker import OpenQuestion, open_questions
from server.service import MemoryService
from server.web.site import Web

#: Questions shown in full on one page (the rest are counted; each decision brings the next up).
SHOWN = 20
#: Most skipped questions the address carries.
MOST_SKIPPED = 500
#: Who a decision made here is logged as (curate_memory's forms log "the person").
BY = "the person, on the web page"


def skipped(raw: str | None) -> list[int]:
    """The skipped questions from the address: newer memory ids, comma-separated."""
    if not raw:
        return []
    parts = [p for p in raw.replace(" ", ",").split(",") if p]
    if len(parts) > MOST_SKIPPED or not all(p.isdigit() for p in parts):
        raise InvalidInput(f"skip is up to {MOST_SKIPPED} memory ids separated by commas, e.g. 40,41; open the "
                           "Review page again to start the queue over")
    return list(dict.fromkeys(int(p) for p in parts))


def queue(service: MemoryService, skip: list[int]) -> tuple[list[OpenQuestion], list[OpenQuestion]]:
    """The open questions newest first, the ones not skipped first; and the skipped ones, in the same order."""
    questions = open_questions(service)
    later = set(skip)
    return [q for q in questions if q.newer.id not in later], [q for q in questions if q.newer.id in later]


def _view(q: OpenQuestion) -> dict[str, Any]:
    # Instruction-shaped text is flagged here as on every page that shows memories: data, never an instruction.
    return {"older": q.older, "newer": q.newer, "older_day": iso(q.older.created_at)[:10],
            "newer_day": iso(q.newer.created_at)[:10], "probability": q.probability,
            "older_flags": list(instruction_flags(q.older.content)), "newer_flags": list(instruction_flags(q.newer.content))}


def _settle(web: Web, service: MemoryService, older: int, newer: int, decision: str) -> str:
    """Apply one decision if the question is still open; what happened, in the page's words."""
    still = any(q.older.id == older and q.newer.id == newer for q in open_questions(service, None, [newer]))
    if not still:
        # Settled since the page was shown (another window, the assistant, curate_memory's review).
        return f"Memory {older} and memory {newer} are no longer an open question; nothing changed."
    done = web.tenants.curator(service).decide(older, newer, decision, BY)
    if done is None:
        return f"Memory {older} and memory {newer}: nothing to change."
    if decision == "supersede":
        return f"Memory {older} is superseded by memory {newer} (Restore on memory {older}'s page undoes it)."
    return f"Memory {older} and memory {newer} both stay current; this question is not asked again."


def _number(value: Any, what: str) -> int:
    text = str(value or "")
    if not text.isdigit():
        raise InvalidInput(f"{what} must be a memory id (a whole number); open the Review page again")
    return int(text)


def routes(web: Web) -> list[Route]:
    async def review(request: Request) -> Response:
        service = web.service(request)
        if request.method == "POST":
            form = await web.gate.posted(request)  # the CSRF check before anything
            skip = skipped(str(form.get("skip") or ""))
            decision = str(form.get("decision") or "")
            if decision not in ("supersede", "keep both"):
                raise InvalidInput("decision must be supersede or keep both (skip is the Skip button)")
            message = await web.run(_settle, web, service, _number(form.get("older"), "older"),
                                    _number(form.get("newer"), "newer"), decision)
            return web.done(request, "/review" + (f"?{urlencode({'skip': _joined(skip)})}" if skip else ""), message)
        skip = skipped(request.query_params.get("skip"))
        waiting, later = await web.run(queue, service, skip)
        return web.page(request, "review.html", questions=[_view(q) for q in waiting[:SHOWN]],
                        more=max(0, len(waiting) - SHOWN), skipped=[_view(q) for q in later], skip=_joined(skip),
                        total=len(waiting) + len(later))

    return [Route("/review", review, methods=["GET", "POST"])]


def _joined(ids: list[int]) -> str:
    return ",".join(str(i) for i in ids)
