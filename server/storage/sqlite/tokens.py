"""The HTTP transport's bearer tokens in SQLite (table `api_tokens`, migration m005): storage/tokens.py's
SQL in SQLite's dialect."""

from __future__ import annotations

from server.storage.dialect import SQLITE
from server.storage.tokens import Tokens


class SqliteTokens(Tokens):
    dialect = SQLITE
