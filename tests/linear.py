"""The linear-time check of the scanners' ReDoS tests (redact and safety)."""

from __future__ import annotations

import time
from collections.abc import Callable


def assert_linear(scan: Callable[[str], object], text: str) -> None:
    """`scan` over all of `text` costs about 10x a tenth of it, not ~100x (quadratic).

    A ratio within one run: it holds on a loaded machine where absolute times don't.
    (The cost per typical text is a benchmark figure: bench/secrets_fp.py.)
    """
    tenth = text[: len(text) // 10]
    t0 = time.perf_counter()
    scan(tenth)
    t_tenth = time.perf_counter() - t0
    t0 = time.perf_counter()
    scan(text)
    t_full = time.perf_counter() - t0
    assert t_full < 25 * t_tenth + 0.1, (t_tenth, t_full)
