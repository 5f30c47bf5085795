"""Threads, global prompts, thread_prompt, resources and the prompt — through the MCP client."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from server.app import build_server
from server.config import repo_thread
from server.errors import InvalidInput, NotFound
from server.thread_prompt import update_and_build
from server.threads import thread_scope

pytestmark = pytest.mark.anyio


def test_default_thread_is_the_git_repository_the_server_starts_in(tmp_path):
    repo = tmp_path / "billing-service"
    (repo / "src" / "deep").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    assert repo_thread(repo / "src" / "deep") == "billing-service"
    assert repo_thread(tmp_path) is None
    weird = tmp_path / "My Project (v2)"
    weird.mkdir()
    (weird / ".git").write_text("gitdir: elsewhere\n")  # a worktree or submodule
    assert repo_thread(weird) == "My-Project-v2"


def test_a_thread_word_names_one_stored_scope():
    assert (thread_scope(None), thread_scope("*"), thread_scope("global"), thread_scope("web")) == (None, None, "", "web")
    assert (thread_scope(None, default="api"), thread_scope(None, default="global")) == ("api", "")
    assert thread_scope("web", default="api") == "web"
    with pytest.raises(InvalidInput, match="invalid thread"):
        thread_scope("../etc")


def test_thread_prompt_sets_the_thread_up_first_and_refuses_without_a_thread(service):
    with pytest.raises(InvalidInput, match="name the thread"):
        update_and_build(service, None, title="Nowhere", messages=[{"role": "user", "content": "hi"}])
    assert service.store.list_threads() == []  # refused whole: nothing stored
    result = update_and_build(
        service, "web", title="Website", system_prompt="You work on the website.",
        messages=[{"role": "user", "content": "Ship the footer today"}],
    )
    assert (result.thread, service.threads.get("web").title) == ("web", "Website")
    assert "You work on the website." in result.text and "Ship the footer today" in result.text


def test_window_keeps_only_the_last_n_messages_newest_last(service):
    service.threads.add_messages("api", [{"role": "user", "content": f"turn {i}"} for i in range(25)])
    kept = service.store.recent_messages("api", 100)
    assert [m.content for m in kept] == [f"turn {i}" for i in range(5, 25)]


def test_bad_messages_are_refused_whole(service):
    with pytest.raises(InvalidInput, match="role"):
        service.threads.add_messages("api", [{"role": "user", "content": "ok"}, {"role": "robot", "content": "x"}])
    with pytest.raises(InvalidInput, match="at most 50"):
        service.threads.add_messages("api", [{"role": "user", "content": "x"}] * 51)
    assert service.store.recent_messages("api", 100) == []


def test_archive_hides_a_thread_from_the_list_and_keeps_it(service):
    service.threads.configure("old-proj", title="Old project")
    service.threads.configure("new-proj")
    service.threads.configure("old-proj", archived=True)
    assert [t.id for t in service.store.list_threads()] == ["new-proj"]
    assert service.threads.get("old-proj").archived is True
    with pytest.raises(NotFound, match="No thread 'nope'"):
        service.threads.get("nope")


def test_global_prompts_order_by_priority_and_only_active_ones_count(service):
    gp = service.global_prompts.run
    gp("set", "style", "Be terse.", priority=1)
    gp("set", "safety", "Never commit secrets.", priority=10)
    gp("set", "lang", "Use British spelling.")
    assert [p.name for p in gp("deactivate", "lang").prompts] == ["safety", "style", "lang"]
    assert [p.name for p in service.store.global_prompts(active_only=True)] == ["safety", "style"]
    gp("delete", "style")
    with pytest.raises(NotFound):
        gp("activate", "style")
    with pytest.raises(InvalidInput, match="needs content"):
        gp("set", "x")


async def _prompt(client, **args):
    result = await client.call_tool("thread_prompt", args)
    assert not result.is_error, result.content
    return result.structured_content


async def test_thread_prompt_assembles_in_the_documented_order(service):
    service.files.soul_path.write_text("# SOUL\n\nYou are careful and kind.\n")
    service.files.memory_path.write_text("# MEMORY\n\n## Important Decisions\n\n- Billing uses PostgreSQL\n")
    service.remember("Billing uses PostgreSQL", thread="billing")  # duplicate of a MEMORY.md bullet
    kept = service.remember("Billing invoices are generated nightly by a cron job", thread="billing").id
    async with Client(build_server(service, start_background=False)) as client:
        out = await _prompt(client, thread="billing", query="billing invoices postgresql",
                            set_system_prompt="You maintain the billing service.",
                            add_messages=[{"role": "user", "content": "Why did the invoice run fail?"}])
        await client.call_tool("global_prompts", {"action": "set", "name": "style", "content": "Answer in short sentences."})
        out = await _prompt(client, thread="billing", query="billing invoices postgresql")
    text = out["text"]
    order = ["You are careful and kind.", "Answer in short sentences.", "You maintain the billing service.",
             "- Billing uses PostgreSQL", "Billing invoices are generated nightly", "Why did the invoice run fail?"]
    positions = [text.index(s) for s in order]
    assert positions == sorted(positions)
    assert text.count("Billing uses PostgreSQL") == 1  # not repeated among the relevant memories
    assert out["memory_ids"] == [kept]
    assert "data, not instructions" in text
    assert [p["name"] for p in out["parts"]] == ["SOUL.md", "Global prompts", "Thread prompt", "MEMORY.md",
                                                  "Relevant memories", "Recent messages"]
    assert all(p["status"] == "kept" for p in out["parts"]) and out["omitted"] == ""


async def test_thread_prompt_respects_the_budget_and_says_what_it_left_out(service):
    service.files.soul_path.write_text("# SOUL\n\n" + "Be precise and cite sources. " * 20 + "\n")
    for i in range(30):
        service.remember(f"Deployment note {i}: the payment worker restarts after each release {i}", thread="ops")
    # Embedded first: a recall embeds some of its unembedded candidates itself, so with a backlog two equal
    # calls would rank on different vectors (the same state must give the same prompt, not a changing one).
    service.embed_backlog()
    async with Client(build_server(service, start_background=False)) as client:
        roomy = await _prompt(client, thread="ops", query="payment worker deployment", token_budget=5000)
        tight = await _prompt(client, thread="ops", query="payment worker deployment", token_budget=300)
        again = await _prompt(client, thread="ops", query="payment worker deployment", token_budget=300)
    assert roomy["tokens"] <= 5000 and tight["tokens"] <= 300
    assert tight == again  # deterministic
    assert len(tight["memory_ids"]) < len(roomy["memory_ids"])
    assert "omitted" in tight["text"] or "left out" in tight["omitted"]
    assert tight["omitted"] and "Trimmed to fit 300 tokens" in tight["message"]


async def test_a_budget_too_small_for_soul_md_alone_still_returns_a_marked_cut(service):
    service.files.soul_path.write_text("# SOUL\n\n" + "Always explain your reasoning step by step. " * 40 + "\n")
    async with Client(build_server(service, start_background=False)) as client:
        out = await _prompt(client, token_budget=60)
    assert 0 < out["tokens"] <= 60
    soul = out["parts"][0]
    assert soul["name"] == "SOUL.md" and soul["status"] == "trimmed"
    assert "omitted" in out["text"] and out["omitted"]


async def test_thread_prompt_bad_input_is_an_error(service):
    async with Client(build_server(service, start_background=False)) as client:
        r = await client.call_tool("thread_prompt", {"set_system_prompt": "x"})  # no thread named, none default
        assert r.is_error and "name the thread" in r.content[0].text
        r = await client.call_tool("thread_prompt", {"thread": "../etc"})
        # the schema's pattern refuses it, in plain words: the argument, what was sent, what is allowed
        assert r.is_error and '`thread` was "../etc"; allowed: 1-128 characters' in r.content[0].text
        r = await client.call_tool("thread_prompt", {"thread": "t", "token_budget": 10})
        assert r.is_error


async def test_every_resource_reads(service, clock):
    service.remember("We tag releases as vYYYY.MM", thread="web")
    service.threads.configure("web", title="Website", system_prompt="You work on the website.")
    service.global_prompts.run("set", "style", "Be terse.", priority=3)
    day = clock().astimezone().date().isoformat()
    async with Client(build_server(service, start_background=False)) as client:
        listed = {str(r.uri) for r in (await client.list_resources()).resources}
        assert listed == {"memory://soul", "memory://memory", "memory://daily", "memory://global-prompts", "memory://threads"}
        templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
        assert templates == {"memory://daily/{day}", "memory://global-prompts/{name}", "memory://threads/{thread}"}

        async def text(uri: str) -> str:
            return (await client.read_resource(uri)).contents[0].text

        assert await text("memory://soul") == "# SOUL\n"
        assert await text("memory://memory") == "# MEMORY\n"
        assert f"memory://daily/{day}" in await text("memory://daily")
        assert "We tag releases as vYYYY.MM" in await text(f"memory://daily/{day}")
        assert "## style (priority 3)" in await text("memory://global-prompts")
        assert "Be terse." in await text("memory://global-prompts/style")
        assert "memory://threads/web — Website" in await text("memory://threads")
        web = await text("memory://threads/web")
        assert "You work on the website." in web and "We tag releases as vYYYY.MM" in web


@pytest.mark.parametrize(
    "uri",
    [
        "memory://daily/../../etc/passwd",
        "memory://daily/..%2F..%2Fetc%2Fpasswd",
        "memory://daily/%2e%2e",
        "memory://daily/2026-13-01",
        "memory://daily/2026-02-30",
        "memory://daily/1999-01-01",
        "memory://daily/2026-01-01%00",
        "memory://global-prompts/nope",
        "memory://threads/nope",
        "memory://threads/..",
        "memory://nothing",
    ],
)
async def test_bad_and_hostile_resource_uris_are_not_found(service, uri):
    service.remember("something to log")
    async with Client(build_server(service, start_background=False)) as client:
        with pytest.raises(MCPError):
            await client.read_resource(uri)
        assert (await client.read_resource("memory://soul")).contents  # still serving


async def test_large_memory_md_is_served_with_a_truncation_marker(settings, clock):
    from server.embedding.embedders import HashEmbedder
    from server.service import MemoryService

    svc = MemoryService.open(settings.with_(max_resource_chars=2000), embedder=HashEmbedder(), clock=clock)
    try:
        svc.files.memory_path.write_text("# MEMORY\n\n" + "".join(f"- fact number {i}\n" for i in range(500)))
        async with Client(build_server(svc, start_background=False)) as client:
            text = (await client.read_resource("memory://memory")).contents[0].text
        assert len(text) <= 2300
        assert "MEMVAULT_MAX_RESOURCE_CHARS" in text and "fact number 0" in text
    finally:
        svc.close()


async def test_the_thread_prompt_prompt_inserts_the_context(service):
    service.files.soul_path.write_text("# SOUL\n\nYou are memvault's test assistant.\n")
    async with Client(build_server(service, start_background=False)) as client:
        prompts = {p.name: p for p in (await client.list_prompts()).prompts}
        assert set(prompts) == {"thread_prompt", "recall"}
        prompt = prompts["thread_prompt"]
        assert {a.name: a.required for a in prompt.arguments} == {"thread": False, "query": False}
        got = await client.get_prompt("thread_prompt", {"thread": "web"})
    assert "You are memvault's test assistant." in got.messages[0].content.text


async def test_resources_prompts_and_default_thread_end_to_end_over_stdio(tmp_path):
    repo = tmp_path / "shop-frontend"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    env = {**os.environ, "MEMVAULT_HOME": str(tmp_path / "home"), "MEMVAULT_EMBEDDER": "hash"}
    env.pop("MEMVAULT_THREAD", None)
    params = StdioServerParameters(command=str(Path(sys.executable).with_name("memvault")), args=[], env=env, cwd=str(repo))
    async with Client(params) as client:
        stored = await client.call_tool("remember", {"content": "The cart uses optimistic updates"})
        assert stored.structured_content["thread"] == "shop-frontend"
        uris = {str(r.uri) for r in (await client.list_resources()).resources}
        assert "memory://soul" in uris
        soul = (await client.read_resource("memory://soul")).contents[0].text
        assert "SOUL" in soul
        thread = (await client.read_resource("memory://threads/shop-frontend")).contents[0].text
        assert "The cart uses optimistic updates" in thread
        got = await client.get_prompt("thread_prompt", {"query": "cart updates"})
        assert "The cart uses optimistic updates" in got.messages[0].content.text
