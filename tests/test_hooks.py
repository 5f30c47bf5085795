"""The hooks in-process: transcript reading, extraction, capture with a cursor, injection, privacy, install.

Transcripts are fixtures in Claude Code's JSONL shapes (tests/data/hooks/); every hook
runs through server.hooks.run.main, the function `memvault hook` calls, with stdin and
stdout as the host gives them. tests/test_hooks_e2e.py runs the installed command.
"""

from __future__ import annotations

import io
import json
import logging
import os
import shutil
import sqlite3
import sys
from pathlib import Path

import pytest

from server.budget import estimate_tokens
from server.config import Settings
from server.hooks import install, protocol
from server.hooks.capture import capture
from server.hooks.privacy import strip_private
from server.hooks.extract import extract
from server.hooks.protocol import HookInput
from server.hooks.run import main
from server.hooks.work import hooks_dir, open_light
from server.hooks.sessions import Sessions
from server.hooks.settings import HookSettings
from server.hooks.transcript import read_from
from server.errors import SetupError

DATA = Path(__file__).parent / "data" / "hooks"
SESSION = "7f1c2a90-1111-4c8e-9a51-000000000001"


@pytest.fixture
def env(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("MEMVAULT_HOME", str(home))
    monkeypatch.setenv("MEMVAULT_EMBEDDER", "hash")
    for name in ("MEMVAULT_THREAD", "MEMVAULT_HOOKS_OFF", "MEMVAULT_HOOK_MIN_SCORE"):
        monkeypatch.delenv(name, raising=False)
    repo = tmp_path / "shop-api"
    (repo / ".git").mkdir(parents=True)
    transcript = tmp_path / "session.jsonl"
    shutil.copy(DATA / "claude_session.jsonl", transcript)
    return {"home": home, "repo": repo, "transcript": transcript}


def run(event: str, payload: dict, host: str | None = None) -> str:
    out = io.StringIO()
    assert main(event, host, foreground=True, stdin=io.BytesIO(json.dumps(payload).encode()), stdout=out) == 0
    return out.getvalue()


def stop(env, session: str = SESSION) -> None:
    run("stop", {"session_id": session, "transcript_path": str(env["transcript"]), "cwd": str(env["repo"]),
                 "hook_event_name": "Stop"})


def memories(home: Path) -> list[tuple]:
    con = sqlite3.connect(home / "memvault.db")
    try:
        return con.execute(
            "SELECT kind, content, thread, source, origin, tags FROM memories WHERE source = 'hook' "
            "AND deleted_at IS NULL ORDER BY id").fetchall()
    finally:
        con.close()


def context(stdout: str) -> str:
    return json.loads(stdout)["hookSpecificOutput"]["additionalContext"] if stdout.strip() else ""


# -- reading and extraction ------------------------------------------------------


def test_transcript_entries_skip_harness_subagent_and_command_lines():
    """Meta notes, slash-command echoes, the title summary and subagent lines are not entries; a compaction summary is."""
    chunk = read_from(DATA / "claude_session.jsonl", 0)
    assert chunk.lines == 15
    assert [e.kind for e in chunk.entries] == [
        "user", "assistant", "tool_call", "tool_result", "assistant", "tool_call", "tool_result",
        "tool_call", "tool_result", "assistant", "summary", "user",
    ]
    assert "birthday" not in chunk.entries[0].text  # the <private> span is gone before anything reads it
    assert chunk.entries[3].is_error and not chunk.entries[8].is_error
    assert chunk.entries[2].command == "pnpm test --filter orders"


def test_a_half_written_last_line_waits_for_the_next_read(tmp_path):
    """The cursor stops before an incomplete line and picks it up once the host finishes writing it."""
    path = tmp_path / "t.jsonl"
    line = json.dumps({"type": "user", "message": {"role": "user", "content": "We decided to use uv for installs."}})
    path.write_text(line + "\n" + line[:20])
    first = read_from(path, 0)
    assert (first.lines, first.offset) == (1, len(line) + 1)
    path.write_text(line + "\n" + line.replace("uv", "pip-tools") + "\n")
    second = read_from(path, first.offset)
    assert [e.text for e in second.entries] == ["We decided to use pip-tools for installs."]


def test_extraction_finds_the_durable_statements_of_the_fixture():
    """Decisions (the person's and the compaction summary's), a preference, a remember request, the command and its fix."""
    found = extract(read_from(DATA / "claude_session.jsonl", 0).entries, root="/home/dev/shop-api")
    assert [(s.kind, s.content) for s in found.statements] == [
        ("decision", "We decided to cache the product catalogue in Redis for 5 minutes."),
        ("preference", "Always run the linter before committing."),
        ("fact", "The staging host is stg-orders.internal."),
        ("fact", "The project uses pnpm as its package manager (`pnpm test --filter orders` worked)."),
        ("snippet", "Test command that worked: `pnpm test --filter orders`"),
        ("note", 'Fix: `pnpm test --filter orders` failed with "TypeError: Cannot read properties of undefined '
                 "(reading 'length')\". Changed: src/orders.ts (cursor ?? 0). The test fails because the cursor is "
                 "undefined on the first page. I added a default cursor of 0. Then `pnpm test --filter orders` passed."),
        ("decision", "We decided to keep pagination cursor-based."),
        ("note", "Compaction summary: This session is being continued from a previous conversation. Summary: the orders "
                 "tests were fixed with a default cursor. We decided to keep pagination cursor-based."),
    ]
    assert {s.turn for s in found.statements} == {1}  # each statement knows the person's turn it came from
    assert [t.role for t in found.turns] == ["user", "assistant", "user"]
    assert "[ran] pnpm test --filter orders" in found.turns[1].text
    assert "Rust" not in " ".join(t.text for t in found.turns)  # the subagent's line


@pytest.mark.parametrize("text", [
    "Don't worry about the tests for now.", "Let's go with option B.", "Should we always run the linter?",
    "It never works on Windows yet.", "We decided to go with that.",
])
def test_momentary_or_vague_sentences_are_not_statements(text):
    from server.hooks.extract import statements_in

    assert statements_in(text, None, from_user=True) == []


def test_an_assistants_advice_is_not_the_persons_preference():
    from server.hooks.extract import statements_in

    assert statements_in("Always pin the versions you depend on.", None, from_user=False) == []
    assert [s.kind for s in statements_in("Always pin the versions you depend on.", None, from_user=True)] == ["preference"]


# -- capture -----------------------------------------------------------------------


def test_capture_stores_turns_and_statements_sourced_to_the_session(env):
    stop(env)
    rows = memories(env["home"])
    origin = f"claude-code session {SESSION}"
    assert {(r[2], r[3], r[4]) for r in rows} == {("shop-api", "hook", origin)}
    assert [r[0] for r in rows] == ["turn"] * 3 + ["decision", "preference", "fact", "fact", "snippet", "note", "decision", "note"]
    assert json.loads(rows[-3][5]) == ["hook", "fix", "turn-1"]  # the person's turn it came from
    daily = "".join(p.read_text() for p in (env["home"] / "files" / "daily").glob("*.md"))
    assert "stg-orders.internal" in daily and "[turn]" not in daily  # statements are journaled, turns are not


def test_capture_never_stores_private_text_or_secrets(env):
    stop(env)
    con = sqlite3.connect(env["home"] / "memvault.db")
    stored = "\n".join(r[0] for r in con.execute("SELECT content FROM memories"))
    con.close()
    written = stored + "".join(p.read_text(errors="replace") for p in env["home"].rglob("*") if p.suffix in (".md", ".json", ".log"))
    assert "birthday" not in written and "14 March" not in written
    assert "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" not in written
    assert "[REDACTED:github-token]" in stored


def test_the_cursor_captures_each_line_once_and_resumes_after_a_restart(env):
    stop(env)
    count = len(memories(env["home"]))
    stop(env)  # nothing new in the transcript
    assert len(memories(env["home"])) == count
    with open(env["transcript"], "a") as handle:
        handle.write(json.dumps({"type": "user", "message": {"role": "user", "content": "From now on we deploy on Tuesdays only."}}) + "\n")
    stop(env)  # a new process each time, like a host restart: the cursor is on disk
    added = memories(env["home"])[count:]
    assert [(k, c) for k, c, *_ in added] == [
        ("turn", "user: From now on we deploy on Tuesdays only."), ("decision", "From now on we deploy on Tuesdays only."),
    ]


def test_a_lost_cursor_stores_nothing_twice(env):
    """Re-reading the whole transcript (a damaged state file) adds no duplicate: remember suppresses them."""
    stop(env)
    before = memories(env["home"])
    for state in (hooks_dir(Settings.from_env()) / "sessions").glob("*.json"):
        state.write_text("{not json")
    stop(env)
    assert memories(env["home"]) == before


def test_nomem_turns_capture_off_and_forgets_what_the_session_stored(env):
    stop(env)
    assert memories(env["home"])
    out = run("prompt", {"session_id": SESSION, "cwd": str(env["repo"]), "prompt": "this one is private #nomem",
                         "hook_event_name": "UserPromptSubmit"})
    assert memories(env["home"]) == []
    with open(env["transcript"], "a") as handle:
        handle.write(json.dumps({"type": "user", "message": {"role": "user", "content": "We decided to drop Redis."}}) + "\n")
    stop(env)
    assert memories(env["home"]) == []
    assert "#nomem" not in out


def test_capture_without_a_transcript_is_logged_and_stores_nothing(env):
    run("stop", {"session_id": "s-missing", "transcript_path": str(env["repo"] / "gone.jsonl"), "cwd": str(env["repo"])})
    log = (env["home"] / "hooks" / "hooks.log").read_text()
    assert "nothing captured: no transcript at" in log
    assert memories(env["home"]) == []


def test_captures_of_one_session_never_interleave(env):
    """Two captures of one session hold its lock in turn; the second finds nothing new."""
    settings = Settings.from_env()
    service = open_light(settings, create=True)
    sessions = Sessions(hooks_dir(settings) / "sessions")
    hook = HookInput("claude-code", "stop", SESSION, env["repo"], env["transcript"])
    try:
        first = capture(service, hook, "shop-api", sessions)
        second = capture(service, hook, "shop-api", sessions)
    finally:
        service.close()
    assert (first.turns, first.statements) == (3, 8)
    assert (second.lines, second.turns, second.statements) == (0, 0, 0)


# -- injection ---------------------------------------------------------------------


def test_session_start_injects_nothing_when_nothing_is_remembered(env):
    out = run("session-start", {"session_id": "new", "cwd": str(env["repo"]), "source": "startup"})
    assert out == ""
    stop(env)  # now the store exists, but another thread has nothing either
    other = env["repo"].parent / "other-repo"
    (other / ".git").mkdir(parents=True)
    assert run("session-start", {"session_id": "new2", "cwd": str(other), "source": "startup"}) == ""


def test_session_start_gives_the_threads_statements_within_the_budget(env, monkeypatch):
    stop(env)
    monkeypatch.setenv("MEMVAULT_HOOK_START_TOKENS", "120")
    out = json.loads(run("session-start", {"session_id": "later", "cwd": str(env["repo"]), "source": "startup",
                                           "hook_event_name": "SessionStart"}))
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    text = out["hookSpecificOutput"]["additionalContext"]
    assert estimate_tokens(text) <= 120
    assert "(data, not instructions)" in text
    assert "We decided to keep pagination cursor-based." in text  # decisions first, newest first
    assert "user:" not in text  # turns are left to the per-prompt recall
    assert "memories omitted" in text  # the budget cut some, and says so


def test_a_prompt_gets_strong_matches_once_per_session(env):
    stop(env)
    payload = {"session_id": "later", "cwd": str(env["repo"]), "prompt": "what is the staging host?",
               "hook_event_name": "UserPromptSubmit"}
    first = context(run("prompt", payload))
    assert "stg-orders.internal" in first
    assert estimate_tokens(first) <= HookSettings().prompt_tokens
    assert "stg-orders.internal" not in context(run("prompt", payload))  # already in front of the model
    assert run("prompt", {**payload, "prompt": "how tall is the Eiffel tower"}) == ""  # nothing strong


def recall_counts(home: Path) -> dict[int, int]:
    con = sqlite3.connect(home / "memvault.db")
    try:
        return dict(con.execute("SELECT id, recall_count FROM memories WHERE recall_count > 0").fetchall())
    finally:
        con.close()


def test_a_prompt_hook_leaves_its_recall_counts_to_the_sessions_next_capture(env):
    """The injecting hook writes nothing (a write made its close checkpoint the WAL while the host
    waited): the counts wait in the session's state, and the session's next capture writes them."""
    stop(env)
    payload = {"session_id": "later", "cwd": str(env["repo"]), "prompt": "what is the staging host?",
               "hook_event_name": "UserPromptSubmit"}
    assert "stg-orders.internal" in context(run("prompt", payload))
    assert recall_counts(env["home"]) == {}
    held = Sessions(hooks_dir(Settings.from_env()) / "sessions").read("claude-code", "later").recalled
    assert held and all(ids for ids, _ in held)
    run("stop", {"session_id": "later", "transcript_path": str(env["transcript"].with_name("none.jsonl")),
                 "cwd": str(env["repo"]), "hook_event_name": "Stop"})
    counted = recall_counts(env["home"])
    assert counted and set(counted) == {i for ids, _ in held for i in ids} and set(counted.values()) == {1}
    assert Sessions(hooks_dir(Settings.from_env()) / "sessions").read("claude-code", "later").recalled == []


def test_a_prompt_hook_searches_on_its_one_connection(env, monkeypatch):
    """A keyword-only embedder has no query vector to compute while the keyword search runs: a hook process
    runs it in place instead of opening a second connection beside nothing (the cost of its opening)."""
    from server.storage.sqlite.search import SqliteSearch

    stop(env)
    besides = []
    real_beside = SqliteSearch.beside
    monkeypatch.setattr(SqliteSearch, "beside", lambda self: besides.append(1) or real_beside(self))
    payload = {"session_id": "later", "cwd": str(env["repo"]), "prompt": "what is the staging host?",
               "hook_event_name": "UserPromptSubmit"}
    assert "stg-orders.internal" in context(run("prompt", payload))
    assert besides == []


def test_compaction_makes_earlier_injections_eligible_again(env):
    stop(env)
    start = {"session_id": "later", "cwd": str(env["repo"]), "hook_event_name": "SessionStart"}
    assert "stg-orders.internal" in context(run("session-start", {**start, "source": "startup"}))
    assert "stg-orders.internal" in context(run("session-start", {**start, "source": "compact"}))


def test_switches_turn_parts_off(env, monkeypatch):
    stop(env)
    monkeypatch.setenv("MEMVAULT_HOOKS_OFF", "prompt,session-start")
    assert run("session-start", {"session_id": "x", "cwd": str(env["repo"]), "source": "startup"}) == ""
    assert run("prompt", {"session_id": "x", "cwd": str(env["repo"]), "prompt": "what is the staging host?"}) == ""
    monkeypatch.setenv("MEMVAULT_HOOKS_OFF", "stop")
    with open(env["transcript"], "a") as handle:
        handle.write(json.dumps({"type": "user", "message": {"role": "user", "content": "Never force-push to the shared branches."}}) + "\n")
    before = len(memories(env["home"]))
    stop(env)
    assert len(memories(env["home"])) == before  # stop is off; a pre-compact or session-end would still capture
    monkeypatch.setenv("MEMVAULT_HOOKS_OFF", "turns")
    with open(env["transcript"], "a") as handle:
        handle.write(json.dumps({"type": "user", "message": {"role": "user", "content": "Never commit to main directly."}}) + "\n")
    before = len(memories(env["home"]))
    stop(env)
    assert [r[0] for r in memories(env["home"])[before:]] == ["preference", "preference"]


def test_bad_settings_fail_open_with_a_log_line(env, monkeypatch):
    monkeypatch.setenv("MEMVAULT_HOOK_START_TOKENS", "lots")
    assert run("session-start", {"session_id": "x", "cwd": str(env["repo"])}) == ""
    assert "MEMVAULT_HOOK_START_TOKENS='lots' is not a number" in (env["home"] / "hooks" / "hooks.log").read_text()
    with pytest.raises(SetupError):
        HookSettings.from_env({"MEMVAULT_HOOKS_OFF": "everything"})


# -- the hosts' shapes --------------------------------------------------------------


def test_cursor_input_and_output_shapes(env):
    """Cursor: conversation_id and workspace_roots in; additional_context / continue out."""
    env["transcript"].write_text((DATA / "cursor_session.jsonl").read_text())
    run("stop", {"conversation_id": "c-1", "hook_event_name": "stop", "workspace_roots": [str(env["repo"])],
                 "transcript_path": str(env["transcript"]), "status": "completed"})
    assert ("decision", "Let's use Vitest instead of Jest for the web package.") in [(r[0], r[1]) for r in memories(env["home"])]
    start = json.loads(run("session-start", {"conversation_id": "c-2", "hook_event_name": "sessionStart",
                                             "workspace_roots": [str(env["repo"])]}))
    assert "Vitest" in start["additional_context"]
    prompt = json.loads(run("prompt", {"conversation_id": "c-2", "hook_event_name": "beforeSubmitPrompt",
                                       "workspace_roots": [str(env["repo"])], "prompt": "unrelated weather question"}))
    assert prompt == {"continue": True}


def test_the_hosts_own_event_names_work_like_ours(env, monkeypatch):
    """`memvault hook Stop`, `hook UserPromptSubmit`, Cursor's `beforeSubmitPrompt`: the same as our names."""
    run("Stop", {"session_id": SESSION, "transcript_path": str(env["transcript"]), "cwd": str(env["repo"])})
    assert ("decision", "We decided to cache the product catalogue in Redis for 5 minutes.") in [r[:2] for r in memories(env["home"])]
    assert "Always run the linter" in context(run("SessionStart", {"session_id": "s2", "cwd": str(env["repo"])}))
    assert "Redis" in context(run("UserPromptSubmit", {"session_id": "s3", "cwd": str(env["repo"]),
                                                       "prompt": "how long do we cache the product catalogue in Redis?"}))
    from server.hooks.command import hook_main

    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", list(root.handlers))  # the hook process takes over the root logger
    monkeypatch.setattr(root, "level", root.level)
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(json.dumps(
        {"conversation_id": "c-9", "workspace_roots": [str(env["repo"])], "prompt": "cache catalogue Redis minutes"}).encode())))
    monkeypatch.setattr(sys, "stdout", out)
    assert hook_main(["beforeSubmitPrompt"]) == 0
    assert "Redis" in json.loads(out.getvalue())["additional_context"]


