"""Which earlier memory a new one updates: the pair rules' signals weighed by a fitted logistic model.

server/updates/rules.py reads a pair of memories with rules (a change word and the old value, a minimal edit,
a restatement of most of the old memory's words). Each rule alone is either too strict for notes
written as they come ("datasources.default.maximum-pool-size: 40 in application-prod.yml. Under load
request threads were queueing ..." for "loon-api's Hikari pool is capped at maximum-pool-size 10") or
too loose (a change word and two shared words link a fact to another fact). Here their signals -- the
subject share both ways, the cosine, the change word, the slot that changed, the old value named,
each rule's verdict, names each holds alone, ... -- are weighed together by a logistic model fitted on
the update benchmark's pairs (`python bench/fit_update_model.py`, which writes
server/updates/coefficients.py and reports the fit's leave-projects-out figures). A pair is an update when
the model gives it at least THRESHOLD (RULE_THRESHOLD when a rule links it too, QUOTED_THRESHOLD when that rule's
pair names the old value), or when it is a minimal edit ("... Python 3.11." ->
"... Python 3.12.": the surest rule, kept whatever the weights).

Some things never link, whatever a model says, because they are what an update is not: two events
(tickets, hashes), two environments, two numbered members, a record of what happened and a later
state, a document rather than a statement (rules.different_things, records_event,
MAX_STATEMENT_WORDS); nor a pair sharing none of the older one's subject words (no update of the
benchmarks' has none that is not a minimal edit, and it is 60 % of the pairs: it keeps a write cheap).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from server.frozen import record
from server.guard.lazyre import LazyRe
from server.updates import references, rules
from server.updates.coefficients import COEFFICIENTS, INTERCEPT, MODEL_ID
from server.updates.old_values import quoted_in, restated_old
from server.updates.statements import Statement, analyse, records_event

#: Least probability for a pair to be linked; RULE_THRESHOLD when a rule of server/updates/rules.py links it
#: too. Chosen on the leave-projects-out fit (README, "Session 27"): on projects the fit never saw, the
#: rules' own links were one in five wrong, and those the model gives less than RULE_THRESHOLD hold
#: most of the wrong ones.
THRESHOLD = 0.6
RULE_THRESHOLD = 0.3
#: ... and when the newer memory names a term of the older one as what it replaces ("instead of
#: Elasticsearch", "swapped tarpaulin for ..."): the surest sign a text gives. Leave projects out it kept 11 more right links
#: than RULE_THRESHOLD for no more wrong ones, and on the projects never fitted 2 more for none.
QUOTED_THRESHOLD = 0.05
#: What an automatic link needs beyond the probability (`unsure`), else the pair is only a possible update (recorded,
#: shown after the older, labelled at 0.3+ and asked about; never superseded). A link is a claim: on public decision
#: records nobody here wrote about half the automatic links were wrong, each time a pair the model scored high on
#: words alone -- a record's context or a later report holding most of a short record's words, a decision naming in
#: "instead of X" an X that the older memory mentions as a problem, not as its state (issue 32). What right links have
#: and those lack: a changed value of the same attribute (the old value named, a slot changed, another command for the
#: task), or vectors that read as one subject (SURE_COSINE).
SURE_COSINE = 0.45
#: Least probability for the most probable earlier memory of an unlinked one to be recorded as its
#: possible update (storage PossibleUpdate), which recall shows newer first when a query finds both
#: alike (server/updates/newer_first.py). Too unsure to supersede anything: on the update benchmark's
#: projects left out of the fit, a newer memory's most probable candidate at 0.1 or more was the one it
#: updates in 859 of 1,098 cases (78 %; 67 more its duplicate), and recall replaying with it lost one
#: look-alike question of 996 where the model asked at recall lost two (README, "Session 28").
POSSIBLE = 0.1
#: ... and when no earlier memory reaches POSSIBLE, the least for one to be recorded all the same when the
#: newer says that something changed (a change word) and holds a word of the older's subject that few other
#: memories of the thread hold ("DataHub moved to datahub.data.acme-corp.net" for "The metadata catalog is
#: DataHub at datahub.atlas.internal."): an update worded after the new state, that the query worded after
#: the old one does not find. Recorded this low it only brings the newer right after the older when that is
#: shown (newer_first.attach): it neither reorders (newer_first.order asks POSSIBLE) nor asks a review
#: (linker.open_questions). On the update benchmark's development projects the model gave 5 of the 17 pairs
#: a reader was shown stale 0.02-0.1, with a change word and a rare shared word, and no look-alike pair
#: (look-alikes are true together: neither says that the other changed). Down to 0.01 (issue 32): on the
#: development projects 24 update pairs and no look-alike pair have a change word and a rare shared word at
#: 0.01 or more (20 at 0.02).
CUED_POSSIBLE = 0.01
#: ... and without a change word, the least for such a pair (a rare word of the older's subject shared) when
#: nothing makes them two things (rules.other_things: other services, environments, numbered members, an event
#: against a state): the model's probability is the general signal (cosine and shared words weighed together),
#: the look-alike guards keep two things two. Unlinked pairs so at 0.05-0.1 on the update benchmark's development
#: and earlier projects (36 files, not the held-out six): 17 updates, 3 look-alikes; at 0.02-0.1: 31 and 19.
SHARED_POSSIBLE = 0.05
#: Most earlier memories recorded as possibly updated by one unlinked memory (its most probable first): an
#: update often reads like two earlier memories of its subject, and with one record per memory the one it
#: replaces was missed in 6 of the 18 development questions a reader was shown stale (issue 32).
MOST_POSSIBLE = 3
#: Words of a report *about* a subject (a bug, an incident, a post-mortem): what happened to it, not a
#: new state of it. On a held-out set of coding-assistant memories (issue 32) about a third of the
#: automatic links were a later report marking the earlier standing fact superseded.
REPORT_WORDS = frozenset({
    "bug", "bugs", "incident", "incidents", "post-mortem", "postmortem", "outage", "outages", "regression",
    "rca", "repro", "reproduced", "crashes", "crashed", "flaky",
    # What a session recorded of a command or a check ("Fix: `npm test` failed with ...", "Confirmed: main() is
    # at the top"): on real captured sessions each was linked as the new state of a standing preference or command.
    "failed",
})
#: A leading label that says the memory records a check, not a state ("Confirmed: ...").
REPORT_LABELS = ("confirmed:",)
#: A problem met with the subject: a problem noun as what was raised, hit, found or seen, or qualified as
#: serious, or "problems with the ...". The context of a decision record ("Initial use of the Custody API has
#: raised issues: problems with the locality of data ...", "ran into issues with its default configuration",
#: "there is some uncertainty about its future") superseded the standing decision on public ADRs (issue 32).
#: Not a problem noun as a thing's name ("Linear issues with a Refs line", "Vulnerability alerts bypass the
#: schedule"): on the update benchmark's development and spent projects no other text matches.
_PROBLEM_NOUN = r"(?:issues?|problems?|flaws?|vulnerabilit(?:y|ies)|difficult(?:y|ies)|uncertaint(?:y|ies))"
REPORT_PROBLEM = LazyRe(
    r"\b(?:(?:raised|raises|raising|caused|causes|causing|hit|hitting|ran into|run into|running into|presents|"
    r"presented|seen|seeing|observed|found|identified|flagged|experienced|experiencing|some|serious|several|severe|"
    r"known|performance|security|critical|major)\s+(?:[\w-]+\s+)?" + _PROBLEM_NOUN + r"|" + _PROBLEM_NOUN
    + r"\s+with\s+(?:the|its|their|our|this|that|these|those)\b)", re.I)

#: A problem told without a problem noun, in the memory's first sentence: the subject found wanting -- hard to
#: extend, not a good fit, of little use, never taken up, at its end of life, no longer working, advised against,
#: a backlog, done without meaning to, no solution to be had, not possible, made complicated, a risk, a target
#: exceeded. The context of a decision record ("Metadata rendering rules stored in the DisplayProperties table are
#: hard to extend ...", "Amazon Linux 2, used on our EKS worker nodes, reaches end of life in 2025.") was the older
#: side of the decision's link, and a later context ("Both Rails applications advised against using Docker locally,
#: so the Docker setup no longer worked ...") superseded the standing decision, on the session-36 public ADR set
#: (issue 32; the last four forms from session 35's). The first sentence only: a state that gives its reason after
#: ("Schemas split per domain ... The single 2,000-line file was impossible to review") stays a state; "there is
#: no ..." is left out (a state: "there is no history table for them"), "there was no ..." is not. No text of the
#: update benchmark (every project) matches, nor any record of the public ADR sets: only their reports.
REPORT_DEFICIENCY = LazyRe(
    r"\b(?:(?:hard|difficult|painful|awkward|cumbersome) to [a-z]+|not (?:a )?(?:good|great|right) fit|"
    r"(?:has|have|had) (?:little|no) use|never (?:really )?(?:gained|took off|caught on)|"
    r"(?:reach|reaches|reached|reaching) (?:its |their )?end[- ]of[- ]life|no longer work(?:s|ed)?\b|"
    r"advised against|(?:substantial|large|growing|big) backlog|without (?:ever|meaning to)|there (?:was|were) no\b|"
    r"no [\w-]+(?: [\w-]+){0,3} (?:solution|option) exists|not (?:currently )?possible to|"
    r"(?:has|have) made [\w ,-]+ complicated|(?:potentially|possibly) (?:allowing|exposing|leaking|causing)|"
    r"exceed(?:s|ed|ing) (?:our|the|its|their) [\w-]+(?: [\w-]+)? (?:targets?|limits?|budgets?))", re.I)
#: A finding or a lesson about the subject, in the memory's first sentence: what became clear, what efforts at it
#: showed, what is no longer sufficient, error prone, suffers from, adds needless complexity, causes confusion or
#: leads to surprises. A record's context ("in the DIDComm v2 efforts at DIF it became clear that agents need to
#: discover more ...") superseded the standing record before it, and the decisions after contexts ("... add
#: unnecessary complexity", "... is no longer sufficient now that ...") were linked as their new state, on the
#: session-37 public ADR set (issue 32); session 35's "we've observed this causing confusion" is the same form.
#: No text of the update benchmark (every project, the real sessions) matches, nor any record of the public ADR sets.
REPORT_FINDING = LazyRe(
    r"\b(?:it (?:became|becomes|has become|had become) (?:clear|apparent|evident|obvious)|(?:efforts?|experience|"
    r"attempts?) (?:at|with|in) [\w -]+ (?:showed|has shown|have shown|revealed|made it clear)|(?:is|are|was|were) "
    r"no longer (?:sufficient|enough|adequate)|(?:is|are|was|were) (?:very |too |often )?error[- ]prone|"
    r"suffer(?:s|ed|ing)? from|(?:adds?|added|introduces?|introduced) (?:unnecessary|needless) complexity|"
    r"(?:cause|causes|caused|causing) (?:confusion|frustration)|(?:can|may|could|will) (?:result in|lead to) "
    r"(?:surprising|unexpected|confusing)|makes? it (?:hard|difficult|harder|more difficult) (?:for|to)\b)", re.I)
_FIRST_SENTENCE = LazyRe(r"(?<=[.!?])\s+(?=[A-Z])")
#: Where a report word counts: the memory's lead, up to its first sentence's end whatever follows ("Bittern 3 packages
#: are ESM-only. require(esm) works ..., and the dual builds kept causing ... bugs"). A state that gives its reason
#: after ("... is earliest now. With latest we silently skipped events ...") stays a state, as for REPORT_DEFICIENCY:
#: five update states of the update benchmark's spent projects were reports by a word of their reason, never linked.
_LEAD = LazyRe(r"(?<=[.!?])\s+")
_LEAD_WORD = LazyRe(r"\w[\w.-]*\w|\w")  # a dotted name is one word: "incident.io", "crashes.quill.so"

__all__ = ["CUED_POSSIBLE", "MODEL_ID", "MOST_POSSIBLE", "POSSIBLE", "QUOTED_THRESHOLD", "RULE_THRESHOLD", "SHARED_POSSIBLE",
           "SURE_COSINE", "THRESHOLD", "Candidate", "Judgement", "Link", "best_link", "judge", "least", "probability", "reports",
           "signals", "unrelated_kinds", "unsure", "verdict"]


def reports(statement: Statement) -> bool:
    """Whether the memory reports on its subject -- a bug, an incident, a post-mortem -- or asks about it, or
    tells what happened rather than how things are (Statement.narrated: the sentence's tense, mood and who
    acted): a later one is never a new state of a standing fact (issue 32), so it never updates one."""
    return statement.text.rstrip().endswith("?") or statement.narrated \
        or statement.text.lstrip().lower().startswith(REPORT_LABELS) \
        or any(w in REPORT_WORDS for w in _LEAD_WORD.findall(_LEAD.split(statement.text, 1)[0].lower())) \
        or bool(REPORT_PROBLEM.search(statement.text)) \
        or bool(REPORT_DEFICIENCY.search(first := _FIRST_SENTENCE.split(statement.text, 1)[0])) \
        or bool(REPORT_FINDING.search(first))


def unrelated_kinds(older: Statement, newer: Statement) -> bool:
    """Whether one of the two cannot be what the other replaces: a report after a standing fact is not its new
    state; a narrative of what happened ("GOV.UK Forms' first live incident was due to ... formatting") stays
    true, and a later decision about the same thing ("Use Amazon SES directly instead of GOV.UK Notify") does not
    make it false -- as a record of an event is not replaced by a later state (rules.judge); nor is a report by a
    later decision ("ADR 13: Permitted deletion ..." after the problem it answers: on public ADRs, issue 32).
    Two reports, or two narratives, may still be one correcting the other."""
    return reports(newer) != reports(older) or (older.narrated and not newer.narrated)


def signals(old: Statement, new: Statement, cosine: float, weights: rules.Weights,
            abbreviations: bool = False) -> tuple[dict[str, float], rules.Judgement | None] | None:
    """The pair's signals, the model's inputs, and the rules' verdict; None when the pair can never be an update.
    `abbreviations`: the subject shares count what each writes abbreviated (rules.subject_share): for showing only."""
    if rules.different_things(old, new) or (records_event(old) and not records_event(new)):
        return None
    if max(len(old.words), len(new.words)) > rules.MAX_STATEMENT_WORDS:
        return None
    minimal = rules.minimal_edit(old, new) is not None
    share = rules.subject_share(old, new, weights, abbreviations) or 0.0
    if share == 0.0 and not minimal:
        return None
    rule = rules.judge(old, new, cosine, weights)
    mine, theirs = rules._specific(old), rules._specific(new)
    slot = rules.changed_slot(old, new)
    f = {
        "cos": cosine, "share": share, "rshare": rules.subject_share(new, old, weights, abbreviations) or 0.0,
        "cue": float(new.cue), "cue_words": float(len(new.cue_terms)),
        "restated": float(bool(restated_old(old, new, after_new=not new.cue))),
        "slot": float(slot), "slot_named": float(rules.changed_slot(old, new, named_unit=True)),
        "contradiction": float(rules.contradiction(old, new, share, cosine)),
        "named_contradiction": float(rules.named_contradiction(old, new, share, cosine)),
        "another_command": float(rules.another_command(old, new, share, cosine)),
        "old_eventful": float(old.eventful), "new_eventful": float(new.eventful),
        "template": float(rules._template(old, new)), "word_swapped": float(rules._word_swapped(old, new)),
        "swapped_word": float(rules._swapped_word(old, new)), "minimal": float(minimal),
        "opens": float(bool(new.opening & set(old.terms))),
        "agrees": float(bool(new.values) and new.values <= old.values),
        "names_shared": float(len(mine & theirs)), "names_old_only": float(len(mine - set(new.terms))),
        "names_new_only": float(len(theirs - set(old.terms))),
        "quotes": float(bool(new.quoted)), "quotes_old": float(len(quoted_in(old, new))),
        "rule": float(rule is not None), "rule_score": rule.score if rule else 0.0,
        "length_ratio": min(5.0, len(new.words) / max(1, len(old.words))),
        "negation_differs": float(old.negated != new.negated), "renames": float(new.renames),
        "place_moved": float(bool(old.places - new.places and new.places - old.places)),
        "schedule_changed": float(bool(old.periods and new.periods and not old.periods & new.periods)),
        "adds": float(rules._adds(new.text)), "environment_differs": float(bool(old.envs ^ new.envs)),
    }
    for a, b in INTERACTIONS:
        f[f"{a}*{b}"] = f[a] * f[b]
    for name in COUNTS:
        f[f"log {name}"] = math.log1p(f[name])
    return f, rule


#: Pairs of signals that tell more together (a change word with most of the subject; a changed slot
#: in a sentence that reads alike) than each alone.
INTERACTIONS = (("share", "cos"), ("cue", "share"), ("cue", "cos"), ("slot", "share"), ("slot", "cos"),
                ("restated", "share"), ("quotes_old", "share"), ("share", "rshare"), ("cue", "slot"),
                ("template", "slot"), ("old_eventful", "new_eventful"), ("rule", "cos"), ("cos", "cos"),
                ("share", "share"))
COUNTS = ("names_shared", "names_old_only", "names_new_only", "quotes_old", "cue_words")


def probability(signals_: dict[str, float]) -> float:
    z = INTERCEPT + sum(COEFFICIENTS[name] * value for name, value in signals_.items())
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


def unsure(old: Statement, new: Statement, signals_: dict[str, float]) -> str | None:
    """Why a pair the model gives what a link needs (`least`) is still not linked automatically but recorded as a
    possible update (see SURE_COSINE), or None. A minimal edit is always sure; an author's claim (references) is
    judged by the linker, not here.

    * one is a numbered record and the other is not ("ADR 13: ..." and a note of its thread): a record's context, a
      report on its subject and the record deciding it hold the same words, and only its author says which replaces
      which -- what they say links (server/updates/references.py), two records are judged as ever;
    * no changed value of the same attribute (no old value named, no slot changed, not another command for the
      task) and a cosine under SURE_COSINE: words shared, but the vectors read as another subject."""
    if signals_["minimal"]:
        return None
    if (references.numbered(old.text) is None) != (references.numbered(new.text) is None):
        return "one is a numbered record, the other not: only its author's claim links them"
    if signals_["cos"] < SURE_COSINE and not (signals_["quotes_old"] or signals_["slot"] or signals_["another_command"]):
        return "no changed value of the same attribute, and the two read as other subjects"
    return None


def least(signals_: dict[str, float]) -> float:
    """The probability a pair with these signals needs to be linked."""
    if not signals_["rule"]:
        return THRESHOLD
    return QUOTED_THRESHOLD if signals_["quotes_old"] else RULE_THRESHOLD


@record
class Verdict:
    probability: float
    reason: str
    #: At least the least the pair needs (`least`): an update. Otherwise at most a possible one.
    linked: bool = True


def verdict(old: Statement, new: Statement, cosine: float | None, weights: rules.Weights | None = None) -> Verdict | None:
    """Whether `new` (the later memory) updates `old`: the model's probability and the reason to give."""
    found = assess(old, new, cosine, weights)
    return found if found is not None and found.linked else None


