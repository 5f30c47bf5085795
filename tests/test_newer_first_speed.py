"""Recall's newer-first step made cheaper without changing a decision (server/updates/newer_first.py,
server/updates/rules.py): the pair tests run cheapest first, one word alignment serves every rule that aligns a
pair. Each fast form is checked against the form it replaced on the update benchmark's pairs (its development
projects only) and on pairs built to reach each rule."""

from __future__ import annotations

import difflib
import itertools
import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from server.storage.records import MemoryRow
from server.updates import model, newer_first, rules
from server.updates.statements import analyse

DATA = Path(__file__).resolve().parents[1] / "bench" / "data" / "updates"
PROJECTS = ("atlas", "helmsman", "ledgerly", "quill")  # development projects: the held-out ones are never read here
#: Pairs that reach the rules a benchmark pair seldom does: one quoted command for another, a word swapped.
BUILT = [
    ("Install command that worked: `npx shadcn@latest add dialog badge select`",
     "Install command that worked: `npx shadcn@latest add tabs avatar switch`"),
    ("Install command that worked: `npx shadcn-ui@latest add dialog`", "Install command that worked: `npx shadcn@latest add dialog`"),
    ("Build with `npm run build`.", "Build with `npm run test`."),
    ("Deploy with `git push heroku main`.", "Deploy with `git push render main`."),
    ("The sampling rate for web events is 100 %.", "The sampling rate for mobile events is 10 %."),
    ("The web collector ships to Loki.", "The mobile collector ships to Loki."),
    ("orders-api targets Python 3.11.", "orders-api targets Python 3.12."),
    ("", "orders-api targets Python 3.12."),
]


def _texts(project: str) -> tuple[list[tuple[str, str]], list[str]]:
    data = json.loads((DATA / f"{project}.json").read_text())
    pairs = [(u["old"], u["new"]) for u in data["updates"]] + [(x["a"], x["b"]) for x in data["lookalikes"]]
    pairs += [tuple(d) for d in data["duplicates"]]
    texts = sorted({t for pair in pairs for t in pair} | set(data["distractors"]))
    return pairs, texts


def _pairs() -> list[tuple[str, str]]:
    out = list(BUILT)
    for project in PROJECTS:
        pairs, texts = _texts(project)
        out += pairs + [(b, a) for a, b in pairs]
        out += list(itertools.permutations(texts[:40], 2))  # unrelated and related memories of one thread alike
    return out


PAIRS = _pairs()


def _fresh(a, b):
    return difflib.SequenceMatcher(a=a, b=b, autojunk=False)


def _other_arguments_before(a, b) -> bool:
    """rules._other_arguments as it was: the alignment first, for every pair."""
    ops = [op for op in _fresh(a.words, b.words).get_opcodes() if op[0] != "equal"]
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


def _same_subject_later_before(old, new, cosine, attaching=False) -> bool:
    """newer_first.same_subject_later as it was: the word alignments (other_things) first, the cosine last -- and,
    attaching, a change said that the update model weighs at POSSIBLE (session 36), asked straight."""
    o, n = analyse(old.content), analyse(new.content)
    pair = cosine(old.id, new.id)
    if attaching and pair is not None and n.cue and pair >= newer_first.PAIR_COSINE \
            and not model.unrelated_kinds(o, n) and (found := model.assess(o, n, pair)) is not None \
            and found.probability >= model.POSSIBLE:
        return True
    if rules.other_things(o, n):
        return False
    share = rules.subject_share(o, n, rules.Weights())
    if share is None or share < newer_first.SUBJECT_SHARE:
        return False
    if not n.cue and (o.eventful or n.eventful or not rules.changed_slot(o, n)):
        return False
    pair = cosine(old.id, new.id)
    least = newer_first.ATTACH_COSINE_MOST if attaching and share >= newer_first.SUBJECT_MOST else newer_first.PAIR_COSINE
    return pair is not None and pair >= least


def _row(i: int, text: str) -> MemoryRow:
    return MemoryRow(id=i, thread="t", content=text, kind="note", source="remember", origin=None, importance=0.5,
                     tags=(), content_hash=str(i), created_at=i, updated_at=i, deleted_at=None, superseded_by=None,
                     recall_count=0, last_recalled_at=None)


def test_the_bench_pairs_reach_every_rule_both_ways():
    """The equivalence below means something only if the pairs reach each rule's both answers."""
    statements = [(analyse(a), analyse(b)) for a, b in PAIRS]
    assert len(PAIRS) > 5000
    for rule in (_other_arguments_before, rules._word_swapped, rules._swapped_word, rules._template,
                 lambda o, n: rules.minimal_edit(o, n) is not None, rules.other_things):
        answers = {bool(rule(o, n)) for o, n in statements}
        assert answers == {True, False}, rule


