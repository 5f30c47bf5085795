"""Keyword impact lists (storage/sqlite/impacts.py, search.keyword_best): past the keyword budget the
exact unbudgeted top 10, proved; written, forgotten and re-indexed memories handled; a list that
cannot prove its answer leaves today's bounded search in charge.

The budget and the list size are shrunk so a 400-memory store is "past the budget" with lists that
hold only part of each term's matches (their floors bind)."""

from __future__ import annotations

import random
import threading
import time

import pytest

from server import ranking
from server.search import keyword_best, keyword_hits, keyword_plan, keyword_query
from server.storage.protocol import KeywordQuery, Scope
from server.storage.sqlite import impact_listed, impact_scores, impacts
from server.storage.sqlite.fts import scope_token

pytestmark = pytest.mark.slow  # each test fills a store of 400 memories first

WORDS = ["redis", "queue", "worker", "deploy", "cache"]
SHARE = {"redis": 0.6, "queue": 0.5, "worker": 0.4, "deploy": 0.3, "cache": 0.2}
QUERIES = ["queue redis", "queue redis worker", "deploy cache redis", "worker cache", "redis"]


@pytest.fixture(autouse=True)
def lists_on(monkeypatch):
    """The lists are on by default (ranking.KEYWORD_IMPACTS); these tests are of them whatever the default."""
    monkeypatch.setattr(ranking, "KEYWORD_IMPACTS", True)


@pytest.fixture
def crowded(service, monkeypatch):
    rng = random.Random(11)
    for n in range(400):
        words = [w for w in WORDS if rng.random() < SHARE[w]] or ["misc"]
        words += [w for w in words if rng.random() < 0.4]  # term frequency varies
        words += ["filler"] * rng.randrange(0, 12)  # and length
        rng.shuffle(words)
        service.remember(" ".join(words) + f" note {n}", thread=f"t{n % 4}")
    monkeypatch.setattr(ranking, "KEYWORD_MATCH_BUDGET", 30)
    monkeypatch.setattr(impacts, "LIST_SIZE", 60)
    monkeypatch.setattr(impacts, "STALE_AFTER", 60)
    return service


def _exact(store, query, k=10):
    """The unbudgeted whole query's top k, ties broken by id (as the lists' union is ranked)."""
    whole = store.keyword(keyword_query(query), 1000, Scope())
    return sorted(whole.items(), key=lambda hit: (hit[1], hit[0]))[:k]


def _best(store, query, limit=50):
    """keyword_best once the lists its first search wanted are built (as a server's builder does)."""
    plan = keyword_plan(store, query, Scope())
    assert plan.window is not None  # past the budget
    keyword_best(store, plan, Scope(), limit)
    store.build_wanted(len(WORDS))
    return keyword_best(store, plan, Scope(), limit), plan


def _proved(store, plan, limit=50):
    return store.keyword_proved((*plan.rare, *plan.common), limit, Scope(), 10)


def test_past_the_budget_the_exact_top_10_is_returned_and_proved(crowded):
    store = crowded.store
    lost = 0
    for query in QUERIES:
        got, plan = _best(store, query)
        top10 = _exact(store, query)
        assert _proved(store, plan) is not None, query
        assert list(got)[:10] == [m for m, _ in top10], query
        assert list(got.values())[:10] == pytest.approx([rank for _, rank in top10])
        lost += len({m for m, _ in top10} - keyword_hits(store, plan, Scope(), 50).keys())
    assert lost > 0  # today's windowed search misses some of them: the lists are what finds them
    terms = store.db.conn.execute("SELECT count(*) FROM keyword_impact_terms").fetchone()[0]
    assert terms == len(WORDS)  # stored, built once per term
    for term in WORDS:  # each list holds its term's 60 best (and pairs' rows below its floor: build_pair)
        rows = dict(store.db.conn.execute("SELECT memory_id, f FROM keyword_impacts WHERE term = ?", (term,)))
        floor = impacts.lists(store.db.conn, [term])[term][1]
        best = sorted(store.keyword(KeywordQuery((term,)), 1000, Scope()).items(), key=lambda h: (h[1], h[0]))
        assert {m for m, _ in best[:60]} <= rows.keys()
        assert sum(1 for f in rows.values() if f > floor) <= 60


def test_most_are_proved_from_the_memories_holding_every_word(crowded, monkeypatch):
    """The cheap proof (FTS5 intersects the doclists; the rest of the union bounded by its listed
    scores) alone proves these queries; the walk of every doclist is not needed."""
    store = crowded.store
    monkeypatch.setattr(type(store), "_proved_any", lambda *a: None)
    proved = 0
    for query in QUERIES:
        got, plan = _best(store, query)
        if _proved(store, plan) is not None:
            proved += 1
            assert list(got)[:10] == [m for m, _ in _exact(store, query)], query
    print("proved", proved)
    assert proved >= 2


