import sqlean as sqlite3
import pytest
from hypothesis import given, settings, strategies as st

from server import textindex as ti


def _fts():
    c = sqlite3.connect(":memory:")
    c.execute(f"create virtual table f using fts5(content, context, tokenize='{ti.FTS_TOKENIZER}')")
    c.executemany("insert into f(rowid, content, context) values (?, ?, ?)", [
        (1, ti.index_text("parse_config lives in server/store.py"), ""),
        (2, ti.index_text("call getUserPreferences() then HTTPServerError"), ""),
        (3, ti.index_text("Yes, last Friday!"), ti.context_text(["Did you paint the sunrise?"])),
        (4, ti.index_text("We went running in the park"), ""),
    ])
    return c


def _search(c, query):
    expr = ti.match_expression(query)
    if expr is None:
        return []
    return [r for (r,) in c.execute("select rowid from f where f match ? order by bm25(f, 1.0, 0.5)", (expr,))]


def test_split_identifier():
    assert ti.split_identifier("parse_config") == ["parse", "config"]
    assert ti.split_identifier("parseConfig") == ["parse", "Config"]
    assert ti.split_identifier("HTTPServerError") == ["HTTP", "Server", "Error"]
    assert ti.split_identifier("server/store.py") == ["server", "store", "py"]
    assert ti.split_identifier("word") == ["word"]


def test_index_text_adds_identifier_parts():
    t = ti.index_text("see getUserPreferences in client/prefs.ts")
    assert t.startswith("see getUserPreferences in client/prefs.ts")
    for w in ("get", "user", "preferences", "getuserpreferences", "clientprefsts"):
        assert w in t.split()
    assert ti.index_text("plain words only") == "plain words only"
    assert ti.index_text("a", "ctx").endswith("\nctx")


def test_query_terms_stopwords_and_possessive():
    assert ti.query_terms("What is Nate's favorite genre?") == ["nate", "favorite", "genre"]
    assert ti.query_terms("the of and") == []
    assert "parseconfig" in ti.query_terms("where is parse_config defined")


def test_identifier_queries_find_memories():
    c = _fts()
    assert _search(c, "where is parse_config defined")[0] == 1
    assert _search(c, "parseConfig")[0] == 1
    assert _search(c, "server/store.py")[0] == 1
    assert _search(c, "get user preferences")[0] == 2
    assert _search(c, "HTTPServerError")[0] == 2
    assert _search(c, "runs")[0] == 4  # porter stemming
    assert _search(c, "when did she paint a sunrise")[0] == 3  # context column


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
    expr = ti.match_expression(q)
    if expr is not None:
        c.execute("select rowid from f where f match ?", (expr,)).fetchall()
        for term in expr.split(" OR "):
            assert term.startswith('"') and term.endswith('"')


@pytest.mark.parametrize("q", ["", "   ", "?!", "the", "what is it", "***", "()"])
def test_nothing_searchable_is_none(q):
    assert ti.match_expression(q) is None


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_any_text_gives_valid_expression(q):
    c = _fts()
    expr = ti.match_expression(q)
    if expr is not None:
        c.execute("select rowid from f where f match ?", (expr,)).fetchall()


def test_term_cap():
    assert len(ti.query_terms(" ".join(f"w{i}x" for i in range(200)))) <= ti.MAX_QUERY_TERMS
