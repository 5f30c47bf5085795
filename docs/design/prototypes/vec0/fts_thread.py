"""Keyword search scoped to one thread at 1M: today's join against three thread-aware layouts.

One scratch database, every layout filled with the same memories (bench/scale.py's synthetic
~200-character notes over 200 threads; the global thread '' holds every 50th memory):
  plain    memory_fts(text, context) - today's table; a thread scope joins `memories` per match
  scoped   memory_fts(text, context, scope): scope holds one token per row, `t<n>` for its
           thread (`g` for global), weight 0 in bm25; a scoped query is `(terms) AND scope:(tN OR g)`
  perthr   one FTS5 table per thread (200 + the global one): a scoped query reads two tables
  stats    (for its cost) a (thread, term) -> memories count table kept beside `plain`, for the
           first --stats-rows rows only (its insert cost per row is the figure)
Each layout's insert time and disk (dbstat) are recorded at build.

Queries: the scale benchmark's questions, as recall builds them (server.textindex terms, OR-ed);
each term's in-scope matches are counted up to the keyword budget first, as keyword_plan does, and
the window (newest 20,000 matches) is used when the count exceeds it. Timed for one thread (thread
+ global) and for every thread, p50/p95, and the agreement of the scoped top 10 with plain's.

    python fts_thread.py --rows 1000000
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from common import SCRATCH, connect, summary, timed, write_result

BUDGET = 20_000
K = 50
WEIGHT = 0.5  # ranking.CONTEXT_COLUMN_WEIGHT
THREADS = 200


def texts(n: int) -> list[str]:
    from scale import BASE_TEXTS, base_texts

    base = base_texts(BASE_TEXTS)
    import numpy as np

    rng = np.random.default_rng(n)
    parts = rng.integers(0, len(base), size=(n, 2))
    return [f"{base[a]} {base[b]}"[:190] + f" (#{i})" for i, (a, b) in enumerate(parts)]


def thread_of(i: int) -> str:
    return "" if i % 50 == 0 else f"project-{i % THREADS}"


def token_of(thread: str) -> str:
    return "g" if thread == "" else "t" + thread.split("-")[1]


def build(path: Path, n: int, stats_rows: int) -> dict:
    from server.textindex import FTS_TOKENIZER, index_text

    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    conn = connect(path)
    tok = f"tokenize='{FTS_TOKENIZER}'"
    conn.execute("CREATE TABLE memories (id INTEGER PRIMARY KEY, namespace TEXT NOT NULL, thread TEXT NOT NULL, "
                 "created_at INTEGER NOT NULL, deleted_at INTEGER)")
    conn.execute("CREATE INDEX memories_by_time ON memories(namespace, thread, created_at)")
    conn.execute(f"CREATE VIRTUAL TABLE plain USING fts5(text, context, content='', contentless_delete=1, {tok})")
    conn.execute(f"CREATE VIRTUAL TABLE scoped USING fts5(text, context, scope, content='', contentless_delete=1, {tok})")
    names = sorted({thread_of(i) for i in range(1, n + 1)})
    for t in names:
        conn.execute(f"CREATE VIRTUAL TABLE perthr_{token_of(t)} USING fts5(text, context, content='', "
                     f"contentless_delete=1, {tok})")
    conn.execute("CREATE TABLE stats (thread TEXT NOT NULL, term TEXT NOT NULL, n INTEGER NOT NULL, "
                 "PRIMARY KEY (thread, term)) WITHOUT ROWID")
    rows = [(i, thread_of(i), index_text(t)) for i, t in enumerate(texts(n), start=1)]
    spent = {"memories": 0.0, "plain": 0.0, "scoped": 0.0, "perthr": 0.0, "stats": 0.0}
    from server.textindex import query_terms

    for start in range(0, n, 20_000):
        chunk = rows[start : start + 20_000]
        conn.execute("BEGIN IMMEDIATE")
        t = time.perf_counter()
        conn.executemany("INSERT INTO memories VALUES (?, 'default', ?, ?, NULL)", [(i, th, i * 1000) for i, th, _ in chunk])
        spent["memories"] += time.perf_counter() - t
        t = time.perf_counter()
        conn.executemany("INSERT INTO plain(rowid, text, context) VALUES (?, ?, NULL)", [(i, x) for i, _, x in chunk])
        spent["plain"] += time.perf_counter() - t
        t = time.perf_counter()
        conn.executemany("INSERT INTO scoped(rowid, text, context, scope) VALUES (?, ?, NULL, ?)",
                         [(i, x, token_of(th)) for i, th, x in chunk])
        spent["scoped"] += time.perf_counter() - t
        t = time.perf_counter()
        for i, th, x in chunk:
            conn.execute(f"INSERT INTO perthr_{token_of(th)}(rowid, text, context) VALUES (?, ?, NULL)", (i, x))
        spent["perthr"] += time.perf_counter() - t
        t = time.perf_counter()
        if start < stats_rows:  # its cost per row is what matters; 1M rows of it take ~9 minutes here
            conn.executemany("INSERT INTO stats VALUES (?, ?, 1) ON CONFLICT(thread, term) DO UPDATE SET n = n + 1",
                             [(th, term) for i, th, x in chunk for term in set(query_terms(x))])
        spent["stats"] += time.perf_counter() - t
        conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    sizes: dict[str, int] = {}
    for name, size in conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name"):
        key = "perthr" if name.startswith("perthr_") else name.split("_")[0]
        sizes[key] = sizes.get(key, 0) + size
    conn.close()
    return {"rows": n, "stats_rows": min(n, stats_rows), "insert_s": {k: round(v, 1) for k, v in spent.items()},
            "disk_bytes": {k: sizes.get(k, 0) for k in ("memories", "plain", "scoped", "perthr", "stats")}}


def count(conn, table: str, expression: str, cap: int) -> int:
    return conn.execute(f"SELECT count(*) FROM (SELECT 1 FROM {table} WHERE {table} MATCH ? LIMIT ?)",
                        (expression, cap)).fetchone()[0]


def ranked(conn, table: str, expression: str, window: int | None, join_thread: str | None = None,
           weights: str = f"1.0, {WEIGHT}"):
    rank = f"bm25({table}, {weights})"
    if join_thread is None:
        inner = f"SELECT rowid, {rank} AS rank FROM {table} WHERE {table} MATCH ?"
        params: list = [expression]
        order = "rowid"
    else:  # today's Store.keyword for a thread scope
        inner = (f"SELECT f.rowid AS rowid, {rank} AS rank FROM {table} f JOIN memories m ON m.id = f.rowid "
                 f"WHERE {table} MATCH ? AND m.namespace = 'default' AND m.deleted_at IS NULL AND m.thread IN (?, '')")
        params = [expression, join_thread]
        order = "f.rowid"
    if window is None:
        sql = f"{inner} ORDER BY rank, {order} LIMIT ?"
    else:
        sql = f"SELECT * FROM ({inner} ORDER BY {order} DESC LIMIT ?) ORDER BY rank, rowid LIMIT ?"
        params.append(window)
    return conn.execute(sql, (*params, K)).fetchall()


def search(conn, layout: str, query: str, thread: str | None) -> list[tuple[int, float]]:
    """A keyword search as keyword_plan + keyword_hits run it, simplified to the rare terms' OR."""
    from server.textindex import any_of, query_terms

    terms = query_terms(query)
    if layout == "plain":
        scope = lambda e: e  # noqa: E731 - counts are over the whole file, as today
        table = "plain"
    elif layout == "scoped":
        scope_expr = "scope:(" + (f"{token_of(thread)} OR g" if thread is not None else "") + ")"
        scope = (lambda e: f"({e}) AND {scope_expr}") if thread is not None else (lambda e: e)  # noqa: E731
        table = "scoped"
    counts = {t: count(conn, table, scope(any_of([t])), BUDGET + 1) for t in terms}
    rare, total = [], 0
    for t in sorted((t for t in terms if counts[t]), key=counts.__getitem__):
        if rare and total + counts[t] > BUDGET:
            continue
        rare.append(t)
        total += counts[t]
    if not rare:
        return []
    window = BUDGET if total > BUDGET else None
    expression = any_of(rare)
    if layout == "plain":
        return ranked(conn, "plain", expression, window, join_thread=thread)
    return ranked(conn, "scoped", scope(expression), window, weights=f"1.0, {WEIGHT}, 0.0")