def test_an_index_unchanged_since_the_lists_is_answered_from_them_alone(crowded, monkeypatch):
    """Nothing written since the lists were built: a memory in every list is scored from the lists
    (stored f times IDF), FTS5 ranks nothing, and what is proved is exact."""
    store = crowded.store
    for query in QUERIES:
        _best(store, query)  # builds the lists
    monkeypatch.setattr(type(store), "_proved_any", lambda *a: None)
    monkeypatch.setattr(type(store), "_proved_every", lambda *a: None)
    proved = 0
    for query in QUERIES:
        got, plan = _best(store, query)
        if _proved(store, plan) is not None:
            proved += 1
            top10 = _exact(store, query)
            assert list(got)[:10] == [m for m, _ in top10], query
            assert list(got.values())[:10] == pytest.approx([rank for _, rank in top10], rel=1e-9)
    assert proved >= 1
    crowded.remember("queue redis worker deploy cache", thread="t1")  # the index changed: no more
    assert all(_proved(store, keyword_plan(store, q, Scope())) is None for q in QUERIES)


def test_the_floor_bounds_every_memory_left_out_of_a_list(crowded):
    store = crowded.store
    _best(store, "queue redis worker")
    conn = store.db.conn
    rows, tokens = impacts.totals(conn)
    top = impacts.top_rowid(conn)
    for term, listed in impacts.lists(conn, ["queue", "redis", "worker"]).items():
        members = {r[0] for r in conn.execute("SELECT memory_id FROM keyword_impacts WHERE term = ?", (term,))}
        single = store.keyword(KeywordQuery((term,)), 1000, Scope())
        outside = max(-rank for m, rank in single.items() if m not in members)
        assert outside <= impacts.bound([listed], rows, tokens, top)
        assert outside >= 0.8 * impacts.bound([listed], rows, tokens, top)  # and is tight, not a guess


def test_a_memory_written_after_the_lists_that_beats_a_floor_is_found(crowded, monkeypatch):
    store = crowded.store
    monkeypatch.setattr(impacts, "drifted", lambda db, terms: [])  # the lists are not built again meanwhile
    _best(store, "queue redis")
    built = store.db.conn.execute("SELECT term, watermark FROM keyword_impact_terms ORDER BY term").fetchall()
    new = crowded.remember("queue redis queue redis queue", thread="t9").id
    got, plan = _best(store, "queue redis")
    assert next(iter(got)) == new  # the best match of all
    assert list(got)[:10] == [m for m, _ in _exact(store, "queue redis")]
    assert _proved(store, plan) is not None
    # found without rebuilding the lists: it is newer than their watermark
    assert store.db.conn.execute("SELECT term, watermark FROM keyword_impact_terms ORDER BY term").fetchall() == built


def test_a_forgotten_memory_is_never_returned_and_the_rest_stays_exact(crowded):
    store = crowded.store
    first, _ = _best(store, "queue redis worker")
    for mid in list(first)[:3]:
        crowded.forget(mid)
    got, plan = _best(store, "queue redis worker")
    assert not set(list(first)[:3]) & got.keys()
    assert list(got)[:10] == [m for m, _ in _exact(store, "queue redis worker")]
    assert _proved(store, plan) is not None


def test_a_memory_indexed_again_under_its_old_id_is_scored(crowded):
    """An edit (compression) or a restore re-indexes an id below the lists' watermark: it is touched."""
    store = crowded.store
    _best(store, "deploy cache")
    members = {r[0] for r in store.db.conn.execute("SELECT memory_id FROM keyword_impacts")}
    outsider = next(m for m in range(1, 400) if m not in members and store.get([m])[m].deleted_at is None)
    with store.db.write() as conn:
        store.fts_delete(conn, outsider)
        store.fts_insert(conn, outsider, "deploy cache deploy cache")
    got, plan = _best(store, "deploy cache")
    assert next(iter(got)) == outsider
    assert list(got)[:10] == [m for m, _ in _exact(store, "deploy cache")]


