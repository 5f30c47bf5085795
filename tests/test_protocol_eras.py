"""Both protocol eras, end to end: every tool, resource and prompt, as each kind of host speaks.

- 2025-11-25: the `initialize` handshake (Claude Desktop, Claude Code, Cursor, the Inspector);
- 2026-07-28: stateless -- `server/discover`, then every request carrying its version,
  client info and capabilities in `params._meta`, and no `initialize` at all.

The SDK's own client drives a spawned `python -m server` (this checkout's code) in each
era, over stdio and over HTTP (`serve --http --auth none`); the lists of tools, resources, templates and prompts are compared with what is
exercised here, so a new one without a test in both eras fails. Raw lines check the
wire itself: the README's by-hand example, and -32022 naming the supported versions.
"""

from __future__ import annotations

import json
import re
import sys
from datetime import datetime
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from http_spawn import HttpServer
from spawn import INIT, ROOT, RawSession, rpc, server_env

pytestmark = pytest.mark.e2e

#: (the Client's mode, the protocol version it must end up speaking)
ERAS = [("legacy", "2025-11-25"), ("auto", "2026-07-28")]

#: What each request of the modern era carries in params._meta.
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


def _structured(result: Any) -> dict:
    assert not result.is_error, result.content
    return result.structured_content


async def _every_tool(client: Client) -> tuple[dict[str, Any], int]:
    """Call each tool once with arguments that do real work; (what each returned, the memory stored)."""
    out: dict[str, Any] = {}
    out["remember"] = _structured(await client.call_tool(
        "remember", {"content": "Deploys go through ArgoCD", "thread": "ops", "tags": ["deploy"], "kind": "decision"}))
    stored = out["remember"]["id"]
    assert out["remember"]["status"] == "stored"
    out["recall"] = _structured(await client.call_tool("recall", {"query": "ArgoCD deploys", "thread": "ops"}))
    assert out["recall"]["memories"][0]["id"] == stored
    out["thread_prompt"] = _structured(await client.call_tool("thread_prompt", {
        "thread": "ops", "query": "deploys", "set_title": "Operations",
        "add_messages": [{"role": "user", "content": "How do we deploy?"}]}))
    assert "ArgoCD" in json.dumps(out["thread_prompt"])
    out["global_prompts"] = _structured(await client.call_tool(
        "global_prompts", {"action": "set", "name": "style", "content": "Answer briefly.", "priority": 5}))
    out["curate_memory"] = _structured(await client.call_tool(
        "curate_memory", {"action": "pin", "ids": [stored], "dry_run": False}))
    return out, stored


async def _every_resource(client: Client, day: str) -> dict[str, str]:
    listed = {str(r.uri) for r in (await client.list_resources()).resources}
    templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
    filled = {"memory://daily/{day}": f"memory://daily/{day}", "memory://global-prompts/{name}": "memory://global-prompts/style",
              "memory://threads/{thread}": "memory://threads/ops"}
    assert templates == set(filled), templates
    texts = {}
    for uri in sorted(listed) + sorted(filled.values()):
        result = await client.read_resource(uri)
        (content,) = result.contents
        assert content.mime_type == "text/markdown", (uri, content)
        texts[uri] = content.text
    return texts


async def _exercise(client: Client) -> dict[str, Any]:
    tools = {t.name for t in (await client.list_tools()).tools}
    prompts = {p.name for p in (await client.list_prompts()).prompts}
    called, stored = await _every_tool(client)
    created = called["recall"]["memories"][0]["created_at"]  # UTC; the daily log's day is local time
    day = datetime.fromisoformat(created.replace("Z", "+00:00")).astimezone().date().isoformat()
    texts = await _every_resource(client, day)
    got = {
        "thread_prompt": await client.get_prompt("thread_prompt", {"thread": "ops", "query": "deploys"}),
        "recall": await client.get_prompt("recall", {"query": "ArgoCD", "thread": "ops"}),
    }
    completed = await client.complete(
        ref={"type": "ref/prompt", "name": "thread_prompt"}, argument={"name": "thread", "value": "o"})
    forgotten = _structured(await client.call_tool("forget", {"id": stored}))
    return {"tools": tools, "prompts": prompts, "called": called, "texts": texts, "got": got,
            "completed": completed.completion.values, "forgotten": forgotten, "stored": stored}


