"""One contract, two stores: every behaviour here runs on SQLite and on PostgreSQL and must agree.

The service layer only talks to server.storage.protocol's protocols; these tests pin what
those methods do (through the service where the service is the caller, directly
where the store is), so a change to one backend that the other does not follow fails.
"""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np

from server.curation import archive
from server.storage import health
from server.curation.curator import Curator
from server.embedding.embedders import HashEmbedder
from server.service import MemoryService
from server.search import keyword_query
from server.storage.protocol import (
    FileUnit, HealthCounts, IndexDrift, KeywordQuery, MemoryState, Neighbours, NewMemory, Original,
    PendingEmbedding, PossibleUpdate, Scope, TurnRef,
)
from server.textindex import index_text


def _rows(svc, **kw):
    with svc.db.read() as conn:
        return svc.store.rows(conn, **kw)


def test_ids_start_at_one_and_dedupe_is_per_thread(svc):
    a = svc.remember("Deploys go through the blue-green pipeline", thread="ops", tags=["deploy", "ci"])
    again = svc.remember("Deploys go through the blue-green pipeline", thread="ops")
    other = svc.remember("Deploys go through the blue-green pipeline", thread="web")
    assert (a.id, a.status) == (1, "stored")
    assert (again.id, again.status) == (1, "duplicate")
    assert (other.id, other.status) == (2, "stored")
    row = svc.store.get([1])[1]
    assert (row.thread, row.tags, row.kind, row.importance, row.source) == (
        "ops", ("deploy", "ci"), "note", 0.5, "remember")
    assert svc.store.count() == {"live": 2, "deleted": 0, "file_units": 0, "pending_embeddings": 2}


def test_user_and_agent_are_recorded_on_new_memories(backend_settings, clock):
    settings = backend_settings.with_(user="ana", agent="ci-bot")
    service = MemoryService.open(settings, embedder=HashEmbedder(), clock=clock)
    try:
        memory_id = service.remember("The staging cluster is in eu-west-1").id
        with service.db.read() as conn:
            if settings.database_url:
                row = conn.execute("SELECT user_id, agent FROM memories WHERE id = %s", (memory_id,)).fetchone()
            else:
                row = conn.execute("SELECT user_id, agent FROM memories WHERE id = ?", (memory_id,)).fetchone()
        assert tuple(row) == ("ana", "ci-bot")
    finally:
        service.close()


def test_keyword_search_ranks_better_matches_more_negative(svc):
    svc.remember("Redis caches the session tokens", thread="api")
    svc.remember("Redis, redis everywhere: redis caches sessions and redis queues jobs", thread="api")
    svc.remember("Postgres holds the orders", thread="api")
    hits = svc.store.keyword(keyword_query("redis"), 10, Scope(threads=("api",)))
    assert list(hits) == [2, 1]
    assert hits[2] < hits[1] < 0
    assert svc.store.keyword(keyword_query("kafka"), 10, Scope()) == {}
    assert svc.store.keyword(KeywordQuery(()), 10, Scope()) == {}  # no terms: nothing matches
    # own text only vs any indexed text
    assert svc.store.document_frequency(KeywordQuery(("redis",), own_text_only=True), Scope(threads=("api",))) == 2
    assert svc.store.scope_size(Scope(threads=("api",))) == 3


def test_nth_newest_time_is_the_start_of_a_threads_newest_memories(svc, clock):
    """What a write's vector search in a large thread is bounded by (linker.WINDOW): forgotten ones counted."""
    for n in range(5):
        clock.advance(minutes=1)
        svc.remember(f"release note {n}: the checkout service ships on Tuesdays", thread="a")
    clock.advance(minutes=1)
    svc.remember("another thread's note", thread="b")
    times = sorted((r.created_at for r in svc.store.recent_memories("a", 10)), reverse=True)
    assert [svc.store.nth_newest_time("a", n) for n in (1, 3, 5)] == [times[0], times[2], times[4]]
    assert svc.store.nth_newest_time("a", 6) is None and svc.store.nth_newest_time("c", 1) is None
    svc.forget(svc.store.recent_memories("a", 1)[0].id)
    assert svc.store.nth_newest_time("a", 1) == times[0]