def test_a_list_that_cannot_prove_its_answer_leaves_todays_search(crowded):
    store = crowded.store
    _best(store, "queue redis")
    plan = keyword_plan(store, "queue redis", Scope())
    today = keyword_hits(store, plan, Scope(), 50)
    # A floor no memory of the lists beats (a list gone stale beyond what it can bound): no proof.
    with store.db.write() as conn:
        conn.execute("UPDATE keyword_impact_terms SET floor = floor * 100 WHERE term = 'queue'")
    assert _proved(store, plan) is None
    assert keyword_best(store, plan, Scope(), 50) == today
    # A list missing (not built yet): today's search as well.
    with store.db.write() as conn:
        conn.execute("DELETE FROM keyword_impact_terms")
    assert _proved(store, plan) is None
    assert keyword_best(store, plan, Scope(), 50) == today


def test_a_search_builds_no_list_it_wants_them_and_the_builder_builds_them(crowded):
    """A list costs a ranking of all its term's matches (0.3-1 s at 1M): the search answers at once as
    today, and the builder (a server's background thread, driven here) builds what it wanted."""
    store = crowded.store
    count = "SELECT count(*) FROM keyword_impact_terms"
    plan = keyword_plan(store, "queue redis", Scope())
    today = keyword_hits(store, plan, Scope(), 50)
    assert keyword_best(store, plan, Scope(), 50) == today
    assert store.db.conn.execute(count).fetchone()[0] == 0  # nothing built by the search
    assert sorted(impacts.wanted(store.db)) == ["queue", "redis"]
    keyword_best(store, plan, Scope(), 50)
    assert sorted(impacts.wanted(store.db)) == ["queue", "redis"]  # wanted once
    assert store.build_wanted(1) == 1  # one term at a time when asked so
    assert store.db.conn.execute(count).fetchone()[0] == 1
    assert keyword_best(store, plan, Scope(), 50) == today  # one list of two: still today's search
    assert store.build_wanted(10) == 1
    assert impacts.wanted(store.db) == [] and store.build_wanted(10) == 0
    got = keyword_best(store, plan, Scope(), 50)
    assert _proved(store, plan) is not None
    assert list(got)[:10] == [m for m, _ in _exact(store, "queue redis")]


def test_a_list_gone_stale_is_wanted_again_and_rebuilt(crowded):
    store = crowded.store
    _best(store, "queue redis")
    for n in range(61):  # more than STALE_AFTER written since
        crowded.remember(f"queue note later {n}", thread="t1")
    plan = keyword_plan(store, "queue redis", Scope())
    keyword_best(store, plan, Scope(), 50)
    assert [t for t in impacts.wanted(store.db) if isinstance(t, str)] == ["queue", "redis"]  # and pairs
    before = dict(store.db.conn.execute("SELECT term, watermark FROM keyword_impact_terms"))
    assert store.build_wanted(10) == 2
    after = dict(store.db.conn.execute("SELECT term, watermark FROM keyword_impact_terms"))
    assert all(after[t] > before[t] for t in ("queue", "redis"))


def test_a_server_builds_the_lists_its_recalls_want_in_the_background(crowded, monkeypatch):
    store = crowded.store
    builders = []
    real = impacts.build

    def build(conn, term, size=None):
        builders.append(threading.current_thread().name)
        return real(conn, term, size)

    monkeypatch.setattr(impacts, "build", build)
    crowded.start_background()
    plan = keyword_plan(store, "queue redis worker", Scope())
    keyword_best(store, plan, Scope(), 50)
    deadline = time.monotonic() + 30
    while store.db.conn.execute("SELECT count(*) FROM keyword_impact_terms").fetchone()[0] < 3:
        assert time.monotonic() < deadline, "the builder built no list"
        time.sleep(0.05)
    assert builders and set(builders) == {"memvault-impact-lists"}  # never the recall's thread
    assert _proved(store, plan) is not None


def test_below_the_budget_no_list_is_built(service):
    for n in range(30):
        service.remember(f"redis queue note {n}")
    plan = keyword_plan(service.store, "queue redis", Scope())
    assert plan.window is None
    assert keyword_best(service.store, plan, Scope(), 50) == keyword_hits(service.store, plan, Scope(), 50)
    assert service.store.db.conn.execute("SELECT count(*) FROM keyword_impact_terms").fetchone()[0] == 0


def test_a_list_read_before_an_edit_is_not_stored(crowded):
    """A list built from a snapshot taken before an edit would hold the memory's old text, and the
    edit found no stored watermark to mark it under: such a list is not stored."""
    store = crowded.store
    with store.db.read() as conn:
        seen = impacts.fingerprint(conn)
        row, members = impacts.build(conn, "queue")
    outsider = next(m for m in range(1, 400) if m not in dict(members))
    with store.db.write() as conn:
        store.fts_delete(conn, outsider)
        store.fts_insert(conn, outsider, "queue queue queue")
    with store.db.write() as conn:
        assert impacts.store(conn, row, members, seen) is False
        assert impacts.lists(conn, ["queue"]) == {}
    with store.db.read() as conn:
        seen = impacts.fingerprint(conn)
        row, members = impacts.build(conn, "queue")
    with store.db.write() as conn:
        assert impacts.store(conn, row, members, seen) is True
    assert outsider in dict(members)


