"""How long this thread's writes wait for the write lock: a store's setting, or less within a block.

Both backends keep the override per thread (a recall's best-effort writes must not wait while
another thread of the same process writes with the full wait) and share this one helper.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class WriteWaits:
    """The per-thread wait: the override within `at_most(...)`, else the store's default."""

    def __init__(self) -> None:
        self._local = threading.local()

    def current(self, default: float) -> float:
        return getattr(self._local, "seconds", default)

    @contextmanager
    def at_most(self, seconds: float) -> Iterator[None]:
        previous = getattr(self._local, "seconds", None)
        self._local.seconds = seconds
        try:
            yield
        finally:
            if previous is None:
                del self._local.seconds
            else:
                self._local.seconds = previous
