"""YAML values that do not sit on their key's line, or sit in a flow collection, for server.guard.redact (kept
apart: redact.py is at the line cap).

* **Block scalars and continued plain scalars**: ``api_key: |`` / ``password: >-`` with the value on the next,
  deeper-indented line, or ``password:`` alone with the value on the next deeper line (YAML folds it into the
  key's value). The line-based rules see a key with nothing after it.
* **Flow collections**: ``api_keys: [k1, k2]``, ``app_key: {one: k1, two: k2}``, ``community_strings: ['a', 'b']``:
  each item is a value of the key.

The key is judged by ``key_kind`` and each value by ``counts_under``, as for any key (a plain word under a password
key, else a random run); placeholders, references, a mapping's own keys (``value: x`` on the next line is a
mapping, not a scalar) and list dashes stay. Linear: one regex pass per shape, each item looked at once.
"""

from __future__ import annotations

from server.guard.lazyre import LazyRe as _LazyRe
from server.guard.secret_assignments import counts_under, is_placeholder
from server.guard.secret_context import self_named
from server.guard.secret_keys import key_kind

_Cand = tuple[int, int, str, int, int]

# key: [|>][-+]?  (or nothing) then, on the next line, deeper indented, one token that is not a mapping or a list
# (the key's line alone, so that a key line that is the next line's value candidate is still seen as a key)
_KEY_LINE = _LazyRe(r"(?m)^(?P<ind>[ \t]*)[\"']?(?P<key>[A-Za-z_][\w.\-]{0,80})[\"']?[ \t]*:[ \t]*"
                    r"(?:[|>][-+]?[1-9]?)?[ \t]*\r?\n")
_VALUE_LINE = _LazyRe(r"(?P<ind2>[ \t]+)(?P<val>[^\s#\-\"'\[{][^\s]{2,1023}|[\"'][^\s\"']{3,1023}[\"'])[ \t]*\r?(?:\n|\Z)")
_FLOW = _LazyRe(r"[\"']?(?P<key>[A-Za-z_][\w.\-]{0,80})[\"']?[ \t]*:[ \t]*(?P<open>[\[{])(?P<body>[^\[\]{}\r\n]{1,2048})[\]}]")
_ITEM = _LazyRe(r"[ \t]*(?:[\w.\-]{1,80}[ \t]*:[ \t]*)?(?P<q>[\"']?)(?P<val>[^,\"'\s]{3,1024})(?P=q)[ \t]*(?:,|\Z)")


def _take(key: str, value: str, start: int, anchor: int, out: list[_Cand]) -> None:
    kind = key_kind(key)
    if kind is None or is_placeholder(value) or self_named(key, value) or value.endswith(":"):
        return
    if counts_under(kind, value):
        out.append((start, start + len(value), kind[0], 10, anchor))


def yaml_values(text: str, out: list[_Cand]) -> None:
    if ":\n" in text or ":\r\n" in text or "|" in text or ">" in text or ": \n" in text:
        for m in _KEY_LINE.finditer(text):
            n = _VALUE_LINE.match(text, m.end())
            if n is None or len(n.group("ind2").expandtabs(4)) <= len(m.group("ind").expandtabs(4)):
                continue  # no value there, or the next line is a sibling key's
            v, vs = n.group("val"), n.start("val")
            if v[0] in "\"'":
                v, vs = v[1:-1], vs + 1
            if ": " in v or v.endswith(":"):
                continue
            _take(m.group("key"), v, vs, m.start(), out)
    if ": [" in text or ": {" in text or ":[" in text or ":{" in text:
        for m in _FLOW.finditer(text):
            body, pos = m.group("body"), m.start("body")
            if m.group("open") == "{" and ":" not in body:
                continue  # {name}: a format field or a set, not a mapping
            i = 0
            while i < len(body):
                it = _ITEM.match(body, i)
                if it is None:
                    break
                _take(m.group("key"), it.group("val"), pos + it.start("val"), m.start(), out)
                i = it.end()
