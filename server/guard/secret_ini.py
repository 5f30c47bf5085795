"""Values in INI-style files, for server.guard.redact (kept apart: redact.py is at the line cap).

In code ``password = hunter`` is an assignment from a variable, so secret_assignments takes an unquoted plain word
after a spaced ``=`` for a name. In an INI file -- ``my.cnf``, ``odbc.ini``, ``.s3cfg``, ``supervisord.conf``,
``php.ini``, ``pgbouncer.ini``, an AWS credentials file -- nothing is ever quoted and the spaces are the norm, so
the same line holds the literal. A text is read as INI from its first ``[section]`` header line on; each
``key = value`` line after it whose key names a credential gives its value (one token to the end of the line or a
`` ;``/`` #`` comment) when ``counts_under`` accepts it: under a password key a plain word too, else a random run.
References (``%(pw)s``, ``${PW}``), placeholders, booleans, paths and the key's own name stay.

Linear: one search for the header, then one pass over the lines after it.
"""

from __future__ import annotations

from server.guard.lazyre import LazyRe as _LazyRe
from server.guard.secret_assignments import counts_under, is_placeholder
from server.guard.secret_context import self_named
from server.guard.secret_keys import key_kind

_Cand = tuple[int, int, str, int, int]

_HEADER = _LazyRe(r"(?m)^[ \t]*\[[A-Za-z0-9][^\[\]\r\n=]{0,80}\][ \t]*\r?$")
_LINE = _LazyRe(r"(?m)^[ \t]*(?P<key>[A-Za-z_][A-Za-z0-9_.\-]{0,80})[ \t]+=[ \t]+"
                r"(?P<val>[^\s\"'`;#][^\s\"'`]{2,1023})[ \t]*(?:[;#][^\r\n]*)?\r?$")


def ini_values(text: str, out: list[_Cand]) -> None:
    header = _HEADER.search(text)
    if header is None:
        return
    for m in _LINE.finditer(text, header.end()):
        key, v = m.group("key"), m.group("val")
        kind = key_kind(key)
        if kind is None or is_placeholder(v) or self_named(key, v) or v[0] in "/~.\\" or "://" in v:
            continue
        if counts_under(kind, v):
            out.append((m.start("val"), m.end("val"), kind[0], 10, m.start()))
