"""Credentials given to a command-line flag or an HTTP Authorization header, for server.guard.redact (kept apart:
redact.py is at the line cap).

* **Any flag named for a credential** (``--secret-key v``, ``--accountkey=v``, ``--encryption-key v``,
  PowerShell's ``-StorageAccountKey v``): the flag's name is judged by ``key_kind`` like any other key, so the
  credential words a config key may end in count on a command line too (secret_assignments' own flag rule knows
  only names ending in password/token/secret/api-key). A path, a file name, a URL, a reference and a placeholder
  stay (``--ssh-key ~/.ssh/id_rsa``, ``--private-key key.pem``, ``--token $TOKEN``); a word stays unless the flag
  names a password.
* **A short token after an Authorization scheme** (``Authorization: Bearer token123``): the bearer-token rule
  takes 12+ characters anywhere ("Bearer" alone is a word of prose); written after ``Authorization:`` on the same
  line a 6+ character literal holding a digit is the credential whatever its length.

Linear: one regex pass per rule; each value is the run up to the next stop character, found with a cached search.
"""

from __future__ import annotations

from server.guard.lazyre import LazyRe as _LazyRe
from server.guard.secret_assignments import RunEnd, counts_under, is_placeholder
from server.guard.secret_keys import key_kind

_Cand = tuple[int, int, str, int, int]

# --name v, --name=v, -Name v (one dash: a name of 4+ letters, PowerShell's and Java's style); not a dash in a word.
_ANY_FLAG = _LazyRe(r"(?<![\w\-])--?(?P<key>[A-Za-z][A-Za-z0-9]{1,40}(?:[-_.][A-Za-z0-9]{1,40}){0,5})"
                    r"(?:[ \t]+|=)(?P<q>[\"']?)")
_STOP = _LazyRe(r"[\s\"'`\[(),;|]")
# secret_assignments' own flag rule (its names end so); its answers stand
_KNOWN_END = ("password", "passwd", "token", "secret", "api-key", "apikey")
_FILE_NAME = _LazyRe(r"[\w.\-]{1,200}\.(?i:pem|key|crt|cer|der|p12|pfx|jks|json|ya?ml|txt|env|gpg|asc|pub|ppk|ini|conf|cfg)\Z")


def _flag_value_ok(kind: tuple[str, bool | str], v: str) -> bool:
    if not 3 <= len(v) <= 1024 or v[0] in "-/~.\\" or "://" in v or v[1:3] == ":\\" or is_placeholder(v):
        return False
    if _FILE_NAME.match(v) or (v.count("/") >= 2 and not any(c in v for c in "+=")):
        return False  # a key file or a path (base64 holds "/" too, mostly with "+" or a closing "=")
    if kind[0] == "password" and not kind[1]:
        return not v.isalpha() or len(v) >= 8  # (--password-stdin, --db-password prompt: a mode, not a value)
    if not kind[1]:
        return len(v) >= 6 and not v.isalpha() and not v.isdigit()
    return counts_under(kind, v)


def _flags(text: str, out: list[_Cand]) -> None:
    run_end = RunEnd(text, _STOP)
    for m in _ANY_FLAG.finditer(text):
        key = m.group("key")
        if m.group(0)[1] == "-" and key.lower().endswith(_KNOWN_END):
            continue
        if m.group(0)[1] != "-" and len(key) < 4:
            continue
        kind = key_kind(key)
        if kind is None:
            continue
        vs = m.end()
        q = m.group("q")
        ve = text.find(q, vs, vs + 1025) if q else run_end(vs)
        if ve < 0:
            continue
        v = text[vs:ve]
        if (q or " " not in v) and _flag_value_ok(kind, v):
            out.append((vs, ve, kind[0], 10, m.start()))


_AUTH_HEADER = _LazyRe(r"(?i:authorization)[\"']?[ \t]*[:=][ \t]*[\"']?[ \t]*(?i:bearer|token)[ \t]+"
                       r"([A-Za-z0-9\-._~+/!@#%^&*]{6,11}=*)(?![A-Za-z0-9\-._~+/!@#%^&*=])")


def _auth_headers(text: str, out: list[_Cand]) -> None:
    for m in _AUTH_HEADER.finditer(text):
        v = m.group(1)
        if any(c.isdigit() for c in v) and any(c.isalpha() for c in v) and not is_placeholder(v):
            out.append((*m.span(1), "bearer-token", 3, m.start()))


def flags_and_headers(text: str, low: str, out: list[_Cand]) -> None:
    """Both rules; each runs only when its marker occurs."""
    if "-" in text:
        _flags(text, out)
    if "authorization" in low:
        _auth_headers(text, out)
