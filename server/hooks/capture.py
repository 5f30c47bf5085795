"""Capturing what a session's transcript added since the last capture, through MemoryService.remember.

remember applies redaction and exact-duplicate suppression (and, once memories that
update each other are linked, that too), so a line read twice stores nothing twice:
the cursor may lag after a crash, never skip. Turns go to the thread as `turn`
memories (searchable like imported chats, kept out of the daily log); durable
statements as decision / preference / snippet / fact / note memories. Every memory is
sourced to the session: source "hook", origin "<host> session <id>", tag "hook"; a
statement also carries the tag "turn-<n>", the person's turn it came from (in a tag, not
the origin: forget-matching by origin must still find every memory of the session).
Statements are stored marked for the update check, which the backfill of the next
process with a model runs (remember's judge_now=False): run here, one keyword search of
the thread per statement made a statement-heavy capture cost seconds per 100 lines.
"""

from __future__ import annotations

import hashlib
import logging
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from server.errors import InvalidInput, NotFound, StoreUnavailable
from server.models import CAPTURED_SOURCE
from server.hooks.extract import extract, sentences, statements_in
from server.hooks.privacy import wants_no_memory
from server.hooks.protocol import HookInput
from server.hooks.sessions import SessionState, Sessions
from server.hooks.transcript import read_from

if TYPE_CHECKING:
    from server.service import MemoryService

log = logging.getLogger(__name__)
SOURCE = CAPTURED_SOURCE


@dataclass
class CaptureReport:
    lines: int = 0
    turns: int = 0
    statements: int = 0
    duplicates: int = 0
    rejected: int = 0
    skipped: str = ""  # why nothing was read, when nothing was
    template: int = 0  # statements not stored: they were the host's template text
    kinds: dict[str, int] = field(default_factory=dict)


def origin(hook: HookInput) -> str:
    return f"{hook.host} session {hook.session_id}"


def capture(
    service: MemoryService, hook: HookInput, thread: str | None, sessions: Sessions, turns: bool = True
) -> CaptureReport:
    """Store what the transcript added since this session's cursor; advances the cursor."""
    report = CaptureReport()
    with sessions.locked(hook.host, hook.session_id) as state:
        if state.nomem:
            if state.stored:  # what a busy store kept #nomem from forgetting: now
                stop_capture(service, state)
            report.skipped = "#nomem: capture is off for this session"
            return report
        path = hook.transcript_path
        if path is None or not path.is_file():
            report.skipped = f"no transcript at {path}" if path else "the host sent no transcript_path"
            return report
        stat = os.stat(path)
        identity = f"{path}#{stat.st_ino}"
        if state.transcript != identity or stat.st_size < state.offset:
            state.transcript, state.offset, state.carry = identity, 0, {}  # a new or rewritten file: from its start
        while state.offset < stat.st_size:
            chunk = read_from(path, state.offset)
            if chunk.offset == state.offset:
                break  # only a half-written line is left
            # The session's last read: what is still open (a pasted error) is stored now or never.
            last = hook.event == "session-end" and chunk.offset >= stat.st_size
            found = extract(chunk.entries, root=str(hook.cwd), carry=state.carry, final=last)
            report.lines += chunk.lines
            if any(wants_no_memory(p) for p in found.prompts):
                stop_capture(service, state)
                report.skipped = "#nomem: capture turned off for this session"
                return report
            template = _templates(service, sessions, hook, thread, found.prompts)
            try:
                if turns and thread is not None:
                    for turn in found.turns:
                        _store(service, report, state, hook, turn.content, "turn", thread, ("hook",), turn.at, daily=False)
                for statement in found.statements:
                    if statement.kind in _PERSONS_KINDS and _in_template(statement.content, template):
                        report.template += 1
                        continue
                    _store(service, report, state, hook, statement.content, statement.kind,
                           thread, ("hook", *statement.tags, *_turn_tag(statement.turn)), statement.at, daily=True)
            except StoreUnavailable as exc:
                # Busy past the write wait (or a full disk): keep the cursor before this chunk and the ids
                # stored so far (#nomem erases by them); the next capture stores the rest, no duplicates.
                report.skipped = f"stopped part-way, resumed at the next capture: {exc}"
                break
            state.offset, state.carry = chunk.offset, found.carry
        if (hook.event == "session-end" and state.offset >= stat.st_size and (state.carry or {}).get("problem")
                and not report.skipped):
            # Nothing new since the last stop (Aider and Cursor sessions end on an edit), but a problem is still
            # open: it is stored now, as the session's last read would have, or never.
            found = extract([], root=str(hook.cwd), carry=state.carry, final=True)
            try:
                for statement in found.statements:
                    _store(service, report, state, hook, statement.content, statement.kind,
                           thread, ("hook", *statement.tags, *_turn_tag(statement.turn)), statement.at, daily=True)
                state.carry = found.carry
            except StoreUnavailable as exc:
                report.skipped = f"stopped part-way, resumed at the next capture: {exc}"
        state.captures += 1
    return report


