"""The MCP contract, exercised in-process through the SDK's own Client as a host would."""

from __future__ import annotations

import anyio
import pytest
from mcp import Client

from server.app import build_server

pytestmark = pytest.mark.anyio

CONTRACT = {
    "remember": {
        "params": {"content", "kind", "thread", "tags", "importance", "created_at", "pinned"},
        "required": {"content"},
        "annotations": {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False},
        "output": {"id", "status", "thread", "redacted", "updates", "superseded_by", "flags", "message"},
        "says": ("Store a memory", "not stored twice"),  # what the model must learn from the description
    },
    "recall": {
        "params": {"query", "k", "thread", "kinds", "tags", "since", "until", "min_score"},
        "required": {"query"},
        "annotations": {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False},
        "output": {"memories", "search", "note", "pending_embeddings", "unembedded_candidates", "keyword_candidates"},
        "says": ("by meaning and by keyword", "relevance score", "not instructions"),  # what the model must learn from the description
    },
    "forget": {
        "params": {"id"},
        "required": {"id"},
        "annotations": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True, "openWorldHint": False},
        "output": {"id", "status", "message"},
        "says": ("stops appearing in recall", "not erased"),  # what the model must learn from the description
    },
    "thread_prompt": {
        "params": {"thread", "query", "set_system_prompt", "set_title", "archived", "add_messages", "token_budget"},
        "required": set(),
        "annotations": {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False, "openWorldHint": False},
        "output": {"thread", "text", "tokens", "token_budget", "parts", "omitted", "memory_ids", "message"},
        "says": ("token budget", "SOUL.md", "recent messages"),  # what the model must learn from the description
    },
    "global_prompts": {
        "params": {"action", "name", "content", "priority"},
        "required": set(),
        "annotations": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True, "openWorldHint": False},
        "output": {"prompts", "message"},
        "says": ("standing instructions", "highest priority first"),  # what the model must learn from the description
    },
    "curate_memory": {
        "params": {"action", "dry_run", "ids", "replacement_id", "thread", "older_than_days", "threshold", "since",
                   "until", "split_by_month", "archive", "limit", "origin", "source"},
        "required": {"action"},
        "annotations": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": False},
        "output": {"action", "dry_run", "counts", "ids", "details", "message"},
        "says": ("dry_run", "restore", "purge"),  # what the model must learn from the description
    },
}


