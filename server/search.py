"""Recall's pipeline: keyword and vector candidates from the store, ranked by ranking.rank.

The store supplies the top candidates of each signal (filters applied inside
both searches), the memories holding an exact identifier of the query (SHOP-142,
e5bc66ab56fa, orders_api/shipping/rates.py, parse_config, 3.12), the exact cosine
of every candidate, and each candidate's neighbours in its thread; a superseded
candidate brings the memory that replaced it. ranking.py decides the order and
the score (see its docstring for what the score means).
"""

from __future__ import annotations

import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from server import ranking
from server.clock import from_millis
from server.frozen import record
from server.models import CONVERSATION_KIND, linkable
from server.storage.protocol import KeywordQuery, MemoryRow, PossibleUpdate, Scope, SearchIndex, TurnRef
from server.textindex import query_terms
from server.updates import analyses, newer_first

if TYPE_CHECKING:
    import numpy as np


@record
class Hit:
    memory_id: int
    score: float
    match: str  # "keyword" | "semantic" | "both"
    row: MemoryRow
    replaced_by: int | None = None  # superseded: the live memory at the end of its chain
    #: Superseded, but every memory that replaced it was forgotten since: it is current again.
    replacement_forgotten: bool = False
    #: Not superseded, but a later memory shown above it was recorded as most probably updating it
    #: (newer_first.outdated): a hint for the reader, not a link.
    possibly_replaced_by: int | None = None
    #: Shown right after this earlier memory, which it was recorded as possibly updating (newer_first.attach).
    newer_than: int | None = None
    #: Superseded: the memories that replaced it in turn, up to `replaced_by` (one id when it replaced it directly).
    chain: tuple[int, ...] = ()
    #: A later turn attached after an earlier one (newer_first.later_turns): `row.content` holds only the
    #: sentences about the subject, not the whole turn.
    excerpt: bool = False


@dataclass(frozen=True)
class KeywordPlan:
    """What the keyword search ranks (see keyword_plan)."""

    rare: tuple[str, ...] = ()  # every memory containing one of these is ranked...
    common: tuple[str, ...] = ()  # ...with these counted in its rank; memories with only these are not
    window: int | None = None  # rank only the newest `window` matches of each search (the rarest term alone is too common)
    #: Share of the query's terms that no memory in the scope holds (a signal of ranking.confidence).
    missing: float = field(default=0.0, compare=False)

    def queries(self) -> list[KeywordQuery]:
        """The searches keyword_hits runs: memories with a rare and a common term, and with rare terms only;
        windowed, memories holding every term first."""
        if not self.rare:
            return []
        # Windowed (every term commoner than the budget: a million memories), the later searches, run
        # only to fill up short earlier ones (keyword_hits), are wider: the rare term's newest matches
        # with a common term, then without the NOT, whose doclists FTS5 would walk too for their IDF;
        # a memory two searches find keeps its better rank.
        excluded = () if self.window is not None else self.common
        rare_only = KeywordQuery(self.rare, excluded=excluded, newest=self.window)
        if not self.common:
            return [rare_only]
        with_common = KeywordQuery(self.rare, also=self.common, newest=self.window)
        if self.window is None or len(self.common) == 1:  # (with one common term, that is every term)
            return [with_common, rare_only]
        # bm25's sum puts a memory holding every query word above nearly all holding some: the
        # intersection is far smaller than any term's matches (700-105,000 of a million in
        # bench/scale.py, against 300,000+ for the rare term and another), so its window covers far
        # more of them.
        return [KeywordQuery(self.rare, every=self.common, newest=self.window), with_common, rare_only]


def keyword_query(query: str) -> KeywordQuery | None:
    """The whole query as one keyword search (every term ORed, no budget), None when nothing in it is searchable."""
    terms = query_terms(query)
    return KeywordQuery(tuple(terms)) if terms else None


