"""A subject written as its abbreviation in one memory and spelled out in the other ("MSRV" / "minimum supported Rust
version"): read from the two texts alone, by initials, whether or not the thread ever defined it.

Used by the subject share when a pair is to be *shown* (rules.subject_share's `abbreviations`, model's possible
updates), not to link it: the update model was fitted on shares without abbreviations, and with them it gave "The core
API ... enhancing the ADR markdown body" 0.63 as an update of "Use Markdown Architectural Decision Records" (0.02
without), a wrong link on public decision records (bench/public_links.py).
"""

from __future__ import annotations

import re
from functools import lru_cache

from server.updates.statements import Statement, tokens

#: An abbreviation: three to six capitals ("MSRV", "DLQ"), or two and a plural "s" ("IRs").
_ACRONYM = re.compile(r"(?P<letters>[A-Z]{3,6}|[A-Z]{2}(?=s$))s?")
#: Words an abbreviation may skip between the words it stands for ("time to live": TTL keeps "to"; "dead-letter
#: queue", DLQ; "infrastructure as code", IaC is no capitals run and is not read).
_SKIPPED = frozenset("of to and for the a an as on in".split())


def abbreviated(old: Statement, new: Statement) -> frozenset[str]:
    """O's terms that N holds abbreviated or spelled out: N's "MSRV" stands for O's "minimum supported Rust version"
    (the initials of a run of O's words, in order, O's stopwords skipped or not), and O's "MSRV" is held by N's
    "minimum supported Rust version" (issue 32: the newer memory wrote the subject as its abbreviation, 14 of the
    39 questions a reader was shown stale on the spent projects were a subject worded otherwise). Read from the two
    texts alone: an abbreviation is its initials, whether or not the thread defined it."""
    found: set[str] = set()
    for short, long in ((new, old), (old, new)):
        for token in short.tokens:
            m = _ACRONYM.fullmatch(token.raw)
            if m is None:
                continue
            words = _spelled_out(m.group("letters").lower(), token.raw.endswith("s") and len(m.group("letters")) == 2,
                                 long.words)
            if not words:
                continue
            if short is new:  # N abbreviates O's words: they are held
                found |= {t.norm for w in words for t in tokens(w)} & set(old.terms)
            else:  # O's abbreviation is held by N's spelled-out words
                found.add(token.norm)
    return frozenset(found)


@lru_cache(maxsize=1024)
def _spelled_out(letters: str, plural: bool, words: tuple[str, ...]) -> tuple[str, ...]:
    """The first run of `words` whose initials are `letters` (stopwords of _SKIPPED skipped when their initial is not
    the next letter), ending in a plural when `plural`; () if none."""
    for start, first in enumerate(words):
        if not first or first[0] != letters[0] or first in _SKIPPED:
            continue
        run, k = [first], 1
        for w in words[start + 1:]:
            if k == len(letters):
                break
            if w and w[0] == letters[k]:
                run.append(w)
                k += 1
            elif w not in _SKIPPED:
                break
        if k == len(letters) and (not plural or run[-1].endswith("s")) and run[-1] not in _SKIPPED:
            return tuple(run)
    return ()


__all__ = ["abbreviated"]
