"""Extractive, deterministic compression of a memory's text by age tier (no language model).

Tiers, by the memory's age (from its created time):

    younger than 7 days     full text
    7 to 30 days            key_points  about 70 % of the characters kept
    30 to 365 days          summary     about 40 % kept (a year-old memory keeps its summary:
                                        the next step, metadata only, loses the wording)
    older than 365 days     metadata    kind, date, length and the key terms only

Key points and summaries keep whole sentences, chosen by how many key facts they carry
(numbers, identifiers, names, decision words), in their original order; a dropped stretch
is marked with "…"; a sentence with no key fact at all is dropped first. When one long sentence is all there is, filler words are dropped
from it instead; negations, numbers, names and identifiers never are. The same text
always compresses to the same result.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone

DAY_MS = 86_400_000
TIERS = ("full", "key_points", "summary", "metadata")
TARGET_RATIO = {"key_points": 0.7, "summary": 0.4}
#: Texts shorter than this are not worth compressing (except to metadata, when that is shorter).
MIN_CHARS = 120


def tier_for_age(age_ms: int) -> str:
    days = age_ms / DAY_MS
    if days < 7:
        return "full"
    if days < 30:
        return "key_points"
    if days < 365:
        return "summary"
    return "metadata"


def deeper(tier: str, than: str | None) -> bool:
    """Whether `tier` compresses more than the current state `than` (None = full)."""
    return TIERS.index(tier) > TIERS.index(than or "full")


_SENTENCE = re.compile(r"(?<=[.!?;])\s+(?=\S)|\n+")
_TOKEN = re.compile(r"\S+")
_KEY = re.compile(
    r"\d"                          # numbers, versions, dates
    r"|[A-Za-z]+[_./:#@-][\w./:#@-]*"  # identifiers, paths, URLs, emails
    r"|[a-z]+[A-Z]"                 # camelCase
    r"|^[A-Z][A-Za-z0-9]*[A-Z]"     # acronyms and PascalCase (GPU, PostgreSQL)
)
_DECISION = re.compile(
    r"\b(decid\w*|chose|choose|chosen|switch\w*|moved?|migrat\w*|use[sd]?|prefer\w*|must|never|always|"
    r"because|require[sd]?|deadline|instead|agreed|will|won't|not|no)\b",
    re.I,
)
_NEGATION = {"not", "no", "never", "don't", "doesn't", "won't", "can't", "cannot", "without", "nor"}
_FILLER = {
    "a", "an", "the", "really", "very", "just", "basically", "actually", "quite", "rather", "somewhat",
    "so", "that", "which", "also", "then", "perhaps", "probably", "maybe", "pretty", "some", "kind", "of",
    "sort", "i", "think", "we", "it", "is", "was", "are", "be", "been", "to", "in", "on", "at", "for",
    "and", "or", "but", "with", "this", "these", "those", "there", "here", "like", "um", "uh",
}


def _is_key(token: str, first: bool) -> bool:
    word = token.strip(".,;:!?()[]\"'")
    if not word:
        return False
    if word.lower() in _NEGATION:
        return True
    if _KEY.search(word):
        return True
    # A capitalised word inside a sentence is usually a name (Dramatiq, Alice).
    return not first and word[0].isupper()


def key_terms(text: str, limit: int = 8) -> list[str]:
    terms: list[str] = []
    for sentence in _sentences(text):
        for i, token in enumerate(_TOKEN.findall(sentence)):
            word = token.strip(".,;:!?()[]\"'")
            if word and word.lower() not in _NEGATION and _is_key(token, i == 0) and word not in terms:
                terms.append(word)
    return terms[:limit]


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s.strip()]


def _weight(sentence: str, position: int) -> float:
    tokens = _TOKEN.findall(sentence)
    keys = sum(_is_key(t, i == 0) for i, t in enumerate(tokens))
    decisions = len(_DECISION.findall(sentence))
    # Facts per character, so a long rambling sentence does not win by length alone.
    return (2.0 * keys + 1.5 * decisions + (1.0 if position == 0 else 0.0)) / (len(sentence) ** 0.5 + 1)


def _trim(sentence: str, budget: int) -> str:
    """Drop filler words (never key tokens or negations) until the sentence fits `budget`."""
    tokens = _TOKEN.findall(sentence)
    keep = [True] * len(tokens)
    length = len(sentence)
    for i, token in enumerate(tokens):
        if length <= budget:
            break
        word = token.strip(".,;:!?()[]\"'").lower()
        if i > 0 and word in _FILLER and not _is_key(token, False) and token[-1] not in ".!?":
            keep[i] = False
            length -= len(token) + 1
    return " ".join(t for t, k in zip(tokens, keep) if k)


def extract(text: str, ratio: float) -> str:
    """About `ratio` of `text`'s characters: its most fact-dense sentences, in order."""
    sentences = _sentences(text)
    budget = max(1, int(len(text) * ratio))
    ranked = sorted(range(len(sentences)), key=lambda i: (-_weight(sentences[i], i), i))
    chosen: set[int] = set()
    used = 0
    for i in ranked:
        size = len(sentences[i]) + (1 if chosen else 0)
        if not chosen or (used + size <= budget and _weight(sentences[i], i) > 0):
            chosen.add(i)
            used += size
    parts: list[str] = []
    previous = -1
    for i in sorted(chosen):
        if i != previous + 1 and parts:
            parts.append("…")
        parts.append(sentences[i])
        previous = i
    if previous != len(sentences) - 1:
        parts.append("…")
    result = " ".join(parts)
    if len(result) > budget * 1.15:
        # One long sentence dominates: thin it out word by word.
        result = " ".join(_trim(p, int(len(p) * budget / len(result))) if p != "…" else p for p in parts)
    return result


def metadata_stub(text: str, kind: str, created_at: int) -> str:
    day = datetime.fromtimestamp(created_at / 1000, tz=timezone.utc).date().isoformat()
    words = len(text.split())
    terms = key_terms(text)
    stub = f"[{kind} of {day}, {words} words, full text archived]"
    return stub + (f" Key terms: {', '.join(terms)}." if terms else "")


def compress(text: str, tier: str, kind: str, created_at: int) -> str | None:
    """The compressed form of `text` for `tier`, or None when it would not be shorter."""
    if tier == "full":
        return None
    if tier == "metadata":
        result = metadata_stub(text, kind, created_at)
    else:
        if len(text) < MIN_CHARS:
            return None
        result = extract(text, TARGET_RATIO[tier])
    return result if len(result) < len(text) * 0.9 else None
