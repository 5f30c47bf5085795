"""The HTTP transport's bearer tokens in PostgreSQL (table `api_tokens`, migration 3): storage/tokens.py's
SQL in PostgreSQL's dialect.

Outside the tenant policy on purpose (a request's tenant is known only once its token
is found); the application role may read, add and update tokens, not delete them.
"""

from __future__ import annotations

from server.storage.dialect import POSTGRES
from server.storage.tokens import Tokens


class PgTokens(Tokens):
    dialect = POSTGRES
