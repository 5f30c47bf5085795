"""Which of an older memory's values a newer one names as replaced, and each value's unit.

The rules of server.updates ask, of a pair (older O, newer N): does N name one of O's values as the
old one? Besides the phrases statements.py reads ("instead of X", "X was renamed"), N may mention
O's value beside its new one ("serves on 9083 now; 8083 clashed with ..."; a port O writes inside
an address counts: "localhost:4000"), name a host O writes
inside an address ("p4.heron-studio.lan" in "ssl:p4.heron-studio.lan:1666"), or spell a name O
writes apart ("cargo-release" for `cargo release`). And a value's unit ("10 seconds", "port
4100", "Python 3.12") tells which quantity it is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from server.updates.statements import FILLER, STOPWORDS, Statement, value_shape, stem

#: What a unit of measure measures: "1024 MiB" -> "2 GB" and "90 seconds" -> "5 minutes" are one
#: quantity's values, written in other units.
_DIMENSIONS = {**dict.fromkeys("b kb mb gb tb pb kib mib gib tib bytes byte".split(), "size"),
               **dict.fromkeys("ms s sec secs second seconds mins minute minutes h hr hrs hour hours day days "
                               "week weeks month months".split(), "time")}
#: Units of measure (lower case): a value written with another unit is still one quantity's value.
#: (Those of _DIMENSIONS and the ones too ambiguous to say what they measure: "m", "min".)
MEASURES = frozenset(_DIMENSIONS) | frozenset("k m d min % percent rps qps req reqs requests".split())

#: Words saying that a value mentioned beside a new one still holds ("staging stays at 2").
_STILL = frozenset("still stays stay keeps keep remains remain unchanged too also".split())


def restated_old(old: Statement, new: Statement, after_new: bool = False) -> list[str]:
    """O's values that N, saying that something changed, mentions beside a new value of the same shape
    ("offer-engine serves on 9083 now; 8083 clashed with ..." names O's port 8083 as the
    old one) -- unless N says that it still holds ("production goes to 6 now; staging stays at 2")."""
    new_units = units(new)
    found = []
    # a port is a value of its own where O writes it inside an address ("http://localhost:4000")
    ports = {m.group(1) for t in old.tokens if t.kind in ("value", "ident", "code") for m in _PORT.finditer(t.norm)}
    new_whole = {t.norm for t in new.tokens} | {m.lower() for t in new.tokens for m in _STANDALONE.findall(t.raw)}
    whole = {t.norm for t in new.tokens} & ({t.norm for t in old.tokens} | ports)
    for v in old.slot_values & new.slot_values & whole:
        if value_shape(v) not in old.shapes and v not in ports:
            continue
        unit = new_units.get(v) or ("port" if v in ports else None)
        # the new value stands on its own ("127.0.0.1:7411", "`tick_rate: 60`"): "16" of "fp16-only
        # engines" is no new line number for "line 2"
        others = [w for w in new.slot_values - old.slot_values
                  if value_shape(w) == value_shape(v) and w in new.values and w in new_whole and new_units.get(w, unit) == unit]
        if not others:
            continue
        at = [i for i, word in enumerate(new.words) if _bare(word) == v]
        if not at or any(w in _STILL for i in at for w in new.words[max(0, i - 4):i + 5]):
            continue  # a part of another value ("30" of "04:30"), or it still holds
        first_new = min((i for i, word in enumerate(new.words) for w in others if w in _bare(word)), default=None)
        if after_new and (first_new is None or first_new > at[0] or old.eventful or new.eventful):
            continue
        if _same_place(v, old.words, new.words):
            continue  # unchanged beside the change ("...; phased rollout at 20 %" in both): not named as old
        found.append(v)
    return found


#: A number standing on its own inside a token, not glued to letters ("7411" of "127.0.0.1:7411",
#: not "16" of "fp16-only").
_STANDALONE = re.compile(r"(?<![A-Za-z0-9.])[0-9]+(?:[.,][0-9]+)*(?![A-Za-z0-9])")
#: A port written at the end of an address: "localhost:4000", "db1.internal:5432/app".
_PORT = re.compile(r"[a-z0-9.\]]:([0-9]{2,5})(?=/|$)")


def _same_place(value: str, a: Sequence[str], b: Sequence[str]) -> bool:
    """Whether `value` stands between the same two words in both word lists."""
    def around(words: Sequence[str]) -> set[tuple[str, str]]:
        return {(words[i - 1] if i else "", words[i + 1] if i + 1 < len(words) else "")
                for i, word in enumerate(words) if _bare(word) == value}
    return bool(around(a) & around(b))


def _bare(word: str) -> str:
    return word.strip("`").lower()


def inside(value: str, statement: Statement) -> bool:
    """Whether a host or path is written inside one of the statement's values: "p4.heron-studio.lan"
    in "ssl:p4.heron-studio.lan:1666", "api.example.com" in "https://api.example.com/v2"."""
    if not re.search(r"[a-z0-9][./][a-z0-9]", value):
        return False
    around = re.compile(r"(?:^|[:/@])" + re.escape(value) + r"(?:$|[:/@])")
    return any(around.search(t.norm) for t in statement.tokens if t.kind in ("value", "ident", "code") and t.norm != value)


def spelled_apart(name: str, text: str) -> bool:
    """Whether `text` writes the hyphenated or snake_case `name` with its parts apart ("cargo release")."""
    parts = [p for p in re.split(r"[-_]", name) if p]
    if len(parts) < 2 or not all(p.isalnum() for p in parts):
        return False
    return re.search(r"\b" + r"[\s_-]".join(map(re.escape, parts)) + r"\b", text.lower()) is not None


#: units() of the statements asked most recently, by their text (a statement's words are its text's): recall's
#: newer-first step asks them of the same memories recall after recall, a walk of every word each time (the
#: most called function of a warm recall's profile, bench/profile_recall.py). Texts up to UNITS_TEXT characters,
#: at most UNITS_KEPT of them.
_UNITS: dict[str, dict[str, str]] = {}
UNITS_KEPT = 4096
UNITS_TEXT = 4096


def units(statement: Statement) -> dict[str, str]:
    """Each value's unit: the content word right after it ("10 seconds" -> "time", "2 GB" -> "size": a
    unit of measure stands for what it measures) or else right before it ("port 4100" -> "port",
    "Python 3.12" -> "python"), if any. The dict is shared: read it, never change it."""
    found = _UNITS.get(statement.text)
    if found is None:
        found = _units(statement)
        if len(statement.text) <= UNITS_TEXT:
            if len(_UNITS) >= UNITS_KEPT:
                _UNITS.clear()  # (a burst of new texts: start again rather than track an order)
            _UNITS[statement.text] = found
    return found


def _units(statement: Statement) -> dict[str, str]:
    words = statement.words
    out: dict[str, str] = {}

    def content(k: int) -> str | None:
        word = words[k] if 0 <= k < len(words) else ""
        if word in _DIMENSIONS:
            return _DIMENSIONS[word]
        return stem(word) if word.isalpha() and word not in STOPWORDS and word not in FILLER else None

    for i, word in enumerate(words):
        if any(c.isdigit() for c in word):
            unit = content(i + 1) or content(i - 1)
            if unit:
                out[word.strip(":").lower()] = unit
    # A range's first number is of its second's unit: "between 6 and 30 replicas" counts replicas
    # (not a value to set against "JDK 21").
    for i in range(len(words) - 2):
        first, last = words[i].strip(":").lower(), words[i + 2].strip(":").lower()
        if words[i + 1] in _RANGE and first not in out and last in out and BARE_NUMBER.fullmatch(first):
            out[first] = out[last]
    return out


_RANGE = frozenset(("and", "to", "or"))
#: A plain number ("8", "1,000", "3.5"): no unit, version letters or separators of its own.
BARE_NUMBER = re.compile(r"[0-9][0-9,]*(?:\.[0-9]+)?")


def _held(name: str, parts: Sequence[str], old: Statement) -> bool:
    """Whether O holds a name N quotes: as a term, spelled apart, inside one of its values, by all its parts
    ("Retrofit/Moshi" in "... with Retrofit 2.9 and Moshi"), or inside one of its commands ("`new service`" in
    "`mrl new service --template go-grpc`")."""
    return (name in old.terms or spelled_apart(name, old.text) or inside(name, old)
            or (bool(parts) and all(p in old.terms for p in parts))
            or any(name in t.norm for t in old.tokens if t.kind == "code"))


def names_whole(old: Statement, new: Statement) -> bool:
    """Whether N names, as the value it replaces, a name, identifier or command O holds whole."""
    return any(all(_held(n, parts, old) for n, parts in names) for names in new.quoted_names)


def quoted_in(old: Statement, new: Statement) -> frozenset[str]:
    """The terms of the old values N names (Statement.quoted) that O holds, where a value with names in it
    counts only when O holds all of them: "instead of GOV.UK Notify" names "We use GOV.UK Notify ...", not
    "Use GOV.UK Signon ..." (GOV.UK is only the qualifier both share), and "replacing ruby-grape" does not
    name "... opted for Ruby" (issue 32: on public decision records both were read as naming the older)."""
    whole: set[str] = set()
    partial: set[str] = set()
    for names in new.quoted_names:
        terms = {x for n, parts in names for x in (n, *parts)}
        (whole if all(_held(n, parts, old) for n, parts in names) else partial).update(terms)
    return frozenset((new.quoted - (partial - whole)) & set(old.terms))
