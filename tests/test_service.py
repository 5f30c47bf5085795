"""MemoryService: remember, recall and forget as the MCP tools, the CLI and the benchmarks use them."""

from __future__ import annotations

import pytest

from server.errors import InvalidInput, NotFound
from server.embedding.embedders import HashEmbedder
from server.service import MemoryService


def _count(svc: MemoryService) -> int:
    return svc.db.conn.execute("SELECT count(*) FROM memories").fetchone()[0]


def test_remember_then_recall_returns_the_memory_with_its_fields(service):
    stored = service.remember("Use ruff for linting", kind="preference", thread="api", tags=["Lint", "tools"],
                              importance=0.8)
    assert stored.status == "stored" and stored.thread == "api"
    [hit] = service.recall("ruff linting", thread="api").memories
    assert (hit.id, hit.content, hit.kind, hit.thread, hit.tags, hit.importance) == (
        stored.id, "Use ruff for linting", "preference", "api", ["lint", "tools"], 0.8)
    assert hit.created_at == "2026-05-04T09:30:00Z"
    assert 0 < hit.score <= 1 and hit.match == "both"


def test_identical_content_in_the_same_thread_is_stored_once(service):
    first = service.remember("Ship on Fridays is forbidden", thread="ops")
    again = service.remember("  Ship on Fridays is forbidden  ", thread="ops")
    elsewhere = service.remember("Ship on Fridays is forbidden", thread="web")
    assert (again.status, again.id) == ("duplicate", first.id)
    assert elsewhere.status == "stored" and elsewhere.id != first.id
    assert _count(service) == 2


def test_a_forgotten_memory_never_comes_back_and_can_be_stored_again(service):
    stored = service.remember("The staging password rotates monthly", thread="ops")
    assert service.forget(stored.id).status == "forgotten"
    assert service.forget(stored.id).status == "already_forgotten"
    assert service.recall("staging password rotates", thread="*").memories == []
    again = service.remember("The staging password rotates monthly", thread="ops")
    assert again.status == "stored" and again.id != stored.id


def test_forget_of_an_unknown_id_says_how_to_find_ids(service):
    with pytest.raises(NotFound, match="use recall"):
        service.forget(424242)


def test_thread_recall_sees_the_thread_and_global_memories_only(service):
    mine = service.remember("deploy with make release", thread="api").id
    shared = service.remember("deploy only after CI is green", thread="global").id
    service.remember("deploy with the web console", thread="web")
    assert {m.id for m in service.recall("deploy", thread="api", k=10).memories} == {mine, shared}
    assert {m.id for m in service.recall("deploy", thread="global", k=10).memories} == {shared}
    assert len(service.recall("deploy", thread="*", k=10).memories) == 3


def test_default_thread_applies_to_calls_that_name_none(settings, clock):
    svc = MemoryService.open(settings.with_(default_thread="repo-x"), embedder=HashEmbedder(), clock=clock)
    try:
        assert svc.remember("uses poetry").thread == "repo-x"
        svc.remember("uses pip", thread="other")
        assert [m.content for m in svc.recall("uses").memories] == ["uses poetry"]
    finally:
        svc.close()


def test_recall_filters_by_kind_tag_and_time(service, clock):
    old = service.remember("chose redis for caching", kind="decision", created_at="2025-01-10T00:00:00Z", tags=["cache"])
    new = service.remember("redis memory limit is 2 GB", kind="fact")
    assert [m.id for m in service.recall("redis", kinds=["decision"]).memories] == [old.id]
    assert [m.id for m in service.recall("redis", tags=["cache"]).memories] == [old.id]
    assert [m.id for m in service.recall("redis", since="2026-01-01").memories] == [new.id]
    assert [m.id for m in service.recall("redis", until="2025-12-31").memories] == [old.id]
    # each memory reports its own creation time: the imported date, and the clock's now for the other
    assert {m.id: m.created_at for m in service.recall("redis", thread="*").memories} == {
        old.id: "2025-01-10T00:00:00Z", new.id: "2026-05-04T09:30:00Z",
    }


def test_remember_is_durable_before_its_vector_exists(settings, clock):
    """A crash between the write and the embedding loses nothing: the next start embeds it."""
    svc = MemoryService.open(settings, embedder=HashEmbedder(), clock=clock)
    stored = svc.remember("the backfill resumes at start-up")
    assert svc.store.count()["pending_embeddings"] == 1
    # keyword-searchable at once, even with no vector
    from server.search import search
    from server.storage.protocol import Scope

    assert [h.memory_id for h in search(svc.store, "backfill", None, 5, Scope())] == [stored.id]
    svc.db.close()  # "crash": no backfill ran
    again = MemoryService.open(settings, embedder=HashEmbedder(), clock=clock)
    try:
        assert again.indexer.run_once() == 1
        assert again.store.count()["pending_embeddings"] == 0
        hits = again.recall("backfill resumes").memories
        assert hits[0].id == stored.id and hits[0].match == "both"
    finally:
        again.close()


class _NeverReady(HashEmbedder):
    error = None

    def wait_ready(self, timeout: float) -> bool:
        return False


