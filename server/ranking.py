"""Hybrid ranking of memory candidates (keyword + vector), independent of SQL.

The store runs two cheap queries and hands the candidates here:

* vector: the top ``DENSE_CANDIDATES`` (50) memories by cosine similarity to
  the query embedding (vec0 KNN, ``distance_metric=cosine``; pass
  ``1 - distance``), filtered to the searched thread(s);
* keyword: the top ``KEYWORD_CANDIDATES`` (50) matches of the query's terms
  (``textindex.query_terms``, ORed within search.keyword_plan's budget), ranked
  as SQLite's ``bm25(fts, 1.0, CONTEXT_COLUMN_WEIGHT)`` (raw value, lower = better;
  PostgreSQL: ``-ts_rank_cd`` with the same weights).

The keyword index has two columns: ``text`` = ``textindex.index_text(content)``
and, for conversation turns (kind ``turn``) only, ``context`` =
``textindex.context_text(...)`` of the up to
``CONTEXT_PREVIOUS`` (2) memories that precede it in the same thread (by
created time), each within ``CONTEXT_MAX_GAP_SECONDS`` (30 min) of the memory
after it (use ``context_ids`` to pick them).  The context column is what lets a terse reply ("Yes, last
Friday!") be found by the words of the turn it answers.

For each candidate the store supplies a ``Doc``: content, created_at, thread,
the ids of its previous / next memory in the thread within the same 30 min
gap rule (``neighbors``, see ``neighbor_ids``), and
``superseded_by`` (id of the replacing memory, or None).

Score (all weights are module constants):

    base(m)  = W_KEYWORD * kw(m) + (1 - W_KEYWORD) * max(cos(m), 0)
        kw(m) = bm25(m) / best bm25 among the keyword candidates (0..1)
                * coverage(m) ** KEYWORD_COVERAGE_POWER,
                0 when m is not a keyword candidate;
        coverage(m) = the share of the query's terms that m holds (term_coverage);
                1 for a conversation turn (its match counts the turns before it).
                The bm25 ratio is relative: when the best keyword hit holds one
                common word of five ("release" in "what interpreter release
                should I use for the order service?"), it and its like scored
                1.0 and buried the memories the embedding found ("orders-api
                targets Python 3.12", cosine rank 1, not in the top 20). The
                share counts in full: under its square root (used first) a hit
                holding two common words of seven kept half its ratio, still
                above what the embedding alone found (a fresh project where
                "model" and "run" are in many memories);
        cos(m) = cosine similarity (computed from the vectors for
                 candidates the KNN did not return, else 0).
    fused(m) = base(m) + NEIGHBOR_WEIGHT * max(base(n) for n in neighbors(m)
                                               that are candidates)
    exact identifiers: a memory holding one of the query's identifiers verbatim
        (search.identifiers) gets + the best fused score: above every other.
    superseded memories: their replacement (search.replacements, pulled into the
        candidates) and every step of the chain between them at hand are raised
        to the stale memory's fused score if that is higher, and the chain is kept
        in order below it (newest first); a superseded memory
        whose replacement is not at hand: fused *= SUPERSEDED_FACTOR.

The returned score is in [0, 1]:  ``confidence * fused(m) / fused(top)``.
``confidence`` says how likely it is that the best hit answers the query at all
(see ``confidence``): a logistic of four signals, each measured to tell answered
questions from questions nothing stored answers (bench/updates.py, the coding
set and the long texts of bench/retrieval.py / bench/longtext.py):

* the cosine of the top-ranked memory;
* how far the best cosine stands out from the crowd: minus the 11th best
  cosine among the candidates (padded with COS_FLOOR below 11). In a thread about
  one project every memory is somewhat similar to any question about it; an
  answer stands out, a question nothing answers meets a flat field;
* the fraction of the query's searchable terms present in the best keyword hit;
* the share of the query's terms that no memory in the searched scope holds at
  all ("namespace" in a question no memory mentions).

So the top result's score says "how likely is it that something here answers
the question" (0.5: as likely as not; WEAK_MATCH, 0.3, marks results that are
probably unrelated) and the others are scaled relative to it. Without a query
vector (the model still loading) the confidence is the term coverage alone; a
top memory holding one of the query's exact identifiers is at least as
confident as its coverage.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Callable, Iterable, Mapping

from server import textindex

DENSE_CANDIDATES = 50
KEYWORD_CANDIDATES = 50
#: The most full-text matches one keyword search ranks (see search.keyword_plan).
#: FTS5 computes bm25 for every match before it can cut to the best
#: KEYWORD_CANDIDATES, about 1 us each: at 100k memories a query of three common
#: words matched 30-60k rows and the search cost 30-57 ms. Rarer terms carry
#: the weight, so the commonest terms are left out until the rest fits.
KEYWORD_MATCH_BUDGET = 20_000
#: Past the budget, rank from the query terms' stored impact lists when they prove the exact top 10
#: (search.keyword_best; SQLite). On a store unchanged since its lists were built the proof runs no FTS5
#: search: every member's score comes from the lists and the pairs' rows (impacts.build_pair), the few
#: left open are scored from their own text, and a proof that fails leaves today's bounded search alone.
#: bench/scale.py --store at 1M: 18 of 19 queries proved from the lists (the 19th today's search), top 10
#: kept 1.0 against 0.45. A server builds the lists and pairs its recalls want in the background
#: (impacts.build_wanted). Off: the bounded search alone (one-shot processes build nothing either way).
KEYWORD_IMPACTS = True
#: A query term in more than this share of the searched thread's memories is
#: left out of the keyword search (see search.common_terms); only for scopes of
#: at least COMMON_TERM_MIN_SCOPE memories.
COMMON_TERM_SHARE = 0.2
COMMON_TERM_MIN_SCOPE = 50
CONTEXT_PREVIOUS = 2
CONTEXT_MAX_GAP_SECONDS = 1800  # a previous memory counts as context only if
                                # written within 30 min of the next one
CONTEXT_COLUMN_WEIGHT = 0.5
W_KEYWORD = 0.5
#: How much a keyword hit's share of the query's terms weighs on its bm25 ratio (module doc).
KEYWORD_COVERAGE_POWER = 1.0
NEIGHBOR_WEIGHT = 0.2
SUPERSEDED_FACTOR = 0.5
#: A superseded candidate lifts the memory that replaced it to this share of its own score.
REPLACEMENT_LIFT = 1.0
COS_FLOOR = 0.15
#: The confidence's logistic: weights of the top memory's cosine, the best cosine's lead
#: over the 11th (CROWD_RANK), the best keyword hit's term coverage and the share of query
#: terms no memory holds, and the intercept. Fitted (balanced logistic regression) on the
#: answered and unanswerable questions of three benchmarks together (real MiniLM vectors);
#: fitted on any two, the third's AUROC stays within 0.01 of these (README, "A score that means something").
CONFIDENCE_WEIGHTS = (4.1, 8.0, 1.1, -3.0)
CONFIDENCE_BIAS = -3.4
CROWD_RANK = 11
#: A top score below this means no memory is likely to answer the query: about 1 in 4
#: unanswerable questions score above it, and 9 in 10 answered ones.
WEAK_MATCH = 0.3


@dataclass
class Doc:
    content: str
    created_at: datetime | None = None
    thread: str | None = None
    neighbors: tuple[int, ...] = ()
    superseded_by: int | None = None  # the live memory that replaced it (end of its chain), when a candidate
    superseded: bool = False  # set if only a flag is known
    successor: int | None = None  # the memory that replaced it directly (its chain's next link)
    exact: bool = False  # holds one of the query's exact identifiers verbatim
    #: A conversation turn: its keyword match counts the turns before it (the context column), so its
    #: own words' share of the query is not what matched; fuse leaves its bm25 ratio unweighed.
    turn: bool = False

    @property
    def is_superseded(self) -> bool:
        return self.superseded or self.superseded_by is not None


_SUFFIXES = ("ingly", "edly", "ings", "ing", "ies", "ied", "es", "ed", "ly", "s")


@lru_cache(maxsize=1 << 16)  # pure; a recall stems ~1,000 words and most recur (a 100k store: 0.9 of 12 ms)
def _stem(word: str) -> str:
    """Very small suffix stripper, only for the confidence estimate."""
    w = word.lower()
    for suf in _SUFFIXES:
        if w.endswith(suf) and len(w) - len(suf) >= 3:
            return w[: -len(suf)]
    return w


_WORDS = re.compile(r"[^\W_]+", re.UNICODE)


def _word_stems(text: str) -> frozenset[str]:
    """The loosely stemmed words and identifier parts of a text. Every recall weighs each keyword hit
    by its coverage (fuse) and the same memories come back query after query: a statement's are kept
    (a long note's are not, or the cache could hold megabytes of text)."""
    return _cached_stems(text) if len(text) <= _CACHED_TEXT else _stems(text)


def _stems(text: str) -> frozenset[str]:
    return frozenset({_stem(w) for w in _WORDS.findall(text)} | {_stem(p) for p in textindex.identifier_parts(text)})


_CACHED_TEXT = 1_000  # characters
_cached_stems = lru_cache(maxsize=4096)(_stems)


def term_coverage(query_terms: Iterable[str], text: str) -> float:
    """Fraction of query terms found (loosely stemmed) in ``text``."""
    return coverage_of(query_terms)(text)


def coverage_of(query_terms: Iterable[str]) -> Callable[[str], float]:
    """term_coverage of these terms, as a function of the text: the terms stemmed once for the many texts one
    recall asks about (recall's newer-first step asks it of each ranked memory, newer_first.order)."""
    terms = [t for t in query_terms if t]
    stems = [[_stem(p) for p in _WORDS.findall(t)] for t in terms]

    def coverage(text: str) -> float:
        if not terms:
            return 0.0
        words = _word_stems(text)
        return sum(1 for parts in stems if parts and all(p in words for p in parts)) / len(terms)

    return coverage


def context_ids(thread_memories: "list[tuple[int, datetime]]", position: int) -> list[int]:
    """Ids whose content forms the FTS5 context of ``thread_memories[position]``.

    ``thread_memories`` is one thread's (id, created_at) sorted by created_at;
    returns up to ``CONTEXT_PREVIOUS`` preceding ids (oldest first), stopping
    at a gap longer than ``CONTEXT_MAX_GAP_SECONDS``."""
    out: list[int] = []
    j = position
    while j > 0 and len(out) < CONTEXT_PREVIOUS:
        cur_t, prev_t = thread_memories[j][1], thread_memories[j - 1][1]
        if cur_t is not None and prev_t is not None and \
                (cur_t - prev_t).total_seconds() > CONTEXT_MAX_GAP_SECONDS:
            break
        out.insert(0, thread_memories[j - 1][0])
        j -= 1
    return out


def neighbor_ids(thread_memories: "list[tuple[int, datetime]]", position: int) -> tuple[int, ...]:
    """``Doc.neighbors`` for ``thread_memories[position]``: the memory just
    before and just after it in the thread, each only if within
    ``CONTEXT_MAX_GAP_SECONDS``."""
    out = []
    cur_id, cur_t = thread_memories[position]
    for j in (position - 1, position + 1):
        if 0 <= j < len(thread_memories):
            nid, nt = thread_memories[j]
            if cur_t is None or nt is None or abs((cur_t - nt).total_seconds()) <= CONTEXT_MAX_GAP_SECONDS:
                out.append(nid)
    return tuple(out)


def fuse(dense: Mapping[int, float], keyword: Mapping[int, float],
         docs: Mapping[int, Doc] | None = None, terms: list[str] | None = None) -> dict[int, float]:
    """Un-normalised fused score per candidate (see module doc); `terms` are the query's
    (textindex.query_terms), without which a keyword hit's bm25 ratio is not weighed by its coverage."""
    docs = docs or {}
    kbest = max((-v for v in keyword.values()), default=0.0)
    base: dict[int, float] = {}
    # A replacement search brought along for a matching stale memory is ranked even with no score of its
    # own: it has no vector yet in a backlog (issue 34), and would otherwise drop out of the chain.
    scored = set(dense) | set(keyword)
    brought: set[int] = set()
    for i in scored:
        d = docs.get(i)
        if d is None or d.superseded_by not in docs:
            continue
        brought.add(d.superseded_by)
        step = d.successor  # and every step of its chain at hand (A -> B -> C: B too)
        while step in docs and step not in brought and step not in scored:
            brought.add(step)
            step = docs[step].successor
    coverage = coverage_of(terms) if terms else None  # the query's terms stemmed once, not once per hit
    for i in scored | brought:
        kw = (-keyword[i] / kbest) if (i in keyword and kbest > 0) else 0.0
        kw = max(0.0, kw)
        if kw and coverage is not None and (d := docs.get(i)) is not None and not d.turn:
            kw *= coverage(d.content) ** KEYWORD_COVERAGE_POWER
        cos = max(0.0, float(dense.get(i, 0.0)))
        base[i] = W_KEYWORD * kw + (1.0 - W_KEYWORD) * cos
    fused: dict[int, float] = {}
    for i, b in base.items():
        d = docs.get(i)
        nb = 0.0
        if d is not None and NEIGHBOR_WEIGHT:
            nb = max((base.get(n, 0.0) for n in d.neighbors), default=0.0)
        fused[i] = b + NEIGHBOR_WEIGHT * nb
    return fused


def rank(query: str, dense: Mapping[int, float], keyword: Mapping[int, float],
         docs: Mapping[int, Doc], now: datetime | None = None, k: int = 10, missing: float = 0.0,
         ) -> list[tuple[int, float]]:
    """Rank candidates; returns up to ``k`` (memory id, score in [0, 1]),
    best first.  ``now`` is accepted for interface stability (no time
    features are used by default: they did not help in our measurements)."""
    terms = textindex.query_terms(query)
    fused = fuse(dense, keyword, docs, terms)
    if not fused:
        return []
    # Exact identifiers win: a memory holding one of the query's identifiers verbatim goes
    # above every memory that does not (their own order kept among them).
    exact = [i for i in fused if (d := docs.get(i)) is not None and d.exact]
    if exact:
        lift = max(fused.values())
        for i in exact:
            fused[i] += lift
    # Superseded memories: the replacement takes the stale memory's place if that is
    # higher (the current fact first whenever the stale one matches), and the stale one
    # comes right below it; with no replacement at hand, it is penalised.
    for i in sorted(fused, key=lambda i: -fused[i]):
        d = docs.get(i)
        if d is None:
            continue
        if d.superseded_by is not None and d.superseded_by in fused:
            fused[d.superseded_by] = max(fused[d.superseded_by], fused[i] * REPLACEMENT_LIFT)
            # Every step of its chain at hand comes up with it (A -> B -> C: C, B, A), or A would
            # sink to B's own score below (B need not match the query at all).
            step, seen = d.successor, {i}
            while step in fused and step != d.superseded_by and step not in seen and docs.get(step) is not None:
                seen.add(step)
                fused[step] = max(fused[step], fused[i] * REPLACEMENT_LIFT)
                step = docs[step].successor
        elif d.is_superseded:
            fused[i] *= SUPERSEDED_FACTOR
    # Each below the memory that replaced it, down a chain of updates (newest first).
    for _ in range(len(fused)):
        moved = False
        for i in fused:
            d = docs.get(i)
            if d is None or d.superseded_by is None or d.superseded_by not in fused:
                continue
            above = d.successor if d.successor in fused else d.superseded_by
            if fused[i] >= fused[above] * 0.999 and fused[above] > 0:
                fused[i] = fused[above] * 0.999
                moved = True
        if not moved:
            break
    order = sorted(fused, key=lambda i: (-fused[i], i))
    top = fused[order[0]]
    if top <= 0:
        return [(i, 0.0) for i in order[:k]]
    conf = confidence(query, dense, keyword, docs, order[0], missing, terms)
    return [(i, round(conf * fused[i] / top, 6)) for i in order[:k]]


def confidence(query: str, dense: Mapping[int, float], keyword: Mapping[int, float],
               docs: Mapping[int, Doc], top: int, missing: float = 0.0, terms: list[str] | None = None) -> float:
    """How likely it is that the top-ranked memory answers the query, in [0, 1] (module doc).

    `missing` is the share of the query's terms that no memory in the searched scope holds; `terms`
    are the query's (textindex.query_terms), when the caller has them already.
    """
    terms = textindex.query_terms(query) if terms is None else terms
    kw_best = min(keyword, key=lambda i: (keyword[i], i)) if keyword else None
    coverage = term_coverage(terms, docs[kw_best].content) if kw_best is not None and kw_best in docs else 0.0
    cosines = sorted((max(0.0, float(c)) for c in dense.values()), reverse=True)
    if not cosines or cosines[0] <= 0.0:
        return coverage  # no query vector (the model is loading): the words are all there is
    if top not in dense and top in keyword:
        # The top memory has no vector yet (a backlog): the logistic would read its missing cosine as
        # 0 and call most such answers weak; it is judged as keyword-only search judges (issue 34).
        return term_coverage(terms, docs[top].content) if top in docs else coverage
    crowd = (cosines + [COS_FLOOR] * CROWD_RANK)[CROWD_RANK - 1]  # a small scope: no crowd to stand out from
    w_cos, w_lead, w_cover, w_missing = CONFIDENCE_WEIGHTS
    z = (w_cos * max(0.0, float(dense.get(top, 0.0))) + w_lead * (cosines[0] - crowd)
         + w_cover * coverage + w_missing * missing + CONFIDENCE_BIAS)
    conf = 1.0 / (1.0 + math.exp(-z))
    if (d := docs.get(top)) is not None and d.exact:
        conf = max(conf, coverage)  # it holds the identifier asked about
    return conf
