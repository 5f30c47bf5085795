"""Random quoted strings in code and JSON, for server.guard.redact: a base64url run that is a key's value or a key
itself (``"FOO_BAR": "q28Wt3nAmLt_3NGpqi2qz-jQ7"``, ``'d7kyociU24P9hJ_sYVkqzo-kE': 'foobar'``, ``getSecret: () =>
'gm5yb-hJWRoS7ZJTi_YUj_tbU'``), whatever the key is called -- the shape entropy scanners (repo-supervisor,
detect-secrets' base64 plugin) report, and the one a generated API secret takes in a JavaScript config.

Kept narrow, since a quoted string in code is usually a word, an id or a path: the run is 20-64 characters of
``[A-Za-z0-9_-]``, with upper and lower case and digits, changing class often, high entropy, not mostly words, and
with a ``-`` or ``_`` inside (base64url's own letters: a hex digest, a UUID, a camelCase name or a CSS class
have none or only between words). Linear: one bounded regex scan, each run checked once.
"""

from __future__ import annotations

import math
from collections import Counter

from server.guard.lazyre import LazyRe as _LazyRe

_Cand = tuple[int, int, str, int, int]  # start, end, kind, rank, match start

# the run in quotes, then a key's colon, or after `=`, `:`, `=>` or `() =>` (a getter returning it)
_QUOTED = _LazyRe(r"(?:(?::|=>?|\(\)[ \t]*=>)[ \t]*)?(['\"])([A-Za-z0-9_\-]{20,64})\1([ \t]*:)?")
_WORDISH = _LazyRe(r"[A-Z]?[a-z]{3,}|[A-Z]{4,}")
_VOWELS = frozenset("aeiouyAEIOUY")
_CONSONANT_RUN = _LazyRe(r"[b-df-hj-np-tv-xzB-DF-HJ-NP-TV-XZ]{4}")


def _random_run(value: str) -> bool:
    core = value.replace("-", "").replace("_", "")
    if len(core) < 18 or core == value or value[0] in "-_" and value[-1] in "-_":
        return False
    if not (any(c.isdigit() for c in core) and any(c.isupper() for c in core) and any(c.islower() for c in core)):
        return False
    if sum(len(w) for w in _WORDISH.findall(value) if set(w) & _VOWELS and not _CONSONANT_RUN.search(w)) * 2 >= len(core):
        return False
    classes = [0 if c.isdigit() else 1 if c.islower() else 2 for c in core]
    changes = sum(a != b for a, b in zip(classes, classes[1:]))
    n = len(core)
    entropy = -sum(k / n * math.log2(k / n) for k in Counter(core).values())
    return entropy >= 3.8 and changes * 3 >= n


# the key a value is given to, read back from the value's `:`/`=`
_KEY_BEFORE = _LazyRe(r"([A-Za-z][A-Za-z0-9_.-]*)[\"']?[ \t]*(?::|=>?)[ \t]*$")
_KEY_WORDS = _LazyRe(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
#: keys that name a record, not a credential: generated ids (nanoid, Firebase push ids, YouTube-style ids) share the
#: base64url shape, and an id in a JSON record is the commonest quoted random run there is
_ID_WORDS = frozenset(("id", "ids", "uuid", "guid", "slug", "ref", "etag", "hash", "sha", "digest", "checksum"))
#: ... unless another word of the key says it holds a credential ("FOO_SECRET_KEY_ID")
_CREDENTIAL_WORDS = frozenset(("secret", "token", "password", "passwd", "pwd", "credential", "credentials",
                               "private", "auth", "apikey"))


def _names_a_record(text: str, at: int) -> bool:
    m = _KEY_BEFORE.search(text, max(0, at - 80), at)
    if m is None:
        return False
    words = [w.lower() for w in _KEY_WORDS.findall(m.group(1))]
    return bool(words) and words[-1] in _ID_WORDS and not _CREDENTIAL_WORDS.intersection(words)


def quoted_random(text: str, out: list[_Cand]) -> None:
    """Append a candidate for each quoted random run that is a value (after ``:``/``=``/``=>``) or a key -- not the
    value of a key that names a record (``"id"``, ``"userId"``, ``"uuid"``)."""
    for m in _QUOTED.finditer(text):
        if m.start() == m.start(1) and m.group(3) is None:
            continue  # a quoted string in an argument list or a sentence: not a key's value
        if m.start() != m.start(1) and _names_a_record(text, m.start(1)):
            continue
        if _random_run(m.group(2)):
            out.append((m.start(2), m.end(2), "secret", 20, m.start()))  # any other finding names it better
