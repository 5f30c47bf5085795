"""curate_memory through the MCP protocol: in-process with the SDK's Client, and over stdio."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from server.app import build_server
from server.curation.curator import ACTIONS

pytestmark = pytest.mark.anyio
WORKTREE = Path(__file__).resolve().parent.parent


async def test_dedupe_previews_then_applies_and_recall_shows_the_label(service):
    async with Client(build_server(service, start_background=False)) as client:
        for text in ("Builds run on GitHub Actions", "builds run on github actions."):
            await client.call_tool("remember", {"content": text, "thread": "ci"})
        preview = await client.call_tool("curate_memory", {"action": "dedupe"})
        assert not preview.is_error
        assert (preview.structured_content["dry_run"], preview.structured_content["ids"]) == (True, [1])
        applied = await client.call_tool("curate_memory", {"action": "dedupe", "dry_run": False})
        assert applied.structured_content["counts"]["superseded"] == 1
        found = await client.call_tool("recall", {"query": "builds github actions", "thread": "ci"})
        assert [(m["id"], m["label"]) for m in found.structured_content["memories"]] == [
            (2, None), (1, "superseded by memory 2")]


async def test_export_and_import_by_archive_name(service):
    async with Client(build_server(service, start_background=False)) as client:
        await client.call_tool("remember", {"content": "Prefers uv over pip", "kind": "preference"})
        exported = await client.call_tool("curate_memory", {"action": "export", "dry_run": False})
        [detail] = exported.structured_content["details"]
        assert (service.settings.archives_dir / detail["archive"]).is_file()
        imported = await client.call_tool("curate_memory", {"action": "import", "archive": detail["archive"], "dry_run": False})
        counts = imported.structured_content["counts"]
        assert (counts["imported"], counts["already_present"], counts["verified"]) == (0, 1, 1)


async def test_the_tool_offers_exactly_the_curators_actions_and_their_parameters(service):
    """The tool's schema and the curator's table name the same actions, in the same order."""
    async with Client(build_server(service, start_background=False)) as client:
        [tool] = [t for t in (await client.list_tools()).tools if t.name == "curate_memory"]
    schema = tool.input_schema["properties"]
    assert schema["action"]["enum"] == list(ACTIONS)
    for name, action in ACTIONS.items():
        assert action.params <= set(schema) - {"action", "dry_run", "limit"}, name


@pytest.mark.parametrize(
    "args, message",
    [
        ({"action": "tidy-up"}, "action"),
        ({"action": "restore", "ids": [4242]}, "No memory 4242"),
        ({"action": "supersede", "ids": [1]}, "replacement_id"),
        ({"action": "import", "archive": "../../etc/passwd"}, "invalid archive name"),
        ({"action": "import", "archive": "/etc/passwd"}, "invalid archive name"),
        ({"action": "import", "archive": "nothing-here.json"}, "No archive"),
        ({"action": "purge", "ids": [1]}, "not forgotten"),
        ({"action": "stats", "ids": [1]}, "does not apply"),
        ({"action": "dedupe", "threshold": 2}, "less than or equal to 1"),
    ],
)
async def test_bad_input_gets_a_clear_error_result(service, args, message):
    service.remember("something to act on")
    async with Client(build_server(service, start_background=False)) as client:
        result = await client.call_tool("curate_memory", args)
        assert result.is_error and message in result.content[0].text, result.content[0].text
        assert not (await client.call_tool("curate_memory", {"action": "stats"})).is_error


@pytest.mark.e2e
async def test_curate_memory_over_stdio_from_this_checkout(tmp_path):
    env = {**os.environ, "MEMVAULT_HOME": str(tmp_path), "MEMVAULT_EMBEDDER": "hash", "PYTHONPATH": str(WORKTREE)}
    params = StdioServerParameters(command=sys.executable, args=["-m", "server"], env=env, cwd=str(WORKTREE))
    async with Client(params) as client:
        assert "curate_memory" in {t.name for t in (await client.list_tools()).tools}
        stored = await client.call_tool("remember", {"content": "Release on Tuesdays", "pinned": True})
        stats = await client.call_tool("curate_memory", {"action": "stats"})
        assert stats.structured_content["counts"]["pinned"] == 1
        forgot = await client.call_tool("forget", {"id": stored.structured_content["id"]})
        assert not forgot.is_error
        back = await client.call_tool("curate_memory", {"action": "restore", "ids": [1], "dry_run": False})
        assert back.structured_content["counts"]["undeleted"] == 1
    assert "restore: restored memory 1" in next((tmp_path / "files" / "daily").glob("*.md")).read_text()