def test_bounded_keyword_search_counts_combines_terms_and_windows(svc):
    """What search.keyword_hits builds on: capped counts, AND/NOT of two term groups, the newest window."""
    texts = ["redis queue worker", "redis cache", "queue retries", "redis queue cache", "kafka worker"]
    for n, text in enumerate(texts):
        svc.remember(text, thread="api", created_at=f"2026-01-0{n + 1}")
    assert svc.store.match_count(KeywordQuery(("redis",)), 10) == 3
    assert svc.store.match_count(KeywordQuery(("redis",)), 2) == 2  # counting stops at the cap
    assert svc.store.match_count(KeywordQuery(("nothing",)), 10) == 0
    assert svc.store.match_count(KeywordQuery(()), 10) == 0

    def ids(query):
        return sorted(svc.store.keyword(query, 10, Scope()))

    assert ids(KeywordQuery(("redis",), also=("queue", "kafka"))) == [1, 4]
    assert ids(KeywordQuery(("redis",), excluded=("queue", "kafka"))) == [2]
    assert ids(KeywordQuery(("redis",), every=("queue", "worker"))) == [1]  # each of them as well
    assert ids(KeywordQuery(("redis", "kafka"), also=("worker", "cache"), every=("queue",))) == [1, 4]
    assert ids(KeywordQuery(("redis",))) == [1, 2, 4]
    assert ids(KeywordQuery(("redis", "queue"), newest=2)) == [3, 4]  # the newest two matches, ranked
    assert ids(KeywordQuery(("redis", "cache"), also=("queue",), excluded=("worker",))) == [4]
    scoped = svc.store.keyword(KeywordQuery(("redis", "worker"), newest=2), 10, Scope(threads=("api",)))
    assert sorted(scoped) == [4, 5]


def test_terms_that_look_like_query_syntax_are_only_words(svc):
    """Whatever a KeywordQuery's terms hold, no backend fails or reads them as its own syntax."""
    svc.remember("a note about NEAR operators and quoted words")
    odd = ('"', "NEAR(a", "\x00", "-x", "a:b", "OR", "*", "text : y", "'; drop table memories; --", "")
    for query in (KeywordQuery(odd), KeywordQuery(("note",), also=odd),
                  KeywordQuery(("note",), excluded=odd, own_text_only=True, newest=5)):
        svc.store.keyword(query, 10, Scope())
        svc.store.match_count(query, 10)
        svc.store.document_frequency(query, Scope(threads=("",)))
    assert list(svc.store.keyword(KeywordQuery(("quoted", "nothing")), 10, Scope())) == [1]
    assert svc.store.count()["live"] == 1


def test_a_reply_is_found_by_the_words_of_the_turn_before_it(svc):
    svc.remember("How do we rotate the signing keys?", kind="turn", thread="chat")
    svc.remember("Every ninety days, by the cron job.", kind="turn", thread="chat")
    ids = list(svc.store.keyword(keyword_query("signing keys"), 10, Scope()))
    assert ids[0] == 1 and 2 in ids  # the reply matches through its context, ranked below
    only_own = svc.store.document_frequency(KeywordQuery(("signing",), own_text_only=True), Scope(threads=("chat",)))
    assert only_own == 1
    assert svc.store.match_count(KeywordQuery(("signing",), own_text_only=True), 10) == 1
    assert list(svc.store.keyword(KeywordQuery(("signing",), own_text_only=True), 10, Scope())) == [1]
    first, second = (TurnRef(i, svc.store.get([i])[i].created_at) for i in (1, 2))
    assert svc.store.neighbours([1, 2]) == {1: Neighbours(None, second), 2: Neighbours(first, None)}


