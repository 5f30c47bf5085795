"""Updates: when a new memory restates a subject of an earlier one with a new value.

"orders-api targets Python 3.11." then "orders-api targets Python 3.12."; "Decision:
search uses Elasticsearch." then "Reversed: we're going with Algolia rather than
Elasticsearch." The later memory *updates* the earlier one: recall ranks it first and
labels the older "superseded by N". Look-alikes are not updates: two builds, two
tickets, prod and staging, a number that is another quantity, another service. And
neither is a duplicate (curation's dedupe): a duplicate says the same thing, an update
says something else about the same subject. The rules for all three live here; no LLM.

How a pair (older O, newer N, same thread) is judged, in order:

* never an update when they name different events (ticket ids, commit hashes; a
  memory that *is* about one event, "SHOP-142: ...", "Deployed build 7a41c9e ..."), when one
  records a commit or build by its hash and the other names no event, or when they name
  different environments (prod / staging / dev / test) with none in common; nor when O records
  what happened to a numbered thing ("Release v2026.10.3 went to production as deployment
  #1842") and N does not: what happened stays true;
* a **minimal edit**: the same sentence with one short span changed, where both sides
  of the span hold a value (a number, version, name, identifier, path, command; not a
  name swapped together with its value) and no environment word, negation or event verb ("shipped 5.1.2" / "shipped 5.1.3" are
  two releases) — "... Python 3.11." -> "... Python 3.12.";
* a **restatement**: N says that something changed ("now", "moved", "renamed",
  "replaced", "switched", "no longer", "instead of", "from X to Y", ...) about the
  subject of O: the share of O's subject words (its words and names, weighted by how
  rare they are in the thread; numbers are the values that change, not the subject)
  found in N, plus half the cosine of their embeddings, passes UPDATE_THRESHOLD. When N
  quotes the old value ("instead of Flux", "STRIPE_SECRET is no longer read", "swapped
  tarpaulin for ...", "doc-render got renamed"; "...; the UART is reserved for the modem" and
  "/v1/status returns 410" say that something changed without a change word), or mentions
  O's value beside a new one of the same shape ("serves on 9083 now; 8083 clashed with ..."),
  only memories holding it are considered, and it counts in their favour; an O that
  already states N's values is not what N replaces, nor one whose changed value belongs
  to a name N never mentions ("Factory 2.3" for "the deployment target is 16.4");
* **another command for the same task** without a cue ("Start the app locally with `foreman
  start`." -> "Run `bin/dev` to start the app locally; ..."): most of O's subject in N, a command
  each lacks, the task named by words besides its command, no template word swapped;
* a schedule is a value ("every two weeks" -> "monthly"), compared in days; a rename ("X is called
  Y now") never replaces a memory holding a number it does not restate (that fact stays true of Y);
* restatements are judged between statements only (up to MAX_STATEMENT_WORDS words each): a
  long note or meeting log holds many subjects and its words cover any short memory's;
* a **contradiction without a cue** ("All EKS clusters are on 1.29." after "The EKS
  clusters run Kubernetes 1.26."): N opens with O's subject, holds most of it, reads alike
  and states another value in one slot (the same kind of value and unit, or a path for a
  path) — never when either records an event, or a name or word is swapped: templated
  look-alikes ("The mobile SDK is at 3.2.0" / "The JS SDK is at 5.0.1") read the same;
* nothing else.

The embedding is one signal, never the rule: similarity alone cannot tell "3.11" from
"3.12" (0.95) nor a reworded duplicate (0.77). `same_fact` is dedupe's test: two texts
are duplicates only if no number, version, identifier, path, hash, name, environment
or negation of one is missing from the other.

Which of O's values N names as the old one, beyond the phrases statements.py reads, and each
value's unit, live in server.updates.old_values. Measured by bench/updates.py (README "Memory that stays true").
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache

# The analysis of one text lives in server.updates.statements; its names are re-exported here for callers.
from server.frozen import record
from server.updates.abbreviations import abbreviated
from server.updates.old_values import (BARE_NUMBER, MEASURES, inside, names_whole, quoted_in, restated_old,
                                      spelled_apart, units)
from server.updates.statements import (HEX, VALUED, ENVIRONMENTS, FILLER, NEGATIONS, STOPWORDS, Statement, value_shape,
                                       analyse, records_event, stem, tokens)

#: Least score (subject share + cosine / 2 + bonuses) for a restatement to count as an update.
UPDATE_THRESHOLD = 0.6
#: Least share of O's subject in N, and least cosine, for a restatement (a quoted old value lowers both).
MIN_SUBJECT_SHARE = 0.2
MIN_COSINE = 0.35
#: A contradiction without a change cue needs this much of O's subject in N and this cosine.
CONTRADICTION_SHARE = 0.5
CONTRADICTION_COSINE = 0.35
#: Score bonus per value of O that N quotes as the old one (at most two count).
QUOTED_BONUS = 0.3
#: Penalty when O already says every value N states (it agrees with N: not what N replaces).
AGREES_PENALTY = 0.3
#: Bonus when what N opens with (its subject, usually) is in O.
SUBJECT_BONUS = 0.15
#: Bonus when O and N each hold a value of the same shape the other lacks (the slot that changed):
#: as telling as a quoted old value (QUOTED_BONUS) of which memory N replaces.
SLOT_BONUS = 0.3
#: Identifier parts count this much of a whole token in the subject share.
PART_WEIGHT = 0.5
#: A restatement is judged only between statements of at most this many words: a longer memory
#: (a note, meeting log, design doc) holds many subjects, and its words cover any short memory's.
MAX_STATEMENT_WORDS = 60
#: A numbered member of a set: a name, maybe a separator, a number (worker-3, node2, shard_07).
_MEMBER = re.compile(r"([a-z][a-z]*(?:[-_][a-z]+)*)[-_]?[0-9]+")


class Weights:
    """How much a term tells within a thread: every term the same, when no statistics are at hand.

    The service's subclass asks the keyword index how many memories of the thread hold a
    term (a project name in every memory tells nothing; a service name in three does).
    """

    def weight(self, term: str, word: str, held: int = 1) -> float:
        """The term's weight; `word` is how the keyword index knows it, `held` how many of the two
        memories being compared hold it (they do not count: in a thread of two, a word both
        share would otherwise look common)."""
        return 1.0

    def rare(self, term: str, word: str, held: int = 1) -> bool:
        """Whether few other memories of the thread hold the term (None known: no)."""
        return False


class CountedWeights(Weights):
    """Inverse document frequency from `count(word)`: how many of the thread's `size` memories hold it."""

    RARE = 3  # held by at most this many memories

    def __init__(self, count: Callable[[str], int], size: int) -> None:
        self.count, self.size = count, size

    @lru_cache(maxsize=4096)  # noqa: B019 - one instance per thread and write, dropped with it
    def _count(self, word: str) -> int:
        return self.count(word)

    def weight(self, term: str, word: str, held: int = 1) -> float:
        return idf(max(0, self._count(word) - held), max(0, self.size - 2))

    def rare(self, term: str, word: str, held: int = 1) -> bool:
        return self._count(word) - held <= self.RARE


