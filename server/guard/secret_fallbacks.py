"""A literal given as a credential's fallback is that credential (server.guard.redact).

Application config reads a secret from the environment and hard-codes what to use when it is unset; the
literal is the password the program runs with wherever nobody set one:

* an operator's right-hand side: ``process.env.DB_PASSWORD || 'v'``, ``$_ENV['DB_PASSWORD'] ?? 'v'``,
  ``getenv("DB_PASSWORD") ?: "v"``, ``os.environ.get("PW") or "v"``;
* a lookup's default: ``env('DB_PASSWORD', 'v')`` (Laravel), ``ENV.fetch("DB_PASSWORD", "v")`` and its block
  ``ENV.fetch("DB_PASSWORD") { "v" }`` (Rails), ``getOrDefault("DB_PASSWORD", "v")``, ``config(..., default='v')``
  and ``env.str(..., default='v')`` (python-decouple, django-environ);
* Terraform's ``try(each.value.admin_password, "v", null)`` and ``coalesce(var.pw, "v")``.

The credential is named by the line's left-hand side (``password:``, ``'password' =>``, ``const pw =``,
``admin_password =``), judged by ``key_kind`` as every assignment is: under a password a plain word counts, under a
token or key only a random value (``token = cookies.get("t") || "guest"`` is a role). Placeholders, labels and
sentences are none. One bounded scan per line: linear.
"""

from __future__ import annotations

from server.guard.lazyre import LazyRe as _LazyRe
from server.guard.secret_assignments import counts_under, is_placeholder, key_kind
from server.guard.secret_context import interface_text

_Cand = tuple[int, int, str, int, int]  # start, end, kind, rank, match start

# the line's left-hand side: a name or quoted name, then =, :, => or := (not ==, not a keyword argument's ==)
_LHS = _LazyRe(
    r"(?:(?<![\w$.'\"])|(?<=\$))(?P<k>[A-Za-z_][\w.]{0,60}|(?P<kq>[\"'])[A-Za-z_][\w.-]{0,60}(?P=kq))[ \t]*"
    r"(?::=|=>|=(?!=)|:(?![:/]))[ \t]*")
_LIT = r"(?P<q>[\"'])(?P<v>[^\"'\r\n]{3,200})(?P=q)"
# a fallback within the right-hand side (bounded: 200 characters of the same line before it)
_FALLBACK = _LazyRe(
    r"[^\r\n]{0,200}?(?:"
    r"(?:\|\||\?\?|\?:|[ \t]or)[ \t]*" + _LIT +  # operators
    r"|\bdefault[ \t]*[=:][ \t]*" + _LIT.replace("q>", "q2>").replace("v>", "v2>").replace("=q)", "=q2)") +
    r"|\b(?:env|fetch|getOrDefault|config|try|coalesce)\([^()\r\n]{1,120}?,[ \t]*"
    + _LIT.replace("q>", "q3>").replace("v>", "v3>").replace("=q)", "=q3)") +
    r"|\bfetch\([^()\r\n]{1,120}\)[ \t]*\{[ \t]*" + _LIT.replace("q>", "q4>").replace("v>", "v4>").replace("=q)", "=q4)") +
    r")")
_TRIGGERS = ("||", "??", "?:", " or ", "default", "env(", "fetch(", "getOrDefault(", "config(", "try(", "coalesce(")


def fallbacks(text: str, out: list[_Cand]) -> None:
    """Append the literals given as a credential-named setting's fallback (module docstring)."""
    # only the lines holding a fallback's operator or call are read (each once): prose has " or " everywhere but few lines
    if not any(t in text for t in _TRIGGERS):
        return
    start = 0
    while start <= len(text):
        end = text.find("\n", start)
        end = len(text) if end == -1 else end
        line = text[start:end]
        if any(t in line for t in _TRIGGERS):
            _line(text, start, end, out)
        start = end + 1


def _line(text: str, start: int, end: int, out: list[_Cand]) -> None:
    for m in _LHS.finditer(text, start, end):
        key = m.group("k").strip("\"'").rsplit(".", 1)[-1]
        kind = key_kind(key)
        if kind is None:
            continue
        f = _FALLBACK.match(text, m.end())
        if f is None:
            continue
        g = next(n for n in ("v", "v2", "v3", "v4") if f.group(n) is not None)
        value = f.group(g)
        if value != value.strip() or is_placeholder(value) or interface_text(value):
            continue
        if counts_under(kind, value):
            out.append((f.start(g), f.end(g), kind[0], 10, m.start()))
