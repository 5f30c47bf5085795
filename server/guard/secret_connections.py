"""Passwords in database connection strings: ``Server=db;User Id=sa;Password=...;``.

ADO.NET, ODBC, OLE DB, JDBC-style properties, DB2's CLI strings and libpq's keyword/value form write a
connection's credentials as ``key=value`` pairs separated by ``;`` (libpq: spaces). A connection string
is a URL in another syntax, so it follows the URL rule (server.guard.redact's ``url-password``): every
literal password is redacted -- ``Password=myPassword;`` too (a documentation sample costs a marker, a
real one never leaks) -- and only a reference stays (``$(DbPassword)``, ``${DB_PASS}``, ``%PW%``,
``<password>``, ``{your_password}``, ``#{...}``, ``*****``).

A ``password=`` counts only inside a connection string: with another connection key (``server``,
``data source``, ``host``, ``database``, ``uid``, ``user id``, ``provider``, ``driver``, ...) in the same
line, separated by ``;`` -- or, libpq's form, with two such keys separated by spaces -- each written
``key=value`` with no space around ``=`` (``$user = x; $password = pwd;`` is code assigning variables). Each match looks at
most a few hundred characters around it: linear on hostile input.
"""

from __future__ import annotations

from bisect import bisect_left

from server.guard.lazyre import LazyRe as _LazyRe

_Cand = tuple[int, int, str, int, int]

# matched at each "password=" / "passwd=" / "pwd=" of the lower-cased text (a scan of every position cost
# more than the rest of this module on a 2 KB note)
_PASSWORD_KEY = _LazyRe(r"(?i:password|passwd|pwd)=([^;\s\"'`,)\]}{]{1,256}|\{[^{}\r\n]{1,256}\})")
_KEY_WORDS = ("password=", "passwd=", "pwd=")
_GLUED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_CONN_KEY = _LazyRe(
    r"(?i:(?<![A-Za-z0-9_])(?:server|data[ _]?source|host(?:name)?|address|addr|database|initial[ _]catalog|dbname|"
    r"db|uid|user[ _]?id|user(?:name)?|provider|driver|dsn|port|protocol|sslmode|trusted_connection|"
    r"integrated[ _]security|encrypt)=)"
)
_WINDOW = 400
_REFERENCE_START = ("$", "%", "<", "#{", "{{", "[", "@")
_FILLER = frozenset("*xX.#•?-_")
_BRACED_NAME = _LazyRe(r"\{[A-Za-z_ ]{0,40}\}|\{\d{1,2}\}")


def _reference(value: str) -> bool:
    """Where the password comes from, not the password."""
    return (value.startswith(_REFERENCE_START) or set(value) <= _FILLER or _BRACED_NAME.fullmatch(value) is not None
            or (value.startswith("{") and value[1:4].lower() == "you"))


def _password_keys(text: str, low: str):  # type: ignore[no-untyped-def]
    for word in _KEY_WORDS:
        i = low.find(word)
        while i != -1:
            if i == 0 or text[i - 1] not in _GLUED:
                m = _PASSWORD_KEY.match(text, i)
                if m is not None:
                    yield m
            i = low.find(word, i + 1)


def connection_strings(text: str, low: str, out: list[_Cand]) -> None:
    keys: list[int] | None = None  # every connection key's start, found once (a window per match would be quadratic-ish)
    for m in _password_keys(text, low):
        s, e = m.span(1)
        if _reference(text[s:e]):
            continue
        if keys is None:
            keys = [k.start() for k in _CONN_KEY.finditer(text)]
        lo = text.rfind("\n", max(0, m.start() - _WINDOW), m.start()) + 1 or max(0, m.start() - _WINDOW)
        hi = text.find("\n", e, e + _WINDOW)
        hi = min(len(text), e + _WINDOW) if hi < 0 else hi
        i, j = bisect_left(keys, lo), bisect_left(keys, hi)
        near = [k for k in keys[i:min(j, i + 8)] if not m.start() <= k < e]  # (a few are enough to decide)
        if not near:
            continue
        semicolon = ";" in text[max(lo, m.start() - 2):m.start()] or text.startswith(";", e)
        spaced = len(near) >= 2 and all(k == 0 or text[k - 1] in " \t'\"" for k in near)
        if semicolon or spaced:
            out.append((s, e, "password", 7, m.start()))