def idf(count: int, size: int) -> float:
    """How much a term tells in a thread of `size` memories where `count` hold it."""
    return math.log((size + 1) / (count + 1)) + 0.1


# -- the pair rules ---------------------------------------------------------------------------


def different_things(a: Statement, b: Statement) -> str | None:
    """Why two memories cannot be about the same fact (other events or environments), or None."""
    if (a.events - b.events and b.events - a.events) or a.lead_events - b.events or b.lead_events - a.events:
        return "they name different events (ids, hashes or tickets)"
    if (_hashes(a) and not b.events) or (_hashes(b) and not a.events):
        # "Gateway release v2.41.0 was built by Cloud Build run 7f3c2a91" records a build: a later
        # statement of how the gateway works does not replace it (no update of the benchmarks' 786 has one)
        return "one records a commit or build (a hash) the other does not name"
    if a.labels and b.labels and a.labels != b.labels and not (names_whole(a, b) or names_whole(b, a)):
        # ... unless the later names what the earlier holds as the value it replaces: "ADR019: Use Amazon
        # SES directly instead of GOV.UK Notify ..." is the record after "ADR002: ... use GOV.UK Notify"
        return "they are two numbered records (Step 3: / Step 4:)"
    if not (a.cue or b.cue) and _members(a, b):
        return "they are about two numbered members of a set (worker-3 / worker-4)"
    if a.envs and b.envs and not a.envs & b.envs:
        return f"different environments ({', '.join(sorted(a.envs))} / {', '.join(sorted(b.envs))})"
    if _other_arguments(a, b):
        return "they run one command on other arguments (other packages, other scripts)"
    return None


