"""The keyword budget (search.keyword_plan / keyword_hits): bounded work, bm25's order kept.

A store is made where every query word is common, the budget is shrunk so it
binds, and the bounded search is compared with the plain OR query over the same
memories. Sizes are small; the speed-up is bench/scale.py's figure.
"""

from __future__ import annotations

import random
import threading

import pytest
from mcp import Client

from server import ranking, search
from server.app import build_server
from server.search import KeywordPlan, keyword_hits, keyword_plan, keyword_query, keyword_started
from server.storage.protocol import KeywordQuery, Scope

pytestmark = pytest.mark.slow  # each test fills a store of 400 memories first

WORDS = ["redis", "queue", "worker", "deploy", "cache", "billing", "retry", "gateway"]
#: Share of memories containing each word: common ones first, rare ones last.
SHARE = {"redis": 0.6, "queue": 0.5, "worker": 0.4, "deploy": 0.3, "cache": 0.2, "billing": 0.05,
         "retry": 0.03, "gateway": 0.02}


@pytest.fixture
def crowded(service):
    rng = random.Random(7)
    for n in range(400):
        words = [w for w in WORDS if rng.random() < SHARE[w]] or ["misc"]
        words += [w for w in words if rng.random() < 0.3]  # some repeated: term frequency varies
        rng.shuffle(words)
        service.remember(" ".join(words) + f" note {n}", thread=f"t{n % 4}")
    return service


def _counts(store, words):
    return {w: store.match_count(KeywordQuery((w,)), 10_000) for w in words}


def test_below_the_budget_every_term_is_rare_and_nothing_changes(crowded):
    counts = _counts(crowded.store, ["redis", "billing", "retry"])
    plan = keyword_plan(crowded.store, "redis billing retry", Scope())
    # rarest first; no common term, no window
    assert plan == KeywordPlan(rare=tuple(sorted(["redis", "billing", "retry"], key=counts.__getitem__)))


def test_terms_are_kept_rarest_first_while_their_matches_fit(crowded, monkeypatch):
    counts = _counts(crowded.store, ["redis", "billing", "retry", "gateway"])
    budget = counts["gateway"] + counts["retry"] + counts["billing"]
    monkeypatch.setattr(ranking, "KEYWORD_MATCH_BUDGET", budget)
    plan = keyword_plan(crowded.store, "redis billing retry gateway nowhere", Scope())
    assert plan.rare == tuple(sorted(["gateway", "retry", "billing"], key=counts.__getitem__))
    assert plan.common == ("redis",)  # "nowhere" matches nothing: left out
    assert plan.window is None


@pytest.mark.parametrize("query", ["redis billing", "queue worker retry", "deploy cache gateway billing",
                                   "redis queue worker deploy cache billing retry gateway"])
def test_the_bounded_search_ranks_exactly_like_the_whole_query(crowded, monkeypatch, query):
    """Every memory with a rare term gets bm25's rank for the whole query, in the same order."""
    store = crowded.store
    whole = store.keyword(keyword_query(query), 1000, Scope())
    monkeypatch.setattr(ranking, "KEYWORD_MATCH_BUDGET", 60)
    plan = keyword_plan(store, query, Scope())
    assert plan.common and plan.window is None  # the budget binds
    with_rare = set(store.keyword(KeywordQuery(plan.rare), 1000, Scope()))
    expected = sorted(((rank, mid) for mid, rank in whole.items() if mid in with_rare))[:20]
    got = keyword_hits(store, plan, Scope(), 20)
    assert list(got) == [mid for _, mid in expected]
    assert list(got.values()) == pytest.approx([rank for rank, _ in expected])
    assert sum(_counts(store, list(plan.rare)).values()) <= 60  # the work stayed in budget