def assess(old: Statement, new: Statement, cosine: float | None, weights: rules.Weights | None = None) -> Verdict | None:
    """The model's probability that `new` updates `old` and whether that links them; None when the pair
    can never be an update (or, without a cosine, is not a minimal edit)."""
    weights = weights or rules.Weights()
    if cosine is None:  # no vector yet: only a minimal edit, the surest rule (judged again once it has one)
        rule = rules.judge(old, new, None, weights)
        return Verdict(1.0 + rule.score, rule.reason) if rule is not None else None
    found = signals(old, new, cosine, weights)
    if found is None:
        return None
    f, rule = found
    if f["minimal"] and rule is not None and rule.score >= 2.0:  # judge's minimal edit (score 2 + cosine)
        return Verdict(1.0 + rule.score, rule.reason)
    p = probability(f)
    reason = rule.reason if rule is not None else "states the same subject with another value"
    return Verdict(p, reason, linked=p >= least(f) and unsure(old, new, f) is None)


@record
class Candidate:
    """An earlier (or later) memory of the same thread a new one may update."""

    id: int
    text: str
    created_at: int
    cosine: float | None


@record
class Link:
    older: int
    newer: int
    score: float
    reason: str


@record
class Judgement:
    """What judging a new memory found: the update link it makes, and when it makes none, the earlier
    memory it most probably updates all the same (`possible`, with the probability: at least POSSIBLE), and
    the few it may update (`several`: MOST_POSSIBLE at most, `possible` first)."""

    link: Link | None
    possible: tuple[int, float] | None = None
    several: tuple[tuple[int, float], ...] = ()