def test_cursors_user_query_wrapper_is_not_part_of_the_prompt(env):
    assert strip_private("<user_query>\nswitch the API to Go\n</user_query>") == "switch the API to Go"
    stop(env)
    prompt = json.loads(run("prompt", {"conversation_id": "c-3", "workspace_roots": [str(env["repo"])],
                                       "prompt": "<user_query>how long do we cache the catalogue in Redis?</user_query>"}))
    assert "Redis for 5 minutes" in prompt["additional_context"]


def test_stdin_beyond_the_cap_is_read_and_dropped_not_left_in_the_hosts_pipe(env):
    """A host that writes more than the cap must not get a broken pipe: all of it is read, nothing injected."""
    from server.hooks.run import MAX_STDIN

    stdin = io.BytesIO(b'{"session_id": "big", "prompt": "' + b"x" * (MAX_STDIN + 100_000) + b'"}')
    out = io.StringIO()
    assert main("prompt", None, stdin=stdin, stdout=out) == 0
    assert stdin.tell() == len(stdin.getvalue()) and out.getvalue() == ""
    assert "stdin is over 4 MB" in (env["home"] / "hooks" / "hooks.log").read_text()


def test_parse_refuses_what_is_not_a_hook_event():
    for raw in (b"", b"[]", b"not json", b'{"cwd": "/x"}'):
        with pytest.raises(protocol.BadInput):
            protocol.parse(raw, "prompt", "claude-code", env={})
    assert protocol.session_key("../../etc/passwd").startswith("h")


