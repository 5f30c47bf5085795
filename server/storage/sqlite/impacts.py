"""Keyword impact lists: each common term's best memories by its own bm25, and the proof they hold a query's top.

Past the keyword budget (every query word in more than ranking.KEYWORD_MATCH_BUDGET memories: a
million-memory store) recall ranks a window of the matches and loses half of bm25's top 10. FTS5's
bm25 of an OR query is the sum over its terms of each term's own bm25, IDF(term) x f(frequency,
length), so a memory in none of the query terms' lists scores at most the sum of their floors (each
list's first left-out memory's score). Scoring the lists' union exactly and finding its k-th best
above that sum proves the union's top k is the whole query's (threshold algorithm / MaxScore;
bench/keyword_impacts.py measured it at 1M: R = 2,000 held the top 10 for 19/19 queries, proved 18).

The lists are a derived index that verifies itself at every use, so a stale one is never wrong:
- A list stores f (bm25 without IDF) of its floor, and the term's match count, the index's rows and
  tokens and its largest rowid (the watermark) when it was built. At a query the floor's score is
  bounded from what changed since: FTS5's IDF is log((N - n + 0.5) / (n + 0.5)) (at least 1e-6),
  taken at the fewest matches the term can have now (built count minus every row that can have gone),
  and f grows by at most avgdl_now / avgdl_then when the average length grows (f's length term is
  dl / avgdl; a shorter average only lowers it).
- A memory written since (rowid above the watermark) is scored with the union: no write hook.
- A memory indexed again under an id at or below a watermark (an edit, a restore) is `touched`
  (fts_insert's hook below) and scored with the union from then on.
- A forgotten memory leaves the keyword index, so it is never scored; the floor still bounds every
  memory outside the list (a deletion only lowers what is left).
When the proof fails (a list missing and not built, or the k-th best not above the bound), the
caller keeps today's bounded search. PostgreSQL has no lists (its keyword search is unchanged).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from server.storage.sqlite.common import _BM25, _quote

#: Memories per term list: at 1M, 2,000 held and proved the top 10 for 18 of 19 queries (500: 12).
LIST_SIZE = 2_000
#: Lists (re)built by one query at most: a build ranks all of a term's matches (0.3-1 s at 1M, loaded)...
BUILDS_PER_QUERY = 4
#: ... and no more once a query has spent this long building (the rest: at the next queries).
BUILD_SECONDS = 1.0
#: A list is built again once this many memories were written after it (they are scored with every
#: union until then: the cost grows, the answer stays exact).
STALE_AFTER = LIST_SIZE
#: More touched memories than this and every list is dropped (rebuilt as queries need them).
TOUCHED_MAX = LIST_SIZE


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


def totals(conn: Any) -> tuple[int, int]:
    """The keyword index's rows and tokens (all columns): FTS5's averages record, which bm25 reads too."""
    row = conn.execute("SELECT block FROM memory_fts_data WHERE id = 1").fetchone()
    if row is None or not row[0]:
        return 0, 0
    blob = bytes(row[0])
    rows, pos = _varint(blob, 0)
    tokens = 0
    while pos < len(blob):
        count, pos = _varint(blob, pos)
        tokens += count
    return rows, tokens


def idf(rows: int, matches: int) -> float:
    """FTS5's bm25 IDF (fts5_aux.c)."""
    if rows <= 0:
        return 1e-6
    value = math.log((rows - matches + 0.5) / (matches + 0.5))
    return value if value > 0 else 1e-6


def top_rowid(conn: Any) -> int:
    row = conn.execute("SELECT rowid FROM memory_fts ORDER BY rowid DESC LIMIT 1").fetchone()
    return row[0] if row else 0


def fingerprint(conn: Any) -> tuple:
    """What changes with every write to the keyword index: FTS5's averages and structure records (the
    structure's cookie grows with each write). A list read in one snapshot is stored only when this
    is unchanged in the write transaction: an edit in between would otherwise escape both the list
    and `touch` (which marks only ids under a stored watermark)."""
    return tuple(r[0] for r in conn.execute("SELECT block FROM memory_fts_data WHERE id IN (1, 10) ORDER BY id"))


