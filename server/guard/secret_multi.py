"""Secrets given to several keys at once, for server.guard.redact: a YAML list under a password key
(``passwords:`` then ``- "v"`` lines) and Go's ``a_password, b_password := "v1", "v2"``.

Kept apart from secret_assignments (one key, one value); the keys are judged by its key_kind and
the values by its is_placeholder and value_ok. Each line is walked once: linear.
"""

from __future__ import annotations

from server.guard.lazyre import LazyRe as _LazyRe
from server.guard.secret_assignments import is_placeholder, key_kind, value_ok
from server.guard.secret_context import interface_text

_Cand = tuple[int, int, str, int, int]  # start, end, kind, rank, match start

# A YAML key with a list under it: `db_passwords:` then `  - "v"` lines (each line walked once)
_YAML_LIST = _LazyRe(r"(?m:^[ \t]*(?P<key>[\w.\-]{1,80}):[ \t]*\r?\n(?P<items>(?:[ \t]*-[ \t]+[^\r\n]*(?:\r?\n|\Z)){1,64}))")
_ITEM = _LazyRe(r"(?m:[ \t]*-[ \t]+(?P<q>[\"']?)(?P<v>[^\s\"'#]{3,512})(?P=q)[ \t]*$)")


def yaml_lists(text: str, out: list[_Cand]) -> None:
    """Each item of a YAML list under a credential key: ``passwords:`` then ``- "v"`` (not a mapping, not
    one plain word)."""
    for m in _YAML_LIST.finditer(text):
        found = key_kind(m.group("key"))
        if not found:
            continue
        for it in _ITEM.finditer(text, m.start("items"), m.end("items")):
            v = it.group("v")
            if not v.isalpha() and ": " not in v and not is_placeholder(v) and value_ok(found[1], v):
                out.append((it.start("v"), it.end("v"), found[0], 10, m.start()))


# Go: `const a_password01, b_password02 string = "v1", "v2"`, `a, b := "v1", "v2"` (up to 8 names)
_GO_MULTI = _LazyRe(
    r"(?P<keys>[A-Za-z_]\w{0,60}(?:[ \t]*,[ \t]*[A-Za-z_]\w{0,60}){1,7})[ \t]*(?:[A-Za-z][\w\[\]]{0,20}[ \t]*)?"
    r"(?::=|=(?!=))[ \t]*(?P<vals>\"[^\"\r\n]{0,512}\"(?:[ \t]*,[ \t]*\"[^\"\r\n]{0,512}\"){1,7})"
)
_QUOTED = _LazyRe(r"\"(?P<v>[^\"\r\n]{0,512})\"")


def multi_assignments(text: str, out: list[_Cand]) -> None:
    """Each name paired with its value in a multiple assignment, when the name is a credential's."""
    for m in _GO_MULTI.finditer(text):
        keys = [k.strip() for k in m.group("keys").split(",")]
        vals = list(_QUOTED.finditer(text, m.start("vals"), m.end("vals")))
        if len(keys) != len(vals):
            continue
        for key, q in zip(keys, vals):
            found = key_kind(key)
            v = q.group("v")
            if found and len(v) >= 3 and not v.isalpha() and not is_placeholder(v) and not interface_text(v) \
                    and value_ok(found[1], v):
                out.append((q.start("v"), q.end("v"), found[0], 10, m.start()))
