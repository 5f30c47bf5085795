"""Bearer tokens for the HTTP transport: each maps to a (tenant, user, agent); only hashes are stored.

The token is 256 bits from `secrets`, shown once by `memvault token create`.
The store keeps its SHA-256 and looks a presented token up by that hash. A fast
hash is the right tool here, not bcrypt/argon2: slow hashes protect *low-entropy*
secrets (passwords) against guessing after a database leak, but nobody can guess
or brute-force a 256-bit random value whatever the hash speed, while a slow hash
would add ~100 ms of CPU to every HTTP request. Lookup by hash also means no
comparison of secrets in Python whose timing could leak anything useful.

All SQL for the `api_tokens` table (migration m005) lives in TokenStore.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from server import validation as check
from server.clock import Clock, iso, system_clock, to_millis
from server.storage.sqlite.db import Database
from server.errors import InvalidInput, NotFound

#: Recognisable prefix: secret scanners and people can tell a memvault token apart.
PREFIX = "mvt_"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$")
_DURATION = re.compile(r"^(\d{1,6})([mhdwy])$")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
#: last_used_at is written at most this often per token, so a busy client does not
#: turn every request into a write transaction.
TOUCH_EVERY_MS = 60_000

_COLUMNS = "id, tenant, user_name, agent_name, label, created_at, expires_at, revoked_at, last_used_at"


def token_hash(token: str) -> str:
    """SHA-256 of the token, with a domain prefix so the digest is useless anywhere else."""
    return hashlib.sha256(b"memvault-token:" + token.encode("utf-8")).hexdigest()


def _name(value: str | None, what: str) -> str | None:
    if value is None:
        return None
    if not _NAME.match(value):
        raise InvalidInput(f"{what} {value!r}: use 1-64 letters, digits, '.', '_', '@', '+' or '-'")
    return value


def parse_expiry(value: str | None, now: datetime) -> int | None:
    """`30d`, `12h`, `90m`, `2w`, `1y`, or an ISO-8601 date/time -> ms since epoch; None = never.

    Anything else, or a lifetime past the year 9999, is an InvalidInput saying what to give.
    """
    if value is None or value in ("", "never"):
        return None
    match = _DURATION.match(value.strip())
    if match:
        amount, unit = int(match.group(1)), match.group(2)
        if amount < 1:
            raise InvalidInput("--expires must be in the future, e.g. 30d")
        try:
            delta = timedelta(days=365 * amount) if unit == "y" else timedelta(**{_UNITS[unit]: amount})
            return to_millis(now + delta)
        except OverflowError:  # past datetime's year 9999
            raise InvalidInput(
                f"--expires {value!r} is too far in the future (the latest is 9999-12-31); give a lifetime such as "
                "30d, 12h, 2w or 1y, an ISO-8601 date, or leave --expires out for a token that never expires"
            ) from None
    from server.validation import timestamp

    try:
        when = timestamp(value, "--expires")
    except InvalidInput:
        raise InvalidInput(
            f"--expires {value[:40]!r} is neither a lifetime nor a date: give a number and a unit (m, h, d, w, y), "
            "e.g. 30d or 12h, or an ISO-8601 date such as 2027-01-31"
        ) from None
    if when is None or to_millis(when) <= to_millis(now):
        raise InvalidInput(f"--expires {value!r} is not in the future; give e.g. 30d, 12h or a future date")
    return to_millis(when)


@dataclass(frozen=True)
class TokenInfo:
    """A token's record: never the token itself."""

    id: int
    tenant: str
    user: str | None
    agent: str | None
    label: str | None
    created_at: int
    expires_at: int | None
    revoked_at: int | None
    last_used_at: int | None

    @classmethod
    def from_sql(cls, row: Any) -> TokenInfo:
        return cls(*row)

    def state(self, now_ms: int) -> str:
        if self.revoked_at is not None:
            return "revoked"
        if self.expires_at is not None and self.expires_at <= now_ms:
            return "expired"
        return "active"

    def as_dict(self, now_ms: int) -> dict[str, Any]:
        def when(ms: int | None) -> str | None:
            return None if ms is None else iso(ms)

        return {
            "id": self.id, "tenant": self.tenant, "user": self.user, "agent": self.agent, "label": self.label,
            "state": self.state(now_ms), "created_at": when(self.created_at), "expires_at": when(self.expires_at),
            "revoked_at": when(self.revoked_at), "last_used_at": when(self.last_used_at),
        }


class TokenStore:
    """Works on either backend's Database: the statements are plain SQL, written with
    `?` placeholders and translated for PostgreSQL's driver (%s)."""

    def __init__(self, db: Database, clock: Clock = system_clock) -> None:
        self.db = db
        self.clock = clock
        self._pg = getattr(db, "backend", "sqlite") == "postgres"

    def _sql(self, statement: str) -> str:
        return statement.replace("?", "%s") if self._pg else statement

    def create(
        self,
        tenant: str,
        user: str | None = None,
        agent: str | None = None,
        label: str | None = None,
        expires: str | None = None,
    ) -> tuple[str, TokenInfo]:
        """A new token and its record; the token is returned here and never again."""
        tenant = check.tenant_name(tenant)
        user, agent = _name(user, "user"), _name(agent, "agent")
        if label is not None and (len(label) > 200 or "\x00" in label):
            raise InvalidInput("label: up to 200 characters, no NUL")
        now = self.clock()
        expires_at = parse_expiry(expires, now)
        token = PREFIX + secrets.token_urlsafe(32)
        with self.db.write() as conn:
            row = conn.execute(
                self._sql(
                    "INSERT INTO api_tokens(token_hash, tenant, user_name, agent_name, label, created_at, expires_at) "
                    f"VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING {_COLUMNS}"
                ),
                (token_hash(token), tenant, user, agent, label, to_millis(now), expires_at),
            ).fetchone()
        return token, TokenInfo.from_sql(row)

    def list(self) -> list[TokenInfo]:
        with self.db.read() as conn:
            return [TokenInfo.from_sql(r) for r in conn.execute(self._sql(f"SELECT {_COLUMNS} FROM api_tokens ORDER BY id"))]

    def revoke(self, token_id: int) -> TokenInfo:
        with self.db.write() as conn:
            conn.execute(
                self._sql("UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL"),
                (to_millis(self.clock()), token_id),
            )
            row = conn.execute(self._sql(f"SELECT {_COLUMNS} FROM api_tokens WHERE id = ?"), (token_id,)).fetchone()
        if row is None:
            raise NotFound(f"No token {token_id}; `memvault token list` shows the ids.")
        return TokenInfo.from_sql(row)

    def verify(self, token: str) -> TokenInfo | None:
        """The record of an active token; None for an unknown, revoked or expired one.

        Read from the database on every request, so a revocation by
        `memvault token revoke` (another process) takes effect at once.
        """
        if not token.startswith(PREFIX) or len(token) > 200:
            return None
        digest = token_hash(token)
        with self.db.read() as conn:
            row = conn.execute(self._sql(f"SELECT {_COLUMNS} FROM api_tokens WHERE token_hash = ?"), (digest,)).fetchone()
        if row is None:
            return None
        info = TokenInfo.from_sql(row)
        now = to_millis(self.clock())
        if info.state(now) != "active":
            return None
        if info.last_used_at is None or now - info.last_used_at >= TOUCH_EVERY_MS:
            with self.db.write() as conn:
                conn.execute(self._sql("UPDATE api_tokens SET last_used_at = ? WHERE id = ?"), (now, info.id))
        return info