def test_resolve_reads_each_terms_f_as_fts5s_bm25_has_it(crowded):
    """A memory's terms counted again from its own text by FTS5's tokenizer (impacts.resolve) give the
    f the keyword index gives (its single-term bm25 over its IDF), a term it does not hold 0."""
    store = crowded.store
    conn = store.db.conn
    rows, tokens = impacts.totals(conn)
    ids = list(range(1, 401, 7))
    got = impact_scores.resolve(conn, store.db.errors, ids, ["redis", "cache"], tokens / rows)
    assert set(got) == set(ids)
    for i, term in enumerate(["redis", "cache"]):
        count = conn.execute("SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ?", (term,)).fetchone()[0]
        ranked = dict(store.keyword(KeywordQuery((term,)), 1000, Scope()))
        for m in ids:
            expected = -ranked[m] / impacts.idf(rows, count) if m in ranked else 0.0
            assert got[m][i] == pytest.approx(expected, rel=1e-9, abs=1e-12)
    assert impact_scores.resolve(conn, store.db.errors, ids, ["redis", "two words"], tokens / rows) is None  # a phrase


def _lists_without_pairs(store):
    """Every query's lists built, and no pair's rows (build_pair) stored or wanted."""
    for query in QUERIES:
        _best(store, query)
    with store.db.write() as conn:
        conn.execute("DELETE FROM keyword_impacts WHERE f < (SELECT floor FROM keyword_impact_terms t "
                     "WHERE t.term = keyword_impacts.term)")
    impacts._take(store.db, 10_000, 0)


def test_with_the_pairs_built_every_query_is_proved_without_an_fts5_search(crowded, monkeypatch):
    """A member of one list is bounded by the other terms' floors until the builder has the pairs its
    recalls wanted (build_pair: one term's f of another's members); then an unchanged index proves every
    query from the lists, with no FTS5 search, and what is proved is the exact top 10."""
    store = crowded.store
    _lists_without_pairs(store)
    monkeypatch.setattr(type(store), "_proved_any", lambda *a: pytest.fail("FTS5 proof run"))
    monkeypatch.setattr(type(store), "_proved_every", lambda *a: pytest.fail("FTS5 proof run"))
    monkeypatch.setattr(impacts, "score_every", lambda *a: pytest.fail("FTS5 bm25 run"))
    monkeypatch.setattr(impacts, "RESOLVE_MAX", 0)  # nothing scored from its text: the pairs alone
    before = sum(_proved(store, keyword_plan(store, q, Scope())) is not None for q in QUERIES)
    assert before < len(QUERIES)
    assert any(isinstance(t, tuple) for t in impacts.wanted(store.db))  # the proofs wanted the pairs
    store.build_wanted(100)
    for query in QUERIES:
        plan = keyword_plan(store, query, Scope())
        assert _proved(store, plan) is not None, query
        got = keyword_best(store, plan, Scope(), 50)
        top10 = _exact(store, query)
        assert list(got)[:10] == [m for m, _ in top10], query
        assert list(got.values())[:10] == pytest.approx([rank for _, rank in top10], rel=1e-9)


def test_members_left_open_are_scored_from_their_text(crowded, monkeypatch):
    """Without the pairs, the members the floors leave open are scored from their own text (resolve):
    the proofs hold and are exact with no FTS5 search."""
    store = crowded.store
    _lists_without_pairs(store)
    monkeypatch.setattr(type(store), "_proved_any", lambda *a: pytest.fail("FTS5 proof run"))
    monkeypatch.setattr(type(store), "_proved_every", lambda *a: pytest.fail("FTS5 proof run"))
    proved = 0
    for query in QUERIES:
        plan = keyword_plan(store, query, Scope())
        if _proved(store, plan) is not None:
            proved += 1
            got = keyword_best(store, plan, Scope(), 50)
            assert list(got)[:10] == [m for m, _ in _exact(store, query)], query
    monkeypatch.setattr(impacts, "RESOLVE_MAX", 0)
    assert proved > sum(_proved(store, keyword_plan(store, q, Scope())) is not None for q in QUERIES)


