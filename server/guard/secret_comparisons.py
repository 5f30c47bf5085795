"""A literal compared with a credential-named variable is that credential (server.guard.redact).

``if password == "root":``, ``if "f62e5b..." == password {``, ``if password != "hunter2"`` check a hard-coded
password: the literal is what the program accepts. gosec (G101), bandit (B105) and whispers all report the
literal, in either order and with ``==``, ``!=``, ``===`` or ``!==``. Which names count is the assignments'
rule (``key_kind``); for a password a plain word counts too (``root``), for a token or key only a random
value does (``token == "Bearer"`` is a scheme, ``key != "name"`` a field).

One regex scan per form, bounded lengths: linear.
"""

from __future__ import annotations

from server.guard.lazyre import LazyRe as _LazyRe
from server.guard.secret_assignments import counts_under, is_placeholder, key_kind

_Cand = tuple[int, int, str, int, int]  # start, end, kind, rank, match start

_NAME = r"[A-Za-z_$][\w$]{0,60}(?:\.[A-Za-z_$][\w$]{0,60}){0,4}"
_LIT_FIRST = _LazyRe(r"(?P<q>[\"'])(?P<v>[^\"'\r\n]{3,200})(?P=q)[ \t]*(?:===?|!==?)[ \t]*(?P<k>" + _NAME + r")(?![\w$(\[])")
_NAME_FIRST = _LazyRe(r"(?<![\w$.])(?P<k>" + _NAME + r")[ \t]*(?:===?|!==?)[ \t]*(?P<q>[\"'])(?P<v>[^\"'\r\n]{3,200})(?P=q)")


def comparisons(text: str, out: list[_Cand]) -> None:
    """Append the literals compared with a credential-named variable (module docstring)."""
    if "==" not in text and "!=" not in text:
        return
    for rx in (_LIT_FIRST, _NAME_FIRST):
        for m in rx.finditer(text):
            kind = key_kind(m.group("k").rsplit(".", 1)[-1].lstrip("$"))
            if kind is None:
                continue
            value = m.group("v")
            if value != value.strip() or is_placeholder(value):
                continue
            if counts_under(kind, value):
                out.append((m.start("v"), m.end("v"), kind[0], 10, m.start()))
