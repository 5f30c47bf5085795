"""Hybrid ranking (server/ranking.py): keyword and vector fusion, neighbouring turns, a superseded memory below its replacement, what a score says, term coverage."""

from datetime import datetime, timedelta

import pytest

from server import ranking as rk
from server.ranking import Doc

T0 = datetime(2025, 3, 1, 10, 0)


def docs(**over):
    d = {i: Doc(content=f"memory {i}", created_at=T0 + timedelta(days=i)) for i in range(1, 8)}
    d.update(over)
    return d


def test_empty():
    assert rk.rank("anything", {}, {}, {}, k=5) == []


def test_scores_in_unit_range_and_sorted():
    dense = {1: 0.7, 2: 0.4, 3: 0.1}
    kw = {2: -5.0, 3: -1.0}
    res = rk.rank("memory", dense, kw, docs(), k=10)
    scores = [s for _, s in res]
    assert all(0.0 <= s <= 1.0 for s in scores)
    assert scores == sorted(scores, reverse=True)
    assert {i for i, _ in res} == {1, 2, 3}


def test_fusion_weights_both_signals():
    # 2 is best by keyword, 1 best by vector; 3 is good at both and wins
    dense = {1: 0.60, 2: 0.20, 3: 0.55}
    kw = {2: -10.0, 3: -9.0}
    order = [i for i, _ in rk.rank("memory", dense, kw, docs(), k=3)]
    assert order[0] == 3


def test_keyword_only_and_dense_only():
    assert rk.rank("memory", {}, {4: -3.0, 5: -1.0}, docs())[0][0] == 4
    assert rk.rank("memory", {4: 0.2, 5: 0.5}, {}, docs())[0][0] == 5


def test_neighbor_smoothing_breaks_ties():
    d = docs()
    d[1] = Doc("a", T0, neighbors=(2,))
    d[3] = Doc("b", T0, neighbors=())
    d[2] = Doc("c", T0, neighbors=(1,))
    dense = {1: 0.5, 3: 0.5, 2: 0.6}
    order = [i for i, _ in rk.rank("x", dense, {}, d)]
    assert order.index(1) < order.index(3)


def test_superseded_ranks_below_replacement():
    d = docs()
    d[1] = Doc("use postgres for the database", T0, superseded_by=2)
    d[2] = Doc("switch to sqlite", T0 + timedelta(days=8))
    res = rk.rank("database decision", {1: 0.8, 2: 0.3}, {1: -8.0}, d)
    order = [i for i, _ in res]
    assert order.index(2) < order.index(1)
    # a superseded flag without known replacement still halves the score
    d[3] = Doc("old", T0, superseded=True)
    d[4] = Doc("new", T0)
    order = [i for i, _ in rk.rank("x", {3: 0.6, 4: 0.4}, {}, d)]
    assert order == [4, 3]


def test_confidence_separates_unrelated_from_strong():
    d = docs()
    d[1] = Doc("parse_config reads the TOML settings file", T0)
    strong = rk.rank("where is parse_config", {1: 0.55}, {1: -6.0}, d)[0][1]
    weak = rk.rank("banana bread recipe", {1: 0.05, 2: 0.04}, {}, d)[0][1]
    assert strong > 0.8 and weak < 0.1


def test_term_coverage_loose_stemming():
    assert rk.term_coverage(["paint", "sunrise"], "I painted a sunrise") == 1.0
    assert rk.term_coverage(["parse_config"], "see parseConfig") == 1.0
    assert rk.term_coverage(["cats", "dogs"], "I love cats") == 0.5
    assert rk.term_coverage([], "x") == 0.0


def test_context_and_neighbor_ids_respect_gap():
    t = [(10, T0), (11, T0 + timedelta(minutes=1)), (12, T0 + timedelta(minutes=2)),
         (13, T0 + timedelta(hours=5)), (14, T0 + timedelta(hours=5, minutes=3))]
    assert rk.context_ids(t, 0) == []
    assert rk.context_ids(t, 1) == [10]
    assert rk.context_ids(t, 2) == [10, 11]
    assert rk.context_ids(t, 3) == []  # 5 h gap
    assert rk.context_ids(t, 4) == [13]
    assert rk.neighbor_ids(t, 2) == (11,)
    assert rk.neighbor_ids(t, 3) == (14,)
    assert rk.neighbor_ids(t, 1) == (10, 12)


def test_k_limits_output():
    dense = {i: 0.1 * i for i in range(1, 8)}
    assert len(rk.rank("memory", dense, {}, docs(), k=3)) == 3


