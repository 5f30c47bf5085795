"""Time, injectable: the service asks a clock instead of the system, so tests can age memories."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta, timezone

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    return datetime.now(timezone.utc)


def to_millis(when: datetime) -> int:
    """Milliseconds since the epoch, the unit every timestamp column uses."""
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return int(when.timestamp() * 1000)


def from_millis(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc)


def iso(ms: int) -> str:
    """ISO-8601 in UTC with a trailing Z, to the second unless milliseconds matter."""
    when = from_millis(ms)
    text = when.isoformat(timespec="milliseconds" if ms % 1000 else "seconds")
    return text.replace("+00:00", "Z")


class FrozenClock:
    """A clock for tests: returns `now` until moved with `advance` or `set`."""

    def __init__(self, now: datetime) -> None:
        self.now = now if now.tzinfo else now.replace(tzinfo=timezone.utc)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now = self.now + timedelta(**delta)

    def set(self, now: datetime) -> None:
        self.now = now if now.tzinfo else now.replace(tzinfo=timezone.utc)