def perthr_search(conn, query: str, thread: str) -> list[tuple[int, float]]:
    from server.textindex import any_of, query_terms

    expression = any_of(query_terms(query))
    rows = []
    for t in (token_of(thread), "g"):
        rows += conn.execute(f"SELECT rowid, bm25(perthr_{t}, 1.0, {WEIGHT}) AS rank FROM perthr_{t} "
                             f"WHERE perthr_{t} MATCH ? ORDER BY rank LIMIT ?", (expression, K)).fetchall()
    return sorted(rows, key=lambda r: r[1])[:K]  # ranks of two tables are not on one scale: see the note


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--reuse", action="store_true")
    ap.add_argument("--stats-rows", type=int, default=100_000, help="rows whose (thread, term) counts are kept")
    args = ap.parse_args()
    from scale import MORE_QUERIES

    path = SCRATCH / f"fts-{args.rows}.db"
    SCRATCH.mkdir(parents=True, exist_ok=True)
    info = None if args.reuse else build(path, args.rows, args.stats_rows)
    print(info, flush=True)
    conn = connect(path, cache_mb=64)
    result = {"build": info, "rows": args.rows, "cases": {}}
    cases = {
        "plain_one_thread": lambda q, t: search(conn, "plain", q, t),
        "scoped_one_thread": lambda q, t: search(conn, "scoped", q, t),
        "perthr_one_thread": lambda q, t: perthr_search(conn, q, t),
        "plain_all_threads": lambda q, t: search(conn, "plain", q, None),
        "scoped_all_threads": lambda q, t: search(conn, "scoped", q, None),
    }
    tops: dict = {}
    for name, fn in cases.items():
        fn(MORE_QUERIES[0], "project-1")
        ms = []
        for r in range(args.rounds):
            for i, q in enumerate(MORE_QUERIES):
                thread = f"project-{(r * 7 + i) % THREADS or 1}"
                t, rows = timed(lambda: fn(q, thread))
                ms.append(t)
                tops[(name, r, i)] = [row[0] for row in rows[:10]]
        result["cases"][name] = summary(ms)
        print(f"{name:22} {result['cases'][name]}", flush=True)
    for a, b in (("scoped_one_thread", "plain_one_thread"), ("perthr_one_thread", "plain_one_thread"),
                 ("scoped_all_threads", "plain_all_threads")):
        keys = [k for k in tops if k[0] == a]
        agree = sum(len(set(tops[k]) & set(tops[(b, k[1], k[2])])) for k in keys)
        size = sum(max(1, len(tops[(b, k[1], k[2])])) for k in keys)
        result["cases"][a]["top10_agreement_with_" + b] = round(agree / size, 3)
    # Thread-proportional? The same one-thread searches where the thread holds 1/200 of the rows.
    result["command"] = "python fts_thread.py " + " ".join(os.sys.argv[1:])
    print(write_result(f"fts_thread-{args.rows}", result))


if __name__ == "__main__":
    main()
