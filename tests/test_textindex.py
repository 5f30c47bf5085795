"""Text preparation for the keyword index (server.textindex): identifier parts, query terms."""

import sqlean as sqlite3

from server import textindex as ti
from server.search import keyword_query
from server.storage.sqlite.migrations import FTS_TOKENIZER
from server.storage.sqlite.store import fts5_match


def _fts():
    c = sqlite3.connect(":memory:")
    c.execute(f"create virtual table f using fts5(content, context, tokenize='{FTS_TOKENIZER}')")
    c.executemany("insert into f(rowid, content, context) values (?, ?, ?)", [
        (1, ti.index_text("parse_config lives in server/store.py"), ""),
        (2, ti.index_text("call getUserPreferences() then HTTPServerError"), ""),
        (3, ti.index_text("Yes, last Friday!"), ti.context_text(["Did you paint the sunrise?"])),
        (4, ti.index_text("We went running in the park"), ""),
    ])
    return c


def _search(c, query):
    keyword = keyword_query(query)
    if keyword is None:
        return []
    expr = fts5_match(keyword)
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


def test_term_cap():
    assert len(ti.query_terms(" ".join(f"w{i}x" for i in range(200)))) <= ti.MAX_QUERY_TERMS