def test_scope_filters_apply_to_keyword_and_vector_search(svc):
    svc.remember("alpha deploy note", kind="note", thread="a", tags=["x"], created_at="2026-01-01")
    svc.remember("alpha deploy decision", kind="decision", thread="a", tags=["y"], created_at="2026-03-01")
    svc.remember("alpha deploy elsewhere", kind="note", thread="b", tags=["x"], created_at="2026-03-01")
    svc.indexer.run_once(limit=10)
    vector = svc.embedder.embed(["alpha deploy"])[0]
    cases = [
        (Scope(threads=("a",)), {1, 2}),
        (Scope(kinds=("decision",)), {2}),
        (Scope(tags=("x",)), {1, 3}),
        (Scope(since=svc.store.get([2])[2].created_at), {2, 3}),
        (Scope(until=svc.store.get([1])[1].created_at), {1}),
        (Scope(threads=("a",), tags=("x",)), {1}),
    ]
    for scope, expected in cases:
        assert set(svc.store.keyword(keyword_query("alpha"), 10, scope)) == expected, scope
        assert set(svc.store.knn(vector, 10, scope)) == expected, scope


def test_knn_distances_are_cosine_and_cosines_are_exact(svc):
    svc.remember("the cat sat on the mat")
    svc.remember("quantum chromodynamics lecture notes")
    assert svc.store.has_pending()
    assert svc.indexer.run_once(limit=10) == 2
    assert not svc.store.has_pending()
    query = svc.embedder.embed(["the cat sat on the mat"])[0]
    nearest = svc.store.knn(query, 2, Scope())
    assert list(nearest) == [1, 2] and abs(nearest[1]) < 1e-5
    assert nearest[1] <= nearest[2]
    cos = svc.store.cosines(query, [1, 2, 99])
    assert set(cos) == {1, 2} and abs(cos[1] - 1.0) < 1e-5
    with svc.db.read() as conn:
        stored = svc.store.vectors(conn, [1, 2])
    assert np.allclose(stored[1], query, atol=1e-6)
    # a zero query vector has no cosine distance: it matches nothing
    assert svc.store.knn(np.zeros_like(query), 5, Scope()) == {}


def test_store_vectors_is_idempotent(svc):
    svc.remember("one fact")
    [pending] = svc.store.pending(10)
    assert pending == PendingEmbedding(1, "one fact")
    vector = svc.embedder.embed([pending.content])[0]
    assert svc.store.store_vectors({pending.memory_id: vector}) == 1
    assert svc.store.store_vectors({pending.memory_id: vector}) == 0  # another process already wrote it
    assert svc.store.pending(10) == []


def test_update_checks_wait_for_the_vector_and_go_with_the_memory(svc):
    """A memory written with judge_later is listed by unjudged once its vector is stored, oldest
    first; judged() clears it, and a purged memory takes its mark with it."""
    ids = []
    with svc.db.write() as conn:
        for n, at in enumerate((300, 100, 200)):
            new = NewMemory(thread="t", content=f"fact {n}", kind="note", source="remember", origin=None,
                            importance=0.5, tags=(), content_hash=f"h{n}", created_at=at, updated_at=at,
                            index_text=f"fact {n}", judge_later=True)
            ids.append(svc.store.insert_memory(conn, new))
    assert svc.store.unjudged(10) == []  # no vector yet: nothing to judge with
    svc.store.store_vectors({i: svc.embedder.embed([f"fact {n}"])[0] for n, i in enumerate(ids)})
    assert svc.store.unjudged(10) == [ids[1], ids[2], ids[0]]  # by created_at
    assert svc.store.unjudged(1) == [ids[1]]
    with svc.db.write() as conn:
        svc.store.judged(conn, [ids[1]])
        svc.store.hard_delete(conn, ids[2], None)
    assert svc.store.unjudged(10) == [ids[0]]