def _crowd(top: float, rest: float, n: int = 30) -> dict[int, float]:
    return {1: top, **{i: rest for i in range(2, n + 2)}}


def test_confidence_rises_when_the_best_match_stands_out_from_the_crowd():
    d = {i: Doc(f"note {i}", T0) for i in range(1, 40)}
    standing_out = rk.confidence("which queue do we use", _crowd(0.55, 0.20), {}, d, top=1)
    flat_field = rk.confidence("which queue do we use", _crowd(0.55, 0.50), {}, d, top=1)
    assert standing_out > 0.5 > flat_field


def test_confidence_falls_with_query_terms_no_memory_holds():
    d = {i: Doc(f"note {i}", T0) for i in range(1, 40)}
    held = rk.confidence("kubernetes namespace", _crowd(0.5, 0.25), {}, d, top=1, missing=0.0)
    unknown = rk.confidence("kubernetes namespace", _crowd(0.5, 0.25), {}, d, top=1, missing=1.0)
    assert held > 0.5 and unknown < held / 3


def test_confidence_without_a_query_vector_is_the_term_coverage():
    d = {1: Doc("redis runs on port 6380", T0), 2: Doc("postgres runs on 5432", T0)}
    assert rk.confidence("redis port", {}, {1: -4.0, 2: -1.0}, d, top=1) == 1.0
    assert rk.confidence("redis password", {}, {1: -4.0}, d, top=1) == 0.5


def test_confidence_of_an_exact_identifier_is_at_least_its_coverage():
    flat = _crowd(0.3, 0.3)
    d = {i: Doc(f"note {i}", T0) for i in range(1, 40)}
    d[1] = Doc("parse_config reads the TOML settings file", T0, exact=True)
    assert rk.confidence("parse_config", flat, {1: -6.0}, d, top=1) == 1.0
    d[1] = Doc("parse_config reads the TOML settings file", T0)
    assert rk.confidence("parse_config", flat, {1: -6.0}, d, top=1) < 0.5


def test_a_keyword_hit_holding_one_common_word_of_the_query_does_not_bury_what_the_embedding_found():
    # "what interpreter release should I use for the order service?": the best keyword hit holds
    # only "release" (its bm25 ratio is 1.0 however little of the query it holds); the memory the
    # embedding ranks first holds none of the words. Weighed by coverage, the keyword hit no longer
    # outranks it.
    query = "what interpreter release should I use for the order service"
    d = docs()
    d[1] = Doc("The release manager this quarter is Femi.", T0)
    d[2] = Doc("orders-api targets Python 3.12.", T0)
    d[3] = Doc("Release 2.14 of the order service uses the new interpreter.", T0)
    dense, kw = {1: 0.2, 2: 0.7, 3: 0.3}, {1: -6.0, 3: -5.5}
    order = [i for i, _ in rk.rank(query, dense, kw, d)]
    assert order.index(2) < order.index(1)
    # A keyword hit holding most of the query keeps nearly its whole ratio and stays first.
    assert order[0] == 3
    # Without the query's terms the ratio is unweighed: the one-word hit wins on keywords alone.
    base = rk.fuse(dense, kw, d)
    assert base[1] > base[2]
    weighed = rk.fuse(dense, kw, d, rk.textindex.query_terms(query))
    assert weighed[1] < weighed[2] and weighed[3] == max(weighed.values())


def test_a_keyword_hit_holding_a_small_share_of_the_query_weighs_that_share_in_full():
    """Found on a fresh project (bench/data/updates/marlin.json), where "model" and "run" are in many
    memories: for "what's the accelerator cap for one model-fitting run?" every memory holding those two
    words ranked above what the embedding put near the top. Weighed by the square root of its share
    (2 of the query's 7 terms: 0.53 of its bm25 ratio), such a hit still outranked a memory the embedding
    scores 0.40 and that holds none of the words; weighed by the share itself (0.29) it does not."""
    query = "what's the accelerator cap for one model-fitting run?"
    d = docs()
    d[1] = Doc("Run the model tests with `pytest -n 4`.", T0)
    d[2] = Doc("A training job may use at most 8 GPUs.", T0)
    dense, kw = {1: 0.05, 2: 0.40}, {1: -4.0}
    assert rk.term_coverage(rk.textindex.query_terms(query), d[1].content) == pytest.approx(2 / 7)
    assert [i for i, _ in rk.rank(query, dense, kw, d)][0] == 2