def best_link(new_id: int, new_text: str, created_at: int, candidates: Sequence[Candidate],
              weights: rules.Weights | None = None, later: bool = True, fitted: bool = False) -> Link | None:
    """The one update link a new memory makes (judge's link)."""
    return judge(new_id, new_text, created_at, candidates, weights, later, fitted).link


def judge(new_id: int, new_text: str, created_at: int, candidates: Sequence[Candidate],
          weights: rules.Weights | None = None, later: bool = True, fitted: bool = False) -> Judgement:
    """The one update link a new memory makes: the older memory it updates or, when it is itself the
    older one (an import of past notes) and `later`, the later memory that updates it; none when
    there is none. (A later memory updates one memory: the caller checks that it is this one.)
    Without a link, its possible update: the earlier candidate the model gives the most, if at least
    POSSIBLE. `fitted`: the candidates' cosines come from the embedder the model was fitted with
    (MODEL_ID); with another (the lexical test embedder) its weights mean nothing and the rules decide
    alone (and nothing is possible)."""
    if not any(c.id != new_id for c in candidates):
        return Judgement(None)
    new = analyse(new_text)
    found: list[tuple[Link, bool]] = []
    possible: list[tuple[int, float]] = []
    cued: list[tuple[int, float]] = []  # below POSSIBLE: the newer says it changed (CUED_POSSIBLE)
    for c in candidates:
        if c.id == new_id or (not later and (c.created_at, c.id) > (created_at, new_id)):
            continue
        other = analyse(c.text)
        earlier = (c.created_at, c.id) < (created_at, new_id)
        older, newer, link = (other, new, (c.id, new_id)) if earlier else (new, other, (new_id, c.id))
        if unrelated_kinds(older, newer):
            continue  # a report is no standing fact's new state, a narrative is not replaced: no link, no possible
        if references.title_only(older.text):
            continue  # a bare title holds no state to replace: only its author's claim does (the linker's own)
        if fitted:
            judged = assess(older, newer, c.cosine, weights)
            if judged is not None and judged.linked:
                found.append((Link(link[0], link[1], round(judged.probability, 4), judged.reason), False))
            elif judged is not None and earlier and judged.probability >= POSSIBLE:
                possible.append((c.id, round(judged.probability, 4)))
            elif judged is not None and earlier and judged.probability >= CUED_POSSIBLE \
                    and (new.cue or (judged.probability >= SHARED_POSSIBLE and not rules.other_things(older, newer))) \
                    and _rare_shared(older, newer, weights or rules.Weights()):
                cued.append((c.id, round(judged.probability, 4)))
            elif judged is not None and earlier and (spelled := _abbreviated_possible(older, newer, c.cosine, weights)):
                cued.append((c.id, spelled))
        else:
            rule = rules.judge(older, newer, c.cosine, weights)
            if rule is not None:
                found.append((Link(link[0], link[1], round(rule.score, 4), rule.reason), rule.quoted or rule.score >= 2.0))
    if not fitted and any(quoted for _, quoted in found):
        # The rules alone: a memory naming what it replaces links only to memories holding that.
        found = [(link, quoted) for link, quoted in found if quoted]
    if found:
        return Judgement(max((link for link, _ in found), key=lambda f: (f.score, -f.older)))
    several = sorted(possible, key=lambda p: (-p[1], p[0])) + sorted(cued, key=lambda p: (-p[1], p[0]))
    return Judgement(None, several[0] if several else None, tuple(several[:MOST_POSSIBLE]))