def test_an_unchanged_index_whose_proof_fails_goes_to_todays_search_and_no_further_proof(crowded, monkeypatch):
    """The proof's work is capped (RESOLVE_MAX memories scored from their text): past it, and whenever the
    lists cannot prove the top, today's bounded search answers; FTS5's dearer proofs are not tried first."""
    store = crowded.store
    _lists_without_pairs(store)
    monkeypatch.setattr(impacts, "RESOLVE_MAX", 0)
    monkeypatch.setattr(type(store), "_proved_any", lambda *a: pytest.fail("FTS5 proof run"))
    monkeypatch.setattr(type(store), "_proved_every", lambda *a: pytest.fail("FTS5 proof run"))
    failed = 0
    for query in QUERIES:
        plan = keyword_plan(store, query, Scope())
        if _proved(store, plan) is None:
            failed += 1
            assert keyword_best(store, plan, Scope(), 50) == keyword_hits(store, plan, Scope(), 50)
    assert failed > 0


def test_lists_older_than_the_index_are_built_again_once_a_while(crowded, monkeypatch):
    """After a write the lists no longer prove from memory (the FTS5 proofs run); the recall wants the
    drifted terms built again, at most every REBUILD_DRIFTED seconds, and then the lists alone prove."""
    store = crowded.store
    for query in QUERIES:
        _best(store, query)
    store.build_wanted(100)  # the pairs
    impacts._take(store.db, 10_000, 0)
    crowded.remember("queue redis worker deploy cache", thread="t1")
    plan = keyword_plan(store, "queue redis", Scope())
    _proved(store, plan)
    assert [t for t in impacts.wanted(store.db) if isinstance(t, str)] == ["queue", "redis"]
    impacts._take(store.db, 10_000, 0)
    _proved(store, plan)
    assert impacts.wanted(store.db) == []  # not again within REBUILD_DRIFTED
    monkeypatch.setattr(impacts, "REBUILD_DRIFTED", 0.0)
    _proved(store, plan)
    assert store.build_wanted(10) == 2
    _proved(store, plan)  # wants the pairs of the rebuilt lists
    store.build_wanted(10)
    monkeypatch.setattr(type(store), "_proved_any", lambda *a: pytest.fail("FTS5 proof run"))
    monkeypatch.setattr(type(store), "_proved_every", lambda *a: pytest.fail("FTS5 proof run"))
    assert _proved(store, plan) is not None
    assert list(keyword_best(store, plan, Scope(), 50))[:10] == [m for m, _ in _exact(store, "queue redis")]


def test_the_lists_are_on_by_default():
    assert ranking.KEYWORD_IMPACTS is True


@pytest.fixture
def with_rare(crowded):
    """The crowded store and a term under the budget (`rareword`: 20 memories) beside common ones."""
    for n in range(20):
        crowded.remember(f"rareword {'redis ' * (n % 3)}{'queue ' * (n % 2)}{'filler ' * (n % 5)}note r{n}")
    return crowded


def test_under_the_budget_with_common_terms_the_lists_give_keyword_hits_answer_without_fts5(with_rare, monkeypatch):
    store = with_rare.store
    plan = keyword_plan(store, "rareword redis queue", Scope())
    assert plan.window is None and plan.rare == ("rareword",) and set(plan.common) == {"redis", "queue"}
    today = keyword_hits(store, plan, Scope(), 10)
    assert store.keyword_listed(plan.rare, plan.common, 10, Scope()) is None  # no lists yet: wanted
    store.build_wanted(10)
    assert store.keyword_listed(plan.rare, plan.common, 10, Scope()) is None  # the pairs wanted next
    store.build_wanted(10)

    def no_search(*args, **kwargs):
        raise AssertionError("the lists answer: no FTS5 search")

    with monkeypatch.context() as m:
        m.setattr(store, "keyword", no_search)
        got = keyword_best(store, plan, Scope(), 10)
    assert list(got) == list(today)
    assert list(got.values()) == pytest.approx(list(today.values()), rel=1e-12)


def test_under_the_budget_a_write_since_the_lists_leaves_fts5_in_charge(with_rare):
    store = with_rare.store
    plan = keyword_plan(store, "rareword redis queue", Scope())
    for _ in range(2):
        store.keyword_listed(plan.rare, plan.common, 10, Scope())
        store.build_wanted(10)
    assert store.keyword_listed(plan.rare, plan.common, 10, Scope()) is not None
    with_rare.remember("rareword rareword rareword redis queue")  # a new best the lists do not hold
    assert store.keyword_listed(plan.rare, plan.common, 10, Scope()) is None
    assert keyword_best(store, plan, Scope(), 10) == keyword_hits(store, plan, Scope(), 10)