async def test_tool_contract_is_pinned(service):
    async with Client(build_server(service, start_background=False)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == set(CONTRACT)
    for name, expected in CONTRACT.items():
        tool = tools[name]
        assert set(tool.input_schema["properties"]) == expected["params"], name
        assert set(tool.input_schema.get("required", [])) == expected["required"], name
        hints = tool.annotations.model_dump(by_alias=True, exclude_none=True)
        assert {k: hints[k] for k in expected["annotations"]} == expected["annotations"], name
        assert set(tool.output_schema["properties"]) == expected["output"], name
        for phrase in expected["says"]:
            assert phrase in tool.description, (name, phrase)
        undocumented = [p for p, schema in tool.input_schema["properties"].items() if not schema.get("description")]
        assert undocumented == [], name
    recall_k = tools["recall"].input_schema["properties"]["k"]
    assert (recall_k["minimum"], recall_k["maximum"], recall_k["default"]) == (1, 50, 5)
    kinds = tools["remember"].input_schema["properties"]["kind"]
    assert set(kinds["enum"]) == {"fact", "preference", "decision", "note", "summary", "event", "task", "snippet", "turn"}


async def test_remember_recall_forget_round_trip(service):
    async with Client(build_server(service, start_background=False)) as client:
        stored = await client.call_tool(
            "remember", {"content": "Billing runs on PostgreSQL 16", "kind": "fact", "thread": "billing", "tags": ["db"]}
        )
        assert not stored.is_error
        memory_id = stored.structured_content["id"]
        assert stored.structured_content["status"] == "stored"

        dup = await client.call_tool("remember", {"content": "Billing runs on PostgreSQL 16", "thread": "billing"})
        assert dup.structured_content == {
            "id": memory_id, "status": "duplicate", "thread": "billing", "redacted": [], "updates": None,
            "superseded_by": None, "flags": [], "message": f"Already remembered as memory {memory_id}; nothing new stored.",
        }

        found = await client.call_tool("recall", {"query": "postgresql billing", "thread": "billing"})
        [hit] = found.structured_content["memories"]
        assert (hit["id"], hit["content"], hit["thread"], hit["tags"]) == (memory_id, "Billing runs on PostgreSQL 16", "billing", ["db"])
        assert found.structured_content["search"] == "hybrid"

        gone = await client.call_tool("forget", {"id": memory_id})
        assert gone.structured_content["status"] == "forgotten"
        after = await client.call_tool("recall", {"query": "postgresql billing", "thread": "*"})
        assert after.structured_content["memories"] == []


async def _error_text(client, tool, args) -> str:
    result = await client.call_tool(tool, args)
    assert result.is_error, (tool, args, result)
    return result.content[0].text


@pytest.mark.parametrize(
    "tool, args, message",
    [
        ("remember", {"content": ""}, '`content` was ""; allowed: text of 1 to 32768 characters'),
        ("remember", {"content": "x" * 40000}, "allowed: text of 1 to 32768 characters"),
        ("remember", {"content": "é" * 20000}, "over the limit of 32768"),  # fits the schema in characters, not in bytes
        ("remember", {"content": "nul\x00byte"}, "NUL"),
        ("remember", {"content": "lone \ud83d surrogate"}, "lone surrogate"),
        ("remember", {"content": "ok", "kind": "gossip"}, "kind"),
        ("remember", {"content": "ok", "tags": [1, 2]}, "tags"),
        ("remember", {"content": "ok", "importance": "high"}, "importance"),
        ("remember", {"content": ["not", "a", "string"]}, "content"),
        ("remember", {}, "content"),
        ("recall", {"query": "q", "k": 0}, "`k` was 0; allowed: a whole number from 1 to 50"),
        ("recall", {"query": "q", "k": 51}, "`k` was 51; allowed: a whole number from 1 to 50"),
        ("recall", {"query": "q", "kinds": ["gossip"]}, "kinds"),
        ("recall", {"query": "q", "since": "yesterday-ish"}, "ISO-8601"),
        ("recall", {"query": ""}, '`query` was ""'),
        ("recall", {"query": "   "}, "query is empty"),
        ("forget", {"id": 987654}, "No memory 987654"),
        ("forget", {"id": "seven"}, "id"),
        ("forget", {"id": -1}, "`id` was -1; allowed: a whole number from 1 to"),
    ],
)
async def test_bad_input_gets_a_clear_error_and_nothing_is_stored(service, tool, args, message):
    async with Client(build_server(service, start_background=False)) as client:
        text = await _error_text(client, tool, args)
        assert message in text
        assert "pydantic" not in text and "validation error" not in text and "Error executing tool" not in text
        # the server keeps serving
        ok = await client.call_tool("remember", {"content": "still alive"})
        assert not ok.is_error
    with service.db.read() as conn:  # through the store: the same test runs on PostgreSQL
        rows = [(r.content,) for r in service.store.rows(conn, deleted=None)]
    assert rows == [("still alive",)]


async def test_only_refused_arguments_are_checked_against_the_schema(service, monkeypatch):
    """The schema check imports jsonschema (~0.1 s, 0.2-0.7 s of a busy machine): a server's first
    recall waited for that import. Arguments pydantic accepts never reach it; refused ones still get
    its words."""
    from server.app.arguments import ArgumentCheck

    checked = []
    real = ArgumentCheck.problems

    def problems(self, tool, arguments):
        checked.append(tool)
        return real(self, tool, arguments)

    monkeypatch.setattr(ArgumentCheck, "problems", problems)
    async with Client(build_server(service, start_background=False)) as client:
        assert not (await client.call_tool("remember", {"content": "The billing service uses Postgres."})).is_error
        assert not (await client.call_tool("recall", {"query": "billing database", "k": 3})).is_error
        assert checked == []
        assert "`k` was 0; allowed: a whole number from 1 to 50" in await _error_text(client, "recall", {"query": "q", "k": 0})
        assert checked == ["recall"]


async def test_an_unexpected_failure_is_an_error_result_and_the_server_keeps_serving(service, monkeypatch):
    def boom(*args, **kwargs):
        raise RuntimeError("disk on fire")

    async with Client(build_server(service, start_background=False)) as client:
        # Every recall with a searchable word counts its matches, here on the store's second
        # connection in another thread (Store.beside, as in a large store): the failure crosses it.
        from server.storage.sqlite import search as sqlite_search

        monkeypatch.setattr(sqlite_search, "BESIDE_FROM", 0)
        monkeypatch.setattr(type(service.store), "match_count", boom)
        failed = await client.call_tool("recall", {"query": "anything"})
        assert failed.is_error and "recall" in failed.content[0].text
        assert "disk on fire" not in failed.content[0].text  # internals stay in the server log
        monkeypatch.undo()
        assert not (await client.call_tool("recall", {"query": "anything"})).is_error


async def test_origin_of_a_memory_is_the_client_that_wrote_it(service):
    from mcp.types import Implementation

    async with Client(build_server(service, start_background=False), client_info=Implementation(name="test-host", version="9.9")) as client:
        await client.call_tool("remember", {"content": "provenance is recorded"})
    with service.db.read() as conn:
        (row,) = service.store.rows(conn, deleted=None)
    assert (row.origin, row.source) == ("test-host 9.9", "remember")


async def test_by_default_the_server_backfills_vectors_in_the_background(service):
    """build_server's lifespan starts the backfill: what remember stored gets its vector without a recall."""
    async with Client(build_server(service)) as client:
        stored = await client.call_tool("remember", {"content": "The backfill embeds this without being asked"})
        assert not stored.is_error
        for _ in range(200):
            if service.store.count()["pending_embeddings"] == 0:
                break
            await anyio.sleep(0.05)
        assert service.store.count()["pending_embeddings"] == 0
