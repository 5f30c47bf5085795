"""A write costs the same at any size: its update-candidate search is bounded (issue 34 item 3;
the curve itself is measured by bench/write_cost.py, not timed here)."""

from __future__ import annotations

import threading
from collections import OrderedDict

from server import linker, search
from server.storage.protocol import GLOBAL, KeywordQuery, Scope
from server.storage.sqlite import search as sqlite_search
from server.updates import analyses, statements


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


NOTES = [
    "We moved the task queue from Celery to Dramatiq on 2026-03-02; Celery lost tasks under Redis 7.2",
    "The api service runs Python 3.12 now (was 3.11)",
    "Deploys go out every two weeks from the release/2026.10 branch, see SHOP-142",
    "`make deploy ENV=prod` no longer works; the old Heroku pipeline is gone",
    "FYI ledger-consumer is on auto.offset.reset=earliest in staging",
    "Step 3: run the migrations with alembic upgrade head, never on Fridays",
    "The nightly backup of db-01.internal goes to s3://acme-backups/pg at 02:00 UTC",
    "Ana passed code signing to the release bot; STRIPE_SECRET is no longer read",
]


def test_a_stored_analysis_reads_back_as_the_analysis_itself():
    for text in NOTES:
        made = statements._analyse(text)
        assert analyses.decode(text, analyses.encode(made)) == made
    assert analyses.decode(NOTES[0], "not json") is None and analyses.decode(NOTES[0], "[1, 2]") is None


def _fresh_process(monkeypatch) -> list[str]:
    """Forget every analysis this process holds (as a new server would) and list what is analysed from now."""
    monkeypatch.setattr(statements, "_analysed", OrderedDict())
    monkeypatch.setattr(statements, "_analysed_chars", 0)
    analysed: list[str] = []
    analyse = statements._analyse

    def spy(text: str):  # noqa: ANN202
        analysed.append(text)
        return analyse(text)

    monkeypatch.setattr(statements, "_analyse", spy)
    return analysed


def test_a_writes_update_check_reads_the_analyses_earlier_writes_stored(service, monkeypatch):
    for text in NOTES:
        service.remember(text, thread="t")
    analysed = _fresh_process(monkeypatch)
    new = "The api service runs Python 3.13 now"
    service.remember(new, thread="t")
    assert analysed == [new]  # its candidates (the notes above) were read from the store, not analysed again
    analysed.clear()
    _fresh_process(monkeypatch)
    service.remember("Deploys go out every week from the release branch", thread="t")
    assert new not in analysed  # the last write stored its own analysis too


def test_an_analysis_of_another_analyser_or_of_another_text_is_made_again(service, monkeypatch):
    ids = [service.remember(text, thread="t").id for text in NOTES]
    analysed = _fresh_process(monkeypatch)
    monkeypatch.setattr(analyses, "version", lambda: "another")  # the analyser changed since they were stored
    service.remember("The api service runs Python 3.13 now", thread="t")
    assert set(NOTES) & set(analysed)  # re-derived ...
    assert set(service.store.analyses(ids, "another")) & set(ids)  # ... and stored under the new version
    analysed = _fresh_process(monkeypatch)
    stored = service.store.analyses(ids, "another")
    service.store.store_analyses({i: ("not this text", analysis) for i, (_, analysis) in stored.items()}, "another")
    service.remember("The api service runs Python 3.14 now", thread="t")
    assert set(NOTES) & set(analysed)  # a stored analysis of another text (compressed since) is not used


def test_a_search_in_a_thread_ranks_as_the_scoped_search_does(service, monkeypatch):
    """Without the scope token in the MATCH (its doclist walk is the thread's size) a thread's matches (its newest
    window's) rank exactly as with it; a thread holding few of the file's matches keeps the scoped search."""
    monkeypatch.setattr(sqlite_search, "RANK_IN_THREADS_FROM", 0)
    for n in range(120):
        service.remember(f"the payments worker retries the refund job {n}, queue {n % 7}", thread="big")
        if n % 3 == 0:
            service.remember(f"the refund job of the payments worker is paused for shop {n}", thread="small")
        if n % 10 == 0:
            service.remember(f"every payments worker retries a refund job at most {n} times", thread="global")
    windowed = service.store._keyword_in_threads
    calls: list[dict | None] = []

    def spy(*args):  # noqa: ANN002, ANN202
        calls.append(windowed(*args))
        return calls[-1]

    def scoped(query, scope):  # noqa: ANN001, ANN202
        monkeypatch.setattr(service.store, "_keyword_in_threads", lambda *args: None)
        try:
            return service.store.keyword(query, 30, scope)
        finally:
            monkeypatch.setattr(service.store, "_keyword_in_threads", spy)

    monkeypatch.setattr(service.store, "_keyword_in_threads", spy)
    for words, rules in [(("payments", "worker"), {}), (("refund", "queue", "3"), {}), (("paused", "shop"), {}),
                         (("job",), {}), (("refund",), {"also": ("queue", "shop")}), (("job",), {"every": ("3",)}),
                         (("worker",), {"excluded": ("paused",)})]:
        for threads in (("big",), ("small",), ("big", GLOBAL), ("small", GLOBAL)):
            for window in (10, 50, 1000, None):
                query, scope = KeywordQuery(words, newest=window, **rules), Scope(threads=threads)
                assert service.store.keyword(query, 30, scope) == scoped(query, scope)
    assert any(c for c in calls) and None in calls  # both ways were taken