def test_possible_updates_are_recorded_replaced_cleared_and_go_with_either_memory(svc):
    """set_possible_update records the earlier memory one most likely updates (one per memory: a second
    replaces it; None clears it); possible_updates reads them by id, by the older memory or all the namespace's; a purged
    memory, newer or older, takes its record with it; a memory purged before its record is written
    gets none."""
    old, other, new, third = (svc.remember(text, thread="t").id for text in (
        "Builds run on Jenkins", "Deploys go out on Fridays", "CI is GitHub Actions", "Releases are cut on Mondays"))
    with svc.db.write() as conn:
        svc.store.set_possible_update(conn, new, PossibleUpdate(old, 0.25))
        svc.store.set_possible_update(conn, third, PossibleUpdate(other, 0.5))
    with svc.db.read() as conn:
        assert svc.store.possible_updates(conn, [new, old]) == {new: PossibleUpdate(old, 0.25)}
        assert svc.store.possible_updates(conn) == {new: PossibleUpdate(old, 0.25), third: PossibleUpdate(other, 0.5)}
        assert svc.store.possible_updates(conn, older=other) == {third: PossibleUpdate(other, 0.5)}  # the other way
        assert svc.store.possible_updates(conn, older=new) == {}
    with svc.db.write() as conn:
        svc.store.set_possible_update(conn, new, PossibleUpdate(other, 0.125))  # judged again: replaced
        svc.store.set_possible_update(conn, third, None)
    with svc.db.read() as conn:
        assert svc.store.possible_updates(conn) == {new: PossibleUpdate(other, 0.125)}
    with svc.db.write() as conn:
        svc.store.hard_delete(conn, other, None)  # the older one purged
        svc.store.set_possible_update(conn, third, PossibleUpdate(other, 0.5))  # too late: nothing to point at
    with svc.db.read() as conn:
        assert svc.store.possible_updates(conn) == {}
    with svc.db.write() as conn:
        svc.store.set_possible_update(conn, new, PossibleUpdate(old, 0.25))
        svc.store.hard_delete(conn, new, None)  # the newer one purged
    with svc.db.read() as conn:
        assert svc.store.possible_updates(conn) == {}


def test_statement_analyses_are_stored_by_version_replaced_and_go_with_their_memory(svc):
    """set_analyses stores a memory's analysis (text key, analysis) under the analyser's version; analyses
    reads those of that version only; a second replaces the first; a purged memory takes its analysis
    with it, and one purged before its analysis is written gets none."""
    a, b = (svc.remember(text, thread="t").id for text in ("Builds run on Jenkins", "Deploys go out on Fridays"))
    with svc.db.write() as conn:
        svc.store.set_analyses(conn, {a: ("ka", "[1]"), b: ("kb", "[2]")}, "v1")
    assert svc.store.analyses([a, b, 999], "v1") == {a: ("ka", "[1]"), b: ("kb", "[2]")}
    assert svc.store.analyses([a, b], "v2") == {}  # another analyser's: not read
    svc.store.store_analyses({a: ("ka2", "[3]")}, "v2")  # made again by a newer analyser: replaced
    assert svc.store.analyses([a, b], "v2") == {a: ("ka2", "[3]")}
    assert svc.store.analyses([a, b], "v1") == {b: ("kb", "[2]")}
    with svc.db.write() as conn:
        svc.store.hard_delete(conn, b, None)
        svc.store.set_analyses(conn, {b: ("kb", "[2]")}, "v1")  # too late: its memory is gone
    assert svc.store.analyses([a, b], "v1") == {}