def test_one_shared_alignment_answers_as_a_fresh_one_did():
    for a_text, b_text in PAIRS:
        a, b = analyse(a_text), analyse(b_text)
        fresh = _fresh(a.words, b.words)
        assert rules._opcodes(a.words, b.words) == tuple(fresh.get_opcodes())
        assert rules._template(a, b) == (fresh.ratio() >= 0.6)
        assert rules._other_arguments(a, b) == _other_arguments_before(a, b), (a_text, b_text)


@pytest.mark.parametrize("attaching", [False, True])
def test_same_subject_later_decides_as_before_at_every_cosine(attaching):
    cosines = (None, 0.2, 0.35, 0.4, 0.49, 0.5, 0.9)
    seen = set()
    for n, (a, b) in enumerate(PAIRS[:3000]):
        old, new = _row(2 * n, a), _row(2 * n + 1, b)
        for value in cosines:
            def cosine(x, y, value=value):
                return value
            fast = newer_first.same_subject_later(old, new, cosine, attaching=attaching)
            assert fast == _same_subject_later_before(old, new, cosine, attaching=attaching), (a, b, value)
            seen.add(fast)
    assert seen == {True, False}


def test_a_pair_whose_vectors_differ_is_decided_without_analysing_either(monkeypatch):
    """The cosine is stored: a pair below the least cosine costs no analysis and no alignment."""
    def analysed(text):
        raise AssertionError(f"analysed {text!r}")

    monkeypatch.setattr(newer_first, "analyse", analysed)
    old, new = _row(1, "orders-api targets Python 3.11."), _row(2, "orders-api targets Python 3.12 now.")
    assert not newer_first.same_subject_later(old, new, lambda a, b: 0.3)
    assert not newer_first.same_subject_later(old, new, lambda a, b: 0.3, attaching=True)
    assert not newer_first.same_subject_later(old, new, lambda a, b: None)


def test_the_rules_align_a_pair_once(monkeypatch):
    """other_things asks three rules that align the pair; the update model's features a fourth."""
    made = []

    class Counting(difflib.SequenceMatcher):
        def __init__(self, *args, **kwargs):
            made.append(1)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(rules.difflib, "SequenceMatcher", Counting)
    rules._opcodes.cache_clear()
    a = analyse("Install command that worked: `npx shadcn@latest add dialog badge select`")
    b = analyse("Install command that worked: `npx shadcn@latest add tabs avatar switch`")
    assert rules.other_things(a, b)
    rules._template(a, b), rules.minimal_edit(a, b), rules._word_swapped(a, b)
    assert len(made) == 1


def test_a_new_servers_recall_reads_the_analyses_its_writes_stored(service, monkeypatch):
    """A server started for a new session holds no analysis: recall reads back those the write path stored
    (analyses.hold) rather than analysing each statement again, and ranks as it did."""
    from collections import OrderedDict

    from server.updates import analyses, newer_first, statements

    notes = ["The staging database host is db-stg-1.internal, port 5432.",
             "The production database host is db-prod-1.internal, port 6432.",
             "The analytics database host is db-analytics.internal, port 5432.",
             "The staging database host keeps nightly backups for a week."]
    monkeypatch.setattr(statements, "_analysed", OrderedDict())  # (the writes store what they analyse)
    monkeypatch.setattr(statements, "_analysed_chars", 0)
    for days, text in enumerate(notes):  # in time order: only a later memory is compared with an earlier one
        service.remember(text, thread="t", created_at=datetime(2026, 1, 5, tzinfo=timezone.utc) + timedelta(days=days))
    service.embed_backlog()
    query = "database host and port"
    before = service.recall(query, thread="t", k=2)
    analysed: list[str] = []
    analyse = statements._analyse
    monkeypatch.setattr(statements, "_analyse", lambda text: analysed.append(text) or analyse(text))

    def new_server() -> list[tuple]:
        monkeypatch.setattr(statements, "_analysed", OrderedDict())
        monkeypatch.setattr(statements, "_analysed_chars", 0)
        monkeypatch.setattr(newer_first, "_PAIRS", {})  # (nor the answers of the pairs it compared)
        analysed.clear()
        return [(m.id, m.score, m.label) for m in service.recall(query, thread="t", k=2).memories]

    assert new_server() == [(m.id, m.score, m.label) for m in before.memories]
    assert analysed == []
    hold = analyses.hold
    monkeypatch.setattr(analyses, "hold", lambda texts, read: list(texts))  # as before: nothing read back
    assert new_server() == [(m.id, m.score, m.label) for m in before.memories]
    assert analysed  # (the recall compares statements: without the stored analyses it analyses them)
    monkeypatch.setattr(analyses, "hold", hold)