def test_a_proof_that_failed_is_not_tried_again_until_its_lists_or_the_index_change(crowded, monkeypatch):
    """At 1M a failing proof cost 25-40 ms before today's search ran, at every recall of the query: it is
    remembered with the lists (their rows and pairs) and the index it read, and tried again once they change."""
    store = crowded.store
    _lists_without_pairs(store)
    monkeypatch.setattr(impacts, "RESOLVE_MAX", 0)
    plans = [keyword_plan(store, q, Scope()) for q in QUERIES]
    failing = [p for p in plans if _proved(store, p) is None]
    assert failing
    tried = []
    real = type(store)._proved_listed
    monkeypatch.setattr(type(store), "_proved_listed", lambda self, *a: tried.append(a) or real(self, *a))
    for plan in failing:
        assert _proved(store, plan) is None
        assert keyword_best(store, plan, Scope(), 50) == keyword_hits(store, plan, Scope(), 50)
    assert tried == []
    store.build_wanted(100)  # the pairs the failed proofs wanted: the lists changed
    assert any(_proved(store, p) is not None for p in failing)
    assert tried


def test_a_proof_short_for_its_floors_builds_its_lists_deeper(crowded, monkeypatch):
    """When the floors' sum binds and too many memories hold every term to score them (at 1M, 'who reviews
    pull requests on Mondays': 4,587), the proof's terms are built again at DEEP_SIZE (lower floors), after
    which it proves the exact top 10."""
    store = crowded.store
    monkeypatch.setattr(impacts, "LIST_SIZE", 10)  # floors whose sum binds
    monkeypatch.setattr(impacts, "DEEP_SIZE", 400)  # every match: floors of 0
    monkeypatch.setattr(impacts, "_deeper", {})
    monkeypatch.setattr(impacts, "RESOLVE_MAX", 2)
    plans = {q: keyword_plan(store, q, Scope()) for q in QUERIES}
    for _ in range(4):  # the lists, the deep ones, their pairs
        for query in QUERIES:
            _proved(store, plans[query])
        store.build_wanted(100)
    assert impacts._deeper and not any(impacts._deeper.values())  # wanted deeper, and built
    deep = {term for _, term in impacts._deeper}
    for query in QUERIES:
        assert _proved(store, plans[query]) is not None, query
        got = keyword_best(store, plans[query], Scope(), 50)
        assert list(got)[:10] == [m for m, _ in _exact(store, query)], query
    sizes = dict(store.db.conn.execute("SELECT term, count(*) FROM keyword_impacts GROUP BY term"))
    assert all(sizes[t] > 10 for t in deep)


def test_under_the_budget_nothing_is_wanted_that_could_not_answer(with_rare, monkeypatch):
    """In threads, or with a rare term of more matches than a list holds, the lists cannot give keyword_hits'
    answer: nothing is wanted (the builder would rank those terms for no use)."""
    store = with_rare.store
    impacts._take(store.db, 10_000, 0)
    plan = keyword_plan(store, "rareword redis queue", Scope())
    assert store.keyword_listed(plan.rare, plan.common, 10, Scope(threads=("t1",))) is None
    monkeypatch.setattr(impacts, "LIST_SIZE", 19)  # rareword: 20 matches
    assert store.keyword_listed(plan.rare, plan.common, 10, Scope()) is None
    assert impacts.wanted(store.db) == []
    monkeypatch.setattr(impacts, "LIST_SIZE", 60)
    assert store.keyword_listed(plan.rare, plan.common, 10, Scope()) is None
    assert impacts.wanted(store.db)  # now it can: the lists are wanted


@pytest.fixture
def threaded(service, monkeypatch):
    """Four threads spread over one file (as bench/scale.py's: memory n in thread n % 4) and some global
    memories; every term under the budget, in no thread common: the usual plan in a thread, rare terms alone."""
    rng = random.Random(5)
    words = ["kafka", "grafana", "sentry", "terraform"]
    for n in range(240):
        picked = [w for w in words if rng.random() < 0.12] or ["misc"]
        picked += [w for w in picked if rng.random() < 0.4] + ["filler"] * rng.randrange(0, 10)
        rng.shuffle(picked)
        service.remember(" ".join(picked) + f" note {n}", thread="global" if n % 10 == 9 else f"t{n % 4}")
    monkeypatch.setattr(impact_listed, "SCOPED_FROM", 0)  # a file this small keeps no thread's lists otherwise
    return service