def test_a_memory_records_several_possible_updates_and_one_guess_readers_get_the_most_probable(svc):
    """A newer memory may possibly update several earlier ones (issue 32: with one record per memory, the one
    it replaced was missed): set_possible_update with several records them all in place of what was there;
    possible_updates_all reads every one, most probable first; possible_updates (show, the page, a review)
    the most probable; by the older memory each newer naming it; purging one older takes only its record."""
    old, other, new = (svc.remember(text, thread="t").id for text in (
        "Builds run on Jenkins", "Builds take about 40 minutes on Jenkins", "CI is GitHub Actions, builds take 12 minutes"))
    with svc.db.write() as conn:
        svc.store.set_possible_update(conn, new, PossibleUpdate(old, 0.5))
        svc.store.set_possible_update(conn, new, [PossibleUpdate(old, 0.25), PossibleUpdate(other, 0.375),
                                                  PossibleUpdate(old, 0.125)])  # judged again: both, old's best
    with svc.db.read() as conn:
        assert svc.store.possible_updates_all(conn, [new]) == {new: [PossibleUpdate(other, 0.375), PossibleUpdate(old, 0.25)]}
        assert svc.store.possible_updates_all(conn) == {new: [PossibleUpdate(other, 0.375), PossibleUpdate(old, 0.25)]}
        assert svc.store.possible_updates(conn, [new]) == {new: PossibleUpdate(other, 0.375)}
        assert svc.store.possible_updates(conn) == {new: PossibleUpdate(other, 0.375)}
        assert svc.store.possible_updates(conn, older=old) == {new: PossibleUpdate(old, 0.25)}
        assert svc.store.possible_updates(conn, older=other) == {new: PossibleUpdate(other, 0.375)}
    assert svc.store.possible_updates_older([old, other]) == {old: {new: PossibleUpdate(old, 0.25)},
                                                               other: {new: PossibleUpdate(other, 0.375)}}
    with svc.db.write() as conn:
        svc.store.hard_delete(conn, other, None)
    with svc.db.read() as conn:
        assert svc.store.possible_updates_all(conn) == {new: [PossibleUpdate(old, 0.25)]}
    svc.store.record_possible_updates({new: []})  # judged again, nothing possible: cleared
    assert svc.store.possible_updates_of([new]) == {}

def test_forget_hides_from_both_searches_and_undelete_brings_it_back(svc):
    memory_id = svc.remember("the wifi password rotates monthly").id
    svc.indexer.run_once(limit=10)
    vector = svc.embedder.embed(["wifi password"])[0]
    assert svc.forget(memory_id).status == "forgotten"
    assert svc.forget(memory_id).status == "already_forgotten"
    assert svc.store.keyword(keyword_query("wifi"), 5, Scope()) == {}
    assert svc.store.knn(vector, 5, Scope()) == {}
    assert svc.store.get([memory_id], include_deleted=False) == {}
    forgotten_at = svc.store.get([memory_id])[memory_id].deleted_at
    with svc.db.write() as conn:
        assert svc.store.memory_state(conn, memory_id) == MemoryState(
            "the wifi password rotates monthly", None, forgotten_at) and forgotten_at is not None
        svc.store.undelete(conn, memory_id, 5, index_text("the wifi password rotates monthly"))
    assert list(svc.store.keyword(keyword_query("wifi"), 5, Scope())) == [memory_id]
    assert list(svc.store.knn(vector, 5, Scope())) == [memory_id]
    with svc.db.read() as conn:
        assert svc.store.memory_state(conn, memory_id) == MemoryState("the wifi password rotates monthly", None, None)
        assert svc.store.memory_state(conn, 999) is None


def test_compress_and_restore_round_trip_through_the_curator(svc):
    long = ("We decided to move the build to GitHub Actions because the old Jenkins box kept running out of "
            "disk. " * 6).strip()
    memory_id = svc.remember(long, created_at="2025-01-01").id
    curator = Curator(svc)
    result = curator.run("compress", dry_run=False)
    assert result.counts.get("compressed") == 1, result
    row = svc.store.get([memory_id])[memory_id]
    assert row.compression is not None and len(row.content) < len(long)
    compressed_at = row.updated_at  # the original is archived by the write that compresses
    with svc.db.read() as conn:
        assert svc.store.originals(conn, [memory_id]) == {memory_id: Original(long, compressed_at)}
        assert svc.store.archived_originals(conn) == {memory_id: Original(long, compressed_at)}
        assert svc.store.archived_originals(conn, thread="elsewhere") == {}
    curator.run("restore", ids=[memory_id], dry_run=False)
    row = svc.store.get([memory_id])[memory_id]
    assert (row.content, row.compression) == (long, None)


