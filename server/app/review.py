"""curate_memory's review, asked of the person: one small form per open question, newest first, skippable.

An open question is a later memory recorded as possibly updating an earlier one (the linker's
open_questions). The assistant settles one with supersede or keep when recall or the session brief
shows it; the person settles them here, through elicitation -- the client feature the 2026-07-28
specification keeps (as a multi-round-trip `input_required` result; a 2025-era host gets each form as
a request mid-call: the SDK's resolvers speak both). Sampling is not used (deprecated, SEP-2577). A
host that shows no forms gets the questions as text, each with the call that settles it.

Nothing is changed until the last form is answered: then each "supersede" links the pair (reversible
with restore), each "keep both" drops the possibility (not asked again), and every decision is written
to the day's curation log with its provenance ("confirmed by the person").
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from server.clock import iso
from server.curation.curator import Curator
from server.models import CurateResult
from server.service import MemoryService
from server import linker
from server.linker import OpenQuestion

#: Most forms one review asks (curate_memory's resolvers); call review again for the next ones.
FORMS = 3
#: How much of each memory a form quotes.
QUOTE = 240


class ReviewForm(BaseModel):
    """One open question's answer."""

    decision: Literal["supersede", "keep both", "skip"] = Field(
        default="skip",
        description="supersede: the newer memory replaces the older (restore undoes it); keep both: both stay "
                    "current and this pair is not asked again; skip: decide later.",
    )


def can_ask(capabilities: Any) -> bool:
    """Whether the host declared form elicitation (a bare `elicitation: {}` counts, as the SDK counts it)."""
    elicitation = getattr(capabilities, "elicitation", None)
    return elicitation is not None and (elicitation.form is not None or elicitation.url is None)


def open_questions(service: MemoryService, thread: str | None, ids: list[int] | None) -> list[OpenQuestion]:
    return linker.open_questions(service, thread, ids)[:FORMS]


def form_message(q: OpenQuestion) -> str:
    """The form's text: both memories, dated, the newer first."""
    return (f"Memory {q.newer.id} (written {_day(q.newer.created_at)}) may replace memory {q.older.id} "
            f"(written {_day(q.older.created_at)}).\nNewer: {_quote(q.newer.content)}\nOlder: {_quote(q.older.content)}")


def stopped(outcome: Any) -> bool:
    """Whether the person closed the previous form (cancel): ask nothing more this time."""
    return getattr(outcome, "action", None) == "cancel"


def settle(curator: Curator, answers: list[Any], thread: str | None, ids: list[int] | None, limit: int) -> CurateResult:
    """Apply the person's answers to the open questions they were shown (in the same order); with no
    answer at all (a host without forms), the questions as text."""
    service = curator.service
    shown = open_questions(service, thread, ids)
    decided: list[dict[str, Any]] = []
    for q, outcome in zip(shown, answers):
        data = getattr(outcome, "data", None)
        if getattr(outcome, "action", None) != "accept" or data is None:
            continue  # declined, cancelled, or never asked
        choice = data.decision if isinstance(data, ReviewForm) else ReviewForm.model_validate(data).decision
        if choice == "skip":
            continue
        # The same call the web page's review queue makes (Curator.decide), so the two record the same thing.
        done = curator.decide(q.older.id, q.newer.id, choice, "the person")
        if done is not None:
            decided.append(done)
    if not any(getattr(a, "data", None) is not None for a in answers):
        report = curator.run("review", dry_run=True, limit=limit, thread=thread, ids=ids)
        if report.counts.get("open"):
            report.message += (" This host shows no forms (elicitation): settle each with curate_memory supersede "
                               "or keep, as its `ask` says; the person can also settle them one by one in the web "
                               "page's Review queue (`memvault ui`).")
        return report
    left = len(linker.open_questions(service, thread, ids))
    return CurateResult(
        action="review", dry_run=False, counts={"decided": len(decided), "open": left}, ids=[d["id"] for d in decided],
        details=decided[:limit],
        message=f"Done: review — {len(decided)} decided by the person; {left} open question(s) left"
                + (" (call review again for the next ones)." if left else "."),
    )


def _quote(text: str) -> str:
    one_line = " ".join(text.split())
    return one_line if len(one_line) <= QUOTE else one_line[: QUOTE - 1] + "…"


def _day(ms: int) -> str:
    return iso(ms)[:10]