def _other_arguments(a: Statement, b: Statement) -> bool:
    """The same sentence around one quoted command each, the commands alike in their first two or more words and
    then holding none of each other's arguments, none a value ("Install command that worked: `npx shadcn@latest add
    dialog badge select`" / "... `npx shadcn@latest add tabs avatar switch`", `npm run build` / `npm run test`): two
    things done, both true. A changed tool ("`npx shadcn-ui@latest add ...`" / "`npx shadcn@latest add ...`"), a
    version ("foo@1.2" / "foo@1.3") or a step added keeps the pair comparable (issue 32: on real captured sessions,
    installs of other components were linked as updates of each other)."""
    one_for_one = len(a.words) == len(b.words) and any(w.startswith("`") for w in a.words)  # else no alignment
    ops = [op for op in _opcodes(a.words, b.words) if op[0] != "equal"] if one_for_one else []
    if len(ops) != 1 or ops[0][0] != "replace" or ops[0][2] - ops[0][1] != 1 or ops[0][4] - ops[0][3] != 1:
        return False
    one, other = a.words[ops[0][1]], b.words[ops[0][3]]
    if not (one.startswith("`") and other.startswith("`")):
        return False
    x, y = one.strip("`").split(), other.strip("`").split()
    shared = 0
    while shared < min(len(x), len(y)) and x[shared] == y[shared]:
        shared += 1
    rest_x, rest_y = set(x[shared:]), set(y[shared:])
    return (shared >= 2 and bool(rest_x) and bool(rest_y) and not rest_x & rest_y
            and not any(ch.isdigit() for w in rest_x | rest_y for ch in w))


