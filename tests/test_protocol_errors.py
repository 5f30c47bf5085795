"""Every malformed or invalid request gets a JSON-RPC answer with the right code and words a person can act on.

Each case of issue 17 is sent as raw bytes over real stdio (the installed command's
code, spawned) and over HTTP (`serve --http --auth none`), and both must answer alike.
"""

from __future__ import annotations

import json
import re
import subprocess
import time

import httpx2
import pytest
from http_spawn import HttpServer
from spawn import INIT, ROOT, RawSession, command, rpc, server_env

pytestmark = pytest.mark.e2e

DEEP = b"[" * 5000 + b"]" * 5000


def _call(id: int, name: str, arguments: dict | bytes) -> bytes:
    args = arguments if isinstance(arguments, bytes) else json.dumps(arguments).encode()
    return b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s","arguments":%s}}' % (id, name.encode(), args)


#: (request bytes, expected JSON-RPC error code or None for a tool error result, words the answer must contain)
CASES: list[tuple[str, bytes, int | None, str]] = [
    ("unknown prompt", b'{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"nope"}}',
     -32602, "Unknown prompt: 'nope'; this server's prompts are: thread_prompt, recall"),
    ("prompt with an invalid thread",
     b'{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"thread_prompt","arguments":{"thread":"my project"}}}',
     -32602, "invalid thread 'my project': use 1-128 characters"),
    ("lone surrogate in content", _call(3, "remember", b'{"content":"a \\ud800 b"}'), -32700, "lone surrogate"),
    ("lone surrogate in a query", _call(4, "recall", b'{"query":"x \\udfff"}'), -32700, "lone surrogate"),
    ("lone surrogate in a thread", _call(5, "recall", b'{"query":"x","thread":"t\\ud83d"}'), -32700, "lone surrogate"),
    ("lone surrogate in a tag", _call(6, "remember", b'{"content":"x","tags":["\\ud800"]}'), -32700, "lone surrogate"),
    ("lone surrogate in a prompt argument",
     b'{"jsonrpc":"2.0","id":7,"method":"prompts/get","params":{"name":"thread_prompt","arguments":{"query":"\\ud800"}}}',
     -32700, "lone surrogate"),
    ("lone surrogate in a URI", b'{"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"uri":"memory://threads/\\ud800"}}',
     -32700, "lone surrogate"),
    ("5,000-deep nesting", _call(9, "recall", b'{"query":"x","deep":' + DEEP + b"}"), -32600, "nested 5,00"),
    ("unknown tool", _call(10, "nosuch", {}), -32602, "Unknown tool: 'nosuch'; this server's tools are: remember, recall"),
    ("k=0", _call(11, "recall", {"query": "x", "k": 0}), None, "`k` was 0; allowed: a whole number from 1 to 50"),
    ("min_score=2", _call(12, "recall", {"query": "x", "min_score": 2}), None,
     "`min_score` was 2; allowed: a number from 0 to 1"),
    ("unknown kind", _call(13, "remember", {"content": "x", "kind": "gossip"}), None,
     '`kind` was "gossip"; allowed: one of fact, preference, decision, note, summary, event, task, snippet, turn'),
    ("missing content", _call(14, "remember", {}), None, "`content` is missing; it is required"),
    ("token_budget=10", _call(15, "thread_prompt", {"token_budget": 10}), None,
     "`token_budget` was 10; allowed: a whole number from 50 to 200000"),
    ("message role robot", _call(16, "thread_prompt", {"thread": "t", "add_messages": [{"role": "robot", "content": "x"}]}),
     None, '`add_messages[0].role` was "robot"; allowed: one of user, assistant, system, tool'),
    ("invalid global prompt name", _call(17, "global_prompts", {"action": "set", "name": "bad name", "content": "x"}), None,
     '`name` was "bad name"; allowed: 1-128 characters'),
    ("importance out of range", _call(18, "remember", {"content": "x", "importance": 7}), None,
     "`importance` was 7; allowed: a number from 0 to 1"),
    ("too many tags", _call(19, "remember", {"content": "x", "tags": [f"t{i}" for i in range(21)]}), None,
     "`tags` has 21 items; allowed: a list of at most 20 items"),
    ("completion of an unknown prompt",
     b'{"jsonrpc":"2.0","id":20,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"x"},"argument":{"name":"a","value":""}}}',
     -32602, "Unknown prompt: 'x'"),
]