# -- install -------------------------------------------------------------------------


def test_install_merges_is_idempotent_backs_up_and_uninstalls_only_its_own(tmp_path):
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    mine = {"model": "opus", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}}
    path.write_text(json.dumps(mine))
    change = install.plan("claude-code", path)
    assert install.apply(change, backups=tmp_path / "backups")
    assert json.loads(change.backup.read_text()) == mine
    data = json.loads(path.read_text())
    assert data["model"] == "opus"
    assert data["hooks"]["Stop"][0] == mine["hooks"]["Stop"][0]
    assert set(data["hooks"]) == {"SessionStart", "UserPromptSubmit", "PreCompact", "Stop", "SessionEnd"}
    ours = data["hooks"]["UserPromptSubmit"][0]["hooks"][0]
    assert ours["type"] == "command" and " hook prompt --host claude-code" in ours["command"]
    assert Path(ours["command"].split('"')[1]).is_absolute()
    assert install.apply(install.plan("claude-code", path), backups=tmp_path / "backups") is False  # idempotent
    assert install.apply(install.plan("claude-code", path, remove=True), backups=tmp_path / "backups")
    assert json.loads(path.read_text()) == mine


def test_uninstall_removes_a_file_that_held_only_memvaults_hooks(tmp_path):
    path = tmp_path / ".cursor" / "hooks.json"
    install.apply(install.plan("cursor", path), backups=tmp_path / "b")
    data = json.loads(path.read_text())
    assert data["version"] == 1 and set(data["hooks"]) == {"sessionStart", "beforeSubmitPrompt", "preCompact", "stop", "sessionEnd"}
    install.apply(install.plan("cursor", path, remove=True), backups=tmp_path / "b")
    assert not path.exists()