def test_a_term_too_common_alone_ranks_its_newest_matches(crowded, monkeypatch):
    store = crowded.store
    monkeypatch.setattr(ranking, "KEYWORD_MATCH_BUDGET", 30)
    plan = keyword_plan(store, "queue redis", Scope())
    # Both counts stop at the cap (31), so they tie and keep the query's order.
    assert plan == KeywordPlan(rare=("queue",), common=("redis",), window=30)
    hits = keyword_hits(store, plan, Scope(), 50)

    # Windowed, the second search is the rare term's newest matches without a NOT (whose doclists
    # FTS5 would walk too): a memory with both words found by both keeps the better, whole-query rank.
    assert plan.queries() == [KeywordQuery(("queue",), also=("redis",), newest=30),
                              KeywordQuery(("queue",), newest=30)]

    def newest(query):
        return set(sorted(store.keyword(query, 1000, Scope()), reverse=True)[:30])

    # The first search (both words, newest 30) finds fewer than 50: the second fills up from the newest
    # 30 holding "queue"; a memory both find keeps the better, whole-query rank.
    windows = newest(KeywordQuery(("queue",), also=("redis",))) | newest(KeywordQuery(("queue",)))
    assert set(hits) == windows and len(hits) > 30  # the windows overlap: fewer than 60, all kept
    assert min(hits) > min(store.keyword(KeywordQuery(("queue",)), 1000, Scope()))  # older ones left out
    both = store.keyword(KeywordQuery(("queue",), also=("redis",), newest=30), 50, Scope())
    assert all(hits[m] == rank for m, rank in both.items() if m in hits)
    # Enough from the first search alone: the second is not run.
    searched = []
    real = store.keyword
    monkeypatch.setattr(store, "keyword", lambda query, *a: searched.append(query) or real(query, *a))
    assert keyword_hits(store, plan, Scope(), 20) == dict(sorted(both.items(), key=lambda h: (h[1], h[0]))[:20])
    assert searched == plan.queries()[:1]


def test_past_the_budget_memories_holding_every_word_are_ranked_first(crowded, monkeypatch):
    """Windowed with several common terms, the first search is the memories holding every query word
    (their intersection: far fewer than any word's matches), ranked by the whole query's bm25; the
    wider searches run only when it finds fewer than asked."""
    store = crowded.store
    query = "queue redis worker"
    monkeypatch.setattr(ranking, "KEYWORD_MATCH_BUDGET", 30)
    plan = keyword_plan(store, query, Scope())
    assert plan.window == 30 and len(plan.common) == 2
    every = KeywordQuery(plan.rare, every=plan.common, newest=30)
    assert plan.queries()[0] == every
    whole = store.keyword(keyword_query(query), 1000, Scope())
    contents = {m: crowded.store.get([m])[m].content.split() for m in whole}
    holding_all = sorted(m for m in whole if {"queue", "redis", "worker"} <= set(contents[m]))
    assert len(holding_all) > 30  # the intersection is past the window too: its newest 30 are ranked
    newest = holding_all[-30:]
    expected = sorted(((whole[m], m) for m in newest))[:10]
    searched = []
    real = store.keyword
    monkeypatch.setattr(store, "keyword", lambda q, *a: searched.append(q) or real(q, *a))
    hits = keyword_hits(store, plan, Scope(), 10)
    assert list(hits) == [m for _, m in expected]  # each one's rank is the whole query's
    assert list(hits.values()) == pytest.approx([rank for rank, _ in expected])
    assert searched == [every]  # enough: the wider searches are not run
    # Asked for more than the intersection's window holds, the wider searches fill up.
    searched.clear()
    assert len(keyword_hits(store, plan, Scope(), 50)) == 50 and searched[:2] == plan.queries()[:2]


def test_thread_common_rare_terms_are_still_dropped_in_a_thread(service):
    for n in range(60):
        service.remember(f"acme invoice {n}" + (" billing" if n % 10 == 0 else ""), thread="acme")
    plan = keyword_plan(service.store, "acme billing", Scope(threads=("acme", "")))
    assert plan.rare == ("billing",)  # "acme" is in every memory of the thread


