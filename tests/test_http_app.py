"""The HTTP app in-process: the real ASGI stack (size limit, bearer auth, Host checks, tenant selection)
driven by the SDK's streamable HTTP client over an in-memory transport — no port, no subprocess."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from server.http.transport import build_app
from server.tenants import Tenants
from server.http.tokens import TokenStore

pytestmark = pytest.mark.anyio
BASE = "http://127.0.0.1:8765"


@asynccontextmanager
async def http_app(service, **settings: object) -> AsyncIterator[httpx2.AsyncClient]:
    app = build_app(Tenants(service, require_identity=True), service.settings.with_(**settings), "127.0.0.1", 8765)
    starlette = app
    while not hasattr(starlette, "router"):  # inside the body limit and the guards
        starlette = starlette.app
    async with starlette.router.lifespan_context(starlette):
        async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), base_url=BASE) as http:
            yield http


@asynccontextmanager
async def mcp_client(http: httpx2.AsyncClient, token: str) -> AsyncIterator[Client]:
    http.headers["Authorization"] = f"Bearer {token}"
    async with Client(streamable_http_client(BASE + "/mcp", http_client=http), mode="legacy") as client:  # type: ignore[arg-type]
        yield client


async def test_each_token_reaches_only_its_tenant_through_the_http_stack(service, clock):
    tokens = TokenStore(service.db, clock)
    a, _ = tokens.create("team-a", user="ann", agent="cli")
    b, _ = tokens.create("team-b", user="ben", agent="cli")
    async with http_app(service) as http:
        async with mcp_client(http, a) as client:
            await client.call_tool("remember", {"content": "ALPHA uses Redis for the session cache"})
            await client.call_tool("global_prompts", {"action": "set", "name": "p", "content": "ALPHA prompt"})
        async with mcp_client(http, b) as client:
            await client.call_tool("remember", {"content": "BETA uses Redis for the session cache"})
            found = await client.call_tool("recall", {"query": "ALPHA BETA redis session cache", "k": 50})
            prompts = (await client.read_resource("memory://global-prompts")).contents[0].text
    memories = found.structured_content["memories"]
    assert [m["content"] for m in memories if "Redis" in m["content"]] == ["BETA uses Redis for the session cache"]
    assert memories[0]["origin"] == "ben/cli via http"
    assert "ALPHA" not in json.dumps(found.structured_content) + prompts
    assert service.store.count()["live"] == 0  # the default namespace got nothing


async def test_the_checks_in_front_of_mcp_answer_before_any_tool_runs(service, clock):
    token, _ = TokenStore(service.db, clock).create("team-a")
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    async with http_app(service, http_max_body_bytes=2048) as http:
        assert (await http.post("/mcp", content=b"{}", headers=headers)).status_code == 401
        big = await http.post("/mcp", content=b"x" * 4096, headers={**headers, "Authorization": f"Bearer {token}"})
        assert big.status_code == 413 and "MEMVAULT_HTTP_MAX_BODY_BYTES" in big.text
        rebinding = await http.post("/mcp", content=b"{}", headers={**headers, "Authorization": f"Bearer {token}",
                                                                     "Host": "attacker.example"})
        assert rebinding.status_code == 421
