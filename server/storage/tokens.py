"""The HTTP transport's bearer tokens (table `api_tokens`): hashes only, the same SQL in both dialects.

The policy (generation, hashing, expiry, what a valid token is) is server.http.tokens';
this is the table. Each backend's tokens.py names its class and dialect.
"""

from __future__ import annotations

from typing import Any

from server.storage.dialect import Dialect
from server.storage.protocol import TokenInfo

_COLUMNS = "id, tenant, user_name, agent_name, label, created_at, expires_at, revoked_at, last_used_at"


class Tokens:
    dialect: Dialect

    def __init__(self, db: Any) -> None:
        self.db = db

    def add(
        self, token_hash: str, tenant: str, user: str | None, agent: str | None, label: str | None,
        created_at: int, expires_at: int | None,
    ) -> TokenInfo:
        with self.db.write() as conn:
            row = conn.execute(
                self.dialect.sql(
                    "INSERT INTO api_tokens(token_hash, tenant, user_name, agent_name, label, created_at, expires_at) "
                    f"VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING {_COLUMNS}"
                ),
                (token_hash, tenant, user, agent, label, created_at, expires_at),
            ).fetchone()
        return TokenInfo(*row)

    def all(self) -> list[TokenInfo]:
        with self.db.read() as conn:
            return [TokenInfo(*r) for r in conn.execute(f"SELECT {_COLUMNS} FROM api_tokens ORDER BY id")]

    def find(self, token_hash: str) -> TokenInfo | None:
        with self.db.read() as conn:
            row = conn.execute(
                self.dialect.sql(f"SELECT {_COLUMNS} FROM api_tokens WHERE token_hash = ?"), (token_hash,)
            ).fetchone()
        return None if row is None else TokenInfo(*row)

    def revoke(self, token_id: int, now: int) -> TokenInfo | None:
        with self.db.write() as conn:
            conn.execute(
                self.dialect.sql("UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL"),
                (now, token_id),
            )
            row = conn.execute(self.dialect.sql(f"SELECT {_COLUMNS} FROM api_tokens WHERE id = ?"), (token_id,)).fetchone()
        return None if row is None else TokenInfo(*row)

    def touch(self, token_id: int, now: int) -> None:
        with self.db.write() as conn:
            conn.execute(self.dialect.sql("UPDATE api_tokens SET last_used_at = ? WHERE id = ?"), (now, token_id))