def test_a_writes_candidate_search_ranks_by_the_rarest_common_words_its_budget_holds(service, monkeypatch):
    monkeypatch.setattr(linker, "MATCH_BUDGET", 5)
    monkeypatch.setattr(linker, "COMMON_BUDGET", 20)
    for n in range(30):
        service.remember(f"the payments service retries job {n}", thread="t")
    for n in range(12):
        service.remember(f"the refund queue drains batch {n}", thread="t")
    for n in range(3):
        service.remember(f"a zebra crossing sign {n}", thread="t")
    queries: list[KeywordQuery] = []
    keyword = service.store.keyword

    def spy(query: KeywordQuery, limit: int, scope):  # noqa: ANN001, ANN202
        queries.append(query)
        return keyword(query, limit, scope)

    monkeypatch.setattr(service.store, "keyword", spy)
    service.remember("zebra payments refund", thread="t")
    # zebra (3 memories) is ranked; refund (12) counts in the rank; payments (30) is past the budget: left out
    assert queries and all(q.terms == ("zebra",) for q in queries)
    assert {w for q in queries for w in (*q.also, *q.excluded, *q.every)} == {"refund"}
    monkeypatch.setattr(linker, "COMMON_BUDGET", 1_000)
    queries.clear()
    service.remember("zebra payments refund again", thread="t")
    assert {w for q in queries for w in (*q.also, *q.excluded, *q.every)} == {"refund", "payments"}


def test_a_writes_keyword_search_runs_beside_its_vector_search(service, monkeypatch):
    monkeypatch.setattr(sqlite_search, "BESIDE_FROM", 0)  # a file of any size has the second connection
    for n in range(5):
        service.remember(f"the payments worker retries the refund job {n}", thread="t")
    where: list[str] = []
    keyword = sqlite_search.SqliteSearch.keyword

    def spy(self, query, limit, scope):  # noqa: ANN001, ANN202
        where.append(threading.current_thread().name)
        return keyword(self, query, limit, scope)

    monkeypatch.setattr(sqlite_search.SqliteSearch, "keyword", spy)
    service.remember("the refund job retries the payments worker twice", thread="t")  # judged at once (hash vectors)
    assert where and all(name.startswith("memvault-update-keyword") for name in where)


def test_a_write_in_a_thread_past_the_window_searches_only_its_newest_memories_by_vector(service, clock, monkeypatch):
    monkeypatch.setattr(linker, "WINDOW", 10)
    scopes: list[Scope] = []
    knn = service.store.knn

    exacts: set[bool] = set()

    def spy(vector, k: int, scope: Scope, exact: bool = True):  # noqa: ANN001, ANN202
        scopes.append(scope)
        exacts.add(exact)
        return knn(vector, k, scope, exact)

    monkeypatch.setattr(service.store, "knn", spy)
    for n in range(10):
        clock.advance(minutes=1)
        service.remember(f"weekly sync note {n}: the release train leaves on Thursday", thread="t")
    assert scopes and set(scopes) == {Scope(threads=("t",))}  # up to WINDOW memories: the whole thread, as before
    for n in range(5):
        clock.advance(minutes=1)
        service.remember(f"standup note {n}: the staging database was restored", thread="t")
    newest = sorted((r.created_at for r in service.store.recent_memories("t", 100)), reverse=True)
    assert scopes[-1] == Scope(threads=("t",), since=newest[9])  # past it: the newest WINDOW (the new one too)
    assert exacts == {False}  # float16's distances do: no re-scoring from vec0 (store.knn)


def test_an_older_fact_past_the_window_is_still_linked_by_its_words(service, clock, monkeypatch):
    """The window bounds the vector search only: the keyword search still covers the whole thread."""
    monkeypatch.setattr(linker, "WINDOW", 10)
    old = service.remember("orders-api targets Python 3.11.", thread="shop").id
    for n in range(20):
        clock.advance(minutes=1)
        service.remember(f"standup note {n}: the staging database was restored", thread="shop")
    service.indexer.run_once()
    monkeypatch.setattr(service.linker, "_recent", OrderedDict())  # no write-time vectors of this process
    clock.advance(minutes=1)
    new = service.remember("orders-api targets Python 3.12.", thread="shop")
    assert new.updates == old


def test_a_writes_keyword_search_finds_what_keyword_hits_finds_without_its_not(service, monkeypatch):
    """The rare-words-only search drops keyword_hits' NOT of the common words (a walk of all their matches):
    the same best candidates, in the same order."""
    monkeypatch.setattr(linker, "MATCH_BUDGET", 20)
    for n in range(60):
        service.remember(f"gateway note {n}: the deploy runs behind {'nginx' if n % 10 else 'caddy'} on host{n % 7}",
                         thread="t")
    scope = Scope(threads=("t",))
    queries: list[KeywordQuery] = []
    keyword = service.store.keyword

    def spy(query: KeywordQuery, limit: int, scope):  # noqa: ANN001, ANN202
        queries.append(query)
        return keyword(query, limit, scope)

    with_common = 0
    for text in ("the gateway deploy moved from nginx to caddy", "host3 runs caddy now", "deploy the gateway on host5"):
        plan = linker._bounded(service.store, search.keyword_plan(service.store, text, scope, 20,
                                                                  linker._plan_counter(service.store, scope)), scope)
        with_common += bool(plan.common) and plan.window is None
        expected = list(search.keyword_hits(service.store, plan, scope, linker.CANDIDATES))
        monkeypatch.setattr(service.store, "keyword", spy)
        queries.clear()
        assert linker._keyword_candidates(service.store, text, scope) == expected
        assert queries and not any(q.excluded for q in queries)
        monkeypatch.setattr(service.store, "keyword", keyword)
    assert with_common == 3  # each plan has common words (the case the NOT was for)
