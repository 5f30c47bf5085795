"""The HTTP transport's bearer tokens in PostgreSQL (table `api_tokens`, migration 3): hashes only.

Outside the tenant policy on purpose (a request's tenant is known only once its token
is found); the application role may read, add and update tokens, not delete them.
The policy (generation, hashing, expiry, what a valid token is) is server.http.tokens'.
"""

from __future__ import annotations

from server.storage.pg.db import PgDatabase
from server.storage.protocol import TokenInfo

_COLUMNS = "id, tenant, user_name, agent_name, label, created_at, expires_at, revoked_at, last_used_at"


class PgTokens:
    def __init__(self, db: PgDatabase) -> None:
        self.db = db

    def add(
        self, token_hash: str, tenant: str, user: str | None, agent: str | None, label: str | None,
        created_at: int, expires_at: int | None,
    ) -> TokenInfo:
        with self.db.write() as conn:
            row = conn.execute(
                "INSERT INTO api_tokens(token_hash, tenant, user_name, agent_name, label, created_at, expires_at) "
                f"VALUES (%s, %s, %s, %s, %s, %s, %s) RETURNING {_COLUMNS}",
                (token_hash, tenant, user, agent, label, created_at, expires_at),
            ).fetchone()
        return TokenInfo(*row)

    def all(self) -> list[TokenInfo]:
        with self.db.read() as conn:
            return [TokenInfo(*r) for r in conn.execute(f"SELECT {_COLUMNS} FROM api_tokens ORDER BY id")]

    def find(self, token_hash: str) -> TokenInfo | None:
        with self.db.read() as conn:
            row = conn.execute(f"SELECT {_COLUMNS} FROM api_tokens WHERE token_hash = %s", (token_hash,)).fetchone()
        return None if row is None else TokenInfo(*row)

    def revoke(self, token_id: int, now: int) -> TokenInfo | None:
        with self.db.write() as conn:
            conn.execute("UPDATE api_tokens SET revoked_at = %s WHERE id = %s AND revoked_at IS NULL", (now, token_id))
            row = conn.execute(f"SELECT {_COLUMNS} FROM api_tokens WHERE id = %s", (token_id,)).fetchone()
        return None if row is None else TokenInfo(*row)

    def touch(self, token_id: int, now: int) -> None:
        with self.db.write() as conn:
            conn.execute("UPDATE api_tokens SET last_used_at = %s WHERE id = %s", (now, token_id))
