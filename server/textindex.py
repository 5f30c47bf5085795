"""Text preparation for the keyword index, the same for both backends.

Pure standard library.  Two things live here:

* ``index_text(content, context)`` -- what the keyword index holds for a
  memory: the content, plus the parts of any code identifiers it contains
  (``parse_config`` -> ``parse config``, ``parseConfig`` -> ``parse config``,
  ``server/store.py`` -> ``server store py``) and their joined forms
  (``parseconfig``, ``SHOP-142`` -> ``shop142``), so that both the exact
  identifier and its words can match; ``context_text`` for a turn's context.
* ``query_terms(query)`` -- the searchable terms of any user query: words,
  lower-cased, stopwords dropped, identifier parts added. A search is built
  from them as a ``KeywordQuery`` (server.search), which each backend renders
  in its own dialect (FTS5 MATCH, tsquery); no query syntax is made here.
"""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# Longest query we turn into terms; beyond this the tail is ignored so that a
# pasted document cannot make a keyword query with thousands of terms.
MAX_QUERY_TERMS = 32

STOPWORDS = frozenset(
    """
a about above after again against all am an and any are aren't as at be because been
before being below between both but by can can't cannot could couldn't did didn't do does
doesn't doing don't down during each few for from further had hadn't has hasn't have
haven't having he he'd he'll he's her here here's hers herself him himself his how how's
i i'd i'll i'm i've if in into is isn't it it's its itself let's me more most mustn't my
myself no nor not of off on once only or other ought our ours ourselves out over own
same shan't she she'd she'll she's should shouldn't so some such than that that's the
their theirs them themselves then there there's these they they'd they'll they're
they've this those through to too under until up very was wasn't we we'd we'll we're
we've were weren't what what's when when's where where's which while who who's whom why
why's will with won't would wouldn't you you'd you'll you're you've your yours yourself
yourselves also just ever s t d ll m re ve
""".split()
)

# A "word" as unicode61 sees it: letters, digits (and we also keep _ . / - : so
# that identifiers and paths stay whole long enough for us to split them).
_RAW_TOKEN = re.compile(r"[\w][\w./:\-']*[\w]|[\w]", re.UNICODE)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)  # what unicode61 would emit (no '_')
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def split_identifier(token: str) -> list[str]:
    """Split a code identifier or path into its word parts.

    ``parse_config`` -> ``['parse', 'config']``; ``HTTPServerError`` ->
    ``['HTTP', 'Server', 'Error']``; ``server/store.py`` ->
    ``['server', 'store', 'py']``; ``getV2Name`` -> ``['get', 'V', '2', 'Name']``.
    A plain word returns ``[word]``.
    """
    parts: list[str] = []
    for chunk in _WORD.findall(token):
        if chunk.isascii():
            sub = _CAMEL.findall(chunk)
            parts.extend(sub if sub else [chunk])
        else:
            parts.append(chunk)
    return parts


@lru_cache(maxsize=1 << 16)  # pure, and tokens recur: recall's coverage asks it of every word of every ranked memory
def _is_compound(token: str) -> bool:
    """True for tokens that look like code: contain _ . / - or an inner capital.

    A hyphenated id (``SHOP-142``, ``orders-api``) is one token as well as its parts:
    unicode61 splits it, so the joined form (``shop142``) is what tells it from every
    other memory that says "shop" (schema migration 7 re-indexed older memories)."""
    if any(c in token for c in "_./-") and len(_WORD.findall(token)) > 1:
        return True
    body = token[1:]
    return any(c.isupper() for c in body) and any(c.islower() for c in token)


def identifier_parts(text: str) -> list[str]:
    """Extra words to index for the identifiers in ``text`` (camelCase parts,
    and the whole identifier with separators removed so ``parse_config`` also
    matches a query ``parseconfig``)."""
    extra: list[str] = []
    for tok in _RAW_TOKEN.findall(text):
        tok = tok.strip(".:-'/")
        if not tok or not _is_compound(tok):
            continue
        parts = split_identifier(tok)
        # camelCase parts are invisible to unicode61; snake/path parts are not,
        # but we still add the joined form so either spelling matches.
        has_camel = any(c.isupper() for c in tok[1:]) and any(c.islower() for c in tok)
        if has_camel:
            extra.extend(p.lower() for p in parts)
        joined = "".join(p.lower() for p in parts)
        if joined and len(parts) > 1:
            extra.append(joined)
    return extra


def index_text(content: str, context: str | None = None) -> str:
    """Text the keyword index holds for a memory.

    ``content`` plus identifier parts; ``context`` (e.g. the previous turn in
    the same thread) is appended after a newline when given.
    """
    content = content or ""
    extra = identifier_parts(content)
    out = content
    if extra:
        out += "\n" + " ".join(extra)
    if context:
        out += "\n" + context
    return out


def query_terms(query: str) -> list[str]:
    """Searchable terms of a query: lower-cased words without stopwords, plus
    the parts / joined forms of identifiers.  Order-preserving, de-duplicated."""
    if not query:
        return []
    query = unicodedata.normalize("NFKC", query)
    terms: list[str] = []
    seen: set[str] = set()

    def add(t: str) -> None:
        t = t.lower()
        if t and t not in seen and t not in STOPWORDS:
            seen.add(t)
            terms.append(t)

    for tok in _RAW_TOKEN.findall(query):
        tok = tok.strip(".:-'/")
        if not tok:
            continue
        words = _WORD.findall(tok)
        # possessives / contractions: "Caroline's" -> "caroline"
        if len(words) == 2 and words[1].lower() in ("s", "t", "d", "ll", "m", "re", "ve") and "'" in tok:
            words = words[:1]
        for w in words:
            add(w)
        if _is_compound(tok):
            parts = split_identifier(tok)
            for p in parts:
                add(p)
            if len(parts) > 1:
                add("".join(p.lower() for p in parts))
        if len(terms) >= MAX_QUERY_TERMS:
            break
    return terms[:MAX_QUERY_TERMS]


def context_text(previous: "list[str] | tuple[str, ...]") -> str:
    """Text for the keyword index's ``context`` of a memory: the contents of the
    memories just before it in the same thread (oldest first), each prepared
    like ``index_text``."""
    return "\n".join(index_text(p) for p in previous if p)