def build(conn: Any, term: str, size: int | None = None) -> tuple[tuple, list[int]]:
    """A term's list (LIST_SIZE members unless `size`) read in one snapshot: (its keyword_impact_terms
    row, its members)."""
    size = size or LIST_SIZE
    rows, tokens = totals(conn)
    expression = _quote(term)
    matches = conn.execute("SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ?", (expression,)).fetchone()[0]
    ranked = conn.execute(
        f"SELECT rowid, {_BM25} AS rank FROM memory_fts WHERE memory_fts MATCH ? ORDER BY rank, rowid LIMIT ?",
        (expression, size + 1),
    ).fetchall()
    weight = idf(rows, matches)
    # The first left-out memory's f bounds every memory outside the list (none left out: 0).
    floor = -ranked[size][1] / weight if len(ranked) > size else 0.0
    return (term, floor, matches, rows, tokens, top_rowid(conn)), [r[0] for r in ranked[:size]]


def store(conn: Any, row: tuple, members: Sequence[int], seen: tuple) -> bool:
    """Store a list built from a snapshot whose fingerprint was `seen`; False (nothing stored) when the
    index changed since."""
    if fingerprint(conn) != seen:
        return False
    conn.execute("DELETE FROM keyword_impacts WHERE term = ?", (row[0],))
    conn.executemany("INSERT INTO keyword_impacts(term, memory_id) VALUES (?, ?)", [(row[0], m) for m in members])
    conn.execute(
        "INSERT OR REPLACE INTO keyword_impact_terms(term, floor, matches, rows, tokens, watermark) "
        "VALUES (?, ?, ?, ?, ?, ?)", row,
    )
    return True


def lists(conn: Any, terms: Sequence[str]) -> dict[str, tuple]:
    """The stored keyword_impact_terms rows of these terms."""
    marks = ",".join("?" * len(terms))
    return {r[0]: r for r in conn.execute(
        f"SELECT term, floor, matches, rows, tokens, watermark FROM keyword_impact_terms WHERE term IN ({marks})",
        list(terms),
    )}


def bound(listed: Sequence[tuple], rows: int, tokens: int, top: int) -> float:
    """The most a memory in none of these lists (and not written or touched since) can score now."""
    total = 0.0
    for _, floor, matches, rows_then, tokens_then, watermark in listed:
        if floor <= 0:
            continue
        added = max(0, top - watermark)
        gone = max(0, rows_then + added - rows)  # rows that can have left the index since
        longer = (tokens / rows) / (tokens_then / rows_then) if rows and rows_then and tokens_then else 1.0
        total += idf(rows, max(0, matches - gone)) * floor * max(1.0, longer)
    return total * (1 + 1e-9) + 1e-12


def score(conn: Any, expression: str, terms: Sequence[str], since: int, fetch: int) -> list[tuple[int, float]]:
    """The best `fetch` of the lists' union (with every memory written above `since` and every touched
    one), each ranked by the whole expression's bm25. The candidates are a filter (`+rowid`): bm25 runs
    only for them, FTS5 walks each term's doclist once (for its IDF and the match)."""
    marks = ",".join("?" * len(terms))
    sql = (
        f"SELECT rowid, {_BM25} AS rank FROM memory_fts WHERE memory_fts MATCH ? AND ("
        f"+rowid IN (SELECT memory_id FROM keyword_impacts WHERE term IN ({marks})) OR +rowid > ? "
        "OR +rowid IN (SELECT memory_id FROM keyword_impact_touched)) ORDER BY rank, rowid LIMIT ?"
    )
    return [(r[0], r[1]) for r in conn.execute(sql, (expression, *terms, since, fetch))]


def touch(conn: Any, memory_id: int) -> None:
    """A memory indexed again at or below a list's watermark (an edit, a restore) is scored with every
    union from now on: its new text may beat a floor without being in the list."""
    added = conn.execute(
        "INSERT OR IGNORE INTO keyword_impact_touched(memory_id) SELECT ? "
        "WHERE ? <= (SELECT max(watermark) FROM keyword_impact_terms)",
        (memory_id, memory_id),
    ).rowcount
    if added and conn.execute("SELECT count(*) FROM keyword_impact_touched").fetchone()[0] > TOUCHED_MAX:
        conn.execute("DELETE FROM keyword_impact_terms")
        conn.execute("DELETE FROM keyword_impacts")
        conn.execute("DELETE FROM keyword_impact_touched")
