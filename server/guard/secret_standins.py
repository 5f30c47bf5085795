"""Values that stand in for a secret in fixtures and docs, whatever rule matched them (server.guard.redact).

A scanner's test texts fill a provider's prefix with a body nobody generated: the word ``short`` or
``example`` (``sk_car_short``, ``sk_test_example``), one character over and over (``sk_car_000...``,
``sb_secret_aaa...``), a counting run (``sbp_1234567890abcdefghij...``) or a word typed again and again
(``fc-deadbeefdeadbeef...``). A random token almost never holds a 10-character counting run or lets one
character fill most of it, so these are shown formats, not keys. AWS's documented keys end in upper-case
``EXAMPLE`` and stay redacted on purpose (looks_fake's note): only the lower-case words count here.
"""

from __future__ import annotations

from server.guard.lazyre import LazyRe as _LazyRe

# "short"/"example" as a word of their own: not inside a longer lower-case word (shortcut, counterexample)
_WORD = _LazyRe(r"(?<![a-z])(?:short|example)(?![a-z])")
# a body of zeros to its end (sk_car_000..., sk-lf-00000000-0000-...): a random token's digits are not all 0
_ZEROS = _LazyRe(r"(?:0[-_]?){16,}\Z")


def stand_in(value: str) -> bool:
    """True for a fixture's stand-in body (module docstring); bounded work per value."""
    if len(value) > 512:
        return False
    return _WORD.search(value) is not None or _ZEROS.search(value) is not None
