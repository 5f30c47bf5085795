"""Keyword impact lists' scores without an FTS5 search: the lists read once into arrays, and a memory's
terms counted again from its own text (impacts.py's proofs use both).

At a million memories every FTS5 statement that ranks by bm25 walks each query term's whole doclist for
its IDF (2-11 ms a common term, twice a search), whatever few rows it ranks. A proof from the lists
needs no IDF walk (a list stores each term's match count), only each member's term frequencies and
length: the lists hold them as f (bm25 without IDF) for their own members, and `resolve` reads them for
any other memory by tokenizing its indexed text again with FTS5's own tokenizer in a small in-memory
table (fts5vocab counts the instances), checked against the keyword index's own column sizes.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from server import ranking
from server.models import CONVERSATION_KIND
from server.storage.sqlite import fts
from server.storage.sqlite.common import _in
from server.storage.sqlite.migrations import FTS_TOKENIZER
from server.textindex import index_text

#: Lists kept in memory per process (numpy arrays of ids and f; ~32 KB each at LIST_SIZE), most recent
#: use last: read from SQLite once per build instead of at every recall.
CACHED_LISTS = 128
#: FTS5's bm25 constants (fts5_aux.c) and the keyword index's column weights (common._BM25: text,
#: context, scope).
K1, B = 1.2, 0.75
WEIGHTS = (1.0, ranking.CONTEXT_COLUMN_WEIGHT, 0.0)


def _varint(blob: bytes, pos: int) -> tuple[int, int]:
    """SQLite's varint (FTS5's record format): big-endian 7-bit groups, a ninth byte of 8 bits."""
    value = 0
    for i in range(9):
        byte = blob[pos + i]
        if i == 8:
            return (value << 8) | byte, pos + 9
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return value, pos + i + 1
    raise ValueError("bad varint")  # pragma: no cover - the loop returns by the ninth byte


_cache: OrderedDict[tuple, tuple] = OrderedDict()
_cache_lock = threading.Lock()


def members_of(conn: Any, store_key: str, row: tuple) -> tuple[Any, Any]:
    """A list's rows (ids, f) as arrays, kept in memory while its keyword_impact_terms row and its row count
    are the same (a rebuild changes its watermark, rows or tokens, a pair its count: the key misses)."""
    count = conn.execute("SELECT count(*) FROM keyword_impacts WHERE term = ?", (row[0],)).fetchone()[0]
    key = (store_key, *row, count)  # pairs (build_pair) add rows to a list without changing its row
    with _cache_lock:
        found = _cache.get(key)
        if found is not None:
            _cache.move_to_end(key)
            return found
    # lazy: numpy (~0.4 s at start, python -X importtime) for the one-shot processes (hooks) that open the
    # store and never prove a list (a server has it loaded by its vectors)
    import numpy as np

    got = conn.execute("SELECT memory_id, f FROM keyword_impacts WHERE term = ?", (row[0],)).fetchall()
    found = (np.array([g[0] for g in got], dtype=np.int64), np.array([g[1] for g in got], dtype=np.float64))
    with _cache_lock:
        _cache[key] = found
        while len(_cache) > CACHED_LISTS:
            _cache.popitem(last=False)
    return found


def bm25_f(freq: float, length: int, avgdl: float) -> float:
    """FTS5's bm25 of one term without its IDF (fts5_aux.c): `freq` its column-weighted hits in a row of
    `length` tokens (every column)."""
    return freq * (K1 + 1.0) / (freq + K1 * (1 - B + B * length / avgdl)) if freq else 0.0


_reader = threading.local()


def _tokens(module: Any) -> Any:
    """This thread's in-memory FTS5 table with the keyword index's columns and tokenizer, and its
    per-row instances (fts5vocab): FTS5's own tokenizer counts a row's terms (resolve)."""
    conn = getattr(_reader, "conn", None)
    if conn is None:
        conn = module.connect(":memory:")
        conn.execute(f"CREATE VIRTUAL TABLE r USING fts5(text, context, scope, tokenize='{FTS_TOKENIZER}')")
        conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(r, 'instance')")
        _reader.conn = conn
    return conn


def resolve(conn: Any, module: Any, ids: Sequence[int], terms: Sequence[str],
            avgdl: float) -> dict[int, list[float]] | None:
    """Per memory of `ids`, each term's f (bm25 without IDF) as the keyword index holds it now, read
    from the memory's own text: its indexed columns (fts.insert's: index_text, a turn's context, the
    scope token) are tokenized again by FTS5 in a small in-memory table, and kept only when the row's
    column sizes there equal the keyword index's (memory_fts_docsize): a memory whose indexed text
    cannot be rebuilt (edited through another path, a context changed since) is left out, not guessed;
    None when a term is not one token to FTS5.
    No statement runs on the keyword index but a docsize lookup: its terms' doclists are never walked."""
    found = conn.execute(
        f"SELECT m.id, m.namespace, m.thread, m.kind, m.content, d.sz FROM memories m "
        f"JOIN memory_fts_docsize d ON d.id = m.id WHERE m.id IN {_in(ids)}", list(ids),
    ).fetchall()
    docs, sizes = [], {}
    for mid, namespace, thread, kind, content, size in found:
        context = fts.turn_context(conn, mid) if kind == CONVERSATION_KIND else None
        docs.append((mid, index_text(content), context, fts.scope_token(namespace, thread)))
        sizes[mid] = bytes(size)
    side = _tokens(module)
    side.execute("DELETE FROM r")
    side.executemany("INSERT INTO r(rowid, text, context, scope) VALUES (?, ?, ?, ?)", docs)
    side.executemany("INSERT INTO r(rowid, text) VALUES (?, ?)", [(-1 - i, t) for i, t in enumerate(terms)])
    stems: dict[int, list[str]] = {}
    for doc, term in side.execute("SELECT doc, term FROM v WHERE doc < 0"):
        stems.setdefault(-1 - doc, []).append(term)
    if any(len(stems.get(i, ())) != 1 for i in range(len(terms))):
        side.execute("DELETE FROM r")
        return None  # a term FTS5 reads as a phrase (or as nothing): not one doclist per term, left to FTS5
    position = {stems[i][0]: i for i in range(len(terms))}
    freq: dict[int, list[float]] = {}
    marks = ",".join("?" * len(position))
    for term, doc, col, hits in side.execute(
        f"SELECT term, doc, col, count(*) FROM v WHERE term IN ({marks}) AND doc > 0 GROUP BY term, doc, col",
        list(position),
    ):
        freq.setdefault(doc, [0.0] * len(terms))[position[term]] += hits * WEIGHTS[("text", "context", "scope").index(col)]
    out = {}
    for doc, size in side.execute("SELECT id, sz FROM r_docsize WHERE id > 0"):
        if bytes(size) != sizes.get(doc):
            continue  # its indexed text is not what the keyword index holds: not scored here
        length, pos, blob = 0, 0, bytes(size)
        while pos < len(blob):
            count, pos = _varint(blob, pos)
            length += count
        out[doc] = [bm25_f(x, length, avgdl) for x in freq.get(doc, [0.0] * len(terms))]
    side.execute("DELETE FROM r")
    return out


def gaps(floors: Sequence[float]) -> tuple[list[float], list[float]]:
    """Per set of lists a memory is in (a bit mask): the most the terms of the other lists can add to
    its score when it may hold them all (`open`), and when it does not hold at least one of them
    (`short`: their floors less the smallest)."""
    full = (1 << len(floors)) - 1
    opened, short = [], []
    for mask in range(full + 1):
        missing = [f for i, f in enumerate(floors) if not mask >> i & 1]
        opened.append(sum(missing))
        short.append(sum(missing) - min(missing) if missing else 0.0)
    return opened, short
