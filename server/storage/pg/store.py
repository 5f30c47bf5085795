"""The PostgreSQL implementation of server.storage.protocol.Store (the SQLite one is sqlite/store.py).

Method for method the same behaviour as the SQLite store, in the same order; the
contract tests in tests/contract/ run both. Reads carry no tenant condition of their
own: row-level security adds `tenant = app.tenant` to every statement (see db.py), so
a query cannot forget it. Inserts name the tenant, and the policy's WITH CHECK refuses
any other. Differences that show:

* keyword ranks are `-ts_rank_cd(tsv, query)` with the context weighted
  CONTEXT_COLUMN_WEIGHT (SQLite: bm25). Both are "more negative is better" and
  ranking.fuse only uses each rank's ratio to the best, so ranking works the same;
  the absolute values differ, and stemming is PostgreSQL's English snowball stemmer
  without diacritics folding (SQLite: porter over unicode61 with diacritics removed);
* vectors come from an HNSW index with iterative scans (approximate, like any ANN;
  exact for small or thread-scoped sets, where the planner scans the btree instead);
* index drift has no orphan vectors or queue rows to find: vectors and the queue are
  columns of `memories`, so they cannot outlive their memory.

The PgStore is composed of one class per role of the contract, each in its own module beside
this one (memories, threads, search, curation, copying, browsing); common.py holds what they
share, storage/rows.py and storage/dialect.py what both backends read the same way.
"""

from __future__ import annotations

from server.storage.pg.browsing import PgBrowsing
from server.storage.pg.common import websearch_text
from server.storage.pg.copying import PgCopying
from server.storage.pg.curation import PgCuration
from server.storage.pg.memories import PgMemories
from server.storage.pg.search import PgSearch
from server.storage.pg.threads import PgThreads
from server.storage.transactions import Transactions


class PgStore(PgMemories, PgThreads, PgSearch, PgCuration, PgCopying, PgBrowsing, Transactions):
    """Every role of the contract, in the protocol's order (one module each beside this one; the
    named transactions, written once for both backends, last)."""


__all__ = ["PgStore", "websearch_text"]
