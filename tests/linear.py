"""The linear-time check of the scanners' ReDoS tests (redact and safety)."""

from __future__ import annotations

import time
from collections.abc import Callable


def _seconds(scan: Callable[[str], object], text: str) -> float:
    t0 = time.perf_counter()
    scan(text)
    return time.perf_counter() - t0


def assert_linear(scan: Callable[[str], object], text: str, tries: int = 3) -> None:
    """`scan` over all of `text` costs about 10x a tenth of it, not ~100x (quadratic).

    A ratio within one run: it holds on a loaded machine where absolute times don't. One
    pause of the process (another job taking the core) can still inflate a single reading,
    so a failing pair is measured again, interleaved, and the fastest of each size counts:
    load only ever adds time, while a quadratic scan stays ~100x in every reading.
    (The cost per typical text is a benchmark figure: bench/secrets_fp.py.)
    """
    tenth = text[: len(text) // 10]
    t_tenth, t_full = _seconds(scan, tenth), _seconds(scan, text)
    for _ in range(tries - 1):
        if t_full < 25 * t_tenth + 0.1:
            break
        t_tenth = min(t_tenth, _seconds(scan, tenth))
        t_full = min(t_full, _seconds(scan, text))
    assert t_full < 25 * t_tenth + 0.1, (t_tenth, t_full)
