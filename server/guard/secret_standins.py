"""Values that stand in for a secret in fixtures and docs, whatever rule matched them (server.guard.redact).

A scanner's test texts fill a provider's prefix with a body nobody generated: the word ``short`` or
``example`` (``sk_car_short``, ``sk_test_example``), one character over and over (``sk_car_000...``,
``sb_secret_aaa...``), a counting run (``sbp_1234567890abcdefghij...``) or a word typed again and again
(``fc-deadbeefdeadbeef...``). A random token almost never holds a 10-character counting run or lets one
character fill most of it, so these are shown formats, not keys. AWS's documented keys end in upper-case
``EXAMPLE``: the secret access key (``wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY``) stays redacted on purpose
(scanners label it a secret: looks_fake's note), but an access key *id* ending in ``EXAMPLE``
(``AKIAIOSFODNN7EXAMPLE``, ``AKIAI44QH8DHBEXAMPLE``) is AWS's documentation id, which gitleaks, detect-secrets and
checkov all list as must-not-fire and no scanner here calls a secret. Otherwise only the lower-case words count,
and a value made of plain words that starts by disclaiming itself (``not_secret_key``, ``insecure-dev-key``).
"""

from __future__ import annotations

from server.guard.lazyre import LazyRe as _LazyRe

# "short"/"example" as a word of their own: not inside a longer lower-case word (shortcut, counterexample)
_WORD = _LazyRe(r"(?<![a-z])(?:short|example)(?![a-z])")
# a body of zeros to its end (sk_car_000..., sk-lf-00000000-0000-...): a random token's digits are not all 0
_ZEROS = _LazyRe(r"(?:0[-_]?){16,}\Z")
# a value of plain lower-case words that says what it is not: not_secret_key, not-a-real-secret, insecure-dev-key
_DISCLAIMED = _LazyRe(r"(?:not|fake|dummy|insecure|invalid|example|sample)(?:[-_][a-z]{1,20}){1,6}\Z")
# an AWS access key id (AKIA/ASIA + 16) whose last 7 characters are AWS's documentation marker
_AWS_DOC_ID = _LazyRe(r"A(?:KIA|SIA)[A-Z0-9]{9}EXAMPLE\Z")


def stand_in(value: str) -> bool:
    """True for a fixture's stand-in body (module docstring); bounded work per value."""
    if len(value) > 512:
        return False
    return _WORD.search(value) is not None or _ZEROS.search(value) is not None or _AWS_DOC_ID.match(value) is not None \
        or _DISCLAIMED.match(value) is not None