@lru_cache(maxsize=256)
def _opcodes(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[tuple[str, int, int, int, int], ...]:
    """difflib's alignment of two word sequences, made once for the pairs judged last (up to four rules align one)."""
    return tuple(difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes())


def _hashes(statement: Statement) -> bool:
    """Whether the memory names a commit, build or run by its hash (it records that event)."""
    return any(HEX.fullmatch(e) for e in statement.events)


def _members(a: Statement, b: Statement) -> bool:
    """Whether each sentence's subject is another numbered member of one set ("service-0 stores its data
    in Redshift" / "service-1 stores ..."): each member has its own facts. With a change cue it is a
    move ("worker-4 now handles the refunds queue"); as the value, an update ("the host is db-stg-2")."""
    if a.subject_at >= len(a.words) or b.subject_at >= len(b.words):
        return False
    x, y = a.words[a.subject_at], b.words[b.subject_at]
    mx, my = _MEMBER.fullmatch(x), _MEMBER.fullmatch(y)
    return bool(mx and my and x != y and mx.group(1) == my.group(1))


def _kinds_in(words: Iterable[str], statement: Statement) -> set[str]:
    """Kinds of the tokens that these aligned words contain."""
    found = set()
    for word in words:
        for t in tokens(word):
            match = next((s for s in statement.tokens if s.raw.lower() == t.raw.lower()), t)
            found.add(match.kind)
    return found


def minimal_edit(old: Statement, new: Statement) -> tuple[str, str] | None:
    """(old value, new value) when `new` is `old` with one short span of values changed, else None."""
    a, b = old.words, new.words
    ops = [op for op in _opcodes(a, b) if op[0] != "equal"]
    if len(ops) != 1 or ops[0][0] != "replace":
        return None
    _, i1, i2, j1, j2 = ops[0]
    same = [w for k, w in enumerate(a) if not i1 <= k < i2]
    # One command for another needs less context: "Deploy with `git push heroku main`." -> "... render main`."
    commands = i2 - i1 == j2 - j1 == 1 and a[i1].startswith("`") and b[j1].startswith("`")
    if len(same) < (2 if commands else 3) or len(same) / max(len(a), len(b)) < 0.6 or i2 - i1 > 2 or j2 - j1 > 2:
        return None
    before, after = a[i1:i2], b[j1:j2]
    changed = set(before) | set(after)
    if changed & (set(ENVIRONMENTS) | NEGATIONS | {"can", "must", "should"}) or old.eventful or new.eventful:
        return None  # another environment, a flipped negation, or two events
    kinds_old, kinds_new = _kinds_in(before, old), _kinds_in(after, new)
    if not (kinds_old & VALUED and kinds_new & VALUED) or "event" in kinds_old | kinds_new:
        return None
    if {stem(w) for w in before} == {stem(w) for w in after}:
        return None
    # A name swapped together with its value ("uses react-native-mmkv 2.11" / "uses
    # react-native-reanimated 3.6"): two things, each with its own value, not one thing's new value.
    # A unit of measure is not a name: "500 MB" -> "2 GB" is one limit's new value.
    named_before = {w for w in before if not any(c.isdigit() for c in w) and w not in MEASURES}
    named_after = {w for w in after if not any(c.isdigit() for c in w) and w not in MEASURES}
    valued = any(c.isdigit() for w in before for c in w) and any(c.isdigit() for w in after for c in w)
    if valued and named_before and named_after and not named_before & named_after:
        return None
    return " ".join(_unglued(before)), " ".join(_unglued(after))


#: Words that say when, not what: written next to a new value ("due 2025-03-31 now"), they are no part of it.
_WHEN_WORDS = frozenset("now currently instead today nowadays anymore".split())


def _unglued(words: Sequence[str]) -> Sequence[str]:
    """The changed words without the when-words at their edges, for the message ("'2024-06-20' changed to
    '2025-03-31'", not "... to '2025-03-31 now'"); all of them if nothing else is left."""
    start, end = 0, len(words)
    while start < end and words[start] in _WHEN_WORDS:
        start += 1
    while end > start and words[end - 1] in _WHEN_WORDS:
        end -= 1
    return words[start:end] or words


@record
class Judgement:
    score: float
    reason: str
    quoted: bool = False


def judge(old: Statement, new: Statement, cosine: float | None, weights: Weights | None = None) -> Judgement | None:
    """Whether `new` (the later memory) updates `old`, with the score and the reason; None if not."""
    if different_things(old, new):
        return None
    if records_event(old) and not records_event(new):
        return None  # what happened stays true: a later statement of how things are is no update of it
    edit = minimal_edit(old, new)
    if edit is not None:
        return Judgement(2.0 + (cosine or 0.0), f"same statement with {edit[0]!r} changed to {edit[1]!r}")
    if cosine is None:
        return None  # the rest needs the embedding as one of its signals
    if max(len(old.words), len(new.words)) > MAX_STATEMENT_WORDS:
        return None  # documents, not statements: sharing words says nothing about one subject
    weights = weights or Weights()
    share = subject_share(old, new, weights)
    if share is None:
        return None
    # The old value it names must be specific: a name, identifier, number or a rare word.
    # (How N writes it counts too: "Prometheus is reached ..." opens a sentence, "raw Prometheus" names it.)
    # A part of the value N names ("api" of "/api/v1/readings is deprecated") tells only when it is rare;
    # a rare plain word ("no longer flashes devices") counts in O's favour but is not a name to filter by.
    # A hyphenated compound held whole ("doc-render got renamed ...") is as specific as a name.
    # But a word N writes in lower case is no name, however O writes it: "the m6i managed node groups were
    # drained" names no "Group entities".
    capitalised = {t.norm for t in new.tokens if t.raw[:1].isupper()}
    held = quoted_in(old, new)
    named = [t for t in held if new.terms.get(t) != "part"
             and ((old.terms[t] not in ("word", "part") and (new.terms.get(t) != "word" or t in capitalised))
                  or new.terms.get(t) not in ("word", None) or "-" in t)]
    # A part of a name in both is no match: "cargo" of "cargo-release is gone" is not the "cargo" of
    # O's "crates/lantern-py/Cargo.toml" ("swapped tarpaulin for ..." does name O's "cargo-tarpaulin").
    rare = [t for t in held if t not in named
            and not old.terms[t] == new.terms.get(t) == "part" and weights.rare(t, old.fts[t], 2)]
    # A name spelled apart in O: "cargo-release is gone" names O's `cargo release --workspace`.
    named += [t for t in new.quoted - set(old.terms) if spelled_apart(t, old.text) or inside(t, old)]
    # O's value beside a new one names O; without a change word only when the new value comes first
    # ("server.yaml has `tick_rate: 60` ...; at 30 Hz hit registration felt off"): that is how a change
    # is told, while "30 for staging, 60 for production" lists two.
    restated = restated_old(old, new, after_new=not new.cue)
    named += restated
    if new.quoted & new.period_terms and old.periods and not new.quoted & set(old.terms):
        named.append("")  # "... instead of weekly" names the old schedule, however O wrote it ("every Monday")
    quoted = len(named) + len(rare)
    if restated and not new.cue and _template(old, new) and _word_swapped(old, new):
        # O's value beside a new one, but another word of the template swapped too: two things
        # ("HPA keeps stork-api between 6 and 30 replicas." / "HPA keeps stork-ledger between 3 and 6").
        return None
    if not new.cue and not restated:
        if contradiction(old, new, share, cosine):
            return Judgement(share + cosine / 2 + SLOT_BONUS, "states another value of the same subject")
        if named_contradiction(old, new, share, cosine):
            return Judgement(share + cosine / 2, "names another tool or place for the same subject")
        if another_command(old, new, share, cosine):
            return Judgement(share + cosine / 2, "gives another command for the same task")
        return None
    if new.renames and any(_number(v) for v in old.slot_values - new.slot_values):
        # A new name for the thing, not a new value of O's number: "render-farm is built with Rust
        # 1.70" stays true of pf-render, and superseding it would hide it (and keep the later
        # toolchain bump from linking to it). A rename replaces what named the thing ("the host
        # is db-stg-1.internal" -> "the host was renamed to pg-staging.internal").
        return None
    # A counterpart of N's new value in O (the slot that changed) tells which memory N replaces as a
    # quoted old value does: the subject words may then be fewer (a thread's common word, "DAG").
    slot = changed_slot(old, new, named_unit=True)
    if share < (MIN_SUBJECT_SHARE / 2 if quoted or slot else MIN_SUBJECT_SHARE) or (cosine < MIN_COSINE and not quoted):
        return None
    agrees = bool(new.values) and new.values <= old.values
    opens = bool(new.opening & set(old.terms))
    score = (share + cosine / 2 + QUOTED_BONUS * min(quoted, 2) - AGREES_PENALTY * agrees
             + SUBJECT_BONUS * opens + SLOT_BONUS * slot)
    reason = "names its old value" if quoted else "says what changed about the same subject"
    return Judgement(score, reason, bool(named)) if score >= UPDATE_THRESHOLD else None


def subject_share(old: Statement, new: Statement, weights: Weights, abbreviations: bool = False) -> float | None:
    """The share of O's subject (weighted by rarity) that N holds; None if O has no subject words.
    Its subject: its words and names, not the values that change nor a word saying that something
    changed ("Moved quill-core to Rust 2021": "moved" is what happened, not what it is about), nor
    a verb any sentence has ("uses", "needs": "The iOS app uses Factory 2.3" is about Factory).
    `abbreviations`: N holds too what it writes abbreviated (server/updates/abbreviations.py; to show, not link)."""
    filler = _filler_stems()
    terms = [(t, k) for t, k in old.terms.items()
             if k != "event" and t not in old.values and t not in old.cue_terms and t not in old.period_terms
             and t not in filler]
    if type(weights) is Weights:  # every term weighs 1 (recall's newer-first step, ~50 pairs a recall): no call each
        subject = {t: PART_WEIGHT if k == "part" else 1.0 for t, k in terms}
    else:
        subject = {t: (PART_WEIGHT if k == "part" else 1.0) * weights.weight(t, old.fts[t], 1 + (t in new.terms))
                   for t, k in terms}
    total, held = sum(subject.values()), set(new.terms) | abbreviated(old, new) if abbreviations else new.terms
    return sum(w for t, w in subject.items() if t in held) / total if total else None


def other_things(old: Statement, new: Statement) -> bool:
    """Whether the two are about other things, whatever words they share (recall's order asks, newer_first.py)."""
    return (bool(different_things(old, new)) or (records_event(old) and not records_event(new))
            or _word_swapped(old, new) or _swapped_word(old, new))


def _template(a: Statement, b: Statement) -> bool:
    """Whether the two are one sentence with a few words changed (most of their words in order)."""
    matched = sum(i2 - i1 for op, i1, i2, _, _ in _opcodes(a.words, b.words) if op == "equal")  # as ratio() counts
    return (2.0 * matched / (len(a.words) + len(b.words)) if a.words or b.words else 1.0) >= 0.6


def _word_swapped(old: Statement, new: Statement) -> bool:
    """One sentence with a content word swapped for another besides the value ("The sampling rate for
    web events is 100 %." / "... for mobile events is 10 %."): a template about two things."""
    ops = _opcodes(old.words, new.words)
    for op, i1, i2, j1, j2 in ops:
        if op != "replace" or i2 - i1 > 2 or j2 - j1 > 2:
            continue
        # Hyphenated names and scoped packages count ("for the storefront" / "for orders-api"); values do not.
        # A schedule swapped is a value changed ("weekly" -> "every night"), not another thing.
        before = {stem(w) for w in old.words[i1:i2] if _NAMED.fullmatch(w) and w not in STOPWORDS}
        after = {stem(w) for w in new.words[j1:j2] if _NAMED.fullmatch(w) and w not in STOPWORDS}
        before, after = before - old.period_terms, after - new.period_terms
        if before and after and not before & after:
            return True
    return False


#: A word or a name without digits: "mobile", "orders-api", a package "@floating-ui/dom" (swapped for
#: "preact" in "@bittern/theme-docs depends on ... version 1.7": two packages), not a path or a value.
_NAMED = re.compile(r"@?[a-z][a-z_\-]*(?:/[a-z][a-z_\-]*)?(?<=[a-z])")


def changed_slot(old: Statement, new: Statement, named_unit: bool = False) -> bool:
    """Whether O and N each hold a value the other lacks, of the same shape and unit: the slot that
    changed ("1.26" -> "1.29", "10 seconds" -> "3 seconds", one path for another; not "2 instances"
    -> "8 threads"). `named_unit`: a value of a name (a version of "Factory 2.3") counts only when
    N names it too: among the memories a change might replace, the slot tells which (a contradiction
    has its subject in N already: "The EKS clusters run Kubernetes 1.26." -> "All EKS clusters are on 1.29.")."""
    if old.places - new.places and new.places - old.places:
        return True  # a path for another path: the place moved ("dags/" -> "orchestration/dags/")
    if old.periods and new.periods and not old.periods & new.periods:
        return True  # another schedule: "every two weeks" -> "monthly"
    gone, added = old.slot_values - new.slot_values, new.slot_values - old.slot_values
    if not (gone and added):
        return False  # no value for another: the units below are not needed (most pairs recall's order asks)
    old_units, new_units = units(old), units(new)
    named = {stem(t.raw.lower()) for t in old.tokens if t.kind in ("name", "ident")}
    # The digit runs inside a hash or ticket id are not values: "note 719540613589" and "note
    # b3deec983704" name two records, not one number changed.
    for a in gone:
        for b in added:
            if value_shape(a) != value_shape(b) or value_shape(a) not in old.shapes or value_shape(b) not in new.shapes:
                continue
            if a in old_units and b in new_units and old_units[a] != new_units[b]:
                continue  # another quantity
            if named_unit and a in old_units and old_units[a] not in new.terms and old_units[a] in named:
                continue  # the version of a thing N never names ("Factory 2.3" / "deployment target 16.4")
            if named_unit and BARE_NUMBER.fullmatch(a) and a not in old_units and b not in new_units:
                continue  # two amounts, neither saying of what ("start at €1,000" / "loans under €25,000")
            return True
    return False


def _restates(old: Statement, new: Statement, share: float, cosine: float) -> bool:
    """What every rule without a change cue needs first: most of O's subject in N, reading alike, and
    neither memory recording an event (two releases, two deploys are two facts)."""
    return share >= CONTRADICTION_SHARE and cosine >= CONTRADICTION_COSINE and not old.eventful and not new.eventful


def contradiction(old: Statement, new: Statement, share: float, cosine: float) -> bool:
    """A restatement without a change cue: N opens with O's subject, shares most of it, reads alike,
    and states another value in the same slot ("The EKS clusters run Kubernetes 1.26." -> "All EKS
    clusters are on 1.29."). Not when either records an event (two releases, two deploys) or O's
    subject words are not all in N ("The JS SDK is at 5.0.1." / "The mobile SDK is at 3.2.0.": two
    SDKs; "The tracking service has 6 replicas." / "The billing service has 2 ...": two services)."""
    if not _restates(old, new, share, cosine):
        return False
    subject = {t for t in old.opening if t not in old.values}
    if not subject or not subject <= set(new.terms) or old.negated != new.negated:
        return False
    if not (new.opening - new.values) & set(old.terms):
        return False  # N is about something else: "Prediction cache TTL is 60 minutes ... after the nightly batch"
    # One slot changes: a record whose id and measure both differ ("job run 88213 finished in 41
    # minutes" / "run 88297 ... 63 minutes") is another record, as is a name swapped for another
    # ("go.mod pins grpc-go at v1.64.0" / "pins protobuf-go at v1.34.2": two packages).
    old_values, new_values = _whole_values(old), _whole_values(new)
    if len(old_values - new_values) > 1 or len(new_values - old_values) > 1:
        return False
    if any(_record_number(v) for v in (old_values ^ new_values)):
        return False  # "note 968666259482: ..." / "note 316998406627: ...": two records' numbers
    if (_specific(old) - set(new.terms) and _specific(new) - set(old.terms)) or _word_swapped(old, new):
        return False
    return changed_slot(old, new)


def named_contradiction(old: Statement, new: Statement, share: float, cosine: float) -> bool:
    """A restatement without a change cue naming another tool, service or place for the same subject
    ("Feature flags are stored in LaunchDarkly." -> "Feature flags are in Unleash, self-hosted ..."):
    N opens with O's subject, every value stays, each names something the other does not, and no
    other word of the template was swapped (that is two things: "the Sentry project for the
    storefront is shopfront-web" / "... for orders-api is shopfront-orders"). Not an addition
    ("also", "as well"), not an event, not across a negation."""
    if not _restates(old, new, share, cosine):
        return False
    if old.negated != new.negated or _adds(new.text) or _whole_values(old) != _whole_values(new):
        return False
    subject = {t for t in old.opening if t not in old.values}
    if not subject or not subject <= set(new.terms) or not subject & new.opening:
        return False
    if new.opening - set(old.terms):
        return False  # N narrows the subject ("Payments in Brazil use Adyen"): an exception, not a change
    gone, came = _specific(old) - set(new.terms) - subject, _specific(new) - set(old.terms) - subject
    return bool(gone) and bool(came) and not _word_swapped(old, new)


def another_command(old: Statement, new: Statement, share: float, cosine: float) -> bool:
    """A restatement without a change cue giving another command for the same task, worded its own way
    ("Start the app locally with `foreman start`." -> "Run `bin/dev` to start the app locally; it runs
    the web server, Sidekiq and the CSS watcher."): most of O's subject in N, each holds a command the
    other lacks, no word of a template swapped ("Run the unit tests with `pytest tests/unit`" / "Run
    the integration tests with ..." are two tasks), not an addition, an event or across a negation."""
    if not _restates(old, new, share, cosine):
        return False
    if old.negated != new.negated or _adds(new.text):
        return False
    if sum(1 for t in old.tokens if t.kind in ("word", "name", "ident")) < 2:
        return False  # the task is named only by its command ("Run `make lint`." / "Run `make test`.")
    commands_old = {t.norm for t in old.tokens if t.kind == "code"}
    commands_new = {t.norm for t in new.tokens if t.kind == "code"}
    return bool(commands_old - commands_new) and bool(commands_new - commands_old) and not _word_swapped(old, new)


#: Words saying that N adds to O rather than replacing it.
_ADDITIVE = re.compile(r"\b(?:also|too|as well|in addition|besides|additionally|another|both|more)\b", re.I)
#: Where a memory's first clause ends: a later clause tells more of the new value ("Use `mix
#: curlew.db.reset`; it wraps ecto.reset and also loads the seeds"), not that it adds to O's.
_CLAUSE_END = re.compile(r";|[.!?]\s|\s[\u2014\u2013-]\s")


def _adds(text: str) -> bool:
    """Whether the memory's main clause says that it adds to what was ("Also run ...", "... too")."""
    return bool(_ADDITIVE.search(_CLAUSE_END.split(text, maxsplit=1)[0]))


def _number(value: str) -> bool:
    """A count, size or version ("8", "1.70", "3.12.1"), not a name holding digits ("db-stg-1.internal")."""
    return set(value_shape(value)) <= {"9", ".", ","}  # "3,100" members is a count too


def _record_number(value: str) -> bool:
    """A bare run of 9 or more digits: an account, order or phone number, a timestamp — what names a
    record. Quantities that large are written with separators or units; a changed one needs a cue."""
    return len(value) >= 9 and value.isdigit()


def _whole_values(statement: Statement) -> set[str]:
    """Its values as written ("04:30", not also its parts "04" and "30")."""
    return {t.norm for t in statement.tokens if t.kind == "value"}


def _specific(statement: Statement) -> set[str]:
    """Its names, identifiers, code and hyphenated names ("grpc-go"), not values: what tells one thing
    from another of its kind."""
    return {t.norm for t in statement.tokens if t.kind in ("name", "ident", "code") or (t.kind == "word" and "-" in t.norm)}


def _swapped_word(a: Statement, b: Statement) -> bool:
    """The same sentence with one content word swapped for another ("the web collector" / "the mobile
    collector"): a look-alike about another thing, not a rewording (those change more, or only
    little words)."""
    ops = [op for op in _opcodes(a.words, b.words) if op[0] != "equal"]
    if len(ops) != 1 or ops[0][0] != "replace":
        return False
    _, i1, i2, j1, j2 = ops[0]

    def content(words: Sequence[str]) -> set[str]:
        inner = [x for w in words for x in w.strip("`").split()]  # a quoted command is its words
        return {stem(w) for w in inner if w not in STOPWORDS and w not in FILLER}

    before, after = content(a.words[i1:i2]), content(b.words[j1:j2])
    return bool(before) and bool(after) and not before & after


@lru_cache(maxsize=1)
def _filler_stems() -> frozenset[str]:
    """FILLER as stems, made on first use: the stemmer is imported when memories are first compared,
    not when the server starts."""
    return frozenset(stem(w) for w in FILLER)


def same_fact(a_text: str, b_text: str) -> bool:
    """Whether two memories can be duplicates: neither holds a number, version, identifier, path, hash,
    command, name, environment or negation that the other lacks (a reworded duplicate keeps them all),
    and they are not one sentence with a content word swapped."""
    a, b = analyse(a_text), analyse(b_text)
    if different_things(a, b) or a.negated != b.negated or a.envs != b.envs or _swapped_word(a, b):
        return False
    for one, other in ((a, b), (b, a)):
        for t in one.tokens:
            if t.kind not in VALUED and t.kind != "event" and "-" not in t.norm:
                continue
            if t.norm in other.terms or (t.parts and all(p in other.terms for p in t.parts)):
                continue
            return False
    return True


def normalised(text: str) -> str:
    """A text compared for equality: case, spacing and final punctuation ignored."""
    return " ".join(text.lower().split()).rstrip(".!?;: ")


def duplicate(a_text: str, b_text: str, cosine: float | None, threshold: float) -> str | None:
    """Why two memories of a thread say the same thing ("same text", "similar"), or None.

    Similar means a cosine at or above `threshold` *and* `same_fact`: "We use Python 3.11" and
    "... 3.12" (0.95), two builds or two tickets of one template, prod and staging, are never
    duplicates, however close their embeddings; nor is an update of one by the other.
    """
    if normalised(a_text) == normalised(b_text):
        return "same text"
    if cosine is None or cosine < threshold or not same_fact(a_text, b_text):
        return None
    a, b = analyse(a_text), analyse(b_text)
    if a.cue != b.cue:  # one of them says that something changed: an update, not a rewording
        return None
    return "similar"

