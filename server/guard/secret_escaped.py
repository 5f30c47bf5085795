"""JSON written inside a string, for server.guard.redact: ``{\\"password\\":\\"hunter2\\"}`` in a log line, a Java or
JavaScript string literal, a ``curl -d`` payload or a JSON value holding JSON. Every key rule expects the quote
right after ``:`` and right after the value, so the escaped form is scanned once more with each ``\\"`` read as
`` "`` where it opens a string (after ``{ [ , : =`` or a space) and as ``" `` where it closes one -- the same length, so
offsets line up 1:1 -- and the backslashes stay in the output.
"""

from __future__ import annotations

from collections.abc import Callable

from server.guard.lazyre import LazyRe as _LazyRe

_Cand = tuple[int, int, str, int, int]  # start, end, kind, rank, match start
_ESCAPED_QUOTE = _LazyRe(r'(^|[{\[,:=\s])?\\"')


def escaped_json(text: str, scan: Callable[[str], list[_Cand]]) -> list[_Cand]:
    """``scan`` of ``text`` with each ``\\"`` read as an opening `` "`` or a closing ``" `` (module docstring)."""
    view = _ESCAPED_QUOTE.sub(lambda m: (m.group(1) or "") + (' "' if m.group(1) is not None else '" '), text)
    return [(s, e, kind, rank, at) for s, e, kind, rank, at in scan(view) if text[s:e].strip(' "\\')]