def test_a_thread_too_large_for_any_rare_term_to_be_common_is_counted_no_further(service, monkeypatch):
    """A rare term is in at most its counted matches (here 6), so a thread of more than 6 / COMMON_TERM_SHARE
    memories cannot make it common: the thread's size is counted up to that and no term's frequency is
    counted at all (a hook prompt at 100k memories counted the whole thread for this). The plan is the same."""
    for n in range(60):
        service.remember(f"invoice {n}" + (" billing" if n % 10 == 0 else ""), thread="acme")
    scope = Scope(threads=("acme",))
    store = service.store
    sizes, frequencies = [], []
    real_size, real_frequency = store.scope_size, store.document_frequency
    monkeypatch.setattr(store, "scope_size", lambda *a: sizes.append(a[1:]) or real_size(*a))
    monkeypatch.setattr(store, "document_frequency", lambda *a: frequencies.append(a) or real_frequency(*a))
    plan = keyword_plan(store, "billing", scope)
    assert plan == KeywordPlan(rare=("billing",))
    assert sizes == [(int(6 / ranking.COMMON_TERM_SHARE) + 1,)] and frequencies == []
    assert real_size(scope, 31) == 31 and real_size(scope) == 60 and real_size(scope, 100) == 60
    assert search.common_terms(store, "billing", scope) == set()  # the uncapped answer: the same


@pytest.mark.anyio
async def test_recall_over_mcp_finds_the_rare_identifier_under_a_tight_budget(crowded, monkeypatch):
    """Through the MCP client: a unique identifier among hundreds of common-word memories."""
    async with Client(build_server(crowded, start_background=False)) as client:
        stored = await client.call_tool(
            "remember", {"content": "the flaky_gateway_retry handler retries redis queue jobs", "thread": "t1"})
        crowded.indexer.run_once(limit=1000)
        monkeypatch.setattr(ranking, "KEYWORD_MATCH_BUDGET", 25)
        found = await client.call_tool("recall", {"query": "why does flaky_gateway_retry touch redis queue",
                                                  "thread": "*", "k": 3})
    assert found.structured_content["memories"][0]["id"] == stored.structured_content["id"]
    assert keyword_plan(crowded.store, "flaky_gateway_retry redis queue", Scope()).common  # the budget bound


def test_the_keyword_search_runs_beside_the_caller_on_a_second_connection(crowded, monkeypatch):
    """search.keyword_started: the same hits as in turn, computed in another thread on Store.beside's
    connection; never there while the caller has a transaction open (its changes are not visible)."""
    from server.storage.sqlite import search as sqlite_search

    store = crowded.store
    assert store.beside() is None  # 400 memories: searched in turn, the hand-off would cost more
    monkeypatch.setattr(sqlite_search, "BESIDE_FROM", 100)
    beside = store.beside()
    assert beside is not None and beside.db.conn is not store.db.conn
    assert store.beside().db is beside.db  # the second connection is opened once
    expected = keyword_hits(store, keyword_plan(store, "redis billing retry", Scope()), Scope(), 20)
    calls = []
    real = type(store).keyword

    def spy(self, *args, **kwargs):
        calls.append((threading.current_thread().name, self.db is beside.db))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(type(store), "keyword", spy)
    assert keyword_started(store, "redis billing retry", Scope(), 20)().hits == expected
    assert calls and all(name.startswith("memvault-keyword") and second for name, second in calls)
    calls.clear()
    with store.db.write():
        assert store.beside() is None
        assert keyword_started(store, "redis billing retry", Scope(), 20)().hits == expected
    assert calls and all(name == threading.current_thread().name and not second for name, second in calls)


def test_an_in_memory_store_searches_in_turn():
    from server.storage.sqlite.db import Database
    from server.storage.sqlite.store import Store

    db = Database(":memory:")
    try:
        assert Store(db, "default").beside() is None
    finally:
        db.close()
