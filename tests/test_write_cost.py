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