def _abbreviated_possible(old: Statement, new: Statement, cosine: float | None, weights: rules.Weights | None) -> float:
    """The probability to record a pair with when the newer memory writes the older's subject abbreviated or spelled
    out ("Raised the MSRV to 1.80 ..." for "The minimum supported Rust version for lantern-core is 1.70"; issue 32:
    the largest cause of a reader shown the stale memory alone on the spent update projects): the model's probability
    with the abbreviation counted in the subject shares, if it reaches CUED_POSSIBLE with a change word (or
    SHARED_POSSIBLE without one and nothing making them two things) and a rare word of the subject held -- at most
    SHARED_POSSIBLE: recall then attaches the newer after the older, dated and marked, and neither reorders, labels
    nor asks a review (the model was not fitted on such shares; linked, they made a wrong link). 0.0 if not."""
    if cosine is None:
        return 0.0
    weights = weights or rules.Weights()
    if not rules.abbreviated(old, new):
        return 0.0
    found = signals(old, new, cosine, weights, abbreviations=True)
    if found is None:
        return 0.0
    p = probability(found[0])
    if not (p >= CUED_POSSIBLE and (new.cue or (p >= SHARED_POSSIBLE and not rules.other_things(old, new)))):
        return 0.0
    return round(min(p, SHARED_POSSIBLE), 4) if _rare_shared(old, new, weights) else 0.0


def _rare_shared(old: Statement, new: Statement, weights: rules.Weights) -> bool:
    """Whether `new` holds a word of `old`'s subject (not a value, nor a change word) that few other memories
    of the thread hold (weights.rare): the name both are about, not a word every memory of it uses -- or holds it
    abbreviated or spelled out (rules.abbreviated: "MSRV" for "minimum supported Rust version")."""
    held = set(new.terms) | rules.abbreviated(old, new)
    return any(t in held and k != "event" and t not in old.values and t not in old.cue_terms
               and weights.rare(t, old.fts[t], 2) for t, k in old.terms.items())