def test_recall_before_the_model_is_ready_answers_from_keywords_and_says_so(settings, clock):
    svc = MemoryService.open(settings, embedder=_NeverReady(), clock=clock)
    try:
        stored = svc.remember("pin numpy below 3")
        result = svc.recall("numpy")
        assert result.search == "keyword" and "Keyword search only" in result.note
        assert [m.id for m in result.memories] == [stored.id]
    finally:
        svc.close()


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"content": ""}, "content is empty"),
        ({"content": "   \n\t"}, "content is empty"),
        ({"content": "x" * (32 * 1024 + 1)}, "over the limit of 32768"),
        ({"content": "a\x00b"}, "NUL"),
        ({"content": "bad \ud800 surrogate"}, "lone surrogate"),
        ({"content": 42}, "must be a string"),
        ({"content": "ok", "kind": "opinion"}, "unknown kind 'opinion'"),
        ({"content": "ok", "tags": ["fine", 3]}, "every tag must be a string"),
        ({"content": "ok", "tags": "one"}, "list of strings"),
        ({"content": "ok", "tags": ["two words"]}, "single words"),
        ({"content": "ok", "tags": [f"t{i}" for i in range(21)]}, "at most 20"),
        ({"content": "ok", "importance": 1.5}, "between 0"),
        ({"content": "ok", "importance": float("nan")}, "between 0 and 1"),
        ({"content": "ok", "thread": "../../etc"}, "invalid thread"),
        ({"content": "ok", "thread": "*"}, "only works in recall"),
        ({"content": "ok", "created_at": "last tuesday"}, "not an ISO-8601"),
    ],
)
def test_bad_remember_input_is_refused_and_stores_nothing(service, kwargs, message):
    with pytest.raises(InvalidInput, match=message):
        service.remember(**kwargs)
    assert _count(service) == 0


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"query": " "}, "query is empty"),
        ({"query": "q" * 2001}, "over the limit of 2000"),
        ({"query": "q", "k": 0}, "k must be"),
        ({"query": "q", "k": 51}, "k must be"),
        ({"query": "q", "kinds": ["nope"]}, "unknown kind"),
        ({"query": "q", "since": "2026-02-01", "until": "2026-01-01"}, "since is after until"),
        ({"query": "q", "thread": "a/b"}, "invalid thread"),
    ],
)
def test_bad_recall_input_is_refused(service, kwargs, message):
    with pytest.raises(InvalidInput, match=message):
        service.recall(**kwargs)


@pytest.mark.parametrize(
    "query, shares_a_word",
    [('"', False), ('a" OR "b', True), ("NEAR(a b)", True), ("*", False), ("col:value", False), ("(((", False),
     ("AND OR NOT", False), ("^x", False), ("🙂", False), ('said "NEAR"', True), ("twice*", True)],
)
def test_fts_syntax_in_a_query_is_searched_as_text(service, query, shares_a_word):
    """Operators and punctuation are inert: only the query's words match, as words ("*" is no wildcard)."""
    stored = service.remember('He said "NEAR" and OR twice (a b)')
    service.remember("an unrelated note about pagination")
    result = service.recall(query, thread="*")
    by_keyword = [m.id for m in result.memories if m.match in ("keyword", "both")]
    assert by_keyword == ([stored.id] if shares_a_word else [])


def test_content_limit_is_configurable(settings, clock):
    svc = MemoryService.open(settings.with_(max_content_bytes=10), embedder=HashEmbedder(), clock=clock)
    try:
        with pytest.raises(InvalidInput, match="MEMVAULT_MAX_CONTENT_BYTES"):
            svc.remember("x" * 11)
        assert svc.remember("x" * 10).status == "stored"
    finally:
        svc.close()


def test_a_word_in_most_of_a_threads_memories_does_not_drown_the_keyword_search(service):
    """A project name every memory of the thread mentions tells nothing apart, whatever its rarity elsewhere."""
    for i in range(60):
        service.remember(f"Acme release {i} shipped the dashboard widget {i}", thread="acme")
    billing = service.remember("Acme invoices are generated by the billing cron at midnight", thread="acme").id
    from server.search import common_terms
    from server.storage.protocol import Scope

    assert common_terms(service.store, "acme billing invoices", Scope(threads=("acme", ""))) == {"acme"}
    assert common_terms(service.store, "acme billing invoices", Scope()) == set()  # not thread-scoped
    assert service.recall("acme billing invoices", thread="acme").memories[0].id == billing


@pytest.mark.parametrize("kind", ["fact", "turn"])
def test_a_keyword_hit_holding_one_word_of_the_query_counts_by_that_share_unless_it_is_a_turn(
        service, monkeypatch, kind):
    """ranking.fuse: a memory holding one rare word of five ("interpreter") no longer scores near one
    holding four; a conversation turn's keyword match counts the turns before it (its context), so its
    own words' share is not weighed."""
    from server import ranking

    for i in range(12):
        service.remember(f"The {['payment', 'search', 'email', 'cart'][i % 4]} service {i} exposes version {i} of its order API.",
                         thread="shop", kind=kind)
    one_word = service.remember("Interpreter warnings are silenced in CI.", thread="shop", kind=kind).id
    most = service.remember("The order service pins version 3.12 of Python.", thread="shop", kind=kind).id
    service.embed_backlog()

    def ratio() -> float:
        scores = {m.id: m.score for m in service.recall("which interpreter version does the order service pin",
                                                         thread="shop", k=5).memories}
        return scores[one_word] / scores[most]

    weighed = ratio()
    monkeypatch.setattr(ranking, "KEYWORD_COVERAGE_POWER", 0.0)
    unweighed = ratio()
    if kind == "turn":
        assert weighed == unweighed
    else:
        assert unweighed > 0.85 and weighed < 0.65