def _check(name: str, answer: dict, code: int | None, words: str) -> None:
    if code is not None:
        assert answer["error"]["code"] == code, (name, answer)
        text = answer["error"]["message"]
    else:
        assert answer["result"]["isError"] is True, (name, answer)
        text = answer["result"]["content"][0]["text"]
    assert words in text, (name, text)
    for noise in ("pydantic", "validation error", "Error executing tool", "Error rendering prompt", "invalid thread 'bad"):
        assert noise not in text, (name, text)


def test_each_case_over_stdio(tmp_path):
    session = RawSession(tmp_path)
    try:
        session.send(rpc("initialize", INIT, 0) + rpc("notifications/initialized"))
        session.reply(0)
        for name, request, code, words in CASES:
            session.send(request + b"\n")
            _check(name, session.reply(int(re.search(rb'"id":(\d+)', request)[1]), timeout=20), code, words)
        session.send(b"hello\n")  # not JSON: answered with id null
        session.send(rpc("ping", {}, 99))
        session.reply(99)
        assert session.replies[None]["error"]["code"] == -32700
        assert "is not JSON ('hello')" in session.replies[None]["error"]["message"]
        assert session.close() == 0
    finally:
        session.kill()
    stderr = session.stderr.decode(errors="replace")
    assert "Traceback" not in stderr and " ERROR " not in stderr, stderr[-3000:]


def _open_session(http, url: str) -> dict[str, str]:
    """initialize over HTTP; the headers every later request of that MCP session carries."""
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    opened = http.post(url, headers=headers, content=rpc("initialize", INIT, 0))
    return headers | {"mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": INIT["protocolVersion"]}


def test_each_case_over_http(tmp_path):
    srv = HttpServer(tmp_path, "--auth", "none")
    try:
        url = srv.wait_listening()
        with httpx2.Client(timeout=30) as http:
            headers = _open_session(http, url)
            http.post(url, headers=headers, content=rpc("notifications/initialized"))
            for name, request, code, words in CASES:
                response = http.post(url, headers=headers, content=request)
                _check(name, _json_rpc(response), code, words)
            garbage = http.post(url, headers=headers, content=b"hello")
            assert garbage.status_code == 400
            assert _json_rpc(garbage)["error"] == {
                "code": -32700, "message": "Parse error: this request body is not JSON ('hello'); send one JSON-RPC "
                "message per request body"}
            unreadable = http.post(url, headers=headers, content=_call(3, "remember", b'{"content":"\\ud800"}'))
            assert unreadable.status_code == 400 and _json_rpc(unreadable)["id"] == 3
    finally:
        srv.stop()
    assert "Traceback" not in srv.stderr.decode(errors="replace")


