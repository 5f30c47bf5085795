"""Recall's last step: of two memories that may say one thing, the newer first when the query asks for both alike.

An update is linked on write only when the rules are sure of it (server/updates/rules.py: a change word and
the old value, or most of the old memory's words); a note written as it comes often states the new
state and nothing else ("DI across shared and Android is kotlin-inject ..." for "Decided to use Koin
for dependency injection ..."), and unlinked, the older memory -- often the plainer sentence -- came
first in 7 of 10 questions about such a pair (bench/updates.py). At recall the query tells more: when
it matches both about as well and the two read as one subject with another value, the newer is shown
first. Nothing is superseded or labelled: a wrong guess costs an order, not a memory. The test is the
write-time one, weakened:

* both statements (not conversation turns or memory-file units), neither superseded, the newer written
  later, and the older not the one holding an identifier the query names verbatim;
* the newer scores at least NEAR of the older and holds as many of the query's terms (a look-alike the
  query names, "the staging host", keeps its place);
* their vectors' cosine at least PAIR_COSINE, at least SUBJECT_SHARE of the older's subject in the
  newer (rules.subject_share), nothing that makes them two things (rules.other_things: other
  events, environments, a record of what happened, a template with another word swapped), and the
  newer says that something changed or, neither recording an event ("went to production as
  deployment #1842"), holds another value in the older's slot.

A pair recorded on write as a possible update (storage PossibleUpdate: the earlier memory the update
model, server/updates/model.py, gives the newer the most, at least its POSSIBLE, when that is too little
to link them) is shown newer first after the first checks alone (the identifier, the query's terms),
whatever their scores: most updates written as plain notes score well below the older memory the
question was worded after. Recorded per memory against its whole thread, it names the one memory the
newer most probably replaces, not any memory of the ranked list the newer resembles (README,
"Session 28": asking the model about every ranked pair at recall lost more look-alikes and cost 1.21x).
One of OUTDATED_LABEL or more also labels the older "possibly outdated" when both are shown (`outdated`),
so that the reader knows which of two differing answers to trust; still nothing is superseded.

Last, `attach`: a shown memory that a later memory of its thread was recorded as possibly updating brings
that later memory right after it, even when the query did not find it; so does one the query ranked
further down (to ATTACH_WINDOW) that reads as a later state of its subject (`resembling`: the test
above without the query's part, or a change said that the update model gives model.POSSIBLE: `_said_changed`) (issue 32: most updates are worded
after the new state, the question after the old one, and nothing in the query reaches the newer). The
reader sees both, dated, the newer marked newer, and judges; the older is labelled possibly outdated only
at OUTDATED_LABEL or more (`outdated`). A possible update recorded below POSSIBLE (model.CUED_POSSIBLE: the
newer says that something changed and holds a rare word of the older's subject; model.SHARED_POSSIBLE: it holds
such a word and nothing makes the two other things) is attached so, never ordered by. A newer memory may record
several (model.MOST_POSSIBLE), so each older one it may update brings it along. A look-alike keeps its place:
nothing moves above the memory the query found, and whatever was recorded, a later memory that reads as another
thing (rules.other_things) and says nothing changed is not attached (`_two_things`).

Turns too (`later_turns`, issue 32 item 5): with automatic capture most memories are conversation turns, and
a later turn that reverses an earlier decision ("on by default" one week, "unset means off" the next) is
attached after a shown turn of its thread the same way, by sentence (a turn says many things): a sentence of
the later turn that holds the two or more query terms the shown turn's sentence holds, is not about another
thing (rules.other_things) and says that something changed (not by "now" alone), holds another value in its
slot, or turns a setting the other way. It is shown as an excerpt (those sentences, at most EXCERPT_CHARS) and the earlier turn is
labelled possibly outdated; no vector is needed, so the prompt hook's keyword answer does it too.

The constants are the strictest that cost no look-alike its first place in a replay of the update
benchmark's captured rankings (looser ones gained more and lost look-alikes; README, "Session 26:
recall's newer-first order").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from server import ranking, textindex
from server.updates import model, rules
from server.models import CONVERSATION_KIND, linkable
from server.updates.statements import Statement, analyse
from server.storage.records import MemoryRow, PossibleUpdate

#: The least probability of a possible update for recall to label the older memory "possibly outdated"
#: when both are shown, the newer above it: on the update benchmark's projects left out of the fit, a newer
#: memory's most probable candidate at 0.3 or more was the memory it updates in 779 of 857 cases (91 %;
#: 16 more its duplicate), at 0.1 in 78 % -- enough to order by, too few to tell a reader.
OUTDATED_LABEL = 0.3
#: How far down the ranked list a newer memory is looked for (recall ranks at least this many).
WINDOW = 10
#: How far down the ranked list `attach` looks for a later memory about a shown one's subject.
ATTACH_WINDOW = 20
NEAR = 0.8
#: Most later memories one recall attaches (each after the memory it may update): the result grows by at
#: most this many memories beyond k, so a recall's tokens stay bounded.
ATTACH_LIMIT = 3
PAIR_COSINE = 0.5
SUBJECT_SHARE = 0.3
#: `attach` only: a later memory that holds most of a shown one's subject (SUBJECT_MOST) and says that it
#: changed needs only ATTACH_COSINE_MOST: an update worded after the new state reads unlike the old sentence
#: (cosine 0.38-0.49 in 4 of the 26 development misses) though it names the same thing. Chosen on the update
#: benchmark's development projects: stale alone 0.048 -> 0.040, look-alikes shown as newer unchanged (2.9 %).
SUBJECT_MOST = 0.45
ATTACH_COSINE_MOST = 0.35
#: A later turn attached after a shown one is shown as an excerpt: at most this many of its sentences (those
#: about the subject), clipped to EXCERPT_CHARS -- a turn runs to thousands of characters, a recall's
#: attached memory should cost about what a statement does.
EXCERPT_SENTENCES = 2
EXCERPT_CHARS = 320


def order(ranked: Sequence[tuple[int, float]], rows: Mapping[int, MemoryRow], docs: Mapping[int, ranking.Doc],
          query: str, cosine: Callable[[int, int], float | None],
          possible: Mapping[int, PossibleUpdate] | None = None) -> list[tuple[int, float]]:
    """`ranked` (id, score), best first, with each newer memory that may update one above it moved just
    above it, at its score; `cosine(a, b)` is the two memories' stored vectors' (None if one has none),
    `possible` the possible updates recorded for the ranked memories (by the newer's id)."""
    possible = possible or {}
    coverage = _Coverage(textindex.query_terms(query), rows)
    out: list[tuple[int, float]] = []
    for mid, score in ranked:
        at = len(out)
        row = rows.get(mid)
        if row is not None and linkable(row):
            for i, (other, other_score) in enumerate(out):
                if _newer_first(row, rows.get(other), score, other_score, docs, coverage, cosine, possible.get(mid)):
                    at = i
                    break
        out.insert(at, (mid, out[at][1] if at < len(out) else score))
    return out


class _Coverage(dict[int, float]):
    """ranking.term_coverage of the query's terms in each ranked memory, counted when a pair first asks for it:
    most pairs are decided before (they are in time order or not, the query names an identifier or not)."""

    def __init__(self, terms: list[str], rows: Mapping[int, MemoryRow]) -> None:
        super().__init__()
        self.coverage, self.rows = ranking.coverage_of(terms), rows

    def __missing__(self, mid: int) -> float:
        self[mid] = found = self.coverage(self.rows[mid].content)
        return found


def outdated(ranked: Sequence[tuple[int, float]], rows: Mapping[int, MemoryRow],
             possible: Mapping[int, PossibleUpdate]) -> dict[int, int]:
    """older id -> newer id, for each shown memory that a current memory shown with it (above it, or
    attached right after it) possibly updates with at least OUTDATED_LABEL."""
    place = {mid: i for i, (mid, _) in enumerate(ranked)}
    out: dict[int, int] = {}
    for newer, maybe in possible.items():
        if maybe.probability >= OUTDATED_LABEL and newer in place and maybe.older in place \
                and linkable(rows[newer]):
            out.setdefault(maybe.older, newer)
    return out


def resembling(shown: Sequence[tuple[int, float]], further: Sequence[int], rows: Mapping[int, MemoryRow],
               cosine: Callable[[int, int], float | None]) -> dict[int, list[tuple[int, PossibleUpdate]]]:
    """For each shown statement, the memories the query ranked `further` down (not shown) that read as a
    later state of its subject (same_subject_later), as `attach` takes them (with probability 0: not recorded)."""
    out: dict[int, list[tuple[int, PossibleUpdate]]] = {}
    for older, _ in shown:
        old = rows.get(older)
        if old is None or not linkable(old):
            continue
        for newer in further:
            new = rows.get(newer)
            if new is not None and linkable(new) and new.created_at > old.created_at \
                    and same_subject_later(old, new, cosine, attaching=True):
                out.setdefault(older, []).append((newer, PossibleUpdate(older, 0.0)))
    return out


def attach(ranked: Sequence[tuple[int, float]], rows: Mapping[int, MemoryRow],
           later: Mapping[int, Sequence[tuple[int, PossibleUpdate]]]) -> tuple[list[tuple[int, float]], dict[int, int]]:
    """`ranked` with, right after each shown statement, the newest later memory recorded as possibly
    updating it (one recorded before one only resembling it; `later`: older id -> (newer id, its PossibleUpdate),
    the newer's row in `rows`), unless that memory is shown above it already; one shown further down is moved up
    to it. At most ATTACH_LIMIT are attached, each at the score of the memory it follows (the order stays by score).
    Returns the list and, for each memory attached, the older memory it follows."""
    out = list(ranked)
    attached: dict[int, int] = {}
    for older, _ in ranked:
        if len(attached) >= ATTACH_LIMIT:
            break
        row = rows.get(older)
        if row is None or not _attachable(row) or older in attached:
            continue
        newer = {n: maybe.probability > 0 for n, maybe in later.get(older, ()) if n in rows and _attachable(rows[n])
                 and rows[n].created_at > row.created_at and n not in attached and not _two_things(row, rows[n])}
        if not newer:
            continue
        # A later memory recorded on write as possibly updating this one (probability > 0: judged against its whole
        # thread) before one that only resembles it in this recall (`resembling`, `later_turns`: 0), the newest of
        # those: a resembling one is often a sibling of the subject, and picked for being newer it hid the recorded
        # update (issue 32: on the update benchmark's 27 spent projects, 1 of the 32 questions a reader saw stale).
        pick = max(newer, key=lambda n: (newer[n], rows[n].created_at, n))
        place = [mid for mid, _ in out]
        at = place.index(older)
        if pick in place:
            if place.index(pick) < at:
                continue  # shown above it already (newer_first.order, or ranked so)
            out.pop(place.index(pick))
        out.insert(at + 1, (pick, out[at][1]))
        attached[pick] = older
    return out, attached


def later_turns(shown: Sequence[tuple[int, float]], ranked: Sequence[int], rows: Mapping[int, MemoryRow],
                query: str) -> tuple[dict[int, list[tuple[int, PossibleUpdate]]], dict[int, str]]:
    """For each shown conversation turn, the later turns of its thread in the `ranked` list (shown below it or
    ranked further down) that reverse what it says about the query's subject (`reverses`), as `attach` takes
    them; and for each such later turn its excerpt: the sentences that do (issue 32 item 5: on real transcripts
    an earlier "on by default" turn was shown, and the later "unset means off" was not).

    Turns are compared by sentence, not whole (a turn says many things): a sentence of the shown turn that
    holds two or more of the query's terms against each sentence of the later turn that holds them all. No vector is needed
    (a hook process answers by keyword), and no update is recorded: the reader sees both and judges."""
    terms = textindex.query_terms(query)
    if not terms:
        return {}, {}
    said: dict[int, list[tuple[str, frozenset[str]]]] = {}  # a turn's sentences holding the query's terms

    def sentences(row: MemoryRow) -> list[tuple[str, frozenset[str]]]:
        if row.id not in said:
            held = [(s, _held(terms, s)) for s in _sentences(row.content)]
            said[row.id] = [(s, h) for s, h in held if h]
        return said[row.id]

    out: dict[int, list[tuple[int, PossibleUpdate]]] = {}
    excerpts: dict[int, str] = {}
    for older, _ in shown:
        old = rows.get(older)
        if old is None or not _live_turn(old):
            continue
        # A sentence naming at least two of the query's terms (a chat names its speakers and topics everywhere:
        # one shared word is no subject), each of which the later sentence holds too.
        asked = [(s, held) for s, held in sentences(old) if len(held) >= 2]
        if not asked:
            continue
        for newer in ranked:
            new = rows.get(newer)
            if new is None or newer == older or not _live_turn(new) or new.thread != old.thread \
                    or new.created_at <= old.created_at:
                continue
            reversing = [n for n, n_held in sentences(new)
                         if any(held <= n_held and reverses(o, n) for o, held in asked)]
            if reversing:
                out.setdefault(older, []).append((newer, PossibleUpdate(older, 0.0)))
                excerpts.setdefault(newer, _excerpt(reversing))
    return out, excerpts


def reverses(old: str, new: str) -> bool:
    """Whether sentence `new` of a later turn reads as another state of what sentence `old` of an earlier turn
    says (later_turns has checked that it holds the two or more query's terms `old` holds: their subject):
    the two are not about other things (rules.other_things: other
    services, environments, numbered members, an event against a state, a template with another name
    swapped), and `new` turns a setting the other way (on / off, enabled / disabled), holds another value in
    `old`'s slot, or says that something changed in a word other than "now" (a chat says "now" of everything:
    "seven years now"; on LoCoMo it attached a later turn to a quarter of the recalls)."""
    n = analyse(new)
    # The cheap tests first: most sentences of a chat say nothing changed and hold no value or setting.
    setting = _polarity(n.words)
    cue = bool(n.cue_terms - _CHAT_CUES)
    if not (cue or setting or n.slot_values or n.places or n.periods):
        return False
    o = analyse(old)
    if not cue and (o.eventful or n.eventful):
        return False  # no change word: two events (two deploys, two trips) are two facts
    if not (cue or rules.changed_slot(o, n) or (setting and setting == -_polarity(o.words))):
        return False
    return not rules.other_things(o, n)


#: A setting turned one way and the other: the later sentence mostly says the other side ("off by default
#: now: unset means off, and =1 turns it on").
_ON = frozenset("on enabled enable true opt-in allowed".split())
_OFF = frozenset("off disabled disable false opt-out unset".split())
#: Change words a chat uses of anything ("seven years now").
_CHAT_CUES = frozenset({"now"})
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def _polarity(words: Sequence[str]) -> int:
    """1 when a sentence says more "on" than "off" words, -1 for the other way, 0 for neither."""
    on, off = sum(w in _ON for w in words), sum(w in _OFF for w in words)
    return (on > off) - (off > on)


def _held(terms: Sequence[str], text: str) -> frozenset[str]:
    return frozenset(t for t in terms if ranking.term_coverage([t], text))


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def _excerpt(sentences: Sequence[str]) -> str:
    text = " … ".join(sentences[:EXCERPT_SENTENCES])
    return text if len(text) <= EXCERPT_CHARS else text[: EXCERPT_CHARS - 1].rstrip() + "…"


def _live_turn(row: MemoryRow) -> bool:
    return row.kind == CONVERSATION_KIND and row.deleted_at is None and row.superseded_by is None


def _attachable(row: MemoryRow) -> bool:
    return linkable(row) or _live_turn(row)


def _two_things(old: MemoryRow, new: MemoryRow) -> bool:
    """Whether two statements read as two things (rules.other_things: other services, environments, files,
    numbered members, an event against a state) and the later one does not say that anything changed: a
    look-alike, not attached as the other's newer state whatever was recorded. On the update benchmark's
    development projects, of the unlinked pairs the update model gives 0.02 or more, 24 of the 31 look-alike
    pairs read so and 3 of the 48 update pairs; with a change word, no look-alike pair."""
    if not (linkable(old) and linkable(new)):
        return False  # turns are compared by sentence (later_turns), not whole
    n = analyse(new.content)
    return not n.cue and rules.other_things(analyse(old.content), n)


def _newer_first(new: MemoryRow, old: MemoryRow | None, score: float, old_score: float,
                 docs: Mapping[int, ranking.Doc], coverage: Mapping[int, float],
                 cosine: Callable[[int, int], float | None], maybe: PossibleUpdate | None) -> bool:
    if old is None or not linkable(old) or new.created_at <= old.created_at:
        return False
    old_doc, new_doc = docs.get(old.id), docs.get(new.id)
    if old_doc is not None and old_doc.exact and not (new_doc is not None and new_doc.exact):
        return False  # the query names an identifier the older holds
    if coverage[new.id] < coverage[old.id]:  # the query's terms, ranking.term_coverage
        return False
    if maybe is not None and maybe.older == old.id and maybe.probability >= model.POSSIBLE:
        return True  # recorded on write as what the newer most probably updates: whatever their scores
    if score < NEAR * old_score:
        return False
    return same_subject_later(old, new, cosine)


def same_subject_later(old: MemoryRow, new: MemoryRow, cosine: Callable[[int, int], float | None],
                       attaching: bool = False) -> bool:
    """Whether `new` reads as a later state of `old`'s subject: _newer_first's test without the query's
    part (what `attach` asks of a memory the query ranked further down, `attaching`: then most of the subject
    shared lowers the cosine needed to ATTACH_COSINE_MOST)."""
    # Every test below must pass, and each is pure: they run cheapest first, the pair's stored cosine (no
    # analysis) before the word tests and the word alignments (rules.other_things, difflib) last -- the
    # same answer at a fraction of the cost (a recall asks this of up to ~100 pairs; bench/profile_recall.py).
    pair = cosine(old.id, new.id)
    if pair is None or pair < (ATTACH_COSINE_MOST if attaching else PAIR_COSINE):
        return False
    # The rest is a function of the two texts, their cosine and `attaching` alone: kept, since the same pairs
    # come back recall after recall (a warm recall's most costly Python, bench/recall_cpu.py).
    key = (old.content, new.content, pair, attaching, SUBJECT_SHARE, SUBJECT_MOST)  # (a sweep may set these)
    found = _PAIRS.get(key)
    if found is None:
        global _pairs_chars
        found = _subject_later(old.content, new.content, pair, attaching)
        if _pairs_chars > PAIRS_CHARS:
            _PAIRS.clear()  # (a burst of new pairs: start again rather than track an order)
            _pairs_chars = 0
        _PAIRS[key] = found
        _pairs_chars += len(old.content) + len(new.content)
    return found


#: same_subject_later's answers past the cosine test, by (older text, newer text, cosine, attaching, the shares it
#: weighed); the texts they hold come to at most about PAIRS_CHARS characters.
_PAIRS: dict[tuple, bool] = {}
_pairs_chars = 0
PAIRS_CHARS = 2_000_000


def _subject_later(old_text: str, new_text: str, pair: float, attaching: bool) -> bool:
    o, n = analyse(old_text), analyse(new_text)
    return _shares_subject(o, n, pair, attaching) or (attaching and _said_changed(o, n, pair))


def _shares_subject(o: Statement, n: Statement, pair: float, attaching: bool) -> bool:
    share = rules.subject_share(o, n, rules.Weights())
    if share is None or share < SUBJECT_SHARE:
        return False
    if pair < (ATTACH_COSINE_MOST if attaching and share >= SUBJECT_MOST else PAIR_COSINE):
        return False
    if not n.cue and (o.eventful or n.eventful or not rules.changed_slot(o, n)):
        return False  # no change word: another value in O's slot, and neither records an event (two deploys)
    return not rules.other_things(o, n)


def _said_changed(o: Statement, n: Statement, pair: float) -> bool:
    """`attach` only, for a later memory the query itself ranked (to ATTACH_WINDOW) that `_shares_subject` refused:
    it says that something changed, reads like the shown one (PAIR_COSINE), is not a report against a state
    (model.unrelated_kinds), and the update model -- the subject shares, the cosine, the change word and the rest
    weighed together -- gives the pair at least model.POSSIBLE. An update worded after the new state often holds
    under SUBJECT_SHARE of the old sentence's words ("Switched the Go side to github.com/go-webauthn/webauthn ..."
    for "Passkey ceremonies on the backend use github.com/duo-labs/webauthn ..."), so the word test alone refused
    it; the model weighs the same words with the rest. On the update benchmark's 27 spent projects (a replay of their
    captured rankings) it showed the newer memory in 3 more of the 36 questions a reader saw stale, and no
    look-alike more (look-alikes say nothing changed)."""
    if not n.cue or pair < PAIR_COSINE or model.unrelated_kinds(o, n):
        return False
    found = model.assess(o, n, pair)
    return found is not None and found.probability >= model.POSSIBLE
