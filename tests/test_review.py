"""curate_memory review (server/app/review.py): the person settles possible updates through elicitation, one
form per pair, newest first, skippable -- in both protocol eras the SDK speaks -- and a host without forms
gets the open questions as text."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from mcp import Client, types

from server.app import build_server
from server.storage.protocol import PossibleUpdate

pytestmark = pytest.mark.anyio
T0 = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)


def _pairs(service) -> list[tuple[int, int]]:
    """Two possible updates (older, newer), the second written later."""
    made = []
    for day, (old, new) in enumerate([
        ("Nightly builds run on the Jenkins box ci-01.", "GitHub Actions workflow ships coverage to Codecov."),
        ("Error tracking is in Rollbar.", "Sentry collects exceptions of the web app and the API."),
    ]):
        a = service.remember(old, thread="t", created_at=T0 + timedelta(days=day)).id
        b = service.remember(new, thread="t", created_at=T0 + timedelta(days=30 + day)).id
        with service.db.write() as conn:
            service.store.set_possible_update(conn, b, PossibleUpdate(a, 0.4))
        made.append((a, b))
    assert all(service.get(a).superseded_by is None for a, _ in made)  # not linked on write
    return made


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_the_person_settles_each_pair_through_a_form_newest_first(service, mode):
    """A form per pair, the newest first; "supersede" links the pair, "keep both" drops the possibility, and
    both decisions are logged as the person's; nothing is asked about twice."""
    (old1, new1), (old2, new2) = _pairs(service)
    asked: list[str] = []

    async def answer(context, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        choice = "keep both" if len(asked) == 1 else "supersede"
        return types.ElicitResult(action="accept", content={"decision": choice})

    async with Client(build_server(service, start_background=False), mode=mode, elicitation_callback=answer) as client:
        result = await client.call_tool("curate_memory", {"action": "review", "dry_run": False})
        assert not result.is_error, result
        assert [m.split(" ")[1] for m in asked] == [str(new2), str(new1)]  # newest first
        assert result.structured_content["counts"] == {"decided": 2, "open": 0}
        assert service.get(old2).superseded_by is None and service.get(old1).superseded_by == new1
        with service.db.read() as conn:
            assert service.store.possible_updates(conn, [new2]) == {}
        log = service.files.day_path(service.clock()).read_text(encoding="utf-8")
        assert f"review: {old1} superseded by {new1} (confirmed by the person)" in log
        again = await client.call_tool("curate_memory", {"action": "review", "dry_run": False})
        assert again.structured_content["counts"] == {"open": 0} and len(asked) == 2


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_a_skipped_or_declined_form_changes_nothing_and_a_closed_one_stops_the_review(service, mode):
    """skip and decline leave the pair open; cancel (the form closed) asks nothing more."""
    _pairs(service)
    replies = iter([types.ElicitResult(action="accept", content={"decision": "skip"}),
                    types.ElicitResult(action="decline")])

    async def answer(context, params):
        return next(replies)

    async with Client(build_server(service, start_background=False), mode=mode, elicitation_callback=answer) as client:
        result = await client.call_tool("curate_memory", {"action": "review", "dry_run": False})
        assert result.structured_content["counts"] == {"decided": 0, "open": 2}

    calls = []

    async def close(context, params):
        calls.append(params.message)
        return types.ElicitResult(action="cancel")

    async with Client(build_server(service, start_background=False), mode=mode, elicitation_callback=close) as client:
        await client.call_tool("curate_memory", {"action": "review", "dry_run": False})
    assert len(calls) == 1


async def test_a_host_without_forms_gets_the_open_questions_as_text(service):
    """No elicitation capability: the questions, newest first, each with the calls that settle it."""
    (old1, new1), (old2, new2) = _pairs(service)
    async with Client(build_server(service, start_background=False)) as client:
        result = await client.call_tool("curate_memory", {"action": "review", "dry_run": False})
    assert not result.is_error
    got = result.structured_content
    assert [d["id"] for d in got["details"]] == [old2, old1]
    assert f"ids=[{old2}], replacement_id={new2}" in got["details"][0]["ask"]
    assert "shows no forms" in got["message"] and "web page's Review queue" in got["message"]
    assert service.get(old1).superseded_by is None


def test_keep_drops_the_possibility_and_review_lists_what_is_open(service):
    """The service side: review reports, keep settles a pair as two current memories (dry run first)."""
    from server.curation.curator import Curator

    (old1, new1), _ = _pairs(service)
    curator = Curator(service)
    assert curator.run("review").counts == {"open": 2}
    assert curator.run("keep", ids=[old1], replacement_id=new1).counts == {"kept": 1}
    assert curator.run("review").counts == {"open": 2}  # a dry run changes nothing
    curator.run("keep", dry_run=False, ids=[old1], replacement_id=new1)
    assert curator.run("review").counts == {"open": 1}


def test_the_session_start_brief_asks_the_assistant_a_few_open_questions(service):
    """A likely possible update (at least OUTDATED_LABEL) is put to the assistant at session start with the calls
    that settle it; an unlikely one is not, and a settled one is not asked again."""
    from server.curation.curator import Curator
    from server.hooks.inject import session_context
    from server.updates.newer_first import OUTDATED_LABEL

    (old1, new1), (old2, new2) = _pairs(service)
    with service.db.write() as conn:
        service.store.set_possible_update(conn, new1, PossibleUpdate(old1, OUTDATED_LABEL / 2))
    text = session_context(service, "t", 800).text
    assert f"memory {old2} may be outdated by memory {new2} — curate_memory supersede (ids=[{old2}]" in text
    assert f"memory {old1} may be outdated" not in text
    Curator(service).run("keep", dry_run=False, ids=[old2], replacement_id=new2)
    assert "may be outdated" not in session_context(service, "t", 800).text


def test_remember_says_what_it_may_update(service, monkeypatch):
    """A write whose update check records a possible update (not a link) says so, with the calls that settle it."""
    from server.updates import model

    old = service.remember("Error tracking is in Rollbar.", thread="t", created_at=T0).id
    monkeypatch.setattr(model, "judge", lambda *a, **k: model.Judgement(None, (old, 0.4)))
    said = service.remember("Sentry collects exceptions of the web app.", thread="t", created_at=T0 + timedelta(days=9))
    assert said.updates is None
    assert f'It may update memory {old} ("Error tracking is in Rollbar."; not linked)' in said.message
    assert f"ids=[{old}], replacement_id={said.id}" in said.message


async def test_the_assistants_confirmation_is_logged_as_its_own_and_reversible(service):
    """curate_memory supersede from an open question: a link whose log line says the assistant decided; restore
    undoes it."""
    (old1, new1), _ = _pairs(service)
    async with Client(build_server(service, start_background=False)) as client:
        done = await client.call_tool("curate_memory", {"action": "supersede", "ids": [old1], "replacement_id": new1,
                                                        "dry_run": False})
        assert not done.is_error and service.get(old1).superseded_by == new1
        log = service.files.day_path(service.clock()).read_text(encoding="utf-8")
        assert f"supersede: memory {old1} superseded by {new1} (confirmed by the assistant)" in log
        await client.call_tool("curate_memory", {"action": "restore", "ids": [old1], "dry_run": False})
    assert service.get(old1).superseded_by is None


def test_the_prompt_injection_marks_the_newer_memory_and_the_possibly_outdated_one(service):
    """The prompt hook's injection (the same search) shows the attached later memory marked newer, the older
    marked possibly outdated."""
    from server.hooks.inject import prompt_context
    from server.updates.newer_first import OUTDATED_LABEL

    # (two sentences sharing no word read as one with all its words swapped, rules._swapped_word: two things, which
    # attach leaves apart)
    old = service.remember("Nightly builds run on the Jenkins box ci-01.", thread="t", created_at=T0).id
    new = service.remember("GitHub Actions workflow for the builds ships coverage to Codecov.", thread="t",
                           created_at=T0 + timedelta(days=30)).id
    with service.db.write() as conn:
        service.store.set_possible_update(conn, new, PossibleUpdate(old, OUTDATED_LABEL))
    service.embed_backlog()
    text = prompt_context(service, "t", "which Jenkins box runs the nightly builds?", 400, 0.0, set()).text
    assert f"#{old}] (possibly outdated by #{new}) Nightly builds" in text
    assert f"#{new}] (newer than #{old}, which it may update) GitHub Actions" in text, text


@pytest.mark.e2e
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_the_review_form_reaches_a_real_client_over_stdio(tmp_path, mode):
    """The server as a host runs it (python -m server over stdio) asks the form of a real mcp client, in each era."""
    import os
    import sys
    from pathlib import Path

    from mcp.client.stdio import StdioServerParameters

    from server.config import Settings
    from server.embedding.embedders import HashEmbedder
    from server.service import MemoryService

    worktree = Path(__file__).resolve().parent.parent
    first = MemoryService.open(Settings(home=tmp_path, embedder="hash"), embedder=HashEmbedder())
    [(old, new), _] = _pairs(first)
    first.close()
    env = {**os.environ, "MEMVAULT_HOME": str(tmp_path), "MEMVAULT_EMBEDDER": "hash", "PYTHONPATH": str(worktree)}
    params = StdioServerParameters(command=sys.executable, args=["-m", "server"], env=env, cwd=str(worktree))
    asked = []

    async def answer(context, request: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(request.message)
        return types.ElicitResult(action="accept", content={"decision": "supersede" if len(asked) == 2 else "skip"})

    async with Client(params, mode=mode, elicitation_callback=answer) as client:
        result = await client.call_tool("curate_memory", {"action": "review", "dry_run": False})
        assert not result.is_error, result
        assert result.structured_content["counts"] == {"decided": 1, "open": 1} and len(asked) == 2
        shown = await client.call_tool("recall", {"query": "Nightly builds Jenkins", "thread": "t"})
        assert {m["id"]: m["superseded_by"] for m in shown.structured_content["memories"]}.get(old) == new