def _json_rpc(response: httpx2.Response) -> dict:
    """The JSON-RPC message of a response, plain JSON or one SSE event."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
        return json.loads(data[-1])
    return response.json()


def test_echo_hello_gets_a_parse_error(tmp_path):
    """`echo hello | memvault`: one -32700 answer on stdout, then a clean exit at EOF."""
    proc = subprocess.run(command(), input=b"hello\n", capture_output=True, cwd=ROOT, env=server_env(tmp_path), timeout=60)
    assert proc.returncode == 0
    (line,) = proc.stdout.splitlines()
    answer = json.loads(line)
    assert answer["id"] is None and answer["error"]["code"] == -32700


def test_a_notification_or_a_response_is_never_answered(tmp_path):
    session = RawSession(tmp_path)
    try:
        session.send(rpc("initialize", INIT, 0) + rpc("notifications/initialized"))
        session.reply(0)
        session.send(b'{"jsonrpc":"2.0","method":"notifications/x","params":{"a":"\\ud800"}}\n')  # malformed notification
        session.send(b'{"jsonrpc":"2.0","id":5,"result":{"a":"\\ud800"}}\n')  # malformed response
        session.send(rpc("ping", {}, 6))
        session.reply(6)
        assert session.close() == 0
    finally:
        session.kill()
    assert [json.loads(line).get("id") for line in session.stdout] == [0, 6]


@pytest.mark.anyio
async def test_schemas_carry_the_bounds_the_server_enforces(service):
    from mcp import Client

    from server.app import build_server

    async with Client(build_server(service, start_background=False)) as client:
        tools = {t.name: t.input_schema["properties"] for t in (await client.list_tools()).tools}
        prompts = {p.name: p for p in (await client.list_prompts()).prompts}
    remember = tools["remember"]
    assert (remember["importance"]["minimum"], remember["importance"]["maximum"]) == (0, 1)
    assert remember["tags"]["anyOf"][0]["maxItems"] == 20
    assert remember["content"]["maxLength"] == 32768
    assert "turn" in remember["kind"]["description"]
    assert tools["recall"]["k"]["maximum"] == 50 and tools["recall"]["query"]["maxLength"] == 2000
    assert tools["thread_prompt"]["token_budget"]["anyOf"][0]["minimum"] == 50
    for prompt in prompts.values():
        assert prompt.arguments and all(a.description for a in prompt.arguments), prompt


def test_the_global_prompt_service_names_a_prompt_not_a_thread(service):
    from server.errors import InvalidInput

    with pytest.raises(InvalidInput, match="invalid global prompt name 'bad name'"):
        service.global_prompts.run("set", "bad name", "x")


@pytest.mark.anyio
async def test_completions_offer_threads_prompts_days_and_kinds(service):
    from mcp import Client
    from mcp_types import PromptReference, ResourceTemplateReference

    from server.app import build_server

    service.remember("Billing uses Postgres", thread="billing")
    service.remember("Search uses Tantivy", thread="search")
    service.global_prompts.run("set", "code-style", "Use ruff")
    async with Client(build_server(service, start_background=False)) as client:
        async def values(ref, name, typed=""):
            return (await client.complete(ref, {"name": name, "value": typed})).completion.values

        assert await values(PromptReference(type="ref/prompt", name="thread_prompt"), "thread", "b") == ["billing"]
        assert set(await values(PromptReference(type="ref/prompt", name="recall"), "thread")) == {"billing", "search", "global", "*"}
        assert await values(PromptReference(type="ref/prompt", name="recall"), "kind", "pre") == ["preference"]
        assert await values(ResourceTemplateReference(type="ref/resource", uri="memory://global-prompts/{name}"), "name") == ["code-style"]
        day = service.clock().astimezone().date().isoformat()
        assert await values(ResourceTemplateReference(type="ref/resource", uri="memory://daily/{day}"), "day") == [day]
        assert await values(ResourceTemplateReference(type="ref/resource", uri="memory://threads/{thread}"), "thread", "S") == ["search"]


@pytest.mark.anyio
async def test_a_listen_stream_hears_of_memory_md_threads_and_daily_logs(service):
    """2026-07-28: subscriptions/listen delivers resources/updated for the URIs asked for."""
    import anyio
    from mcp import Client

    from server.app import build_server

    wanted = ["memory://memory", "memory://threads/ops", f"memory://daily/{service.clock().astimezone().date().isoformat()}"]
    async with Client(build_server(service, start_background=False), mode="2026-07-28") as client:
        async with client.listen(resource_subscriptions=wanted) as sub:
            await client.call_tool("remember", {"content": "Deploys go through ArgoCD", "thread": "ops"})
            (service.files.root / "MEMORY.md").write_text("# MEMORY\n\n- edited by hand\n")
            heard: set[str] = set()
            with anyio.fail_after(10):
                async for event in sub:
                    heard.add(event.uri)
                    if heard >= set(wanted):
                        break
    assert heard == set(wanted)


def test_a_2025_client_subscribes_over_stdio_and_hears_an_edit(tmp_path):
    session = RawSession(tmp_path)
    try:
        session.send(rpc("initialize", INIT, 0) + rpc("notifications/initialized"))
        assert session.reply(0)["result"]["capabilities"]["resources"]["subscribe"] is True
        session.send(rpc("resources/subscribe", {"uri": "memory://memory"}, 1))
        assert session.reply(1)["result"] == {}
        (tmp_path / "files" / "MEMORY.md").write_text("# MEMORY\n\n- a hand edit\n")  # the server's own file
        deadline = time.monotonic() + 15
        while not any(b"notifications/resources/updated" in line for line in session.stdout):
            assert time.monotonic() < deadline, session.stdout
            time.sleep(0.1)
        note = next(json.loads(line) for line in session.stdout if b"resources/updated" in line)
        assert note["params"]["uri"] == "memory://memory"
        session.send(rpc("resources/unsubscribe", {"uri": "memory://memory"}, 2))
        assert session.reply(2)["result"] == {}
        assert session.close() == 0
    finally:
        session.kill()


#: Lines the SDK's parser accepts but JSON-RPC 2.0 refuses: (request bytes, code, the reply's id, words).
LENIENT: list[tuple[bytes, int, object, str]] = [
    (b'{"jsonrpc":"2.0","id":"a\\ud800","method":"ping"}', -32700, None, "lone surrogate"),
    (b'{"jsonrpc":"2.0","id":null,"method":"ping"}', -32600, None, "the id is null"),
    (b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', -32600, None, "the id is an object"),
    (b'{"jsonrpc":"2.0","id":[1],"method":"ping"}', -32600, None, "the id is an array"),
    (b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}', -32600, None, "the id is a fraction"),
    (b'{"jsonrpc":"2.0","id":true,"method":"ping"}', -32600, None, "the id is a boolean"),
    (b'{"jsonrpc":"2.0","id":NaN,"method":"ping"}', -32700, None, "NaN is not a JSON value"),
    (_call(41, "recall", b'{"query":"x","min_score":Infinity}'), -32700, 41, "Infinity is not a JSON value"),
]


def test_lenient_lines_are_answered_over_stdio_and_the_server_keeps_serving(tmp_path):
    """A surrogate in the id, an id of the wrong type, a bare NaN: each answered, none kills the server."""
    session = RawSession(tmp_path)
    try:
        session.send(rpc("initialize", INIT, 0) + rpc("notifications/initialized"))
        session.reply(0)
        for i, (request, _, _, _) in enumerate(LENIENT):
            session.send(request + b"\n" + rpc("ping", {}, 100 + i))
            session.reply(100 + i, timeout=20)
        assert session.close() == 0
    finally:
        session.kill()
    answers = [json.loads(line) for line in session.stdout[1:]]
    for i, (request, code, id, words) in enumerate(LENIENT):
        answer, pong = answers[2 * i], answers[2 * i + 1]
        assert pong == {"jsonrpc": "2.0", "id": 100 + i, "result": {}}, (request, answers)
        assert answer["id"] == id and answer["error"]["code"] == code, (request, answer)
        assert words in answer["error"]["message"], (request, answer)
    assert "Traceback" not in session.stderr.decode(errors="replace")


def test_lenient_bodies_get_the_same_answers_over_http(tmp_path):
    srv = HttpServer(tmp_path, "--auth", "none")
    try:
        url = srv.wait_listening()
        with httpx2.Client(timeout=30) as http:
            headers = _open_session(http, url)
            for request, code, id, words in LENIENT:
                response = http.post(url, headers=headers, content=request)
                assert response.status_code == 400, (request, response.status_code, response.text)
                answer = response.json()
                assert answer["id"] == id and answer["error"]["code"] == code and words in answer["error"]["message"], answer
            assert _json_rpc(http.post(url, headers=headers, content=rpc("ping", {}, 7)))["result"] == {}
    finally:
        srv.stop()
    assert "Traceback" not in srv.stderr.decode(errors="replace")
