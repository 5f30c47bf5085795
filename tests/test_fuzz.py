"""Hostile and malformed arguments for every tool and resource, generated from the schemas the server publishes.

The tool list is read from the running server, so tools added later are covered
without editing this file. Each call must give a valid result or an error result
with a message; an unexpected exception (the SDK's bare "Error executing tool X")
fails the test. After every example the server still answers and the store passes
integrity_check with its indexes in step.

MEMVAULT_FUZZ_EXAMPLES (default 60 per test) sizes the run; MEMVAULT_FUZZ_SHRINK=1
shrinks a failure to a minimal example.
"""

from __future__ import annotations

import itertools
import json
import os
import string
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from mcp import Client
from mcp.shared.exceptions import MCPError

from server.app import build_server
from server.storage.sqlite.db import integrity_errors

pytestmark = [pytest.mark.anyio, pytest.mark.slow]  # at full size: EXAMPLES calls of every tool

EXAMPLES = int(os.environ.get("MEMVAULT_FUZZ_EXAMPLES", "60"))
# The store carries over between examples (so consistency is checked over a long
# history), which makes shrinking slow and sometimes flaky: a failure reports the
# arguments as generated. MEMVAULT_FUZZ_SHRINK=1 shrinks anyway.
PHASES = tuple(Phase) if os.environ.get("MEMVAULT_FUZZ_SHRINK") else (Phase.explicit, Phase.generate)
FUZZ = settings(
    max_examples=EXAMPLES,
    phases=PHASES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
    # CI replays the same examples every run (a red run must be reproducible);
    # locally each run explores new ones. MEMVAULT_FUZZ_EXAMPLES widens the search.
    derandomize=os.environ.get("CI") == "true",
)

# -- hand-written strategies -------------------------------------------------------

NASTY = [
    '"', '""', "'", "*", "^", ":", "-", "+", "(", ")", "NEAR", "NEAR(a b, 3)", "OR", "AND", "NOT", "a OR", "OR b",
    '"unbalanced', "unbalanced'", "col:term", "{a b}", "a*", "*a", "memory_fts", "rank MATCH 'x'",
    "'; DROP TABLE memories; --", '"); DELETE FROM memories; --', "1 OR 1=1", "%", "_", "\\", "\\\\",
    "../../etc/passwd", "..\\..\\windows\\system32", "/etc/passwd", "~/.ssh/id_rsa", "file:///etc/passwd",
    "CON", "NUL", "aux.txt", ".", "..", "...", "a/../b", "%2e%2e%2f", "\x00", "a\x00b", "\u202e", "\u200b",
    "\u200d", "\ufeff", "\u2028", "\ud800", "\udfff", "\ud83d", "\U0001f600", "\u0301", "\ufffd", "\x7f",
    "\r\n", "\t", " ", "", "ﷺ", "𒐫", "İ", "ß", "Ǆ", "\u00a0", "null", "true", "[]", "{}", "NaN", "-0",
    "9999-12-31T23:59:59-12:00", "0001-01-01", "2026-13-45", "1970-01-01T00:00:00+14:00", "*", "global",
]


def strings() -> st.SearchStrategy[str]:
    any_char = st.characters(exclude_categories=())  # surrogates, controls and unassigned included
    pieces = st.one_of(st.sampled_from(NASTY), st.text(any_char, max_size=12), st.text(string.ascii_letters, min_size=1, max_size=8))
    return st.one_of(
        st.sampled_from(NASTY),
        st.text(any_char, max_size=60),
        st.lists(pieces, max_size=8).map(" ".join),
        st.lists(pieces, max_size=8).map("".join),
        st.builds(lambda c, n: c * n, st.sampled_from(["x", "é", "😀", " ", "\u200b", '"', "a "]), st.integers(1_000, 70_000)),
    )


def integers() -> st.SearchStrategy[int]:
    edges = [0, 1, -1, 2, 5, 50, 51, 2**31 - 1, 2**31, 2**53, 2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 2**64, 10**30]
    return st.one_of(st.sampled_from(edges), st.integers(-(2**80), 2**80))


def numbers() -> st.SearchStrategy[float]:
    # NaN and infinities are not representable in JSON; every finite extreme is.
    edges = [0.0, -0.0, 1.0, 0.5, 1e308, -1e308, 5e-324, 1.0000000000000002, 0.9999999999999999]
    return st.one_of(st.sampled_from(edges), st.floats(allow_nan=False, allow_infinity=False))


def nested(depth: int) -> Any:
    value: Any = "deep"
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


