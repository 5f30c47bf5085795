"""Statement analyses stored beside their memories, so a write's update check reads them back.

A write's update check judges ~60 candidates of its thread; in a large thread most were never analysed
by this process (statements' in-process cache holds a few thousand), and analysing one costs ~0.4 ms
(bench/write_cost.py: the analyses were the largest part of what grew from 1k to 100k memories). So each
analysis is stored beside its memory (Store.set_analyses) and read back, ~4x cheaper than analysing
again, under the version of the analyser that made it. Derived data: rebuilt when missing or stale, never
archived or copied.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache

from server.updates import statements
from server.updates.statements import Statement, Token, aligned, assemble

#: What a stored analysis holds beside its tokens (what _analyse reads from the text: regular expressions,
#: the costly part); assemble derives the rest from the tokens and words at once.
_STORED = ("envs", "labels", "cue", "quoted", "quoted_names", "opening", "cue_terms", "renames", "periods",
           "period_terms", "subject_at", "narrated")
_STORED_SETS = frozenset(_STORED) - {"cue", "quoted_names", "renames", "subject_at", "narrated"}


@lru_cache(maxsize=1)
def version() -> str | None:
    """The analyser's version: a digest of the analyser's source (statements.py), of this stored form's
    (this module) and of the stemmer it uses. Any edit of either changes it, so a stored analysis of an
    older analyser is re-derived (nobody has to remember to bump a number); None where a source cannot be
    read (nothing is stored or read then)."""
    import hashlib  # lazy: only a process that judges a write stores or reads analyses
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed
    from pathlib import Path

    try:
        source = Path(statements.__file__).read_bytes() + b"\0" + Path(__file__).read_bytes()
    except OSError:
        return None
    try:
        stemmer = installed("snowballstemmer")
    except PackageNotFoundError:
        stemmer = "?"
    return hashlib.sha256(source + b"\0" + stemmer.encode()).hexdigest()[:16]


def text_key(text: str) -> str:
    """What a stored analysis is of: a memory's text can change (compression), its analysis then must."""
    import hashlib  # lazy: see version

    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def encode(statement: Statement) -> str:
    """A statement as compact JSON (~40 % of the bytes of all its fields; its text is the memory's own):
    each token as [raw, kind], then its norm when that is not raw.lower() (else null), its parts, its place."""
    import json  # lazy: see version

    toks = []
    for t in statement.tokens:
        tail = [t.norm if t.norm != t.raw.lower() else None, list(t.parts), 1] if t.place else \
            [t.norm if t.norm != t.raw.lower() else None, list(t.parts)] if t.parts else \
            [t.norm] if t.norm != t.raw.lower() else []
        toks.append([t.raw, t.kind, *tail])
    read = [sorted(v) if name in _STORED_SETS else v for name in _STORED for v in (getattr(statement, name),)]
    return json.dumps([toks, *read], separators=(",", ":"), ensure_ascii=False)


def decode(text: str, stored: str) -> Statement | None:
    """The statement `encode` stored for `text`; None when the stored form does not read as one."""
    import json  # lazy: see version

    try:
        values = json.loads(stored)
        if not isinstance(values, list) or len(values) != len(_STORED) + 1:
            return None
        toks = tuple(Token(raw, t[0] if t and t[0] is not None else raw.lower(), kind,
                           tuple(t[1]) if len(t) > 1 else (), len(t) > 2) for raw, kind, *t in values[0])
        read = {name: frozenset(value) if name in _STORED_SETS else value for name, value in zip(_STORED, values[1:])}
        read["quoted_names"] = tuple(tuple((norm, tuple(parts)) for norm, parts in names)
                                     for names in read["quoted_names"])
        return assemble(text, toks, aligned(text), read)
    except (ValueError, TypeError):
        return None


def hold(texts: Mapping[int, str], read: Callable[[list[int], str], Mapping[int, tuple[str, str]]]) -> list[int]:
    """Hold (statements.keep) the stored analyses of these memories' texts (id -> text) that this process does not
    hold, read with `read(ids, version)` (the store's `analyses`): a server started for a new session holds none,
    and its first recalls compare statements the write path analysed already. Returns the ids with none stored
    by this analyser for their current text (analysed when first compared, as before)."""
    wanted = {i: text for i, text in texts.items() if not statements.cached(text)}
    version_now = version() if wanted else None  # (its first call reads the sources: not for a warm recall)
    if version_now is None:
        return list(wanted)
    stored = read(list(wanted), version_now)
    missing = []
    for i, text in wanted.items():
        key, analysis = stored.get(i, ("", ""))
        found = decode(text, analysis) if key == text_key(text) else None
        if found is None:
            missing.append(i)
        else:
            statements.keep(found)
    return missing
