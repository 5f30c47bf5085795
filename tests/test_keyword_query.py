"""Keyword queries as structured values (search.keyword_query, KeywordQuery) and SQLite's rendering of them
(sqlite/store.fts5_match): any user text gives a valid FTS5 MATCH, and no term can act as FTS5 syntax."""

import pytest
import sqlean as sqlite3
from hypothesis import given, settings, strategies as st

from server.search import keyword_query
from server.storage.protocol import KeywordQuery
from server.storage.sqlite.migrations import FTS_TOKENIZER
from server.storage.sqlite.store import fts5_match


def _fts():
    c = sqlite3.connect(":memory:")
    c.execute(f"create virtual table memory_fts using fts5(text, context, tokenize='{FTS_TOKENIZER}')")
    c.executemany("insert into memory_fts(rowid, text, context) values (?, ?, ?)", [
        (1, "redis queue worker", ""), (2, "redis cache", ""), (3, "queue retries", "redis said before"),
        (4, 'a "quoted" NEAR(word) OR text', ""),
    ])
    return c


def _matches(c, query):
    expression = fts5_match(query)
    if expression is None:
        return []
    return sorted(r for (r,) in c.execute("select rowid from memory_fts where memory_fts match ?", (expression,)))


def test_a_query_renders_each_rule_in_fts5():
    """The exact expressions recall's keyword search has always run (bm25 ranks them the same)."""
    assert fts5_match(KeywordQuery(("redis", "queue"))) == '"redis" OR "queue"'
    assert fts5_match(KeywordQuery(("redis",), also=("queue", "cache"))) == '("redis") AND ("queue" OR "cache")'
    assert fts5_match(KeywordQuery(("redis",), excluded=("queue",))) == '("redis") NOT ("queue")'
    assert fts5_match(KeywordQuery(("redis",), own_text_only=True)) == 'text : "redis"'
    assert fts5_match(KeywordQuery(("redis",), every=("queue", "cache"))) == '(("redis") AND ("queue")) AND ("cache")'
    assert fts5_match(KeywordQuery(())) is None


def test_each_rule_selects_what_it_says():
    c = _fts()
    assert _matches(c, KeywordQuery(("redis",))) == [1, 2, 3]  # the context counts
    assert _matches(c, KeywordQuery(("redis",), own_text_only=True)) == [1, 2]
    assert _matches(c, KeywordQuery(("redis",), also=("queue",))) == [1, 3]
    assert _matches(c, KeywordQuery(("redis",), excluded=("queue",))) == [2]
    assert _matches(c, KeywordQuery(("redis", "retries"), also=("queue",), excluded=("worker",))) == [3]
    assert _matches(c, KeywordQuery(("redis",), every=("queue", "worker"))) == [1]
    assert _matches(c, KeywordQuery(("redis",), every=("queue",))) == [1, 3]


def test_memories_holding_every_term_keep_the_whole_querys_rank():
    """bm25 sees each term of `every` once, as in the plain OR query (search.KeywordPlan ranks by it)."""
    c = _fts()
    c.execute("insert into memory_fts(rowid, text, context) values (5, 'redis queue worker worker cache', '')")

    def ranks(query):
        return dict(c.execute("select rowid, bm25(memory_fts) from memory_fts where memory_fts match ?",
                              (fts5_match(query),)))

    whole = ranks(KeywordQuery(("redis", "queue", "worker")))
    every = ranks(KeywordQuery(("redis",), every=("queue", "worker")))
    assert sorted(every) == [1, 5] and every == pytest.approx({m: whole[m] for m in every})


def test_terms_are_quoted_whatever_they_hold():
    """A term that is FTS5 syntax matches as a word, never as an operator."""
    c = _fts()
    assert _matches(c, KeywordQuery(('"quoted"',))) == [4]
    assert _matches(c, KeywordQuery(("NEAR(word)", "OR", "*", "text : x", '"'))) == [4]
    assert _matches(c, KeywordQuery(("AND",), also=("NOT",), excluded=("(",))) == []


HOSTILE = [
    '"', '""', "'", '"unbalanced', 'a "b" c', "*", "foo*", "*foo", "NEAR(a b, 3)", "NEAR", "OR", "AND", "NOT",
    "a OR", "OR b", "AND NOT OR", "(", ")", "((a)", "a:b", "content:foo", "^start", "col : x", "{a b}: c",
    "-foo", "+bar", "a - b", "~!@#$%^&*()_+`=[]\\;',./{}|:\"<>?", "\x00", "\u00e9t\u00e9 caf\u00e9",
    "\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8", "\U0001F600 emoji", "\u200b", "x" * 5000,
    "word " * 500, "NEAR/2", "a NEAR b", "'; drop table f; --", "\"\"\"\"", "a\"b", "\ttab\nnewline",
]


@pytest.mark.parametrize("q", HOSTILE)
def test_hostile_queries_are_valid_fts(q):
    c = _fts()
    query = keyword_query(q)
    if query is not None:
        expr = fts5_match(query)
        c.execute("select rowid from memory_fts where memory_fts match ?", (expr,)).fetchall()
        for term in expr.split(" OR "):
            assert term.startswith('"') and term.endswith('"')


@pytest.mark.parametrize("q", ["", "   ", "?!", "the", "what is it", "***", "()"])
def test_nothing_searchable_is_none(q):
    assert keyword_query(q) is None


def test_a_query_keeps_its_terms_in_order():
    assert keyword_query("Where is parse_config defined?") == KeywordQuery(("parse", "config", "parseconfig", "defined"))


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80), st.text(max_size=20), st.text(max_size=20), st.booleans())
def test_any_text_gives_valid_expression(q, also, excluded, own):
    c = _fts()
    query = keyword_query(q)
    if query is not None:
        c.execute("select rowid from memory_fts where memory_fts match ?", (fts5_match(query),)).fetchall()
        # the rules' groups hold arbitrary terms too: still valid
        rules = KeywordQuery(query.terms, also=(also,) if also else (), excluded=(excluded,) if excluded else (),
                             own_text_only=own)
        c.execute("select rowid from memory_fts where memory_fts match ?", (fts5_match(rules),)).fetchall()
