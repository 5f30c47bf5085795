"""The SQLite implementation of server.storage.protocol.Store: the only SQL in SQLite's dialect.

Every query is confined to one namespace (`Store.namespace`), the isolation unit
above threads. Threads are stored as text, '' meaning a global memory. Keyword
search is FTS5 (`memory_fts`: a memory's own text and, for a conversation turn, the
turns before it as context), ranked by bm25; vectors live in vec0, one row per passage,
searched there for thread scopes and through a shared sidecar file otherwise (vectors.py).

The Store is composed of one class per role of the contract, each in its own module beside
this one (memories, threads, search, curation, copying, browsing), their methods in the
protocol's order; common.py holds what they share. What both backends read the same way is
in storage/rows.py and storage/dialect.py.
"""

from __future__ import annotations

from server.storage.protocol import NewMemory
from server.storage.sqlite.browsing import SqliteBrowsing
from server.storage.sqlite.common import fts5_match
from server.storage.sqlite.copying import SqliteCopying
from server.storage.sqlite.curation import SqliteCuration
from server.storage.sqlite.fts import scope_token
from server.storage.sqlite.memories import SqliteMemories
from server.storage.sqlite.search import SqliteSearch
from server.storage.sqlite.threads import SqliteThreads
from server.storage.transactions import Transactions


class Store(SqliteMemories, SqliteThreads, SqliteSearch, SqliteCuration, SqliteCopying, SqliteBrowsing, Transactions):
    """Every role of the contract, in the protocol's order (one module each beside this one; the
    named transactions, written once for both backends, last)."""


__all__ = ["NewMemory", "Store", "fts5_match", "scope_token"]  # the names callers took from here before the split
