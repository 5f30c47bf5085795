"""A write costs the same at any size: its update-candidate search is bounded (issue 34 item 3;
the curve itself is measured by bench/write_cost.py, not timed here)."""

from __future__ import annotations

from server import linker, search
from server.storage.protocol import KeywordQuery, Scope


def test_a_writes_candidate_search_ranks_only_the_newest_matches_past_its_budget(service, monkeypatch):
    monkeypatch.setattr(linker, "MATCH_BUDGET", 5)
    for n in range(12):
        service.remember(f"the payments worker retries the refund job, attempt {n}", thread="t")
    windows: list[int | None] = []
    keyword = service.store.keyword

    def spy(query: KeywordQuery, limit: int, scope):  # noqa: ANN001, ANN202
        windows.append(query.newest)
        return keyword(query, limit, scope)

    monkeypatch.setattr(service.store, "keyword", spy)
    service.remember("the refund job retries the payments worker", thread="t")  # every word in 13 memories
    assert windows and all(window == 5 for window in windows)  # 12 matches: only the newest 5 ranked


def test_a_threads_term_counts_are_not_recounted_at_every_write(service, monkeypatch):
    for n in range(300):
        service.remember(f"deploy note {n}: the gateway runs behind nginx", thread="t")
    counted: list[str] = []
    frequency = service.store.document_frequency

    def spy(query: KeywordQuery, scope):  # noqa: ANN001, ANN202
        counted.append(query.terms[0])
        return frequency(query, scope)

    monkeypatch.setattr(service.store, "document_frequency", spy)
    search.term_frequency(service.store, "nginx", Scope(threads=("t",)))
    for n in range(8):
        service.remember(f"another deploy note {n}", thread="t")
        search.term_frequency(service.store, "nginx", Scope(threads=("t",)))
    # ~300 memories: counted again once per 4 writes (a step of 1/128-1/64 of the thread), not at each of the 9 sizes
    assert 1 <= counted.count("nginx") <= 3


def test_a_term_far_past_the_write_budget_is_not_counted_again_at_every_write(service, monkeypatch):
    monkeypatch.setattr(linker, "MATCH_BUDGET", 20)
    for n in range(300):
        service.remember(f"gateway note {n}: the deploy runs behind nginx", thread="t")
    counted: list[str] = []
    match_count = service.store.match_count

    def spy(query: KeywordQuery, cap: int, scope=Scope()):  # noqa: ANN001, ANN202, B008
        counted.append(query.terms[0])
        return match_count(query, cap, scope)

    monkeypatch.setattr(service.store, "match_count", spy)
    for n in range(8):
        service.remember(f"the gateway deploy moved to caddy, step {n}", thread="t")
    # "gateway" and "deploy" are in every memory: counted once per size step of the thread (4 memories at
    # ~300), not at each of the 8 writes; "caddy" is under the budget: counted at every write, exactly
    assert 1 <= counted.count("gateway") <= 3 and 1 <= counted.count("deploy") <= 3
    assert counted.count("caddy") == 8


def test_the_cached_counts_give_the_plan_exact_counts_give(service, monkeypatch):
    monkeypatch.setattr(linker, "MATCH_BUDGET", 20)
    for n in range(200):
        service.remember(f"gateway note {n}: the deploy runs behind {'nginx' if n % 20 else 'caddy'}", thread="t")
    scope = Scope(threads=("t",))
    text = "the gateway deploy moved from nginx to caddy"
    exact = search.keyword_plan(service.store, text, scope, 20)
    count = linker._plan_counter(service.store, scope)
    assert search.keyword_plan(service.store, text, scope, 20, count) == exact
    assert search.keyword_plan(service.store, text, scope, 20, count) == exact  # cached now: the same plan