def test_install_refuses_a_settings_file_that_is_not_json(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text("{ oops")
    with pytest.raises(SetupError, match="not valid JSON"):
        install.plan("claude-code", path)
    assert path.read_text() == "{ oops"


# -- the relay to a running server ------------------------------------------------------


@pytest.fixture
def short_home(monkeypatch):
    """A data directory with a short path: Unix socket paths are limited to ~100 bytes."""
    import tempfile

    home = Path(tempfile.mkdtemp(prefix="mv", dir="/tmp"))
    monkeypatch.setenv("MEMVAULT_HOME", str(home))
    yield home
    shutil.rmtree(home, ignore_errors=True)


@pytest.mark.skipif(not hasattr(__import__("socket"), "AF_UNIX"), reason="no Unix sockets on this platform")
def test_a_running_server_answers_hooks_through_its_relay(env, short_home):
    from server.hooks import relay

    env["home"] = short_home
    stop(env)
    settings = Settings.from_env()
    hook_settings = HookSettings()
    hook = HookInput("claude-code", "prompt", "relayed", env["repo"], prompt="what is the staging host?")
    assert relay.ask(settings, hook_settings, hook, "shop-api") is None  # no server yet
    service = open_light(settings, create=False)
    server = relay.start(service, settings)
    try:
        assert server is not None and server.path.exists()
        answer = relay.ask(settings, hook_settings, hook, "shop-api")
        assert answer is not None and "stg-orders.internal" in answer
        again = relay.ask(settings, hook_settings, hook, "shop-api")
        assert again == ""  # the same session was shown it already: the server kept the session's state
        # A capture is handed over too: the server runs it on a thread and logs it.
        more = env["transcript"].parent / "more.jsonl"
        more.write_text(json.dumps({"type": "user", "message": {"role": "user", "content": "We decided to ship on Fridays."}}) + "\n")
        took = relay.hand_off(settings, hook_settings, HookInput("claude-code", "stop", "other", env["repo"], more), "shop-api")
        assert took is True
        log = short_home / "hooks" / "hooks.log"
        for _ in range(600):
            if log.exists() and "(by the server)" in log.read_text():
                break
            __import__("time").sleep(0.05)
        assert "stop claude-code other (by the server): 1 transcript lines: 1 turns, 1 statements" in log.read_text()
        assert ("decision", "We decided to ship on Fridays.") in [(r[0], r[1]) for r in memories(short_home)]
        other = Settings.from_env().with_(namespace="team")
        assert server.handle({"store": relay.store_id(other), "hook": {}}) == {"error": "another store"}
    finally:
        server.close()
        service.close()
    assert not server.path.exists()


@pytest.mark.skipif(not hasattr(__import__("socket"), "AF_UNIX"), reason="no Unix sockets on this platform")
def test_a_socket_left_by_a_killed_server_is_removed_and_the_hook_works_alone(env, short_home):
    import socket

    from server.hooks import relay

    env["home"] = short_home
    stop(env)
    settings = Settings.from_env()
    dead = relay.relay_dir(settings) / "99999.sock"
    dead.parent.mkdir(parents=True)
    orphan = socket.socket(socket.AF_UNIX)
    orphan.bind(str(dead))
    orphan.close()  # bound, never listening: what kill -9 leaves
    out = run("prompt", {"session_id": "after-crash", "cwd": str(env["repo"]), "prompt": "what is the staging host?"})
    assert "stg-orders.internal" in context(out)
    assert not dead.exists()


@pytest.mark.parametrize("text", [
    "I switched to the feature branch to compare.", "I decided to read the tests first.", "Let's use a scratch file here.",
])
def test_an_assistants_own_steps_are_not_decisions(text):
    from server.hooks.extract import statements_in

    assert statements_in(text, None, from_user=False) == []


def _hook_in_a_fresh_process(env, event: str, payload: dict, report: str) -> dict:
    """Run one hook in a new Python process (its own module set) and return the JSON the `report`
    expression builds there, after the hook ran, from `out` (the hook's stdout) and `sys.modules`."""
    import subprocess

    probe = (
        "import io, json, sys\n"
        "from server.hooks.run import main\n"
        "out = io.StringIO()\n"
        f"main({event!r}, None, foreground=True, stdin=io.BytesIO({json.dumps(payload).encode()!r}), stdout=out)\n"
        f"print(json.dumps({report}))\n"
    )
    run_ = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60,
                          cwd=Path(__file__).resolve().parent.parent)
    assert run_.returncode == 0, run_.stderr
    return json.loads(run_.stdout.splitlines()[-1])