def _in_thread(service, thread="t1"):
    return Scope(threads=service._read_threads(thread))


def test_in_a_thread_the_lists_give_keyword_hits_answer_and_counts_without_fts5(threaded, monkeypatch):
    """In a thread spread over a million-memory file, bm25 walked each term's whole doclist in the file for
    its IDF (4-26 ms a term): with each term's list in each thread of the scope built (the thread's and the
    global memories'), the plan's counts and the search come from the lists, the same ranks, no FTS5 search."""
    store, scope = threaded.store, _in_thread(threaded)
    queries = ["kafka grafana", "sentry terraform kafka", "grafana", "terraform misc"]
    plans = {q: keyword_plan(store, q, scope) for q in queries}
    assert all(p.window is None and not p.common and p.rare for p in plans.values())
    today = {q: keyword_hits(store, p, scope, 10) for q, p in plans.items()}
    assert all(store.keyword_scoped(p.rare, (), 10, scope) is None for p in plans.values())  # no lists yet: wanted
    assert store.build_wanted(100) > 0
    counted = {q: {t: store.match_count(KeywordQuery((t,)), 100, scope) for t in p.rare} for q, p in plans.items()}

    def no_search(*args, **kwargs):
        raise AssertionError("the lists answer: no FTS5 search")

    with monkeypatch.context() as m:
        m.setattr(store, "keyword", no_search)
        m.setattr(store, "match_count", no_search)
        for query, plan in plans.items():
            assert store.scoped_counts(list(plan.rare), scope, 100) == counted[query]
            assert keyword_plan(store, query, scope) == plan
            got = keyword_best(store, plan, scope, 10)
            assert list(got) == list(today[query]), query
            assert list(got.values()) == pytest.approx(list(today[query].values()), rel=1e-12)
    held = {m for q in queries for m in keyword_best(store, plans[q], scope, 10)}
    assert {r.thread for r in store.get(held).values()} == {"t1", ""}  # the thread's and the global memories


def test_in_a_thread_a_write_since_the_lists_leaves_fts5_in_charge(threaded):
    store, scope = threaded.store, _in_thread(threaded)
    plan = keyword_plan(store, "kafka grafana", scope)
    store.keyword_scoped(plan.rare, (), 10, scope)
    store.build_wanted(100)
    assert store.keyword_scoped(plan.rare, (), 10, scope) is not None
    threaded.remember("kafka kafka kafka grafana", thread="t1")  # a new best the lists do not hold
    assert store.keyword_scoped(plan.rare, (), 10, scope) is None
    assert store.scoped_counts(list(plan.rare), scope, 100) == {}
    best = keyword_best(store, plan, scope, 10)
    assert best == keyword_hits(store, plan, scope, 10)
    assert store.get([next(iter(best))])[next(iter(best))].content == "kafka kafka kafka grafana"
    store.build_wanted(100)  # built again on this index: the lists answer again, with the new memory
    assert store.keyword_scoped(plan.rare, (), 10, scope) == best


def test_in_a_thread_past_the_lists_size_or_in_a_small_file_nothing_is_listed(threaded, monkeypatch):
    store, scope = threaded.store, _in_thread(threaded)
    plan = keyword_plan(store, "kafka", scope)
    monkeypatch.setattr(impact_listed, "SCOPED_MAX", 3)
    monkeypatch.setattr(impact_listed, "_unlisted", {})
    store.keyword_scoped(plan.rare, (), 10, scope)
    store.build_wanted(100)
    assert (impacts._key(store.db), impact_listed.scoped_key("kafka", scope_token("default", "t1"))) in impact_listed._unlisted
    assert store.keyword_scoped(plan.rare, (), 10, scope) is None
    monkeypatch.setattr(impact_listed, "SCOPED_MAX", 20_000)
    monkeypatch.setattr(impact_listed, "SCOPED_FROM", 10_000)
    impacts._take(store.db, 10_000, 0)
    assert store.keyword_scoped(plan.rare, (), 10, scope) is None
    assert impacts.wanted(store.db) == []


def _listed(store):
    with store.db.read() as conn:
        return {r[0] for r in conn.execute("SELECT term FROM keyword_impact_terms WHERE instr(term, ' ') > 0")}


@pytest.fixture
def budget(monkeypatch):
    """The thread lists' budget bookkeeping of a fresh process."""
    for name in ("_used", "_scoped_rows", "_pruned", "_pruned_mark"):
        monkeypatch.setattr(impact_listed, name, {})