def keyword_plan(store: SearchIndex, query: str, scope: Scope, budget: int | None = None,
                 count: Callable[[str, int], int] | None = None) -> KeywordPlan:
    """Split the query terms so the keyword search ranks at most `budget` (ranking.KEYWORD_MATCH_BUDGET) matches.

    FTS5 computes bm25 for every match of an OR query before it can cut to the best few (~1 us each). Each
    term's matches are counted up to the budget (a bounded walk of its doclist, no bm25) and, rarest first,
    terms are `rare` while their matches fit the budget. The rest (`common`) still count in the rank of any
    memory that also has a rare term (keyword_hits), so the order of those memories is exactly bm25's; only
    memories matching nothing but common words (whose rank is small: their IDF is) are left to the vector
    search. Below the budget, every store of up to tens of thousands of memories, all terms are rare and
    nothing changes. When even the rarest term matches more than the budget, its newest `budget` matches are
    ranked (ids grow with time).
    Within a thread, thread-common rare terms are dropped (common_terms); counting them costs a walk of the
    term's matches, so terms beyond the budget are not checked. `count(term, cap)`: a term's matches in the
    scope up to `cap` (store.match_count unless given: the update check passes one that remembers the terms
    far past its budget)."""
    terms = query_terms(query)
    budget = budget or ranking.KEYWORD_MATCH_BUDGET
    # Counted in the scope's threads: in a thread most terms are rare, so its whole query is ranked. In threads
    # of a large file, the counts their lists hold are not counted again (SQLite's scoped_counts).
    scoped = getattr(store, "scoped_counts", None) if count is None and ranking.KEYWORD_IMPACTS else None
    counts = scoped(terms, scope, budget + 1) if scoped is not None else {}
    count = count or (lambda term, cap: store.match_count(KeywordQuery((term,)), cap, scope))
    counts.update({t: count(t, budget + 1) for t in terms if t not in counts})
    rare: list[str] = []
    common: list[str] = []
    total = 0
    for term in sorted((t for t in terms if counts[t]), key=counts.__getitem__):  # stable: query order on ties
        if rare and total + counts[term] > budget:
            common.append(term)
        else:
            rare.append(term)
            total += counts[term]
    missing = sum(1 for t in terms if not counts[t]) / len(terms) if terms else 0.0
    if not rare:
        return KeywordPlan(missing=missing)
    window = budget if total > budget else None
    # Unwindowed, every rare term's matches were counted in full (they fit the budget): the most of them
    # bounds how large a scope can hold a common one, so its size is counted no further than that.
    drop = _common(store, rare, scope, most=max(counts[t] for t in rare)) if window is None else set()
    return KeywordPlan(tuple(t for t in rare if t not in drop) or tuple(rare), tuple(common), window, missing)


def keyword_hits(store: SearchIndex, plan: KeywordPlan, scope: Scope, limit: int) -> dict[int, float]:
    """The best `limit` keyword matches of the plan as {id: rank}, more negative is better.

    With common terms, two searches: memories with a rare and a common term, ranked by all of them (bm25
    sees each term once, so the rank is the whole query's), and memories with rare terms only
    (KeywordPlan.queries). Each search ranks only its own matches, and the best `limit` of their union is
    the top of the whole query over memories with a rare term.

    Windowed (every term past the budget: a million memories), each search costs tens of ms
    (bm25 per ranked match, a doclist walk per term for its IDF), and each runs only when those
    before it found fewer than `limit`: memories holding every query word first, then the rare
    term and another, then the rare term alone (KeywordPlan.queries); bm25's sum over the terms
    puts each group above the next (bench/scale.py at 1M: the second search without the third
    kept the same share of the unbudgeted top 50, 0.336, p50 38.7 against 45.5 ms with both;
    every word first, 0.452 of its top 10 against 0.338 at the same cost).
    """
    queries = plan.queries()
    if plan.window is not None:
        found, seen = [], set()
        for query in queries:
            found.append(store.keyword(query, limit, scope))
            seen.update(found[-1])
            if len(seen) >= limit:
                break
    else:
        found = [store.keyword(query, limit, scope) for query in queries]
    hits: dict[int, float] = {}
    for ranked in found:
        for mid, rank in ranked.items():
            hits[mid] = min(rank, hits.get(mid, rank))  # found by both (windowed): its better rank
    return dict(sorted(hits.items(), key=lambda hit: (hit[1], hit[0]))[:limit])


#: Past the budget, the keyword search's best this many are proved to be the whole query's (keyword_best).
PROVED_TOP = 10


