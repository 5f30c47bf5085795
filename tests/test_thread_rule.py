"""One rule for an omitted thread: the default thread (MEMVAULT_THREAD or the git repository the
server started in) when there is one, else 'global' -- in remember, recall, thread_prompt and
the thread_prompt prompt alike."""

from __future__ import annotations

from dataclasses import replace

import pytest
from mcp import Client

from server.app import build_server
from server.embedding.embedders import HashEmbedder
from server.service import MemoryService
from server.thread_prompt import build_thread_prompt


@pytest.fixture
def with_default(settings, clock):
    svc = MemoryService.open(replace(settings, default_thread="shopfront"), embedder=HashEmbedder(), clock=clock)
    yield svc
    svc.close()


def test_without_a_default_thread_an_omitted_thread_is_global_everywhere(service):
    service.remember("The storefront deploys from main on Tuesdays", thread="shopfront")
    stored = service.remember("The user writes Python with type hints")
    assert stored.thread is None  # global
    found = service.recall("storefront deploys python type hints", k=10).memories
    assert [m.content for m in found] == ["The user writes Python with type hints"]  # not other threads
    assert "storefront" in " ".join(m.content for m in service.recall("storefront deploys", thread="*").memories)
    context = build_thread_prompt(service, None, "python type hints", None)
    assert context.thread is None and "type hints" in context.text and "Tuesdays" not in context.text


def test_with_a_default_thread_an_omitted_thread_is_that_thread_plus_global(with_default):
    svc = with_default
    stored = svc.remember("The storefront deploys from main on Tuesdays")
    svc.remember("The user writes Python with type hints", thread="global")
    svc.remember("ledger-core deploys on Thursdays", thread="ledgerly")
    assert stored.thread == "shopfront"
    found = {m.content for m in svc.recall("deploys tuesdays thursdays python hints", k=10).memories}
    assert found == {"The storefront deploys from main on Tuesdays", "The user writes Python with type hints"}
    context = build_thread_prompt(svc, None, "deploys", None)
    assert context.thread == "shopfront" and "Thursdays" not in context.text


def test_a_query_over_every_thread_that_names_a_project_searches_that_project(service):
    service.remember("Run the tests with pnpm vitest run", thread="shopfront")
    service.remember("Run the tests with go test ./... -race", thread="ledgerly")
    service.remember("Prefer small pull requests", thread="global")
    found = service.recall("how do I run the tests in ledgerly?", thread="*").memories
    assert found[0].content == "Run the tests with go test ./... -race"
    assert {m.thread for m in found} <= {"ledgerly", None}
    assert service.recall("shopfront's test command", thread="*").memories[0].thread == "shopfront"


@pytest.mark.anyio
async def test_the_tool_descriptions_state_the_rule(service):
    async with Client(build_server(service)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    for name in ("remember", "recall", "thread_prompt"):
        text = tools[name].input_schema["properties"]["thread"]["description"]
        assert "default thread" in text and "global when none is set" in text, name


def test_a_named_project_is_found_whatever_its_case_and_only_named_threads_are_read(service):
    """The store reads the threads among the query's words (Store.thread_ids `among`), not every id."""
    service.remember("Run the tests with go test ./... -race", thread="Ledgerly")
    service.remember("Run the tests with pnpm vitest run", thread="shopfront")
    service.remember("Run the tests with cargo nextest", thread="ab")  # too short to be named
    assert service.store.thread_ids(include_archived=True, among=["ledgerly", "tests", "shop"]) == ["Ledgerly"]
    assert service.store.thread_ids(include_archived=True, among=[]) == []
    found = service.recall("how do I run the tests in LEDGERLY?", thread="*").memories
    assert found[0].content == "Run the tests with go test ./... -race"
    assert {m.thread for m in found} <= {"Ledgerly", None}
    assert len({m.thread for m in service.recall("run the tests ab", thread="*", k=10).memories}) == 3