def test_past_the_thread_lists_budget_the_least_recently_used_go_and_answers_stay(threaded, budget, monkeypatch):
    """Every (term, thread) a recall asks for adds a list: past SCOPED_ROWS the builder drops the lists used
    longest ago (a use recorded in memory, written by the builder), and FTS5 answers for them, the same ranks."""
    store, scope = threaded.store, _in_thread(threaded)
    queries = ("kafka", "grafana", "sentry", "terraform")
    plans = {q: keyword_plan(store, q, scope) for q in queries[:3]}  # their counts want their lists
    store.build_wanted(100)  # built in that order: kafka's the oldest
    assert store.keyword_scoped(plans["kafka"].rare, (), 10, scope) is not None  # and now the most recently used
    plans["terraform"] = keyword_plan(store, "terraform", scope)
    today = {q: keyword_hits(store, p, scope, 10) for q, p in plans.items()}
    rows = {q: store.match_count(KeywordQuery((q,)), 1000, scope) for q in queries}
    monkeypatch.setattr(impact_listed, "SCOPED_ROWS", rows["kafka"] + rows["terraform"])
    store.build_wanted(100)
    tokens = [scope_token("default", "t1"), scope_token("default", "")]
    assert _listed(store) == {impact_listed.scoped_key(t, tok) for t in ("kafka", "terraform") for tok in tokens}
    with store.db.read() as conn:
        assert conn.execute("SELECT count(*) FROM keyword_impacts WHERE instr(term, ' ') > 0 "
                            "AND term NOT LIKE 'kafka %' AND term NOT LIKE 'terraform %'").fetchone()[0] == 0
        assert impact_listed._scoped_size(conn) == impact_listed.SCOPED_ROWS
    assert store.keyword_scoped(plans["grafana"].rare, (), 10, scope) is None  # dropped: FTS5 answers
    assert store.keyword_scoped(plans["kafka"].rare, (), 10, scope) is not None
    for query, plan in plans.items():
        assert keyword_best(store, plan, scope, 10) == today[query], query


def test_the_lists_of_a_thread_with_no_memory_left_are_dropped(threaded, budget, monkeypatch):
    store = threaded.store
    for thread in ("t1", "t2"):
        scope = _in_thread(threaded, thread)
        store.keyword_scoped(keyword_plan(store, "kafka", scope).rare, (), 10, scope)
        store.build_wanted(100)
    gone = scope_token("default", "t2")
    assert any(term.endswith(gone) for term in _listed(store))
    for memory in list(store.get(range(1, 1000)).values()):
        if memory.thread == "t2":
            threaded.forget(memory.id)
    monkeypatch.setattr(impact_listed, "PRUNE_EVERY", 0.0)
    scope = _in_thread(threaded, "t1")
    store.keyword_scoped(keyword_plan(store, "grafana", scope).rare, (), 10, scope)
    store.build_wanted(100)  # the builder's next store drops them
    assert {"kafka", "grafana"} <= {term.split(" ")[0] for term in _listed(store)}
    left = _listed(store)
    assert not any(term.endswith(gone) for term in left)
    assert impact_listed.scoped_key("kafka", scope_token("default", "t1")) in left
    with store.db.read() as conn:
        assert conn.execute("SELECT count(*) FROM keyword_impacts WHERE term LIKE ?", (f"% {gone}",)).fetchone()[0] == 0


def test_a_thread_recalled_before_its_first_memory_keeps_its_lists_while_used(threaded, budget):
    """Its scope token is in no memory yet, as a thread gone: its (empty) lists are dropped only when neither
    built nor used since the builder's last pass (else every pass would drop them and recalls want them back)."""
    store, fresh, busy = threaded.store, Scope(threads=threaded._read_threads("t9")), _in_thread(threaded, "t1")
    store.keyword_scoped(keyword_plan(store, "kafka", fresh).rare, (), 10, fresh)
    store.build_wanted(100)
    empty = impact_listed.scoped_key("kafka", scope_token("default", "t9"))
    assert empty in _listed(store)
    assert store.keyword_scoped(["kafka"], (), 10, fresh) is not None  # used
    store.keyword_scoped(keyword_plan(store, "grafana", busy).rare, (), 10, busy)
    impact_listed._pruned[impacts._key(store.db)] = -1e18  # a pass at the builder's next store (one a step)
    store.build_wanted(100)
    assert empty in _listed(store)
    store.keyword_scoped(keyword_plan(store, "sentry", busy).rare, (), 10, busy)
    impact_listed._pruned[impacts._key(store.db)] = -1e18
    store.build_wanted(100)  # not used since the last pass: dropped
    assert empty not in _listed(store)