def keyword_best(store: SearchIndex, plan: KeywordPlan, scope: Scope, limit: int) -> dict[int, float]:
    """keyword_hits, but past the budget (a windowed plan) first the exact answer from the terms' impact lists
    (SQLite, storage/sqlite/impacts.py): the best `limit` of the lists' union ranked by the whole query's bm25,
    returned when its best PROVED_TOP are proved to be the unbudgeted query's; otherwise (no lists, a
    PostgreSQL store, the proof short) keyword_hits as before (docs/benchmarks.md, issue 34 item 4)."""
    # PostgreSQL has no impact lists (its keyword search is unchanged): the method is SQLite's alone.
    proved = getattr(store, "keyword_proved", None) if plan.window is not None and ranking.KEYWORD_IMPACTS else None
    if proved is not None:
        found = proved((*plan.rare, *plan.common), limit, scope, PROVED_TOP)
        if found is not None:
            return found
    # Under the budget: keyword_hits' answer from the lists when they hold it (with common terms, their pairs';
    # in threads with rare terms alone, the usual plan there, each term's list in each thread).
    listed = getattr(store, "keyword_listed" if plan.common else "keyword_scoped", None) if plan.window is None else None
    found = listed(plan.rare, plan.common, limit, scope) if listed is not None and ranking.KEYWORD_IMPACTS else None
    if found is not None:
        return found
    return keyword_hits(store, plan, scope, limit)


#: A recall's keyword search runs here, on the store's second connection (SearchIndex.beside), while
#: the caller searches vectors. Threads start on first use; two serve concurrent recalls.
_BESIDE = ThreadPoolExecutor(max_workers=2, thread_name_prefix="memvault-keyword")


@record
class KeywordFound:
    """A query's keyword hits ({id: rank}, keyword_hits) and its plan's share of terms no memory holds."""

    hits: dict[int, float]
    missing: float = 0.0


def keyword_started(store: SearchIndex, query: str, scope: Scope, limit: int,
                    overlap: bool = True) -> Callable[[], KeywordFound]:
    """The query's keyword hits (keyword_plan, keyword_hits) started beside the caller when the store
    has a second connection and `overlap` says the caller has work to do meanwhile; call the result
    for them (it waits for the search to end)."""

    def run(index: SearchIndex) -> KeywordFound:
        plan = keyword_plan(index, query, scope)
        return KeywordFound(keyword_best(index, plan, scope, limit), plan.missing)

    beside = store.beside() if overlap else None
    if beside is None:
        found = run(store)
        return lambda: found
    return _BESIDE.submit(run, beside).result


def common_terms(store: SearchIndex, query: str, scope: Scope) -> set[str]:
    """Query terms found in more than COMMON_TERM_SHARE of the searched memories.

    bm25's IDF is computed over the whole store, but a search is scoped to a
    thread: a name or project word that is rare in the store and in every other
    memory of this thread would still dominate the keyword ranking while
    telling nothing apart. Within the scope it is a stopword.
    """
    return _common(store, query_terms(query), scope)


def _common(store: SearchIndex, terms: list[str], scope: Scope, most: int | None = None) -> set[str]:
    """`most`: no term is in more of the scope's memories than this (a term's memories holding it in
    their own text are some of its matches, keyword_plan's counts). A term is common when it is in more
    than COMMON_TERM_SHARE of the scope, which a scope of over most / share memories rules out: its size
    is counted no further (at 100k memories in a thread, the whole count was ~10 ms of every hook prompt
    to learn that none of a query's rare terms, each in a few hundred, could be common)."""
    if scope.threads is None or ranking.COMMON_TERM_SHARE >= 1:
        return set()
    if most is None:
        size = scope_size(store, scope)
    else:
        cap = int(most / ranking.COMMON_TERM_SHARE) + 1
        size = store.scope_size(scope, cap)
        if size >= cap:
            return set()
    if size < ranking.COMMON_TERM_MIN_SCOPE:
        return set()
    limit = ranking.COMMON_TERM_SHARE * size
    return {t for t in terms if _frequency(store, t, scope, size) > limit}


# Counting a common term's matches in a thread costs milliseconds (a walk of its matches: it grows
# with the thread), and the same terms come back query after query and write after write: cache the
# count while the scope's size stays in the same step, a power of two between 1/128 and 1/64 of it:
# exact up to 128 memories; past that a count is at most ~1.5% stale, and recounted once per step
# of writes, not at every write (a write's update check weighs every word of its candidates by it:
# at 100k memories in one thread that recount made each write grow with the store).
_FREQUENCIES: OrderedDict[tuple, int] = OrderedDict()
_FREQUENCIES_LOCK = threading.Lock()
_FREQUENCIES_MAX = 20_000