def json_values() -> st.SearchStrategy[Any]:
    scalars = st.one_of(st.none(), st.booleans(), integers(), numbers(), strings())
    return st.one_of(
        scalars,
        st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(strings(), inner, max_size=4), max_leaves=12),
        st.integers(20, 200).map(nested),
        st.integers(1_000, 50_000).map(lambda n: ["t"] * n),
    )


def _resolve(schema: dict, root: dict) -> dict:
    while "$ref" in schema:
        schema = root["$defs"][schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def valid_ish(schema: dict, root: dict) -> st.SearchStrategy[Any]:
    """Values of the declared type (hostile within it): the kind that passes pydantic and reaches our code."""
    schema = _resolve(schema, root)
    options = schema.get("anyOf") or schema.get("oneOf")
    if options:
        return st.one_of([valid_ish(o, root) for o in options])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema.get("type")
    if kind == "string":
        return strings()
    if kind == "integer":
        return integers()
    if kind == "number":
        return numbers()
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        items = valid_ish(schema.get("items", {}), root)
        many = st.tuples(items, st.integers(21, 5000)).map(lambda t: [t[0]] * t[1])  # cheap to generate
        return st.one_of(st.lists(items, max_size=25), many)
    if kind == "object":
        return arguments(schema, root)
    return json_values()


def arguments(schema: dict, root: dict | None = None) -> st.SearchStrategy[dict]:
    """An arguments object for a tool: each property valid-ish, wrong-typed or left out; sometimes extra keys."""
    root = root or schema
    props = schema.get("properties", {})
    required = set(schema.get("required", []))

    @st.composite
    def build(draw: st.DrawFn) -> dict:
        out: dict[str, Any] = {}
        for name, prop in props.items():
            choice = draw(st.sampled_from(["valid", "valid", "valid", "hostile", "omit"]))
            if choice == "omit" and (name not in required or draw(st.integers(0, 9)) == 0):
                continue
            out[name] = draw(valid_ish(prop, root) if choice != "hostile" else json_values())
        if draw(st.integers(0, 9)) == 0:
            out[draw(strings())] = draw(json_values())
        return out

    return build()


# -- checks -----------------------------------------------------------------------


def assert_consistent(service) -> None:
    with service.db.read() as conn:
        assert integrity_errors(conn) == []
        drift = service.store.index_drift(conn)
    assert not drift, drift.describe()


def problem(tool: str, args: Any, result) -> str | None:
    """What is wrong with a tool's answer, if anything."""
    text = " ".join(c.text for c in result.content if getattr(c, "text", None)).strip()
    if result.is_error:
        if not text:
            return f"{tool}: an error result without a message"
        if text == f"Error executing tool {tool}":
            return f"{tool} crashed on {_short(args)} (the server log has the traceback)"
        if "Traceback" in text:
            return f"{tool} leaked a traceback: {text[:300]}"
    elif not isinstance(result.structured_content, dict):
        return f"{tool}: a result without structured content: {result}"
    return None


def _short(args: Any) -> str:
    text = repr(args)
    return text if len(text) < 300 else text[:300] + "..."


def assert_answer(tool: str, result) -> None:
    assert problem(tool, None, result) is None


_servers: dict[int, Any] = {}


def _server(service):
    """One server object per store (building one costs ~0.1 s); a Client per example connects to it."""
    if id(service) not in _servers:
        _servers.clear()
        _servers[id(service)] = build_server(service, start_background=False)
    return _servers[id(service)]


async def _tools(service) -> list:
    # Straight from the server object: hypothesis must draw outside the client's task
    # group, or its control-flow exceptions get wrapped in an ExceptionGroup.
    return await _server(service).list_tools()


_arguments: dict[str, st.SearchStrategy[dict]] = {}


def tool_arguments(schema: dict) -> st.SearchStrategy[dict]:
    key = json.dumps(schema, sort_keys=True)
    if key not in _arguments:
        _arguments[key] = arguments(schema)
    return _arguments[key]


@FUZZ
@given(data=st.data())
async def test_every_tool_answers_hostile_arguments_with_a_result_or_a_clear_error(service, data):
    tools = await _tools(service)
    calls = []
    for _ in range(data.draw(st.integers(1, 4), label="calls")):
        tool = data.draw(st.sampled_from(tools), label="tool")
        calls.append((tool.name, data.draw(tool_arguments(tool.input_schema), label="arguments")))
    found: list[str | None] = []
    # Failures are collected and asserted outside the client: raised inside, they
    # come out wrapped in an ExceptionGroup, which slows hypothesis's shrinking.
    async with Client(_server(service)) as client:
        for name, args in calls:
            try:
                result = await client.call_tool(name, args)
            except UnicodeEncodeError:
                continue  # the client cannot serialise a lone surrogate here: nothing reached the server
            found.append(problem(name, args, result))
        alive = await client.call_tool("recall", {"query": "alive", "thread": "*"})
    assert [p for p in found if p] == []
    assert not alive.is_error, f"recall over every thread fails after {_short(calls)}: a stored memory may poison recall"
    assert_consistent(service)


@FUZZ
@given(words=st.lists(st.sampled_from(NASTY) | st.text(string.ascii_lowercase, min_size=1, max_size=6), min_size=1, max_size=6))
async def test_recall_never_breaks_on_query_syntax_and_finds_what_it_should(service, words):
    """FTS5 and SQL syntax in a query is searched for as words, never interpreted."""
    token = f"marker{next(_serial)}x"
    content = f"fuzzing {token} " + " ".join(w for w in words if w.strip() and "\x00" not in w and not _lone_surrogate(w))
    async with Client(_server(service)) as client:
        stored = await client.call_tool("remember", {"content": content, "thread": "fuzz"})
        assert_answer("remember", stored)
        found = await client.call_tool("recall", {"query": " ".join(words), "thread": "fuzz", "k": 50})
        assert_answer("recall", found)
        marker = await client.call_tool("recall", {"query": token, "thread": "fuzz", "k": 5})
        assert not marker.is_error
        assert stored.structured_content["id"] in {m["id"] for m in marker.structured_content["memories"]}
    assert_consistent(service)


_serial = itertools.count()


def _lone_surrogate(text: str) -> bool:
    return any(0xD800 <= ord(c) <= 0xDFFF for c in text)


def _fill(template: str, values: list[str]) -> str:
    # Only the template's own placeholders: a hostile value that itself contains "{}"
    # must not be substituted again (that looped forever).
    import re

    count = itertools.count()
    return re.sub(r"\{[^{}]*\}", lambda _: values[next(count) % len(values)], template)


@FUZZ
@given(pick=st.integers(0, 99), raw=st.lists(strings(), min_size=1, max_size=3), encode=st.booleans())
async def test_every_resource_and_template_gives_content_or_an_error_never_a_crash(service, pick, raw, encode):
    """Enumerated from the server: fixed resources are read, template parameters get hostile values.

    Everything is drawn before the test body runs: a draw inside the async body that runs out
    of data escapes as an unretrieved task exception instead of quietly ending the example.
    """
    server = _server(service)
    uris = [str(r.uri) for r in await server.list_resources()]
    templates = [t.uri_template for t in await server.list_resource_templates()]
    if templates:
        template = templates[pick % len(templates)]
        raw = [v[:1999] for v in raw]
        # percent-encode as a hostile client would, lone surrogates included (as their UTF-8-ish bytes)
        uris.append(_fill(template, [quote(v.encode("utf-8", "surrogatepass"), safe="") if encode else v for v in raw]))
    async with Client(server) as client:
        for uri in uris:
            try:
                result = await client.read_resource(uri)
            except MCPError as exc:
                assert str(exc).strip(), uri
                assert str(exc).strip() != f"Error reading resource {uri}", f"{uri} crashed (see the server log)"
            except (ValueError, TypeError):
                pass  # the client itself refuses a URI it cannot form: nothing reached the server
            else:
                assert result.contents is not None
        assert not (await client.call_tool("recall", {"query": "alive"})).is_error
    assert_consistent(service)


async def test_the_generic_generator_covers_every_published_tool(service):
    """Guard for the generic approach: every tool's schema is one the strategies understand."""
    tools = await _tools(service)
    assert {t.name for t in tools} >= {"remember", "recall", "forget"}
    known = {"string", "integer", "number", "boolean", "null", "array", "object"}

    def types(schema: dict, root: dict) -> set[str]:
        schema = _resolve(schema, root)
        if "anyOf" in schema or "oneOf" in schema:
            return set().union(*(types(o, root) for o in schema.get("anyOf") or schema["oneOf"]))
        return {schema.get("type", "enum" if "enum" in schema else "any")}

    for tool in tools:
        assert tool.input_schema.get("type") == "object", tool.name
        for name, prop in tool.input_schema.get("properties", {}).items():
            assert types(prop, tool.input_schema) <= known | {"enum"}, (tool.name, name, prop)
