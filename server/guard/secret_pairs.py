"""A secret named in one field and given in the next, or as a variable's fallback.

* **Name/value pairs**: the key is a *value* of its own field and the secret sits in a sibling ``value``
  field -- Kubernetes and Compose ``env`` lists (``- name: DB_PASSWORD`` / ``value: ...``), ECS task
  definitions and Azure app settings (``{"name": "API_TOKEN", "value": "..."}``), CloudFormation's
  ``ParameterKey`` / ``ParameterValue``, Hadoop-style XML (``<name>db.password</name><value>...</value>``);
  and a YAML key with no value of its own whose ``value:`` child holds it (``proxy-password:`` / ``  value: v``).
* **Fallbacks**: shell and Compose parameter expansion ``${DB_PASSWORD:-<default>}`` and Spring's
  ``${db.password:<default>}``: the default is the secret whenever the variable is unset.

The name is judged by server.guard.secret_assignments.key_kind, a key that needs a random value gets
only a random one (value_ok), and placeholders and references stay (``valueFrom:``, ``value: $(X)``,
``${A:-${B}}``). Each pattern starts with a literal and spans at most a few hundred characters: linear.
"""

from __future__ import annotations

from server.guard.lazyre import LazyRe as _LazyRe
from server.guard.secret_assignments import is_placeholder, key_kind, looks_fake, value_ok

_Cand = tuple[int, int, str, int, int]

_NAME = r"[A-Za-z_][A-Za-z0-9_.\-]{0,80}"
# name field, then (no other object, at most 160 characters) the sibling value field
# matched at each "name" / "key" of the lower-cased text (parameterkey and optionname end in them)
_PAIR = _LazyRe(
    r"(?i:(?:name|key)[\"']?)[ \t]*[:=][ \t]*[\"']?(" + _NAME + r")[\"']?"
    r"(?:(?!(?i:name|key)[\"']?[ \t]*[:=])[^{}\[\]]){0,160}?"
    r"(?i:(?<![A-Za-z0-9_])[\"']?(?:value|parametervalue)[\"']?)[ \t]*[:=][ \t]*"
    r"(?:\"([^\"\r\n]{1,256})\"|'([^'\r\n]{1,256})'|([^\s\"',}\]#]{1,256}))"
)
_XML_PAIR = _LazyRe(r"<name>[ \t]*(" + _NAME + r")[ \t]*</name>\s{0,80}<value>([^<\r\n]{1,256})</value>")
# a YAML key with no value of its own and a `value:` child (OpenAPI/Swagger extensions, Helm, SAM parameters):
# `dev-proxy-password:` / `  value: v` -- the child holds the named secret
_PARENT = _LazyRe(
    r"(?m)^[ \t]*[\"']?(" + _NAME + r")[\"']?:[ \t]*\r?\n[ \t]+(?i:value):[ \t]*"
    r"(?:\"([^\"\r\n]{1,256})\"|'([^'\r\n]{1,256})'|([^\s\"',}\]#]{1,256}))"
)
_FALLBACK = _LazyRe(r"\$\{(" + _NAME + r")(?::-|-|:(?![?+=-]))([^{}$\s\"']{1,256})\}")


def _secret(name: str, value: str) -> str | None:
    """The kind when ``name`` names a credential and ``value`` is a literal one."""
    found = key_kind(name)
    v = value.strip()
    if found is None or not v or is_placeholder(v) or looks_fake(v) or v.lower() == name.lower():
        return None
    return found[0] if value_ok(found[1], v) else None


def _pair_matches(text: str, low: str):  # type: ignore[no-untyped-def]
    for word in ("name", "key"):
        i = low.find(word)
        while i != -1:
            # the field's name starts a word (or is parameterkey / optionname)
            if i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_") \
                    or low.endswith("parameter", 0, i) or low.endswith("option", 0, i):
                m = _PAIR.match(text, i)
                if m is not None:
                    yield m
            i = low.find(word, i + 1)


def pairs(text: str, low: str, out: list[_Cand]) -> None:
    if "value" in low:
        for m in _pair_matches(text, low):
            g = 2 if m.group(2) is not None else 3 if m.group(3) is not None else 4
            kind = _secret(m.group(1), m.group(g))
            if kind is not None:
                out.append((m.start(g), m.end(g), kind, 9, m.start()))
        if ":\n" in text or ":\r\n" in text:
            for m in _PARENT.finditer(text):
                g = 2 if m.group(2) is not None else 3 if m.group(3) is not None else 4
                kind = _secret(m.group(1), m.group(g))
                if kind is not None:
                    out.append((m.start(g), m.end(g), kind, 9, m.start()))
        if "<name>" in text:
            for m in _XML_PAIR.finditer(text):
                kind = _secret(m.group(1), m.group(2))
                if kind is not None:
                    out.append((m.start(2), m.end(2), kind, 9, m.start()))
    if "${" in text:
        for m in _FALLBACK.finditer(text):
            kind = _secret(m.group(1), m.group(2))
            if kind is not None:
                out.append((m.start(2), m.end(2), kind, 9, m.start()))
