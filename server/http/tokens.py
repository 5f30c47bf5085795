"""Bearer tokens for the HTTP transport: each maps to a (tenant, user, agent); only hashes are stored.

The token is 256 bits from `secrets`, shown once by `memvault token create`.
The store keeps its SHA-256 and looks a presented token up by that hash. A fast
hash is the right tool here, not bcrypt/argon2: slow hashes protect *low-entropy*
secrets (passwords) against guessing after a database leak, but nobody can guess
or brute-force a 256-bit random value whatever the hash speed, while a slow hash
would add ~100 ms of CPU to every HTTP request. Lookup by hash also means no
comparison of secrets in Python whose timing could leak anything useful.

The `api_tokens` table itself (its SQL, per backend) is storage's: opener.token_table.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from datetime import datetime, timedelta

from server import validation as check
from server.clock import Clock, system_clock, to_millis
from server.errors import InvalidInput, NotFound
from server.storage.opener import token_table
from server.storage.protocol import Database, TokenInfo

#: Recognisable prefix: secret scanners and people can tell a memvault token apart.
PREFIX = "mvt_"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$")
_DURATION = re.compile(r"^(\d{1,6})([mhdwy])$")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
#: last_used_at is written at most this often per token, so a busy client does not
#: turn every request into a write transaction.
TOUCH_EVERY_MS = 60_000


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
    try:
        when = check.timestamp(value, "--expires")
    except InvalidInput:
        raise InvalidInput(
            f"--expires {value[:40]!r} is neither a lifetime nor a date: give a number and a unit (m, h, d, w, y), "
            "e.g. 30d or 12h, or an ISO-8601 date such as 2027-01-31"
        ) from None
    if when is None or to_millis(when) <= to_millis(now):
        raise InvalidInput(f"--expires {value!r} is not in the future; give e.g. 30d, 12h or a future date")
    return to_millis(when)


class TokenStore:
    """Tokens over either backend's database: the policy here, the table in storage (opener.token_table)."""

    def __init__(self, db: Database, clock: Clock = system_clock) -> None:
        self.db = db
        self.clock = clock
        self.table = token_table(db)

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
        info = self.table.add(token_hash(token), tenant, user, agent, label, to_millis(now), expires_at)
        return token, info

    def list(self) -> list[TokenInfo]:
        return self.table.all()

    def revoke(self, token_id: int) -> TokenInfo:
        info = self.table.revoke(token_id, to_millis(self.clock()))
        if info is None:
            raise NotFound(f"No token {token_id}; `memvault token list` shows the ids.")
        return info

    def verify(self, token: str) -> TokenInfo | None:
        """The record of an active token; None for an unknown, revoked or expired one.

        Read from the database on every request, so a revocation by
        `memvault token revoke` (another process) takes effect at once.
        """
        if not token.startswith(PREFIX) or len(token) > 200:
            return None
        info = self.table.find(token_hash(token))
        if info is None:
            return None
        now = to_millis(self.clock())
        if info.state(now) != "active":
            return None
        if info.last_used_at is None or now - info.last_used_at >= TOUCH_EVERY_MS:
            self.table.touch(info.id, now)
        return info