def _store(service: MemoryService, report: CaptureReport, state: SessionState, hook: HookInput,
           content: str, kind: str, thread: str | None, tags: tuple[str, ...], at, daily: bool) -> None:
    try:
        result = service.remember(
            content, kind=kind, thread=thread or "global", tags=list(tags), created_at=at,
            source=SOURCE, origin=origin(hook), daily=daily, judge_now=False,
        )
    except InvalidInput as exc:  # e.g. a turn over MEMVAULT_MAX_CONTENT_BYTES: that one is skipped
        report.rejected += 1
        log.info("not captured (%s): %s", kind, exc)
        return
    if result.status == "duplicate":
        report.duplicates += 1
        return
    state.stored.append(result.id)
    if kind == "turn":
        report.turns += 1
    else:
        report.statements += 1
        report.kinds[kind] = report.kinds.get(kind, 0) + 1


# Statements taken from the person's words, which a host's template text can pass for.
_PERSONS_KINDS = frozenset({"preference", "decision"})
#: Sentences of a person's message at least this long that recur verbatim in another session's messages,
#: two or more from one message, are the host's template (Cursor's plan-mode "Implement the plan as
#: specified …"), not the person's words: one rule a person repeats is still theirs.
TEMPLATE_MIN_CHARS = 25
#: Sentences remembered (by hash and session) to find those that recur; the oldest are dropped past this.
TEMPLATE_SEEN = 4000
_TEMPLATE_FILE = "sentences-seen.tsv"


def _norm(text: str) -> str:
    return " ".join(text.lower().split()).rstrip(".!?。")


def _templates(service: MemoryService, sessions: Sessions, hook: HookInput, thread: str | None,
               prompts: list[str]) -> list[str]:
    """The sentences of these prompts (normalised) that are the host's template text (TEMPLATE_MIN_CHARS).

    Seen sentences are kept as "hash<TAB>session" lines beside the session files. The first time a
    template recurs, what the earlier session stored from it as the person's rule is erased."""
    path = sessions.root / _TEMPLATE_FILE
    seen: dict[str, set[str]] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        lines = []
    for line in lines:
        key, _, session = line.partition("\t")
        seen.setdefault(key, set()).add(session)
    found, new = [], []
    for prompt in prompts:
        units = {hashlib.sha256(_norm(u).encode()).hexdigest()[:20]: u
                 for u in sentences(prompt) if len(u) >= TEMPLATE_MIN_CHARS}
        recurring = {k: u for k, u in units.items() if seen.get(k, set()) - {hook.session_id}}
        if len(recurring) >= 2:
            for key, unit in recurring.items():
                found.append(_norm(unit))
                if len(seen[key]) == 1:  # recurring for the first time: the earlier capture took it as a rule
                    _erase_stated(service, thread, unit)
        for key in units:
            if hook.session_id not in seen.get(key, set()):
                seen.setdefault(key, set()).add(hook.session_id)
                new.append(f"{key}\t{hook.session_id}")
    if new:
        try:
            sessions.root.mkdir(parents=True, exist_ok=True)
            path.write_text("\n".join((lines + new)[-TEMPLATE_SEEN:]) + "\n", encoding="utf-8")
        except OSError as exc:
            log.info("could not record the sentences seen: %s", exc)
    return found


def _in_template(text: str, template: list[str]) -> bool:
    said = _norm(text)
    return bool(said) and any(said in unit for unit in template)


def _erase_stated(service: MemoryService, thread: str | None, paragraph: str) -> None:
    for statement in statements_in(paragraph, None, from_user=True):
        for hit in service.find(statement.content[:300], k=3, thread=thread or "global").hits:
            if hit.row.source == SOURCE and hit.row.content == statement.content:
                service.erase(hit.row)


def _turn_tag(turn: int | None) -> tuple[str, ...]:
    return (f"turn-{turn}",) if turn else ()


def stop_capture(service: MemoryService, state: SessionState) -> None:
    """#nomem: nothing more from this session, and what it already stored is erased (forget erases
    captured memories, daily-log lines included). Ids that could not be erased now (a busy store)
    stay in the state and are retried by the session's next capture."""
    state.nomem = True
    left = []
    for memory_id in state.stored:
        try:
            service.forget(memory_id)
        except NotFound:
            continue  # erased already
        except Exception as exc:  # noqa: BLE001 - one that cannot be forgotten must not keep the rest
            log.warning("could not forget memory %d after #nomem (retried at the next capture): %s", memory_id, exc)
            left.append(memory_id)
    state.stored = left