def test_supersede_purge_and_relinking(svc):
    a = svc.remember("Jobs run on Celery").id
    b = svc.remember("Jobs run on RQ").id
    c = svc.remember("Jobs run on Dramatiq").id
    curator = Curator(svc)
    curator.run("supersede", ids=[a], replacement_id=b, dry_run=False)
    curator.run("supersede", ids=[b], replacement_id=c, dry_run=False)
    with svc.db.write() as conn:
        svc.store.hard_delete(conn, b, c)
    rows = {r.id: r for r in _rows(svc, deleted=None)}
    assert set(rows) == {a, c} and rows[a].superseded_by == c
    with svc.db.write() as conn:
        svc.store.link_superseded(conn, a, None)
        svc.store.set_pinned(conn, c, True, 7)
    rows = {r.id: r for r in _rows(svc)}
    assert rows[a].superseded_by is None and rows[c].pinned and rows[c].updated_at == 7
    assert svc.remember("Jobs run on Huey").id == 4  # a purged id is never handed out again


def test_threads_messages_and_global_prompts(svc):
    svc.threads.configure("api", title="API", system_prompt="Be terse.")
    svc.threads.add_messages("api", [{"role": "user", "content": f"m{i}"} for i in range(25)])
    assert [m.content for m in svc.store.recent_messages("api", 100)] == [f"m{i}" for i in range(5, 25)]
    thread = svc.store.get_thread("api")
    assert (thread.title, thread.system_prompt, thread.archived) == ("API", "Be terse.", False)
    svc.threads.configure("api", archived=True)
    assert svc.store.list_threads() == [] and len(svc.store.list_threads(include_archived=True)) == 1
    svc.remember("Deploys go through Argo", thread="web")
    assert svc.store.thread_ids() == [t.id for t in svc.store.list_threads()] == ["web"]
    assert svc.store.thread_ids(include_archived=True) == [t.id for t in svc.store.list_threads(include_archived=True)]
    with svc.db.write() as conn:
        svc.store.put_global_prompt(conn, "style", "Be brief.", 1, 10)
        svc.store.put_global_prompt(conn, "lang", "English.", 5, 10)
        assert svc.store.set_global_prompt(conn, "style", 11, active=False)
        assert not svc.store.delete_global_prompt(conn, "nope")
    assert [p.name for p in svc.store.global_prompts(active_only=False)] == ["lang", "style"]
    assert [p.name for p in svc.store.global_prompts(active_only=True)] == ["lang"]
    with svc.db.read() as conn:
        exported = svc.store.export_global_prompts(conn)
        threads = svc.store.threads(conn)
    assert exported[1] == {"name": "style", "content": "Be brief.", "active": 0, "priority": 1,
                           "created_at": 10, "updated_at": 11}
    assert threads[0]["id"] == "api" and threads[0]["archived"] == 1


def test_meta_and_the_daily_log_queue(svc, clock):
    with svc.db.write() as conn:
        svc.store.set_meta(conn, "k", "v1")
        svc.store.set_meta(conn, "k", "v2")
    assert svc.store.get_meta("k") == "v2" and svc.store.get_meta("missing") is None
    memory_id = svc.remember("a line for today's log").id
    assert svc.store.daily_backlog(queued_before=2**62) == []  # written at once, so unqueued
    with svc.db.write() as conn:
        new = NewMemory("", "queued line", "note", "remember", None, 0.5, (), "h", 1, 1, "queued line")
        queued = svc.store.insert_memory(conn, new)
    assert [r.id for r in svc.store.daily_backlog(queued_before=2**62)] == [queued]
    svc.store.unqueue_daily(queued)
    assert svc.store.daily_backlog(queued_before=2**62) == [] and memory_id != queued