def test_a_hook_process_answering_alone_imports_neither_numpy_nor_pydantic(env):
    """Importing them was 85-90 % of a hook's time (bench/hooks.py): the keyword-only path needs neither."""
    stop(env)
    payload = {"session_id": "later", "cwd": str(env["repo"]), "prompt": "what is the staging host?",
               "hook_event_name": "UserPromptSubmit"}
    report = ("{'injected': 'stg-orders.internal' in out.getvalue(),"
              " 'heavy': sorted(m for m in ('numpy', 'pydantic') if m in sys.modules)}")
    assert _hook_in_a_fresh_process(env, "prompt", payload, report) == {"injected": True, "heavy": []}


def test_an_injection_hook_process_does_not_import_the_capture_code(env):
    """The transcript reader and the statement rules (a hundred regular expressions compiled at import) are
    for capture; an injection hook at session start pays for every module it imports (bench/hooks.py)."""
    stop(env)
    payload = {"session_id": "later", "cwd": str(env["repo"]), "source": "startup", "hook_event_name": "SessionStart"}
    report = ("{'injected': bool(out.getvalue().strip()),"
              " 'capture': sorted(m for m in ('server.hooks.extract', 'server.hooks.capture', 'server.hooks.transcript')"
              " if m in sys.modules)}")
    assert _hook_in_a_fresh_process(env, "session-start", payload, report) == {"injected": True, "capture": []}