#: A scope's size (a count of its live memories: a walk that grows with the thread, 5 ms at 10k, run
#: at every write by its update check) is counted exactly up to SIZE_EXACT memories; past it, a count
#: is reused for SIZE_SECONDS (a few hundred writes at most: under 2% of such a thread).
SIZE_EXACT = 1_024
SIZE_SECONDS = 5.0
_SIZES: dict[tuple, tuple[int, float]] = {}


def scope_size(store: SearchIndex, scope: Scope) -> int:
    """store.scope_size, cached past SIZE_EXACT memories (see there)."""
    key = (*store.location, scope.threads)
    now = time.monotonic()
    cached = _SIZES.get(key)
    if cached is not None and cached[0] >= SIZE_EXACT and now - cached[1] < SIZE_SECONDS:
        return cached[0]
    size = store.scope_size(scope)
    with _FREQUENCIES_LOCK:
        if len(_SIZES) > _FREQUENCIES_MAX:
            _SIZES.clear()
        _SIZES[key] = (size, now)
    return size


def term_frequency(store: SearchIndex, term: str, scope: Scope) -> int:
    """How many live memories in `scope` hold `term` (a word or phrase of the keyword index), cached."""
    return _frequency(store, term, scope, scope_size(store, scope))


def _frequency(store: SearchIndex, term: str, scope: Scope, size: int) -> int:
    step = 1 << max(0, size.bit_length() - 7)
    key = (*store.location, scope.threads, term, step, size // step)
    with _FREQUENCIES_LOCK:
        if key in _FREQUENCIES:
            _FREQUENCIES.move_to_end(key)
            return _FREQUENCIES[key]
    count = store.document_frequency(KeywordQuery((term,), own_text_only=True), scope)
    with _FREQUENCIES_LOCK:
        _FREQUENCIES[key] = count
        while len(_FREQUENCIES) > _FREQUENCIES_MAX:
            _FREQUENCIES.popitem(last=False)
    return count


#: A query's exact identifiers: hex ids of 6+ characters, ticket ids (SHOP-142), CamelCase and
#: snake_case names, dotted or slashed paths and hosts, versions (3.12, v1.34.2).
_IDENTIFIER = re.compile(
    r"(?<![\w./-])(?:"
    r"[0-9a-f]*[0-9][0-9a-f]*[a-f][0-9a-f]*|[0-9a-f]*[a-f][0-9a-f]*[0-9][0-9a-f]*"  # hex with a digit and a letter
    r"|[A-Za-z][A-Za-z0-9]*-[0-9]+"  # ticket ids
    r"|[A-Za-z_$][\w$]*(?:[a-z0-9][A-Z]|_[A-Za-z0-9])[\w$]*"  # camelCase, CamelCase, snake_case
    r"|[\w@~+-]*[\w](?:[./:][\w@~+*-]+)+/?|/?(?:[\w.@~+-]+/)+[\w.@~+*-]*"  # paths, hosts, dotted names
    r"|v?[0-9]+(?:\.[0-9]+)+"  # versions
    r")(?![\w-])"
)


def identifiers(query: str) -> list[str]:
    """The exact identifiers a query contains (see _IDENTIFIER), each once, in order."""
    found = []
    for match in _IDENTIFIER.finditer(query):
        token = match.group(0).rstrip(".:/")
        if len(token) < 3 or (re.fullmatch(r"[0-9a-f]+", token) and len(token) < 6):
            continue
        if token and token not in found:
            found.append(token)
    return found


def verbatim(identifier: str, text: str) -> bool:
    """Whether `text` holds the identifier as a whole token (case-insensitive)."""
    return re.search(r"(?<![\w])" + re.escape(identifier) + r"(?![\w])", text, re.IGNORECASE) is not None


def _identifier_hits(store: SearchIndex, query: str, scope: Scope) -> tuple[list[str], dict[int, float]]:
    """The query's identifiers, and the memories holding one as a keyword match: its joined form
    (`SHOP-142` -> shop142, `handle_refund` -> handlerefund: the index holds every compound
    identifier joined as well, textindex.identifier_parts), or, when no memory holds that, its words
    as a phrase (`rates.py` inside `orders_api/shipping/rates.py`).

    The phrase is the fallback, not a second search: FTS5 computes a phrase's document frequency by
    walking both words' doclists with their positions (177 ms for "handle refund" at a million
    memories), and skipped when a word is commoner than the keyword budget. An identifier is ranked
    among its newest IDENTIFIER_WINDOW matches (one that thousands of memories hold names a topic)."""
    found = identifiers(query)
    hits: dict[int, float] = {}
    budget = ranking.KEYWORD_MATCH_BUDGET
    for ident in found:
        words = _WORDS.findall(ident.lower())
        if not words:
            continue
        got = store.keyword(KeywordQuery(("".join(words),), newest=IDENTIFIER_WINDOW), IDENTIFIER_CANDIDATES, scope)
        if not got and len(words) > 1 and all(
            store.match_count(KeywordQuery((w,)), budget + 1, scope) <= budget for w in words
        ):
            phrase = KeywordQuery((" ".join(words),), newest=IDENTIFIER_WINDOW)
            got = store.keyword(phrase, IDENTIFIER_CANDIDATES, scope)
        for mid, rank in got.items():
            hits[mid] = min(rank, hits.get(mid, 0.0))
    return found, hits


_WORDS = re.compile(r"[^\W_]+")
#: Memories each query identifier adds to the candidates.
IDENTIFIER_CANDIDATES = 20
#: An identifier's newest matches that are ranked (bm25 costs ~1 us a match).
IDENTIFIER_WINDOW = 2_000
#: How far a chain of replacements is followed.
CHAIN_LIMIT = 20


def in_scope(row: MemoryRow, scope: Scope) -> bool:
    """Whether a live memory passes the scope's filters (as the store's searches apply them)."""
    return (
        row.deleted_at is None
        and (scope.threads is None or row.thread in scope.threads)
        and (not scope.kinds or row.kind in scope.kinds)
        and (not scope.tags or bool(set(scope.tags) & set(row.tags)))
        and (scope.since is None or row.created_at >= scope.since)
        and (scope.until is None or row.created_at <= scope.until)
    )


def replacements(store: SearchIndex, rows: dict[int, MemoryRow],
                 paths: dict[int, tuple[int, ...]] | None = None) -> dict[int, int]:
    """For each superseded memory among `rows`: the live memory at the end of its chain of
    replacements (a forgotten replacement is skipped over); none when the chain has no live end.
    `paths`, when given, gets each one's chain: the ids that replaced it in turn, up to that live end."""
    heads: dict[int, int] = {}
    for mid, row in rows.items():
        seen, cursor, live_end, walked = {mid}, row.superseded_by, None, []
        while cursor is not None and cursor not in seen and len(seen) <= CHAIN_LIMIT:
            seen.add(cursor)
            step = rows.get(cursor) or store.get([cursor]).get(cursor)
            if step is None:
                break
            walked.append(cursor)
            if step.deleted_at is None:
                live_end = cursor
            cursor = step.superseded_by
        if live_end is not None:
            heads[mid] = live_end
            if paths is not None:
                paths[mid] = tuple(walked[: walked.index(live_end) + 1])
    return heads


def _pair_cosines(store: SearchIndex, ids: list[int]) -> Callable[[int, int], float | None]:
    """Cosine of two of these memories' stored vectors (each one's whole text: its first passage), read
    from the store on the first question only (most recalls ask none)."""
    # lazy: NumPy, ~0.38 s that a hook process (which imports search) never needs
    import numpy as np

    unit: dict[int, np.ndarray] = {}
    read: list[bool] = []

    def cosine(a: int, b: int) -> float | None:
        if not read:
            read.append(True)
            for mid, matrix in store.vectors_of(ids).items():
                first = np.atleast_2d(np.asarray(matrix, dtype=np.float32))[0]
                norm = float(np.linalg.norm(first))
                unit[mid] = first / norm if norm else first
        return float(unit[a] @ unit[b]) if a in unit and b in unit else None

    return cosine


def search(  # noqa: PLR0913
    store: SearchIndex, query: str, query_vector: np.ndarray | None, k: int, scope: Scope,
    keyword_done: Callable[[], KeywordFound] | None = None,
) -> list[Hit]:
    """The top k memories for the query: a recall's search stages without its writes (server.recall runs
    them with its writes in between; the health page's probe runs them alone). `keyword_done` is its
    keyword search when the caller started it already (keyword_started, with ranking.KEYWORD_CANDIDATES)."""
    if keyword_done is None:
        keyword_done = keyword_started(store, query, scope, ranking.KEYWORD_CANDIDATES)
    found = gather(store, query, query_vector, scope, keyword_done)
    return [] if found is None else arrange(store, query, found, fuse(query, found, k), k, scope)


@record
class Candidates:
    """What a query's searches found (gather): each candidate's row and ranking.Doc, and the signals."""

    vectors: bool  # the query has a vector (else the ranking is keyword alone)
    rows: dict[int, MemoryRow]  # every candidate, and the live memories at the end of their replacement chains
    docs: dict[int, ranking.Doc]  # the live candidates, as ranking.rank reads them
    dense: dict[int, float]  # cosine to the query
    nearest: set[int]  # found by the vector search
    keyword: dict[int, float]  # found by the keyword search: {id: rank}
    missing: float  # share of the query's terms no memory holds (KeywordFound.missing)
    ident_hits: dict[int, float]  # holding one of the query's exact identifiers
    heads: dict[int, int]  # superseded candidate -> the live memory that replaced it
    revived: set[int]  # superseded, every replacement forgotten since
    chains: dict[int, tuple[int, ...]]  # superseded candidate -> the ids that replaced it in turn


def gather(store: SearchIndex, query: str, query_vector: np.ndarray | None, scope: Scope,
           keyword_done: Callable[[], KeywordFound]) -> Candidates | None:
    """The candidates of every signal (identifiers, vector, the keyword search started before) with
    their replacements, cosines and neighbours; None when no memory matches at all."""
    idents, ident_hits = _identifier_hits(store, query, scope)
    dense: dict[int, float] = {}
    nearest: set[int] = set()
    vectors = query_vector is not None and bool(query_vector.any())
    if vectors:
        dense = {mid: 1.0 - dist for mid, dist in store.knn(query_vector, ranking.DENSE_CANDIDATES, scope).items()}
        nearest = set(dense)
    found = keyword_done()
    keyword = found.hits
    candidates = list(dense.keys() | keyword.keys() | ident_hits.keys())
    if not candidates:
        return None
    rows = store.get(candidates)
    if len(rows) < len(candidates):
        # Index rows of a memory gone from `memories` (an outside edit): drift that the server's check
        # repairs after start; until then such an id is no candidate (it has no row to show).
        dense, keyword, ident_hits = ({m: v for m, v in d.items() if m in rows} for d in (dense, keyword, ident_hits))
        nearest &= rows.keys()
    # A replaced memory that matches brings what replaced it along: the current fact is shown
    # (first) whenever the stale one is found, even if the stale one words the query better.
    chains: dict[int, tuple[int, ...]] = {}
    heads = replacements(store, rows, chains)
    # Superseded with no live replacement (each one forgotten since): the fact is current again,
    # ranked as such; forgetting the update undoes it as curate_memory's restore would.
    revived = {mid for mid, row in rows.items() if row.superseded_by is not None and mid not in heads}
    extra = [h for h in set(heads.values()) if h not in rows]
    rows.update({mid: r for mid, r in store.get(extra).items() if in_scope(r, scope)})
    heads = {old: new for old, new in heads.items() if new in rows and old in rows}
    candidates = [mid for mid in rows if rows[mid].deleted_at is None]
    if vectors:
        # Candidates the KNN did not reach still get their true cosine.
        dense.update(store.cosines(query_vector, [mid for mid in candidates if mid not in dense]))
    around = store.neighbours(candidates)
    docs: dict[int, ranking.Doc] = {}
    for mid in candidates:
        row = rows[mid]
        created = row.created_at
        turns = around.get(mid)
        before, after = (turns.before, turns.after) if turns else (None, None)
        sequence = [n for n in (before, TurnRef(mid, created), after) if n is not None]
        near = ranking.neighbor_ids([(t.id, from_millis(t.created_at)) for t in sequence], 1 if before else 0)
        docs[mid] = ranking.Doc(
            content=row.content,
            created_at=from_millis(created),
            thread=row.thread,
            neighbors=near,
            superseded_by=heads.get(mid),
            superseded=row.superseded_by is not None and mid not in revived,
            successor=row.superseded_by,
            exact=any(verbatim(ident, row.content) for ident in idents),
            turn=row.kind == CONVERSATION_KIND,
        )
    return Candidates(vectors, rows, docs, dense, nearest, keyword, found.missing, ident_hits, heads, revived, chains)


def fuse(query: str, found: Candidates, k: int) -> list[tuple[int, float]]:
    """The candidates ranked by ranking.rank: the top k, or with a query vector as many as arrange needs."""
    reach = max(k, newer_first.WINDOW)
    return ranking.rank(query, found.dense, found.keyword, found.docs,
                        k=max(reach, newer_first.ATTACH_WINDOW) if found.vectors else k, missing=found.missing)


def arrange(store: SearchIndex, query: str, found: Candidates, full: list[tuple[int, float]], k: int,
            scope: Scope) -> list[Hit]:
    """The top k of the fused ranking as hits: with a query vector a newer memory that updates a shown one
    comes first (newer_first.order) and later possible updates are attached; each hit says how it matched."""
    vectors, rows, docs, heads, revived, chains = found.vectors, found.rows, found.docs, found.heads, found.revived, found.chains
    nearest, keyword, ident_hits = found.nearest, found.keyword, found.ident_hits
    reach = max(k, newer_first.WINDOW)
    ranked = full[:reach]
    similar: dict[int, list[tuple[int, PossibleUpdate]]] = {}
    if vectors:  # (without a query vector, as in a hook process that answers alone, the ranking stands)
        ids = [mid for mid, _ in ranked]
        cosine = _pair_cosines(store, [mid for mid, _ in full])
        # The statements the step may compare, analysed on write and stored: read back in one read, not analysed
        # again (a server started for a new session holds no analysis; analysing one costs ~4x reading it).
        analyses.hold({mid: rows[mid].content for mid, _ in full if mid in rows and linkable(rows[mid])}, store.analyses)
        possible = store.possible_updates_of(ids)
        ranked = newer_first.order(ranked, rows, docs, query, cosine, possible)[:k]
        shown = {mid for mid, _ in ranked}
        similar = newer_first.resembling(ranked, [mid for mid, _ in full if mid not in shown], rows, cosine)
    else:
        possible = {}
    # A later turn reversing a shown one is attached as statements are (turns record no possible update; the
    # test is by sentence and needs no vector), its older labelled possibly outdated.
    turns, excerpts = newer_first.later_turns(ranked, [mid for mid, _ in full], rows, query)
    for older, pairs in turns.items():
        similar.setdefault(older, []).extend(pairs)
    ranked, attached = _attach_later(store, ranked, rows, scope, similar)
    outdated = newer_first.outdated(ranked, rows, {**possible, **_possible_of(store, attached)})
    for newer, older in attached.items():
        if newer in excerpts and any(n == newer for n, _ in turns.get(older, ())):
            outdated.setdefault(older, newer)
    shown_excerpt = {mid: excerpts[mid] for mid in attached if mid in excerpts and excerpts[mid] != rows[mid].content}
    return [
        Hit(
            mid,
            round(score, 4),
            "both" if mid in nearest and mid in keyword else ("keyword" if mid in keyword or mid in ident_hits else "semantic"),
            replace(rows[mid], content=shown_excerpt[mid]) if mid in shown_excerpt else rows[mid],
            heads.get(mid),
            mid in revived,
            outdated.get(mid),
            attached.get(mid),
            chain=chains.get(mid, ()) if mid in heads else (),
            excerpt=mid in shown_excerpt,
        )
        for mid, score in ranked
    ]


def _attach_later(store: SearchIndex, ranked: list[tuple[int, float]], rows: dict[int, MemoryRow],
                  scope: Scope, similar: dict[int, list[tuple[int, PossibleUpdate]]]) -> tuple[list[tuple[int, float]], dict[int, int]]:
    """newer_first.attach over the possible updates recorded against the shown statements (one indexed
    read each; the later memories' rows read once, kept only in the recall's scope) and the `similar`
    later memories the query ranked further down (newer_first.resembling)."""
    shown = [mid for mid, _ in ranked if mid in rows and linkable(rows[mid])]
    if not shown and not similar:
        return list(ranked), {}
    later: dict[int, list[tuple[int, PossibleUpdate]]] = {mid: list(pairs) for mid, pairs in similar.items()}
    for mid, found in store.possible_updates_older(shown).items():
        if found:
            later.setdefault(mid, []).extend(found.items())
    missing = [n for pairs in later.values() for n, _ in pairs if n not in rows]
    if missing:
        rows.update({mid: r for mid, r in store.get(missing).items() if in_scope(r, scope)})
    return newer_first.attach(ranked, rows, later)


def _possible_of(store: SearchIndex, attached: dict[int, int]) -> dict[int, PossibleUpdate]:
    if not attached:
        return {}
    return store.possible_updates_of(list(attached))
