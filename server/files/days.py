"""Day names of the daily logs: a real `YYYY-MM-DD` date, never a path a caller made up."""

from __future__ import annotations

import re
from datetime import date, datetime

from server.errors import InvalidInput


class InvalidDay(InvalidInput, ValueError):
    """A day string is not a real ``YYYY-MM-DD`` date. Also a ValueError."""



_DAY_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")  # [0-9], not \d: \d matches ２０２６ too


def safe_day(text: str) -> date:
    """Parse a user-supplied day. Accepts exactly ``YYYY-MM-DD`` (ASCII digits) naming a real date.

    Everything else raises ``InvalidDay`` (a ValueError): traversal (``..``, ``%2e%2e``),
    separators, NUL, surrounding whitespace, non-ASCII digits, impossible dates.
    """
    if not isinstance(text, str):
        raise InvalidDay(f"day must be a string like 2026-01-31, not {type(text).__name__}")
    shown = repr(text[:40]) + ("…" if len(text) > 40 else "")
    if not _DAY_RE.fullmatch(text):
        raise InvalidDay(f"day {shown} is not in YYYY-MM-DD form; send a date like 2026-01-31")
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise InvalidDay(f"day {shown} is not a real calendar date; check the month and day") from None


def as_day(day: date) -> date:
    # A datetime is a date too; keep only its calendar day so isoformat() has no time part.
    if isinstance(day, datetime):
        return day.date()
    if isinstance(day, date):
        return day
    raise TypeError(f"day must be a datetime.date, not {type(day).__name__}; parse text with safe_day() first")
