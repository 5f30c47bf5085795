"""A literal handed to a credential's setter or a client's user/password call is that credential
(server.guard.redact).

Code that builds a database pool, a broker connection or an HTTP client sets its password by a method, not an
assignment: ``dataSource.setPassword("v")``, ``factory.setPassword("v")`` (Java), ``session.setPassword("v")``
(JSch), ``builder.withPassword("v")``, ``client.SetApiKey("v")``, a builder's ``.password("v")`` (always on a receiver:
a bare ``setPassword("v")`` is a React state setter or the code's own helper); or passes user
and password positionally: ``new UsernamePasswordCredentials("u", "v")``, ``new NetworkCredential("u", "v")``,
``req.SetBasicAuth("u", "v")`` (Go), ``.withCredentials("u", "v")``, ``ldap.simple_bind_s(dn, "v")``; or a
database client's third argument: ``DriverManager.getConnection(url, "u", "v")``, ``pymysql.connect(host, "u", "v", db)``,
``new Sequelize("db", "u", "v")``. The setter's
name after ``set``/``with`` is judged by ``key_kind`` as an assignment's key is (under a password a plain word
counts, under a token or key only a random value); placeholders and labels are none. Found at each
``set``/``with``/``.password(`` and each call name's occurrence (literal finds, then one anchored match): linear.
"""

from __future__ import annotations

from server.guard.lazyre import LazyRe as _LazyRe
from server.guard.secret_assignments import counts_under, find_all, is_placeholder, key_kind
from server.guard.secret_context import interface_text

_Cand = tuple[int, int, str, int, int]

_LIT = r"[ \t]*(?P<q>[\"'])(?P<v>[^\"'\r\n]{3,256})(?P=q)[ \t]*\)"
# Matched at each occurrence of its literal (a scan of every position cost a tenth of a 2 KB note's redaction).
# A receiver first (dataSource.setPassword, builder.withPassword): a bare setPassword("...") is a React state setter
# or a test helper of the code's own (talisman's must-not-fire line), not a client's configuration.
_SETTER_STARTS = (".set", ".Set", ".with", ".With", ".password(", ".passwd(", ".secret(", ".apiKey(", ".token(",
                  ".accessToken(", ".secretKey(")
_SETTER = _LazyRe(r"\.(?:(?:set|Set|with|With)(?P<n>[A-Z][A-Za-z0-9]{1,40})|(?P<b>password|passwd|secret|"
                  r"apiKey|token|accessToken|secretKey))\(" + _LIT)
_ARG = r"[ \t]*(?:([\"'])[^\"'\r\n]{0,256}?\@N|[A-Za-z_][A-Za-z0-9_.]{0,64})[ \t]*,"
_PASSWORD_ARG = r"[ \t]*(?P<q>[\"'])(?P<v>[^\"'\r\n]{3,256})(?P=q)[ \t]*[,)]"
# a user/password call: its first argument a literal or a name, its second the password
_PAIR_CALLS = ("UsernamePasswordCredentials(", "UsernamePasswordAuthenticationToken(", "NetworkCredential(",
               "SetBasicAuth(", "setBasicAuth(", "withCredentials(", "simple_bind_s(", "simple_bind(", "bind_s(")
_PAIR = _LazyRe(r"[A-Za-z_]{4,40}\(" + _ARG.replace("@N", "1") + _PASSWORD_ARG)
# a database client given (where, user, password, ...) positionally: JDBC's getConnection(url, user, pw),
# PyMySQL/MySQLdb connect(host, user, pw, db), Sequelize(db, user, pw)
_TRIPLE_CALLS = ("DriverManager.getConnection(", "Sequelize(", "pymysql.connect(", "MySQLdb.connect(",
                 "mysql.connector.connect(")
_TRIPLE = _LazyRe(r"[A-Za-z_.]{9,40}\(" + _ARG.replace("@N", "1") + _ARG.replace("@N", "2") + _PASSWORD_ARG)


def _ok(kind: tuple[str, bool | str], value: str) -> bool:
    if value != value.strip() or is_placeholder(value) or interface_text(value):
        return False
    return counts_under(kind, value)


def setters(text: str, out: list[_Cand]) -> None:
    """Append the literals set as a credential or passed as a client's password (module docstring)."""
    if "(\"" not in text and "('" not in text and ", \"" not in text and ", '" not in text:
        return  # every form hands a quoted literal straight to a call
    for lit in _SETTER_STARTS:
        for i in find_all(text, lit):
            m = _SETTER.match(text, i)
            if m is None:
                continue
            kind = key_kind(m.group("n") or m.group("b"))
            if kind is not None and _ok(kind, m.group("v")):
                out.append((m.start("v"), m.end("v"), kind[0], 9, m.start()))
    for calls, rx in ((_PAIR_CALLS, _PAIR), (_TRIPLE_CALLS, _TRIPLE)):
        for lit in calls:
            for i in find_all(text, lit):
                if i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_"):
                    continue  # (simple_bind_s inside a longer name is another call)
                m = rx.match(text, i)
                if m is not None and _ok(("password", False), m.group("v")):
                    out.append((m.start("v"), m.end("v"), "password", 9, m.start()))
