"""The curator: keeps memory small and true without losing anything a person cannot get back.

Every action is previewed by default (``dry_run=True``) and reports what it changed or
would change; every applied change is written to the curation log of the day's daily
file. Nothing here runs unless asked (see ``run_scheduled`` for the opt-in start-up job).

Reversibility: dedupe and supersede only link memories (``superseded_by``); compress
archives the original first; forget is a soft delete. ``restore`` undoes all three. Only
``purge`` erases, and only memories already forgotten, named by id or by age.

``ACTIONS`` is the one table of actions: name -> the function that plans it (in
linking, compaction, lifecycle, promotion, reports, or export/import below) and the
parameters it accepts. The retention score is curation.scoring's.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from server.curation import compaction, lifecycle, linking, promotion, reports
from server.curation.plan import Outcome, Plan
from server.errors import InvalidInput
from server.models import CurateResult
from server.service import MemoryService

log = logging.getLogger(__name__)


# -- export and import through curate_memory (the format itself is curation.archive's) --------


def export(
    service: MemoryService, thread: str | None = None, since: str | None = None, until: str | None = None,
    split_by_month: bool | None = None,
) -> Plan:
    # lazy: the archive format's pydantic models, ~0.05 s of CPU before a stdio server's `initialize` reply
    # (the curator is imported on that path; an export or import is rare)
    from server.curation import archive as archives

    split = bool(split_by_month)
    documents = archives.export(service, thread, since, until, split)
    stamp = service.clock().strftime("%Y-%m-%dT%H%M%S")
    folder = service.settings.archives_dir
    name = f"memvault-{stamp}" + ("" if split else ".json")
    n = 2
    while (folder / name).exists():
        name = f"memvault-{stamp}-{n}" + ("" if split else ".json")
        n += 1
    ids = sorted(m["id"] for d in documents.values() for m in d["payload"]["memories"])
    names = [name] if not split else [f"{name}/{k}" for k in documents]
    counts = {"memories": len(ids), "archives": len(documents),
              "threads": sum(d["counts"]["threads"] for d in documents.values()),
              "files": sum(d["counts"]["files"] for d in documents.values())}
    details = [{"archive": k, "memories": d["counts"]["memories"]} for k, d in zip(names, documents.values())]

    def apply() -> None:
        archives.write(documents, folder / name)

    summary = f"{len(ids)} memories to archives/{name}" + (" (one file per month)" if split else "")
    return Plan(counts, ids, details, summary, apply, changes=len(documents))


def import_archive(service: MemoryService, archive: str | None = None) -> Plan:
    if not archive:
        raise InvalidInput("import needs archive: a file name in the archives folder, as export reported it")
    # lazy: the archive format's pydantic models, only an import needs (see export)
    from server.curation import archive as archives

    path = archives.archive_path(service.settings.archives_dir, archive)
    name = str(path.relative_to(service.settings.archives_dir.resolve()))
    preview = archives.import_file(service, path, commit=False)
    c = preview.counts
    changes = c.imported + c.threads_added + c.prompts_added + c.files_written + c.files_kept_existing

    def apply() -> Outcome:
        done = archives.import_file(service, path, commit=True)
        c = done.counts
        return Outcome(
            counts=c.as_dict(),
            details=[{"files": done.files.as_dict()}],
            summary=f"{c.imported} memories imported from archives/{name}, {c.already_present} already present; "
                    f"verified {c.verified}/{c.in_archive} content hashes",
        )

    summary = f"{c.imported} of {c.in_archive} memories from archives/{name} are new, {c.already_present} already present"
    return Plan(c.as_dict(), list(preview.inserted), [{"files": preview.files.as_dict()}], summary, apply,
                changes=changes)


# -- the table -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Action:
    """One curate_memory action: the function that plans it, and what it accepts besides dry_run."""

    plan: Callable[..., Plan]  # (service, **params) -> Plan
    params: frozenset[str] = frozenset()


def _action(plan: Callable[..., Plan], *params: str) -> Action:
    return Action(plan, frozenset(params))


#: Every action, in the order curate_memory documents them.
ACTIONS: dict[str, Action] = {
    "promote": _action(promotion.promote, "thread"),
    "dedupe": _action(linking.dedupe, "thread", "threshold"),
    "supersede": _action(linking.supersede, "ids", "replacement_id"),
    "review": _action(linking.review, "thread", "ids"),
    "keep": _action(linking.keep, "ids", "replacement_id"),
    "compress": _action(compaction.compress, "thread", "ids"),
    "restore": _action(compaction.restore, "ids"),
    "retention": _action(reports.retention, "thread", "ids"),
    "pin": _action(lifecycle.pin, "ids"),
    "unpin": _action(lifecycle.unpin, "ids"),
    "forget-list": _action(lifecycle.forget_list, "thread"),
    "forget-matching": _action(lifecycle.forget_matching, "thread", "since", "until", "origin", "source"),
    "purge": _action(lifecycle.purge, "ids", "older_than_days"),
    "stats": _action(reports.stats),
    "export": _action(export, "thread", "since", "until", "split_by_month"),
    "import": _action(import_archive, "archive"),
}

#: What MEMVAULT_CURATE_ON_START may run: the actions that need no ids.
SCHEDULABLE = ("compress", "dedupe", "promote")


class Curator:
    """Runs curate_memory's actions over one service (one tenant)."""

    def __init__(self, service: MemoryService) -> None:
        self.service = service
        self.files = service.files

    # -- entry point ----------------------------------------------------------
    def run(self, action: str, dry_run: bool = True, limit: int = 50, confirmed_by: str | None = None,
            **params: Any) -> CurateResult:
        """Preview (dry_run) or apply one action; `limit` caps the detail rows returned; `confirmed_by`: who
        decided, written with the change in the curation log ("the assistant" through curate_memory)."""
        spec, given = self._checked(action, params)
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 1000:
            raise InvalidInput("limit must be from 1 to 1000")
        plan: Plan = spec.plan(self.service, **given)
        changes = plan.change_count
        if not dry_run and plan.apply is not None and changes:
            outcome = plan.apply()
            if outcome is not None:
                plan.merge(outcome)
            self.log(f"{action}: {plan.summary}" + (f" (confirmed by {confirmed_by})" if confirmed_by else ""))
        shown = plan.details[:limit]
        more = len(plan.details) - len(shown)
        verb = "Would apply" if dry_run and plan.apply is not None else "Done"
        if plan.apply is None:
            verb = "Report"
        elif not changes:
            verb = "Nothing to do"
        message = f"{verb}: {action} — {plan.summary}."
        if dry_run and plan.apply is not None and changes:
            message += " Nothing changed yet; call again with dry_run=false to apply."
        if more:
            message += f" {more} more detail rows not shown (raise limit)."
        return CurateResult(
            action=action, dry_run=dry_run, counts=plan.counts, ids=plan.ids, details=shown, message=message
        )

    def plan(self, action: str, **params: Any) -> Plan:
        """The action's plan, not applied: what `run` previews (its `apply` makes the change)."""
        spec, given = self._checked(action, params)
        return spec.plan(self.service, **given)

    def _checked(self, action: str, params: dict[str, Any]) -> tuple[Action, dict[str, Any]]:
        """The action and the parameters given to it (None means not given); a stray one is refused."""
        spec = ACTIONS.get(action)
        if spec is None:
            raise InvalidInput(f"unknown action {action!r}; use one of: {', '.join(ACTIONS)}")
        given = {k: v for k, v in params.items() if v is not None}
        stray = set(given) - spec.params
        if stray:
            allowed = ", ".join(sorted(spec.params)) or "none besides dry_run"
            raise InvalidInput(f"{', '.join(sorted(stray))} does not apply to {action}; its parameters: {allowed}")
        return spec, given

    def decide(self, older: int, newer: int, choice: str, by: str) -> dict[str, Any] | None:
        """Settle one open question (a later memory that may replace an earlier one) as a reader decided:
        "supersede" links the pair (restore undoes it), "keep both" drops the possibility so it is not asked
        again. Logged with who decided. One place for curate_memory's review forms and the web page's queue,
        so the two record the same thing. None when it changed nothing (already settled)."""
        if choice not in ("supersede", "keep both"):
            raise InvalidInput(f"decision must be supersede or keep both, not {choice!r}")
        plan = linking.supersede(self.service, [older], newer) if choice == "supersede" else \
            linking.keep(self.service, [older], newer)
        if plan.apply is None or not plan.change_count:
            return None
        plan.apply()
        verb = f"{older} superseded by {newer}" if choice == "supersede" else f"{older} kept current beside {newer}"
        self.log(f"review: {verb} (confirmed by {by})")
        return {"id": older, "newer": newer, "decision": choice, "confirmed_by": by}

    def log(self, text: str) -> None:
        """One line in today's curation log; the database is the record, so a failure only warns."""
        try:
            self.files.append_curation(self.service.clock(), text)
        except OSError as exc:
            log.warning("could not write the curation log: %s", exc)

    # -- opt-in schedule ------------------------------------------------------
    def run_scheduled(self) -> list[CurateResult]:
        """Run the actions of MEMVAULT_CURATE_ON_START, at most once per day; nothing when unset."""
        service = self.service
        actions = [a.strip() for a in service.settings.curate_on_start.split(",") if a.strip()]
        if not actions:
            return []
        unknown = [a for a in actions if a not in SCHEDULABLE]
        if unknown:
            log.warning("MEMVAULT_CURATE_ON_START: %s not allowed (compress, dedupe, promote)", ", ".join(unknown))
            return []
        today = service.clock().date().isoformat()
        if not service.store.claim_day("curator_last_run", today):
            return []
        return [self.run(a, dry_run=False) for a in actions]
