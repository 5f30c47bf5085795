"""Tool arguments the schema rejects, said in plain words: which argument, what was sent, what is allowed.

The SDK reports a schema violation as pydantic's text (`1 validation error for
recallArguments ... https://errors.pydantic.dev/...`), which a person cannot act on and
a model reads poorly. The same arguments are checked here against the tool's published
input schema (the one hosts see; it carries every bound the server enforces), with
`jsonschema`, and each violation is rendered from the schema itself:

    `k` was 0; allowed: a whole number from 1 to 50.
    `add_messages[0].role` was "robot"; allowed: one of user, assistant, system, tool.
    `content` is missing; it is required: text of 1 to 32768 characters.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from server.validation import THREAD_OR_ALL_PATTERN, THREAD_PATTERN, THREAD_WORDS

#: Words for the patterns the tools' schemas use (a regular expression is not an explanation).
PATTERN_WORDS = {THREAD_PATTERN: THREAD_WORDS, THREAD_OR_ALL_PATTERN: THREAD_WORDS + ", or * for every thread"}

_SHOWN = 60


def _shown(value: Any) -> str:
    """What was sent, as JSON, cut short: a hostile megabyte must not come back in the error."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "…"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _resolve(schema: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        target: Any = root
        for part in ref[2:].split("/"):
            target = target.get(part, {}) if isinstance(target, Mapping) else {}
        return target if isinstance(target, Mapping) else {}
    return schema


def _range(schema: Mapping[str, Any]) -> str:
    low = schema.get("minimum")
    high = schema.get("maximum")
    above = schema.get("exclusiveMinimum")
    if above is not None and high is not None:
        return f" above {_number(above)} and at most {_number(high)}"
    if low is not None and high is not None:
        return f" from {_number(low)} to {_number(high)}"
    if low is not None:
        return f" of at least {_number(low)}"
    if above is not None:
        return f" above {_number(above)}"
    if high is not None:
        return f" of at most {_number(high)}"
    return ""


def allowed(schema: Mapping[str, Any], root: Mapping[str, Any]) -> str:
    """What `schema` accepts, in words."""
    schema = _resolve(schema, root)
    if "anyOf" in schema:
        options = [s for s in schema["anyOf"] if isinstance(s, Mapping)]
        real = [allowed(s, root) for s in options if s.get("type") != "null"]
        nullable = len(real) < len(options)
        words = " or ".join(real) or "nothing"
        return words + (", or null (or leave it out)" if nullable else "")
    if "enum" in schema:
        return "one of " + ", ".join(str(v) for v in schema["enum"])
    if "const" in schema:
        return f"exactly {_shown(schema['const'])}"
    kind = schema.get("type")
    if kind == "string":
        if schema.get("pattern") in PATTERN_WORDS:
            return PATTERN_WORDS[schema["pattern"]]
        low, high = schema.get("minLength"), schema.get("maxLength")
        if low and high:
            return f"text of {low} to {high} characters"
        if high:
            return f"text of at most {high} characters"
        return "non-empty text" if low else "text"
    if kind == "integer":
        return "a whole number" + _range(schema)
    if kind == "number":
        return "a number" + _range(schema)
    if kind == "boolean":
        return "true or false"
    if kind == "array":
        items = schema.get("items")
        each = f", each {allowed(items, root)}" if isinstance(items, Mapping) and items else ""
        most = schema.get("maxItems")
        return (f"a list of at most {most} items" if most is not None else "a list") + each
    if kind == "object":
        props = schema.get("properties") or {}
        if props:
            return "an object with " + ", ".join(f"{name} ({allowed(p, root)})" for name, p in props.items())
        return "an object"
    return schema.get("description") or "a value of another shape"


