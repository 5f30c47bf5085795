"""How memory text becomes FTS5 terms, and how a user query becomes a safe MATCH expression.

(First version; the retrieval-quality work refines the tokenisation.)
"""

from __future__ import annotations

import re

FTS_TOKENIZER = "porter unicode61 remove_diacritics 2"

_WORD = re.compile(r"\w+", re.UNICODE)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")

STOPWORDS = frozenset(
    "a an and are as at be but by did do does for from had has have how i in is it its me my "
    "of on or our so that the their them then there these they this to was we were what when "
    "where which who why will with you your".split()
)


def _split_identifiers(text: str) -> list[str]:
    parts: list[str] = []
    for token in re.findall(r"[\w./-]+", text):
        if any(c in token for c in "_./-") or _CAMEL.search(token):
            for piece in re.split(r"[_./-]+", token):
                parts.extend(p for p in _CAMEL.split(piece) if p)
    return parts


def index_text(content: str, context: str | None = None) -> str:
    """The text indexed for a memory: its content plus the parts of its identifiers."""
    extra = _split_identifiers(content)
    text = content if not extra else content + "\n" + " ".join(extra)
    return text if not context else text + "\n" + context


def match_expression(query: str) -> str | None:
    """A MATCH expression that cannot be an FTS5 syntax error: every term quoted, OR-ed."""
    terms: list[str] = []
    seen: set[str] = set()
    for word in _WORD.findall(query) + _split_identifiers(query):
        low = word.lower()
        if low in STOPWORDS or low in seen:
            continue
        seen.add(low)
        terms.append('"' + word.replace('"', '""') + '"')
    return " OR ".join(terms) if terms else None