@pytest.mark.anyio
@pytest.mark.parametrize(("mode", "version"), ERAS, ids=[v for _, v in ERAS])
async def test_every_tool_resource_and_prompt_works_in_both_eras_over_stdio(tmp_path, mode, version):
    params = StdioServerParameters(command=sys.executable, args=["-m", "server"], env=server_env(tmp_path), cwd=str(ROOT))
    async with Client(params, mode=mode, cache=None) as client:
        assert client.protocol_version == version
        assert client.server_info is not None and client.server_info.name == "memvault"
        seen = await _exercise(client)
    assert seen["tools"] == {"remember", "recall", "forget", "thread_prompt", "global_prompts", "curate_memory"}
    assert set(seen["called"]) | {"forget"} == seen["tools"]  # every tool was called
    assert seen["prompts"] == set(seen["got"]) == {"thread_prompt", "recall"}
    texts = seen["texts"]
    assert set(texts) == {"memory://soul", "memory://memory", "memory://daily", "memory://global-prompts", "memory://threads",
                          next(u for u in texts if u.startswith("memory://daily/")), "memory://global-prompts/style",
                          "memory://threads/ops"}
    assert "Deploys go through ArgoCD" in texts["memory://threads/ops"] and "Operations" in texts["memory://threads/ops"]
    assert "Answer briefly." in texts["memory://global-prompts/style"] and "style" in texts["memory://global-prompts"]
    assert "ops" in texts["memory://threads"]
    daily = next(t for u, t in texts.items() if u.startswith("memory://daily/"))
    assert "Deploys go through ArgoCD" in daily and f"id:{seen['stored']}" in daily
    assert texts["memory://soul"].startswith("# SOUL") and texts["memory://memory"].startswith("# MEMORY")
    assert "ArgoCD" in seen["got"]["thread_prompt"].messages[0].content.text
    assert "ArgoCD" in seen["got"]["recall"].messages[0].content.text
    assert seen["completed"] == ["ops"]
    assert seen["forgotten"]["status"] == "forgotten"


@pytest.mark.anyio
@pytest.mark.parametrize(("mode", "version"), ERAS, ids=[v for _, v in ERAS])
async def test_every_tool_resource_and_prompt_works_in_both_eras_over_http(tmp_path, mode, version):
    srv = HttpServer(tmp_path, "--auth", "none")
    try:
        async with Client(srv.wait_listening(), mode=mode, cache=None) as client:
            assert client.protocol_version == version
            seen = await _exercise(client)
    finally:
        srv.stop()
    assert seen["tools"] == set(seen["called"]) | {"forget"} and seen["prompts"] == set(seen["got"])
    assert len(seen["texts"]) == 8 and seen["forgotten"]["status"] == "forgotten"
    assert "Traceback" not in srv.stderr.decode(errors="replace")


@pytest.mark.anyio
async def test_an_unknown_name_is_the_same_protocol_error_in_both_eras(tmp_path):
    params = StdioServerParameters(command=sys.executable, args=["-m", "server"], env=server_env(tmp_path), cwd=str(ROOT))
    for mode, _ in ERAS:
        async with Client(params, mode=mode, cache=None) as client:
            for attempt in (client.call_tool("nosuch", {}), client.get_prompt("nosuch"), client.read_resource("memory://nosuch")):
                with pytest.raises(MCPError) as refused:
                    await attempt
                assert refused.value.error.code == -32602, (mode, refused.value.error)


def test_a_2026_client_without_initialize_and_an_unsupported_version_over_raw_stdio(tmp_path):
    """The wire of the stateless era: discover, a call with _meta, and -32022 listing the supported versions."""
    session = RawSession(tmp_path)
    try:
        session.send(rpc("server/discover", {"_meta": META}, 1))
        discovered = session.reply(1)["result"]
        assert "2026-07-28" in discovered["supportedVersions"] and "tools" in discovered["capabilities"]
        session.send(rpc("tools/call", {"name": "remember", "arguments": {"content": "no handshake at all"}, "_meta": META}, 2))
        assert session.reply(2)["result"]["structuredContent"]["status"] == "stored"
        future = {**META, "io.modelcontextprotocol/protocolVersion": "2099-01-01"}
        session.send(rpc("tools/list", {"_meta": future}, 3))
        error = session.reply(3)["error"]
        assert error["code"] == -32022 and error["data"]["requested"] == "2099-01-01"
        assert "2026-07-28" in error["data"]["supported"]
        session.send(rpc("initialize", INIT, 4))  # a connection speaks one era
        error = session.reply(4)["error"]
        assert error["code"] == -32022 and error["data"]["requested"] == "2025-11-25"
        assert session.close() == 0
    finally:
        session.kill()
    assert "Traceback" not in session.stderr.decode(errors="replace")


def test_the_readmes_by_hand_example_works_as_written(tmp_path):
    """Each JSON line of the README's by-hand block, sent as a person would paste it, gets a result."""
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"paste these lines.*?```json\n(.*?)```", readme, re.S)
    assert block, "the README's by-hand example is missing"
    lines = [line for line in block.group(1).splitlines() if line.strip()]
    assert "server/discover" in lines[0] and all("initialize" not in line for line in lines)
    session = RawSession(tmp_path)
    try:
        for line in lines:
            session.send(line.encode() + b"\n")
            answer = session.reply(json.loads(line)["id"])
            assert "result" in answer, answer
        assert session.close() == 0
    finally:
        session.kill()