def test_the_query_stemmed_once_covers_a_text_as_before():
    """ranking.coverage_of (the query's terms stemmed once per recall) against term_coverage as it was."""
    from server import ranking, textindex

    def before(query_terms, text):
        terms = [t for t in query_terms if t]
        if not terms:
            return 0.0
        words = ranking._word_stems(text)
        hit = 0
        for t in terms:
            parts = ranking._WORDS.findall(t)
            if parts and all(ranking._stem(p) in words for p in parts):
                hit += 1
        return hit / len(terms)

    texts = sorted({t for pair in PAIRS[:2000] for t in pair})
    for query in ["which Python does orders-api target", "the staging DB host", "", "the", *texts[:40]]:
        terms = textindex.query_terms(query)
        coverage = ranking.coverage_of(terms)
        assert [coverage(t) for t in texts] == [before(terms, t) for t in texts]


def _changed_slot_before(old, new, named_unit=False) -> bool:
    """rules.changed_slot as it was: both statements' units read before asking whether any value differs."""
    from server.updates.old_values import BARE_NUMBER, _units
    from server.updates.statements import stem, value_shape

    if old.places - new.places and new.places - old.places:
        return True
    if old.periods and new.periods and not old.periods & new.periods:
        return True
    old_units, new_units = _units(old), _units(new)
    named = {stem(t.raw.lower()) for t in old.tokens if t.kind in ("name", "ident")}
    for a in old.slot_values - new.slot_values:
        for b in new.slot_values - old.slot_values:
            if value_shape(a) != value_shape(b) or value_shape(a) not in old.shapes or value_shape(b) not in new.shapes:
                continue
            if a in old_units and b in new_units and old_units[a] != new_units[b]:
                continue
            if named_unit and a in old_units and old_units[a] not in new.terms and old_units[a] in named:
                continue
            if named_unit and BARE_NUMBER.fullmatch(a) and a not in old_units and b not in new_units:
                continue
            return True
    return False


def test_the_slot_and_share_tests_answer_as_before():
    """changed_slot without the units when no value stands for another, units kept by text, subject_share
    without a weight call per term under the plain Weights: every bench pair, both ways, as before."""
    from server.updates.old_values import _units, units

    class Plain(rules.Weights):  # the general path: a weight asked of each term (1.0, as the plain Weights say)
        pass

    answers = set()
    for a_text, b_text in PAIRS:
        for o, n in ((analyse(a_text), analyse(b_text)), (analyse(b_text), analyse(a_text))):
            for named_unit in (False, True):
                fast = rules.changed_slot(o, n, named_unit)
                assert fast == _changed_slot_before(o, n, named_unit), (o.text, n.text)
                answers.add(fast)
            assert rules.subject_share(o, n, rules.Weights()) == rules.subject_share(o, n, Plain())
            assert units(o) == _units(o) and units(o) == _units(o)
    assert answers == {True, False}


def test_a_pair_asked_again_is_not_judged_again(monkeypatch):
    """same_subject_later keeps its answer past the cosine test by the two texts, their cosine and `attaching`:
    recall asks the same pairs recall after recall. Another cosine, or another text, is judged afresh."""
    judged = []
    subject_later = newer_first._subject_later  # (what the kept answers spare: the judging past the cosine test)
    monkeypatch.setattr(newer_first, "_subject_later", lambda o, n, *a: judged.append((o, n)) or subject_later(o, n, *a))
    monkeypatch.setattr(newer_first, "_PAIRS", {})
    old, new = _row(1, "orders-api targets Python 3.11."), _row(2, "orders-api targets Python 3.12 now.")
    first = newer_first.same_subject_later(old, new, lambda a, b: 0.8)
    assert first == newer_first.same_subject_later(old, new, lambda a, b: 0.8)
    assert len(judged) == 1
    newer_first.same_subject_later(old, new, lambda a, b: 0.81)
    newer_first.same_subject_later(old, new, lambda a, b: 0.8, attaching=True)
    edited = _row(2, "orders-api targets Python 3.13 now.")
    newer_first.same_subject_later(old, edited, lambda a, b: 0.8)
    assert len(judged) == 4