def test_memory_file_bullets_are_indexed_and_follow_edits(svc):
    (svc.settings.files_dir / "MEMORY.md").write_text("# MEMORY\n\n## Stack\n- The API is written in Go\n")
    found = svc.recall("which language is the API written in")
    assert found.memories and found.memories[0].location == "MEMORY.md:4 (Stack)"
    (svc.settings.files_dir / "MEMORY.md").write_text("# MEMORY\n\n## Stack\n\n- The API is written in Rust\n")
    found = svc.recall("API written in")
    assert [m.content for m in found.memories if m.source.startswith("file:")] == ["The API is written in Rust"]
    with svc.db.read() as conn:
        assert svc.store.file_sources(conn) == ["file:MEMORY.md"]
        [(key, unit)] = svc.store.file_units(conn, "file:MEMORY.md").items()
    assert unit == FileUnit(unit.id, 5, "Stack") and svc.store.get([unit.id])[unit.id].content == "The API is written in Rust"


def test_index_drift_is_found_and_repaired(svc):
    a = svc.remember("drift alpha").id
    b = svc.remember("drift beta").id
    svc.indexer.run_once(limit=10)
    with svc.db.write() as conn:
        assert not svc.store.index_drift(conn)
        svc.store.fts_delete(conn, a)  # keyword row lost
        svc.store.soft_delete(conn, b, 1)
        svc.store.fts_insert(conn, b, "drift beta")  # a forgotten memory still indexed
        drift = svc.store.index_drift(conn)
    assert (drift.missing_text, drift.stale_text) == ((a,), (b,))
    repaired = svc.repair_index()
    assert repaired.missing_text == (a,)
    with svc.db.read() as conn:
        assert svc.store.index_drift(conn) == IndexDrift()
    assert list(svc.store.keyword(keyword_query("drift"), 5, Scope())) == [a]


def test_reembed_recomputes_every_vector(svc):
    for text in ("one", "two", "three"):
        svc.remember(f"fact number {text}")
    svc.indexer.run_once(limit=10)
    assert svc.reembed() == 3
    assert svc.store.count()["pending_embeddings"] == 0


def test_stats_and_health_have_the_same_shape(svc):
    svc.remember("healthy memory")
    with svc.db.read() as conn:
        stats = svc.store.stats(conn)
        assert svc.store.integrity_errors(conn) == []
        assert svc.store.health_counts(conn) == HealthCounts(live=1, deleted=0, pending=1)
    assert set(stats) == {"live", "deleted", "superseded", "pinned", "compressed", "oldest", "newest",
                          "pending_embeddings", "file_units", "by_kind", "by_thread", "by_compression",
                          "database_bytes"}
    assert stats["by_kind"] == {"note": 1} and stats["database_bytes"] > 0
    location = svc.settings.database_url or svc.settings.db_path
    report = health.check(location, svc.settings.namespace)
    assert (report.live, report.pending, report.problems()) == (1, 1, [])


def test_export_import_round_trips_every_field_into_an_empty_store(svc, tmp_path, clock, other_settings):
    a = svc.remember("Jobs run on Celery", kind="decision", thread="api", tags=["queue"], created_at="2025-12-01").id
    b = svc.remember("Jobs run on Dramatiq", kind="decision", thread="api", tags=["queue", "infra"]).id
    gone = svc.remember("Old VPN is vpn.example.com").id
    svc.remember("Never deploy on Fridays", pinned=True, importance=0.9)
    svc.remember("A long memory about the build " * 20, created_at="2025-06-01")
    svc.recall("Dramatiq")
    svc.forget(gone)
    curator = Curator(svc)
    curator.run("supersede", ids=[a], replacement_id=b, dry_run=False)
    curator.run("compress", dry_run=False)
    svc.threads.configure("api", title="API")
    [doc] = archive.export(svc).values()
    path = tmp_path / "a.json"
    archive.write({"archive.json": doc}, path)
    if not other_settings.database_url:
        (other_settings.files_dir / "SOUL.md").write_text("# SOUL\n")
        (other_settings.files_dir / "MEMORY.md").write_text("# MEMORY\n")
    other = MemoryService.open(other_settings, embedder=HashEmbedder(), clock=clock)
    try:
        report = archive.import_file(other, path)
        assert report.counts.imported == 5 and report.counts.verified == 5
        assert _rows(other, deleted=None) == _rows(svc, deleted=None)
        with other.db.read() as conn, svc.db.read() as conn2:
            assert other.store.archived_originals(conn) == svc.store.archived_originals(conn2)
            assert other.store.threads(conn) == svc.store.threads(conn2)
        again = archive.import_file(other, path)
        assert again.counts.imported == 0 and again.counts.already_present == 5
        assert other.remember("after the import").id == 6  # ids continue above the imported ones
    finally:
        other.close()


