"""Linking a new memory to the one it updates, on write (the decision is server.updates.model's).

When `remember` stores a memory, the memories of its thread that could be about the
same subject (its best keyword and vector matches) are judged by model.best_link;
the one it updates is marked superseded by it, right after the write (judging holds no
lock), and remember says so ("this updates memory N"). `curate_memory(action="restore")` removes the link,
and nothing links that pair again: a memory is checked once.

A judgement needs the embedding of both memories as one of its signals. A write is
judged at once when the model is ready (the new text is embedded here, ~10 ms, and the backfill
stores that vector: Indexer.known) and either the backfill has no queue or the text is a short
statement (at most SHORT_STATEMENT characters): links must not wait for the backlog (issue 32: asked
right after an import, a third of the update questions found the older fact alone). In a burst the
earlier writes have no stored vector yet: the vectors this process computed at write time (`_recent`)
stand in for them, as candidates by cosine and for their cosine, so nothing is embedded twice.
Otherwise -- the model still loading, a long text in a burst, an
import, a hook process (which has no model) -- only minimal edits ("... 3.11." ->
"... 3.12.") are linked at once (a hook's capture does not even look: remember's
judge_now=False), and the memory is marked in the store
(`update_checks`, NewMemory.judge_later) in the same transaction that stores it. Once
the backfill has stored its vector it is judged with every rule, from stored vectors
("resolved at recall time"; nothing is embedded twice): by the backfill of whichever
server embedded it, right after the batch, and by a recall or remember of any process
with a model (a few per call). The mark outlives the process that wrote the memory: a
hook's captures and a server stopped mid-burst are judged by the next server.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import TYPE_CHECKING

from server import search, textindex
from server.embedding.embedders import Embedder
from server.errors import StoreUnavailable
from server.frozen import record
from server.models import is_statement, linkable
from server.open_questions import OpenQuestion, open_questions  # re-exported: the review, hooks and page read them here
from server.storage.protocol import Database, KeywordQuery, MemoryRow, PossibleUpdate, Scope, SearchIndex, Store
from server.updates import CountedWeights, analyses, model, references, statements

if TYPE_CHECKING:  # arrays come from the embedder and the store; a hook process never loads NumPy for this
    import numpy as np

log = logging.getLogger(__name__)

#: How many keyword and vector matches of the new memory are judged.
CANDIDATES = 30
#: The most keyword matches a write's candidate search ranks (search.keyword_plan): past it, the newest
#: matches of its rarest words. Recall's budget (20,000) made each write cost ~1 us per match, so a write
#: grew with a small-vocabulary thread (bench/write_cost.py); a write's update is a recent memory's. A
#: budget a thread of 1,000 memories already fills, so a write costs the same past it (issue 34): at 2,000,
#: ranking two searches of up to 2,000 matches was most of why a write cost ~1.8x as much at 10k memories
#: as at 1k. 300 update pairs written into a 100k thread, 3,000 notes between old and new
#: (bench/write_cost.py --links): linked to their older 152 of 300 at 2,000 / 20,000 and at 500 / 2,000.
MATCH_BUDGET = 500
#: The most matches in the thread of the common words (search.keyword_plan) a write's candidate search
#: counts in its rank, rarest first. bm25 walks each word's whole doclist for its document count: in a
#: small-vocabulary thread of 100k memories a write's common words hold tens of thousands of matches
#: each (30-60 ms a search, bench/write_cost.py). The commonest are left out of the rank (the least
#: weight of any word: their IDF is the smallest), so a search walks at most about this many (~0.1 us a
#: match; the 20,000 before let a thread of 10k memories walk every common word of every write, ~2 ms).
COMMON_BUDGET = 2_000
#: The newest matches ranked when a named record is looked up by a number or one word alone (_claimed):
#: a few writes name one, and an ADR-4 further back than MATCH_BUDGET matches of "4" is still found.
REFERENCE_BUDGET = 2_000
#: A write in a thread of more than this many memories looks for what it updates by vector among the thread's
#: newest WINDOW only (Scope.since: the creation time of the WINDOW-th newest, forgotten ones counted), and by
#: keyword over the whole thread as below it (at most MATCH_BUDGET matches ranked, the newest past it). A
#: product decision (issue 34: a write costs the same at any size): a scan of every vector of the thread grew
#: with it (~8 ms a write at 100k memories, against ~2 ms for 10,000); an update is a recent memory's. An
#: older memory that only the vector search would find is no longer linked; recall's newer-first step (which
#: needs no link) still shows the newer memory above it where both match. Threads up to WINDOW: unchanged.
#: 2,000 (10,000 in session 35): the sidecar's pass over a 10k window was most of the vector search's growth
#: from 1k; 300 update pairs with 3,000 notes between old and new in a 100k thread (bench/write_cost.py
#: --links 300 --gap 3000): linked to their older 154 of 300 at 2,000, 152 at 10,000 (the keyword search
#: finds what the window leaves out).
WINDOW = 2_000
#: Most candidates without a vector (not embedded yet: a burst of writes, an import) embedded
#: on the spot to judge a write; the rest are judged without their cosine (minimal edits only).
EMBED_MISSING = 8
#: Marked memories a recall or remember judges (a few ms each; the backfill judges the rest).
JUDGE_PER_CALL = 8
#: Marked memories the backfill judges per round, after each batch it embeds.
JUDGE_BATCH = 64
#: A statement this short is embedded at write time to be judged at once even while the backfill has a
#: queue (one passage; a longer text waits for the backfill, which embeds its passages in a batch).
SHORT_STATEMENT = 600
#: Vectors computed at write time kept for judging later writes of a burst (~1.5 kB each).
RECENT_VECTORS = 4096
#: Keyword matches read to find the record a memory names by number or title (server.updates.references).
REFERENCED = 50
#: The probability a possible update is recorded with when its author says the newer record changes part of the
#: older ("amends ADR-4", "partially supersedes RFC 7"): at least the 0.3 that labels the older possibly outdated
#: and asks the reader (the authors left part of it in force: theirs to settle, not a link's).
PARTIAL_CLAIM = 0.5


#: Terms counted far past MATCH_BUDGET in a thread, by (file, thread, term, size step): see _plan_counter.
_PAST_BUDGET: OrderedDict[tuple, None] = OrderedDict()
_PAST_BUDGET_LOCK = threading.Lock()
_PAST_BUDGET_MAX = 20_000


def _plan_counter(store: SearchIndex, scope: Scope) -> Callable[[str, int], int]:
    """keyword_plan's count of a term's matches in the write's thread, remembering the terms far past the budget.

    A count walks the term's matches up to its cap (at 100k memories in one thread, ~2.5 ms a term
    and every word of every write): in a small-vocabulary thread most words of a write are past the
    budget, write after write (bench/write_cost.py). A term counted past MATCH_BUDGET plus one size step
    of the thread (search's step: 1/128 to 1/64 of it) is not counted again while the thread's size stays
    in that step: it would take forgetting a step's worth of its memories to bring it under the budget.
    A count below that is taken every time, so the plan is the one exact counts give -- but for
    forgets of that many of one term's memories within one size step (as many written meanwhile), where
    the term stays on the common side of the budget until the size moves on (a cut, not a wrong rank)."""
    size = search.scope_size(store, scope)
    step = 1 << max(0, size.bit_length() - 7)
    margin = MATCH_BUDGET + step

    def count(term: str, cap: int) -> int:
        key = (*store.location, scope.threads, term, step, size // step)
        with _PAST_BUDGET_LOCK:
            if key in _PAST_BUDGET:
                _PAST_BUDGET.move_to_end(key)
                return cap if cap <= margin else store.match_count(KeywordQuery((term,)), cap, scope)
        found = store.match_count(KeywordQuery((term,)), max(cap, margin + 1), scope)
        if found > margin:
            with _PAST_BUDGET_LOCK:
                _PAST_BUDGET[key] = None
                while len(_PAST_BUDGET) > _PAST_BUDGET_MAX:
                    _PAST_BUDGET.popitem(last=False)
        return min(found, cap)

    return count


def _bounded(store: SearchIndex, plan: search.KeywordPlan, scope: Scope) -> search.KeywordPlan:
    """The plan with only the rarest of its common words whose matches in the thread (counts cached with
    recall's, as the update rules read them) fit COMMON_BUDGET."""
    if not plan.common:
        return plan
    counts = {t: search.term_frequency(store, t, scope) for t in plan.common}
    kept: set[str] = set()
    total = 0
    for term in sorted(plan.common, key=counts.__getitem__):
        total += counts[term]
        if total > COMMON_BUDGET:
            break
        kept.add(term)
    if len(kept) == len(plan.common):
        return plan
    return replace(plan, common=tuple(t for t in plan.common if t in kept))


def _keyword_candidates(store: SearchIndex, text: str, scope: Scope) -> list[int]:
    """The write's best keyword matches in its thread, best first (the plan bounded by MATCH_BUDGET and
    COMMON_BUDGET)."""
    plan = _bounded(store, search.keyword_plan(store, text, scope, MATCH_BUDGET, _plan_counter(store, scope)), scope)
    if plan.window is not None or not plan.common:
        return list(search.keyword_hits(store, plan, scope, CANDIDATES))
    # keyword_hits' second search ranks the memories with a rare word and NOT a common one; the NOT walks every
    # common word's matches (at 100k memories in one thread, 3.4 of its 5.7 ms). Without it the search ranks
    # every memory with a rare word by its rare words alone, and the best CANDIDATES of the union are the same:
    # one that also holds a common word ranks at least as well in the first search (bm25 adds that word's
    # share), so if the first search left it out, CANDIDATES it returned rank before it anyway, and a memory the
    # NOT kept is pushed out only by CANDIDATES that rank before it in the union too.
    first = store.keyword(KeywordQuery(plan.rare, also=plan.common), CANDIDATES, scope)
    hits = store.keyword(KeywordQuery(plan.rare), CANDIDATES, scope)
    for mid, rank in first.items():
        hits[mid] = min(rank, hits.get(mid, rank))
    return [m for m, _ in sorted(hits.items(), key=lambda hit: (hit[1], hit[0]))[:CANDIDATES]]


#: (file, threads) -> (the window's Scope.since or None, when it was read): see _window.
_WINDOWS: dict[tuple, tuple[int | None, float]] = {}
_WINDOWS_MAX = 1_000


def _window(store: SearchIndex, scope: Scope) -> Scope:
    """The scope of a write's vector search: its thread, or in a thread of more than WINDOW memories its newest
    WINDOW (see there). Its start (a walk of WINDOW index entries, ~1 ms at 10,000) is read at every write up to
    search.SIZE_EXACT memories, past it again after search.SIZE_SECONDS, as the thread's size is: meanwhile the
    window also holds the memories written since (a few hundred at most), never fewer than WINDOW."""
    size = search.scope_size(store, scope)
    if size <= WINDOW or scope.threads is None or len(scope.threads) != 1:
        return scope
    key = (*store.location, scope.threads)
    now = time.monotonic()
    cached = _WINDOWS.get(key)
    if cached is None or size < search.SIZE_EXACT or now - cached[1] >= search.SIZE_SECONDS:
        cached = (store.nth_newest_time(scope.threads[0], WINDOW), now)
        if len(_WINDOWS) >= _WINDOWS_MAX:
            _WINDOWS.clear()
        _WINDOWS[key] = cached
    return scope if cached[0] is None else replace(scope, since=cached[0])


#: A write's keyword search runs here, on the store's second connection, while the writer searches vectors.
_BESIDE = ThreadPoolExecutor(max_workers=2, thread_name_prefix="memvault-update-keyword")


def _keyword_started(store: SearchIndex, text: str, scope: Scope, overlap: bool) -> Callable[[], list[int]]:
    """_keyword_candidates started beside the caller when the store has a second connection (a file of
    1,000 memories or more, SearchIndex.beside) and `overlap` says the caller searches vectors meanwhile;
    call the result for them. Both grow with a large thread (at 100k memories in one thread, ~9 ms of
    keyword search and ~7 ms of vector search a write, bench/write_cost.py); SQLite and the vector scan
    release the GIL, so a write waits for the longer of the two, not their sum."""
    beside = store.beside() if overlap else None
    if beside is None:
        found = _keyword_candidates(store, text, scope)
        return lambda: found
    return _BESIDE.submit(_keyword_candidates, beside, text, scope).result


class ThreadWeights(CountedWeights):
    """How rare a term is in the thread, from the keyword index (counts cached with recall's).

    Here, not in server.updates: the counts come from search's cache, and the rules stay below search."""

    def __init__(self, store: SearchIndex, scope: Scope) -> None:
        super().__init__(lambda word: search.term_frequency(store, word, scope), search.scope_size(store, scope))


@record
class Linked:
    """A link a write made: `older` is now superseded by `newer`."""

    older: int
    newer: int
    older_text: str
    reason: str


def waits_for_vector(kind: str, source: str, vector: object | None) -> bool:
    """Whether a memory about to be written is marked to be judged once its vector is stored
    (NewMemory.judge_later): a statement written with no embedding at hand."""
    return vector is None and is_statement(kind, source)


class UpdateLinker:
    def __init__(self, store: Store, embedder: Embedder) -> None:
        self.store = store
        self.embedder = embedder
        #: Memories whose link a busy or full store refused: judged again by this process.
        self._retry: set[int] = set()
        self._lock = threading.Lock()
        #: memory id -> (thread, unit vector) computed at write time, newest last: a burst's earlier
        #: writes, not stored yet, as candidates of the later ones.
        self._recent: OrderedDict[int, tuple[str, np.ndarray]] = OrderedDict()

    def vector(self, text: str) -> np.ndarray | None:
        """The text's embedding now, to judge a write at once; None (judge it later, from its stored
        vector) while the model is not ready or the backfill has a queue: in a burst of writes an
        embedding here would double what each costs -- except for a short statement, judged at once
        whatever the queue (the backfill stores the vector, Indexer.known, and embeds nothing twice)."""
        if not _ready_now(self.embedder) or (len(text) > SHORT_STATEMENT and self.store.has_pending()):
            return None
        return self.embedder.embed([text])[0]

    def link(self, db: Database, row: MemoryRow, vector: np.ndarray | None, later: bool = True,
             possible: dict[int, list[PossibleUpdate]] | None = None) -> Linked | None:
        """Judge a memory just written against its thread and link the update found, if any.

        The judging reads outside any write lock (it may embed candidates that have no vector
        yet); the link is written in a transaction of its own that re-checks both memories.
        `later`: also look for a later memory that updates this one (a note imported with a past
        date); it counts only if this memory is the one that later memory would pick itself, as
        if they had been written in order (a later memory updates one memory, not every older
        memory it resembles). Without a link, the earlier memories it possibly updates
        (model.judge, the few most probable) are recorded: into `possible` when given (the caller
        writes a batch's at once), else in a transaction of its own."""
        if not linkable(row):
            return None
        if vector is not None and vector.any():
            with self._lock:
                self._recent[row.id] = (row.thread, vector)
                self._recent.move_to_end(row.id)
                while len(self._recent) > RECENT_VECTORS:
                    self._recent.popitem(last=False)
        claimed = self._claimed(row)
        if claimed:  # the author says which record this one replaces: that, not the wording, decides
            linked, settled = self._link_claimed(db, row, claimed, possible)
            if settled:
                return linked
        unstored: set[int] = set()
        candidates = self._candidates(row, vector, unstored)
        weights = ThreadWeights(self.store, Scope(threads=(row.thread,)))
        # The int8 graph's vectors ("<model>@int8", cosine >= 0.98 to float32's) keep the coefficients
        # fitted on float32's: bench/updates.py --precision int8 gives the same figures within noise.
        fitted = self.embedder.model_id.partition("@")[0] == model.MODEL_ID
        judged = model.judge(row.id, row.content, row.created_at, [c for c, _ in candidates], weights, later, fitted)
        self._store_analyses([r for r in (row, *(r for _, r in candidates)) if r.id in unstored])
        found = judged.link
        several = judged.several or (() if judged.possible is None else (judged.possible,))
        if found is None and several:
            self._keep_possible(db, row, [PossibleUpdate(*p) for p in several], possible)
        if found is not None and found.newer != row.id:
            newer = dict((c.id, r) for c, r in candidates)[found.newer]
            vector_of_newer = self.embedder.embed([newer.content])[0] if vector is not None else None
            picks = model.best_link(
                newer.id, newer.content, newer.created_at, [c for c, _ in self._candidates(newer, vector_of_newer)],
                weights, later=False, fitted=fitted,
            )
            found = found if picks is not None and picks.older == row.id else None
        if found is None or not self._write_link(row, found.older, found.newer, found.reason, "update"):
            return None
        texts = {c.id: c.text for c, _ in candidates}
        return Linked(found.older, found.newer, texts.get(found.older, row.content), found.reason)

    def _write_link(self, row: MemoryRow, older: int, newer: int, reason: str, kind: str) -> bool:
        """Write one judged link for the row just checked (judged: linked, no later check); whether it was written
        (not when either memory was forgotten or linked by another writer meanwhile)."""
        try:
            if not self.store.link_if(older, newer, row.updated_at, [row.id], still=linkable):
                return False
        except StoreUnavailable:
            # Busy past the bounded wait, or the disk is full: the memory itself is stored (a write
            # must not fail for its link), so it is judged again once its vector is at hand.
            log.info("memory %d: its %s link to %d was not written (store unavailable); judged again later",
                     newer, kind, older)
            with self._lock:
                self._retry.add(row.id)
            return False
        with self._lock:
            self._retry.discard(row.id)
        log.info("memory %d updates memory %d (%s)", newer, older, reason)
        return True

    def _keep_possible(self, db: Database, row: MemoryRow, maybe: list[PossibleUpdate],
                       possible: dict[int, list[PossibleUpdate]] | None) -> None:
        """Record the earlier memories the row possibly updates: into `possible` when given (the caller writes a
        batch's at once), else in a transaction of its own."""
        if possible is not None:
            possible[row.id] = maybe
        else:
            self._record_possible(db, {row.id: maybe})

    def _claimed(self, row: MemoryRow) -> list[tuple[MemoryRow, MemoryRow, str, bool]]:
        """The records of the row's thread its author says it replaces or is replaced by (references.claims:
        "supersedes ADR-4", "Superseded by ADR-24", "User models revisited"), the earlier ones that say this one
        replaces them, and the latest earlier record of its series under its own title (references.same_title), as
        (older, newer, the claim in words, partial). Two numbered records without such a claim stay two things
        (rules.different_things). A keyword search each, only for a memory that names a record or is a numbered one."""
        said = references.claims(row.content)
        own = references.numbered(row.content)  # "ADR 4: ...", or "4. Use X" as adr-tools numbers a record
        if not said and own is None:
            return []
        scope = Scope(threads=(row.thread,))

        def found(searches: Sequence[tuple[Sequence[str], Sequence[str]]]) -> list[MemoryRow]:
            ids: set[int] = set()
            for terms, every in searches:  # a number or one word alone may be common: only its newest matches ranked
                if terms:
                    query = KeywordQuery(tuple(terms), every=tuple(every), own_text_only=True,
                                         newest=None if every else REFERENCE_BUDGET)
                    ids.update(self.store.keyword(query, REFERENCED, scope))
            rows = self.store.get(sorted(ids - {row.id}))
            return sorted((r for r in rows.values() if linkable(r)), key=lambda r: (r.created_at, r.id))

        def by_words(text: str) -> list[tuple[Sequence[str], Sequence[str]]]:
            words = textindex.query_terms(text)  # every word of a title: a few memories, not each word's thousands
            return [(words[:1], words[1:])] if words else []

        def before(r: MemoryRow) -> bool:
            return (r.created_at, r.id) < (row.created_at, row.id)

        out: list[tuple[MemoryRow, MemoryRow, str, bool]] = []
        for claim in said:
            named = [r for r in found(references.searches(claim.reference) if claim.reference else by_words(claim.name))
                     if references.names(claim, r.content)]
            if claim.newer and any(before(r) for r in named):
                out.append(([r for r in named if before(r)][-1], row, f"it says it {claim.words}", claim.partial))
            elif not claim.newer and any(not before(r) for r in named):
                out.append((row, [r for r in named if not before(r)][0], f"it was {claim.words}", claim.partial))
        if own is not None:
            for r in found(references.searches(own)):
                said_of = [c for c in references.claims(r.content)
                           if not c.newer and c.reference is not None and references.matches(c.reference, own)]
                if said_of and before(r):
                    out.append((r, row, f"memory {r.id} says it was {said_of[0].words}", said_of[0].partial))
            if own.series is not None and not any(newer.id == row.id for _, newer, _, _ in out):
                # the title as written, and the one a revision's title adds to ("CTID (Concise ...)"): a search each
                named_as = {references.title(row.content), references.base_title(references.title(row.content))}
                same = [r for r in found([s for n in sorted(named_as) for s in by_words(n)])
                        if before(r) and references.same_title(r.content, row.content)]
                if same:
                    out.append((same[-1], row, f"a later record under the same title ({references.title(row.content)})",
                                False))
        return out

    def _link_claimed(self, db: Database, row: MemoryRow, claimed: list[tuple[MemoryRow, MemoryRow, str, bool]],
                      possible: dict[int, list[PossibleUpdate]] | None) -> tuple[Linked | None, bool]:
        """Link what the author claims (_claimed), each pair but a report after a state or a report or narrative
        superseded (model.unrelated_kinds: a claim is a state's, as any link); a claim over part of a record is
        recorded as a possible update (PARTIAL_CLAIM). The link of the row as the newer one first, if any, and
        whether a claim settled the row (else -- every pair refused -- the update model judges it as any other)."""
        made: list[Linked] = []
        maybe: list[PossibleUpdate] = []
        for older, newer, reason, partial in claimed:
            if model.unrelated_kinds(statements.analyse(older.content), statements.analyse(newer.content)):
                continue
            if partial:
                if newer.id == row.id and all(p.older != older.id for p in maybe):
                    maybe.append(PossibleUpdate(older.id, PARTIAL_CLAIM))
                continue
            if self._write_link(row, older.id, newer.id, reason, "claimed"):  # (not when forgotten or superseded)
                made.append(Linked(older.id, newer.id, older.content, reason))
        if not made and maybe:
            self._keep_possible(db, row, maybe[:model.MOST_POSSIBLE], possible)
        if not made:
            return None, bool(maybe)
        return next((m for m in made if m.newer == row.id), made[0]), True

    def _record_possible(self, db: Database, possible: dict[int, list[PossibleUpdate]]) -> None:
        """Write possible updates; a busy store skips them (a hint for recall's order, not a fact)."""
        try:
            self.store.record_possible_updates(possible)
        except StoreUnavailable:
            log.info("%d possible update(s) not recorded (store unavailable)", len(possible))

    def _candidates(self, row: MemoryRow, vector: np.ndarray | None,
                    unstored: set[int] | None = None) -> list[tuple[model.Candidate, MemoryRow]]:
        """The thread's memories that may be about the same subject: its best keyword matches and,
        with a vector, its nearest ones, each with its cosine to `vector` (None without one). Their
        stored analyses (and the row's) are read for the judging; into `unstored` go those without one."""
        scope = Scope(threads=(row.thread,))
        keyword = _keyword_started(self.store, row.content, scope, overlap=vector is not None and vector.any())
        cosines: dict[int, float] = {}
        recent: dict[int, float] = {}
        if vector is not None and vector.any():
            # float16's distances (exact within ~1e-4: the cosines of keyword candidates are the sidecar's too)
            # spare a thread of 2,000-20,000 vectors vec0's re-scoring, 2-4 ms of a write a 1k thread never pays.
            cosines = {i: 1.0 - d for i, d in
                       self.store.knn(vector, CANDIDATES, _window(self.store, scope), exact=False).items()}
            recent = self._recent_cosines(row, vector)
        ranked = keyword()
        if vector is not None and vector.any():
            ranked += [i for i in cosines if i not in ranked]
            ranked += [i for i in sorted(recent, key=recent.__getitem__, reverse=True)[:CANDIDATES] if i not in ranked]
        rows = self.store.get([i for i in ranked if i != row.id])
        ids = [i for i in ranked if i in rows and linkable(rows[i])]
        missing = self._read_analyses([row, *(rows[i] for i in ids)])
        if unstored is not None:
            unstored.update(missing)
        if vector is not None and vector.any():
            cosines.update(self.store.cosines(vector, [i for i in ids if i not in cosines]))
            cosines.update({i: recent[i] for i in ids if i not in cosines and i in recent})
            unembedded = [i for i in ids if i not in cosines][:EMBED_MISSING]
            # Written moments ago, not embedded yet: embed them here (not stored) — only where a
            # model is loaded (a hook process judges from stored vectors and has none).
            if unembedded and _ready_now(self.embedder):
                for i, v in zip(unembedded, self.embedder.embed([rows[i].content for i in unembedded])):
                    cosines[i] = float(v @ vector)
        return [(model.Candidate(i, rows[i].content, rows[i].created_at, cosines.get(i)), rows[i]) for i in ids]

    def _read_analyses(self, rows: Sequence[MemoryRow]) -> list[int]:
        """Hold the stored analyses of these memories that this process does not hold (in a large thread,
        most candidates: analysing each again cost ~0.4 ms, reading it ~0.1 ms); the ids of those with none
        stored by this analyser for their current text (analyses.hold, which recall uses too)."""
        return analyses.hold({r.id: r.content for r in rows}, self.store.analyses)

    def _store_analyses(self, rows: Sequence[MemoryRow]) -> None:
        """Store the analyses this process made of these memories (the judging just did), for the next
        write's judging; a busy store skips them (they are made again when missing)."""
        version = analyses.version()
        made = {r.id: (analyses.text_key(r.content), analyses.encode(statements.analyse(r.content)))
                for r in rows if statements.cached(r.content)}
        if version is None or not made:
            return
        try:
            self.store.store_analyses(made, version)
        except StoreUnavailable:
            log.info("%d statement analyses not stored (store unavailable)", len(made))

    def _recent_cosines(self, row: MemoryRow, vector: np.ndarray) -> dict[int, float]:
        """Cosine of `vector` to each vector computed at write time for another memory of the row's thread
        (stored or not: the store's own cosine, where there is one, is the same text's)."""
        import numpy as np  # lazy: ~0.18 s a hook process (which writes through here) never pays

        with self._lock:
            mine = [(i, v) for i, (thread, v) in self._recent.items() if thread == row.thread and i != row.id]
        if not mine:
            return {}
        sims = np.stack([v for _, v in mine]) @ vector
        return {i: float(c) for (i, _), c in zip(mine, sims)}

    # -- memories written without a vector at hand ------------------------------------------
    def check_pending(self, db: Database, limit: int = JUDGE_PER_CALL) -> list[Linked]:
        """Judge up to `limit` of the memories marked to wait for their vector (NewMemory.judge_later,
        by any process) whose vectors are stored now, oldest first; the links made."""
        return self._judge(db, limit)[0]

    def settle(self, db: Database) -> int:
        """Judge every marked memory that has its vector (the backfill, after each batch); how many."""
        total = 0
        while True:
            _, done = self._judge(db, JUDGE_BATCH)
            total += done
            if done < JUDGE_BATCH:
                return total

    def _judge(self, db: Database, limit: int) -> tuple[list[Linked], int]:
        if not _ready_now(self.embedder):
            return [], 0  # no model here (a hook process): judging costs searches; a server does it
        with self._lock:
            retry = sorted(self._retry)
        ids = list(dict.fromkeys([*self.store.unjudged(limit), *retry]))
        if not ids:
            return [], 0
        rows = self.store.get(ids)
        with db.read() as conn:
            vectors = self.store.vectors(conn, ids)
        done = [i for i in ids if i not in rows]
        made = []
        possible: dict[int, list[PossibleUpdate]] = {}
        # As if written in order: memories written after one had it to compare with.
        for row in sorted((rows[i] for i in ids if i in rows and i in vectors), key=lambda r: (r.created_at, r.id)):
            current = self.store.get([row.id]).get(row.id)
            if current is not None and linkable(current):
                # A long memory has several passage vectors; the first is the text as the model reads it.
                stored = vectors[row.id]
                linked = self.link(db, current, stored[0] if stored.ndim == 2 else stored, later=False, possible=possible)
                if linked:
                    made.append(linked)
                with self._lock:
                    if row.id in self._retry:
                        continue  # its link met a busy store: it stays marked
            done.append(row.id)
        with self._lock:
            self._retry.difference_update(done)
        try:
            self.store.record_possible_updates(possible, judged=done)
        except StoreUnavailable:
            return made, 0  # judged again later, to the same verdict
        return made, len(done)


def _ready_now(embedder: Embedder) -> bool:
    """Whether the model can embed now, without starting its load early: a write must not pull
    the model's start forward (the server delays it so the first replies are not held up)."""
    return embedder.loaded()


def describe(linked: Linked, new_id: int) -> str:
    """The sentence remember adds to its message."""
    if linked.newer == new_id:
        return (
            f" This updates memory {linked.older} ({quote(linked.older_text)}: {linked.reason}): recall now ranks "
            f"this one first and labels {linked.older} superseded; curate_memory(action=\"restore\", "
            f"ids=[{linked.older}]) undoes it."
        )
    return (
        f" Memory {linked.newer}, written later, updates this one ({linked.reason}): it is stored as superseded by "
        f"{linked.newer}; curate_memory(action=\"restore\", ids=[{new_id}]) undoes it."
    )


def describe_possible(db: Database, store: Store, memory_id: int) -> str:
    """What remember says of the earlier memory the new one possibly updates (recorded, not linked), if any."""
    with db.read() as conn:
        maybe = store.possible_updates(conn, [memory_id]).get(memory_id)
    older = store.get([maybe.older]).get(maybe.older) if maybe is not None else None
    if maybe is None or older is None:
        return ""
    return (
        f" It may update memory {older.id} ({quote(older.content)}; not linked): recall shows this one "
        f"right after it, labelled newer; curate_memory(action=\"supersede\", ids=[{older.id}], "
        f"replacement_id={memory_id}, dry_run=false) confirms it, action=\"keep\" keeps both."
    )


def quote(text: str, limit: int = 80) -> str:
    one_line = " ".join(text.split())
    return '"' + (one_line if len(one_line) <= limit else one_line[: limit - 1] + "…") + '"'


__all__: Sequence[str] = ("Linked", "OpenQuestion", "UpdateLinker", "describe", "describe_possible", "linkable",
                          "open_questions", "quote", "waits_for_vector")