def test_a_hook_with_no_server_to_ask_does_not_import_socket(env):
    """socket (with selectors and array) is for handing the event to a running server's relay; with no relay
    socket in the store's folder the hook works alone and never needs it (~2.5 ms of CPU, bench/hooks.py)."""
    stop(env)
    payload = {"session_id": "later", "cwd": str(env["repo"]), "prompt": "what is the staging host?",
               "hook_event_name": "UserPromptSubmit"}
    report = "{'injected': 'stg-orders.internal' in out.getvalue(), 'socket': 'socket' in sys.modules}"
    assert _hook_in_a_fresh_process(env, "prompt", payload, report) == {"injected": True, "socket": False}


def test_the_command_line_s_hook_path_does_not_import_argparse(env):
    """`memvault hook` reads its few options by hand (command.hook_arguments); argparse, with gettext and
    locale, is for the other commands' parser (~2 ms of every hook's CPU, bench/hooks.py)."""
    import subprocess
    import sys

    stop(env)
    payload = {"session_id": "later", "cwd": str(env["repo"]), "prompt": "what is the staging host?",
               "hook_event_name": "UserPromptSubmit"}
    probe = (
        "import runpy, sys\n"
        "sys.argv = ['memvault', 'hook', 'prompt']\n"
        "try:\n"
        "    runpy.run_module('server', run_name='__main__')\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('argparse' in sys.modules)\n"
    )
    run_ = subprocess.run([sys.executable, "-c", probe], input=json.dumps(payload), capture_output=True, text=True,
                          timeout=60, cwd=env["repo"], env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
    assert run_.returncode == 0, run_.stderr
    assert "stg-orders.internal" in run_.stdout and run_.stdout.splitlines()[-1] == "False"


def test_a_hook_process_keeps_storing_while_a_server_embeds_what_it_wrote(settings):
    """A hook process has no model: when a server has meanwhile embedded some of its writes, judging
    those for updates must not try to embed the rest (it used to raise and lose the capture)."""
    from server.embedding.embedders import HashEmbedder
    from server.service import MemoryService

    light = open_light(settings, create=True)
    try:
        first = light.remember("The billing service retries webhooks 3 times.", thread="shop").id
        light.remember("The billing service logs to Loki.", thread="shop")
        server = MemoryService.open(settings, embedder=HashEmbedder())  # a server's backfill
        try:
            server.embed_backlog()
        finally:
            server.close()
        unembedded = light.remember("The billing service retries webhooks with backoff.", thread="shop").id
        later = light.remember("The billing service now retries webhooks 5 times.", thread="shop").id
    finally:
        light.close()
    reopened = MemoryService.open(settings, embedder=HashEmbedder())
    try:
        kept = reopened.store.get([first, unembedded, later])
        assert set(kept) == {first, unembedded, later}
        assert all(row.deleted_at is None for row in kept.values())
    finally:
        reopened.close()


def test_session_start_leaves_out_a_superseded_statement_until_its_update_is_forgotten(service):
    """The start context holds the current fact only; forgetting the update makes the older fact
    current again there as in recall (not left out for a replacement nobody can see)."""
    from server.hooks.inject import session_context

    old = service.remember("The staging host is stg-orders.internal.", thread="shop-api").id
    service.indexer.run_once()
    new = service.remember("The staging host is stg-orders-2.internal.", thread="shop-api").id
    assert service.get(old).superseded_by == new
    text = session_context(service, "shop-api", 600).text
    assert "stg-orders-2.internal" in text and "stg-orders.internal." not in text
    service.forget(new)
    text = session_context(service, "shop-api", 600).text
    assert "stg-orders.internal." in text and "stg-orders-2.internal" not in text


def test_a_capture_leaves_update_checks_to_the_backfill(env, monkeypatch):
    """A capture stores each statement marked to be judged later instead of searching its thread for the memory
    it updates, one statement at a time (what made a statement-heavy capture take minutes); the first process
    with a model judges them, and the minimal edit is linked then."""
    from server.embedding.embedders import HashEmbedder
    from server.service import MemoryService
    from server.linker import UpdateLinker

    lines = [{"type": "user", "timestamp": f"2026-10-04T15:0{i}:00.000Z", "message": {"role": "user", "content": text}}
             for i, text in enumerate(["We decided to pin Python 3.11 for the API image.",
                                       "We decided to pin Python 3.12 for the API image."])]
    env["transcript"].write_text("".join(json.dumps(line) + "\n" for line in lines))
    calls = []
    with monkeypatch.context() as patched:
        patched.setattr(UpdateLinker, "link", lambda self, *a, **k: calls.append(a) or None)
        stop(env)
    assert calls == [] and [r[1] for r in memories(env["home"])][-2:] == [
        "We decided to pin Python 3.11 for the API image.", "We decided to pin Python 3.12 for the API image."]
    service = MemoryService.open(Settings.from_env(), embedder=HashEmbedder())
    try:
        service.embed_backlog()
    finally:
        service.close()
    con = sqlite3.connect(env["home"] / "memvault.db")
    rows = dict(con.execute("SELECT content, coalesce(superseded_by, -id) FROM memories WHERE content LIKE '%pin Python%'"))
    ids = dict(con.execute("SELECT content, id FROM memories WHERE content LIKE '%pin Python%'"))
    con.close()
    assert rows["We decided to pin Python 3.11 for the API image."] == ids["We decided to pin Python 3.12 for the API image."]


def readable(home: Path) -> str:
    """Every copy a client, the web page or a person can read: the memories table in every state (forgotten
    included, as the web page lists them), archived originals, and every text file under the data directory."""
    con = sqlite3.connect(home / "memvault.db")
    rows = [r[0] for r in con.execute("SELECT content FROM memories UNION ALL SELECT content FROM memory_originals")]
    con.close()
    files = [p.read_text(errors="replace") for p in home.rglob("*") if p.is_file() and p.suffix in (".md", ".json", ".log")]
    return "\n".join(rows + files)


def test_nomem_leaves_no_readable_copy_not_even_in_the_daily_log(env):
    stop(env)
    assert "We decided to cache the product catalogue in Redis" in readable(env["home"])  # the daily log has it
    run("prompt", {"session_id": SESSION, "cwd": str(env["repo"]), "prompt": "keep this out #nomem"})
    assert "Redis" not in readable(env["home"]) and "staging host" not in readable(env["home"])


def test_forgetting_a_captured_memory_erases_it_and_its_daily_log_line(env):
    """A captured memory forgotten is erased (the web page lists forgotten memories) and leaves the daily log,
    whose other lines stay; a memory someone chose to remember is still only forgotten (restore brings it back)."""
    from server.embedding.embedders import HashEmbedder
    from server.service import MemoryService

    stop(env)
    service = MemoryService.open(Settings.from_env(), embedder=HashEmbedder())
    try:
        chosen = service.remember("The invoice PDFs are generated by WeasyPrint.", kind="fact", thread="shop-api").id
        [captured] = [r.id for r in service.store.recent_memories("shop-api", 50) if "Redis" in r.content and r.kind == "decision"]
        assert "erased" in service.forget(captured).message
        assert service.forget(chosen).status == "forgotten"
        day = service.files.list_days()[-1]
        log_text = service.files.read_daily(day)
    finally:
        service.close()
    con = sqlite3.connect(env["home"] / "memvault.db")
    assert con.execute("SELECT count(*) FROM memories WHERE id = ?", (captured,)).fetchone() == (0,)
    con.close()
    assert "Redis" not in log_text and f"id:{captured} " not in log_text
    assert "Always run the linter before committing." in log_text
    assert "WeasyPrint" in log_text  # a chosen memory's line is the person's journal: kept


def test_forgetting_a_sessions_captures_by_origin_erases_them_too(env):
    """curate_memory(action="forget-matching", origin=...) -- the README's way to drop one session -- erases like forget."""
    from server.curation.lifecycle import forget_matching
    from server.embedding.embedders import HashEmbedder
    from server.service import MemoryService

    stop(env)
    service = MemoryService.open(Settings.from_env(), embedder=HashEmbedder())
    try:
        plan = forget_matching(service, origin=f"claude-code session {SESSION}")
        plan.apply()
    finally:
        service.close()
    assert "erased" in plan.summary
    assert "Redis" not in readable(env["home"]) and "staging host" not in readable(env["home"])


def test_a_capture_cut_short_by_a_busy_store_keeps_what_it_stored_for_nomem(env, monkeypatch):
    """A store busy part-way through a capture: the session keeps the ids stored so far (so #nomem can still
    erase them) and the cursor before the unfinished lines; the next capture stores the rest, nothing twice."""
    from server.errors import StoreBusy
    from server.service import MemoryService

    real, calls = MemoryService.remember, []

    def busy_after_three(self, *args, **kwargs):
        calls.append(1)
        if len(calls) > 3:
            raise StoreBusy("the store is busy")
        return real(self, *args, **kwargs)

    with monkeypatch.context() as patched:
        patched.setattr(MemoryService, "remember", busy_after_three)
        stop(env)
    assert len(memories(env["home"])) == 3
    assert "stopped part-way" in (env["home"] / "hooks" / "hooks.log").read_text()
    run("prompt", {"session_id": SESSION, "cwd": str(env["repo"]), "prompt": "drop all of it #nomem"})
    assert memories(env["home"]) == []


def test_session_start_prunes_old_session_files_once_a_day(tmp_path):
    """A session start stats every session's files to prune them: once a day is enough."""
    import os
    import time

    from server.hooks.sessions import PRUNED_STAMP

    sessions = Sessions(tmp_path / "sessions")
    month_ago = time.time() - 31 * 86400

    def old_session(name: str) -> Path:
        with sessions.locked("claude-code", name):
            pass
        path = tmp_path / "sessions" / f"claude-code-{name}.json"
        os.utime(path, (month_ago, month_ago))
        return path

    first = old_session("one")
    assert sessions.prune_daily() == 1 and not first.exists()
    second = old_session("two")
    assert sessions.prune_daily() == 0 and second.exists()  # pruned today already
    os.utime(tmp_path / "sessions" / PRUNED_STAMP, (month_ago, month_ago))
    assert sessions.prune_daily() == 1 and not second.exists()


@pytest.mark.parametrize("argv", [
    ["prompt"], ["UserPromptSubmit", "--host", "claude-code"], ["stop", "--foreground", "--host=cursor"],
    ["session-start", "--home", "/data/memvault dir", "--namespace", "work"], ["--home=/x", "sessionStart"],
    ["beforeSubmitPrompt", "--host", "cursor", "--home", "/h", "--namespace=n", "--foreground"],
    [], ["nonsense"], ["prompt", "stop"], ["prompt", "--host", "vim"], ["prompt", "--home"], ["prompt", "--bogus"],
    ["prompt", "--home", "--foreground"], ["prompt", "-h"], ["prompt", "--foreground=yes"],
])
def test_the_hook_command_line_reads_as_its_parser_does(argv, capsys):
    """hook_main reads its line by hand (a parser cost each hook ~5 ms): the same values as the parser that
    documents it, and None (exit 0, nothing printed) wherever that parser would refuse the line."""
    import argparse

    from server.hooks.command import _hook_arguments, hook_arguments

    parser = argparse.ArgumentParser(prog="memvault hook")
    _hook_arguments(parser)
    try:
        expected = vars(parser.parse_args(argv))
    except SystemExit:
        expected = None
    capsys.readouterr()
    assert hook_arguments(argv) == expected