def test_memory_rows_compare_equal_field_by_field(svc):
    """MemoryRow types are the same on both: ints for times, a tuple of tags, floats, bools."""
    svc.remember("typed", tags=["b", "a"], importance=0.7, pinned=True)
    [row] = _rows(svc)
    assert isinstance(row.created_at, int) and isinstance(row.importance, float) and row.importance == 0.7
    assert row.tags == ("b", "a") and row.pinned is True and row.recall_count == 0
    assert replace(row, tags=("b", "a")) == row
    json.dumps(row.__dict__)  # every field is plain data


def _declared(protocol):
    """The methods a protocol class declares itself, in its order."""
    return [n for n, v in vars(protocol).items() if callable(v) and not n.startswith("_")]


def test_both_stores_implement_every_role_with_the_same_signatures_in_the_protocols_order():
    """Each store class implements every method of every role, with the protocol's parameters,
    and lists them in the order the protocol declares them (roles in ROLES order)."""
    import inspect

    from server.storage import protocol as storage
    from server.storage.pg.db import PgDatabase
    from server.storage.pg.store import PgStore
    from server.storage.pg.tokens import PgTokens
    from server.storage.sqlite.db import Database
    from server.storage.sqlite.store import Store
    from server.storage.sqlite.tokens import SqliteTokens

    order = [name for role in storage.ROLES for name in _declared(role)]
    assert len(order) == len(set(order)), "a method is declared by two roles"
    every_role = {name for cls in storage.Store.__mro__ if cls.__module__ == storage.__name__ for name in _declared(cls)}
    assert set(order) == every_role and {"keyword", "dump_memories", "stats", "get_meta"} <= every_role
    for protocol, implementations, names in (
        (storage.Store, (Store, PgStore), order),
        (storage.Database, (Database, PgDatabase), _declared(storage.Database)),
        (storage.TokenTable, (SqliteTokens, PgTokens), _declared(storage.TokenTable)),
    ):
        assert len(names) >= 4
        for name in names:
            wanted = list(inspect.signature(getattr(protocol, name)).parameters)
            for cls in implementations:
                assert hasattr(cls, name), f"{cls.__name__} lacks {name}"
                assert list(inspect.signature(getattr(cls, name)).parameters) == wanted, (cls.__name__, name)
    for cls in (Store, PgStore):  # composed of one class per role: read in the order they are composed
        listed = [n for part in cls.__mro__ for n in vars(part) if n in every_role]
        assert listed == order, f"{cls.__name__} is not in the protocol's order"
    assert Database.backend == "sqlite" and PgDatabase.backend == "postgres"


def test_a_database_seen_by_another_tenant(svc):
    """SQLite's database is the same for every namespace; PostgreSQL's is the same pool confined to the tenant."""
    from server.storage.opener import make_store

    svc.remember("only in the first namespace")
    other = svc.db.for_tenant("someone-else")
    if svc.db.backend == "sqlite":
        assert other is svc.db
    else:
        assert other is not svc.db and other.pool is svc.db.pool and other.path == svc.db.path
    assert make_store(other, "someone-else").count()["live"] == 0
    assert make_store(svc.db.for_tenant(svc.settings.namespace), svc.settings.namespace).count()["live"] == 1