def _where(path: Any) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _describe(error: Any, root: Mapping[str, Any], whole: Mapping[str, Any] | None = None) -> str:
    """One violation in words; `whole` is the schema to state as allowed (an optional argument's, with its null)."""
    if error.validator in ("anyOf", "oneOf") and error.context:
        # An optional argument is "X or null": say what is wrong inside X, not that it matched neither.
        inner = [e for e in error.context if not (e.validator == "type" and e.validator_value == "null")]
        deepest = max(inner, key=lambda e: len(e.absolute_path), default=None)
        if deepest is not None and len(deepest.absolute_path) > len(error.absolute_path):
            return _describe(deepest, root)
        if deepest is not None and deepest.validator != "type":
            return _describe(deepest, root, whole=error.schema)
    schema = whole if whole is not None else error.schema
    if error.validator == "required":
        missing = [name for name in error.validator_value if not isinstance(error.instance, Mapping) or name not in error.instance]
        parts = []
        for name in missing:
            prop = (error.schema.get("properties") or {}).get(name, {})
            place = _where([*error.absolute_path, name])
            parts.append(f"`{place}` is missing; it is required: {allowed(prop, root)}")
        return "; ".join(parts)
    if error.validator == "additionalProperties":
        known = ", ".join(error.schema.get("properties") or {})
        extra = sorted(set(error.instance) - set(error.schema.get("properties") or {}))
        return f"unknown argument(s) {', '.join(f'`{e}`' for e in extra)}; the arguments are: {known}"
    place = _where(error.absolute_path) or "the arguments"
    if error.validator in ("maxLength", "minLength") and isinstance(error.instance, str):
        sent = f"{len(error.instance):,} characters long" if error.instance else 'was ""'
        return f"`{place}` {'is ' if error.instance else ''}{sent}; allowed: {allowed(schema, root)}"
    if error.validator in ("maxItems", "minItems") and isinstance(error.instance, list):
        return f"`{place}` has {len(error.instance):,} items; allowed: {allowed(schema, root)}"
    return f"`{place}` was {_shown(error.instance)}; allowed: {allowed(schema, root)}"


def _surrogates(value: Any, path: tuple = ()) -> list[tuple]:
    """Paths of strings holding a lone surrogate (valid in a Python str, never in UTF-8 text)."""
    found = []
    stack = [(path, value)]
    while stack and len(found) < 10:
        where, item = stack.pop()
        if isinstance(item, str):
            if any("\ud800" <= c <= "\udfff" for c in item):
                found.append(where)
        elif isinstance(item, Mapping):
            stack.extend(((*where, k), v) for k, v in item.items())
        elif isinstance(item, (list, tuple)):
            stack.extend(((*where, i), v) for i, v in enumerate(item))
    return sorted(found, key=lambda w: list(map(str, w)))


class ArgumentCheck:
    """Checks a tool's arguments against its input schema; `problems` says what is wrong, in words."""

    def __init__(self, schemas: Mapping[str, Mapping[str, Any]]) -> None:
        self.schemas = schemas
        self._validators: dict[str, Any] = {}

    def problems(self, tool: str, arguments: Any) -> list[str]:
        schema = self.schemas.get(tool)
        if schema is None:
            return []
        validator = self._validators.get(tool)
        if validator is None:
            # lazy: jsonschema, ~0.1 s (0.2-0.7 s of a busy machine), only once pydantic has refused a call's
            # arguments (requests.py): a server's start and its first recall never import it
            from jsonschema import Draft202012Validator

            validator = self._validators[tool] = Draft202012Validator(schema)
        # One message per argument: the first (shallowest) error of each path.
        seen: dict[tuple, str] = {
            where: f"`{_where(where)}` is not valid Unicode (it contains a lone surrogate); send UTF-8 text"
            for where in _surrogates(arguments)
        }
        for error in sorted(validator.iter_errors(arguments), key=lambda e: (len(e.absolute_path), list(map(str, e.absolute_path)))):
            key = tuple(error.absolute_path) if error.validator != "required" else ("required", *error.absolute_path)
            if key not in seen and tuple(error.absolute_path) not in seen:
                seen[key] = _describe(error, schema)
        return list(seen.values())

    def message(self, tool: str, arguments: Any) -> str | None:
        """The whole error text for a rejected call, or None when the schema accepts `arguments`."""
        found = self.problems(tool, arguments)
        if not found:
            return None
        return f"Invalid arguments for {tool}: " + "; ".join(found) + "."
