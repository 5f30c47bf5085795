"""The installed `memvault hook` run the way Claude Code runs it: JSON on stdin, the project as cwd, a fresh process.

Also: every hook against garbage input, a broken store, a locked store and a missing
transcript exits 0 without blocking and leaves one line in hooks.log; `memvault hooks
install` writes a configuration whose commands are these absolute paths.
(After changing server/, `pip install --no-deps .` before running these.)
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

MEMVAULT = str(Path(sys.executable).with_name("memvault"))
DATA = Path(__file__).parent / "data" / "hooks"
EVENTS = ("session-start", "prompt", "pre-compact", "stop", "session-end")


@pytest.fixture
def host(tmp_path):
    repo = tmp_path / "shop-api"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "src").mkdir()
    transcript = tmp_path / "projects" / "-shop-api" / "7f1c2a90.jsonl"
    transcript.parent.mkdir(parents=True)
    shutil.copy(DATA / "claude_session.jsonl", transcript)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMVAULT_")}
    env.update({"MEMVAULT_HOME": str(tmp_path / "home"), "MEMVAULT_EMBEDDER": "hash", "CLAUDE_PROJECT_DIR": str(repo)})
    return {"repo": repo, "transcript": transcript, "env": env, "home": tmp_path / "home"}


def hook(host, event: str, payload: dict | bytes, cwd: Path | None = None) -> subprocess.CompletedProcess:
    raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return subprocess.run([MEMVAULT, "hook", event], input=raw, capture_output=True, env=host["env"],
                          cwd=cwd or host["repo"] / "src", timeout=60)


def payload(host, event: str, **extra) -> dict:
    names = {"session-start": "SessionStart", "prompt": "UserPromptSubmit", "pre-compact": "PreCompact",
             "stop": "Stop", "session-end": "SessionEnd"}
    return {"session_id": "7f1c2a90", "transcript_path": str(host["transcript"]), "cwd": str(host["repo"] / "src"),
            "hook_event_name": names[event], "permission_mode": "default", **extra}


def stored(home: Path) -> list[tuple[str, str]]:
    if not (home / "memvault.db").exists():
        return []
    con = sqlite3.connect(home / "memvault.db", timeout=5)
    try:
        return con.execute("SELECT kind, content FROM memories WHERE source = 'hook' ORDER BY id").fetchall()
    except sqlite3.OperationalError:
        return []
    finally:
        con.close()


def log_lines(home: Path) -> list[str]:
    path = home / "hooks" / "hooks.log"
    return path.read_text().splitlines() if path.exists() else []


def test_a_session_as_the_host_runs_it(host):
    """Stop captures in a detached process (the hook returns first); the next session starts with what it stored."""
    started = time.monotonic()
    proc = hook(host, "stop", payload(host, "stop", stop_hook_active=False))
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    deadline = time.monotonic() + 30
    while not any("transcript lines" in line for line in log_lines(host["home"])) and time.monotonic() < deadline:
        time.sleep(0.2)  # the detached capture logs its summary when it is done
    rows = stored(host["home"])
    assert ("decision", "We decided to cache the product catalogue in Redis for 5 minutes.") in rows
    assert [k for k, _ in rows].count("turn") == 3
    assert any("15 transcript lines: 3 turns, 8 statements" in line for line in log_lines(host["home"]))
    assert time.monotonic() - started < 35

    start = hook(host, "session-start", payload(host, "session-start", session_id="next", source="startup"))
    assert start.returncode == 0 and start.stderr == b""
    context = json.loads(start.stdout)["hookSpecificOutput"]
    assert context["hookEventName"] == "SessionStart"
    assert "remembered from earlier sessions in shop-api" in context["additionalContext"]
    assert "Always run the linter before committing." in context["additionalContext"]

    # The brief now ends with the newest replies, so in session "next" the cursor fix may already be in
    # front of the assistant (a prompt does not repeat what its session was shown); a session whose
    # start was not injected gets it from the prompt hook.
    question = "why do the orders tests fail on the first page?"
    again = hook(host, "prompt", payload(host, "prompt", session_id="next", prompt=question))
    assert again.returncode == 0
    shown = context["additionalContext"] + (json.loads(again.stdout)["hookSpecificOutput"]["additionalContext"] if again.stdout else "")
    assert "cursor" in shown.lower()
    prompt = hook(host, "prompt", payload(host, "prompt", session_id="fresh", prompt=question))
    assert prompt.returncode == 0
    injected = json.loads(prompt.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "cursor" in injected.lower()


@pytest.mark.parametrize("event", EVENTS)
def test_every_hook_fails_open(host, event):
    """Garbage stdin, a broken store, a missing transcript: exit 0, nothing on stdout, one log line each."""
    # garbage on stdin
    proc = hook(host, event, b"\x00\xffnot json at all")
    assert (proc.returncode, proc.stdout) == (0, b"")
    assert len(log_lines(host["home"])) == 1 and "stdin is not JSON" in log_lines(host["home"])[0]

    # a store that is not a database
    host["home"].mkdir(exist_ok=True)
    (host["home"] / "memvault.db").write_bytes(b"this is not a database" * 100)
    proc = hook(host, event, payload(host, event, prompt="what is the staging host?", source="startup"))
    assert (proc.returncode, proc.stdout) == (0, b"")
    deadline = time.monotonic() + 30  # a capture fails in its detached process, a moment later
    while len(log_lines(host["home"])) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(log_lines(host["home"])) == 2 and "nothing injected or captured" in log_lines(host["home"])[1]
    (host["home"] / "memvault.db").unlink()

    # a missing transcript (captures say so; injections have nothing to say yet)
    missing = payload(host, event, transcript_path=str(host["repo"] / "gone.jsonl"), prompt="hi", source="startup")
    env = dict(host["env"])
    proc = subprocess.run([MEMVAULT, "hook", event, "--foreground"] if event in ("pre-compact", "stop", "session-end")
                          else [MEMVAULT, "hook", event], input=json.dumps(missing).encode(), capture_output=True,
                          env=env, cwd=host["repo"], timeout=60)
    assert (proc.returncode, proc.stdout) == (0, b"")


def test_a_locked_store_never_holds_the_prompt(host):
    """Another process holds the write lock: the injecting hooks still read and inject (the writes a read
    makes -- recall counters, the file index, the closing `PRAGMA optimize` -- are skipped, not waited for)."""
    hook(host, "stop", payload(host, "stop"))
    deadline = time.monotonic() + 30
    while len(stored(host["home"])) < 9 and time.monotonic() < deadline:
        time.sleep(0.2)
    con = sqlite3.connect(host["home"] / "memvault.db", isolation_level=None, timeout=5)
    con.execute("BEGIN EXCLUSIVE")
    con.execute("UPDATE memories SET importance = importance WHERE id = 1")  # the write lock, taken
    try:
        host["env"]["MEMVAULT_HOOK_DEADLINE"] = "3"
        start = hook(host, "session-start", payload(host, "session-start", session_id="locked", source="startup"))
        prompt = hook(host, "prompt", payload(host, "prompt", session_id="locked2",
                                              prompt="why do the orders tests fail on the first page?"))
    finally:
        con.execute("ROLLBACK")
        con.close()
    assert start.returncode == 0 and "Always run the linter before committing." in start.stdout.decode()
    assert prompt.returncode == 0 and "cursor" in json.loads(prompt.stdout)["hookSpecificOutput"]["additionalContext"].lower()
    assert not [line for line in log_lines(host["home"]) if "gave up" in line or "locked" in line]


def test_hooks_install_writes_absolute_commands_that_run(host, tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    show = subprocess.run([MEMVAULT, "hooks", "install", "--scope", "project", "--project-dir", str(project), "--print"],
                          capture_output=True, env=host["env"], timeout=60)
    assert show.returncode == 0 and not (project / ".claude").exists()
    printed = json.loads(show.stdout)
    done = subprocess.run([MEMVAULT, "hooks", "install", "--scope", "project", "--project-dir", str(project)],
                          capture_output=True, env=host["env"], timeout=60)
    assert done.returncode == 0, done.stderr
    written = json.loads((project / ".claude" / "settings.json").read_text())
    assert written == printed
    command = written["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    exe = command.split('"')[1]
    assert Path(exe).is_absolute() and os.access(exe, os.X_OK)
    status = json.loads(subprocess.run([MEMVAULT, "hooks", "status", "--scope", "project", "--project-dir", str(project)],
                                       capture_output=True, env=host["env"], timeout=60).stdout)
    assert len(status["memvault_hooks"]) == 5 and status["store"] == str(host["home"])
    again = subprocess.run([MEMVAULT, "hooks", "install", "--scope", "project", "--project-dir", str(project)],
                           capture_output=True, env=host["env"], timeout=60)
    assert b"already installed" in again.stderr
    gone = subprocess.run([MEMVAULT, "hooks", "uninstall", "--scope", "project", "--project-dir", str(project)],
                          capture_output=True, env=host["env"], timeout=60)
    assert gone.returncode == 0 and not (project / ".claude" / "settings.json").exists()


def test_installed_hooks_use_the_servers_store_whatever_environment_the_host_gives_them(host, tmp_path):
    """The README's set-up: MEMVAULT_HOME only in the server's `env` block. The installed commands carry
    that store, so hooks run with a host's bare environment (no MEMVAULT_HOME, another HOME) fill and read
    the server's store; `doctor` fails, naming both paths, once the two differ."""
    user = tmp_path / "user"
    user.mkdir()
    server_home = tmp_path / "server-home"
    (user / ".claude.json").write_text(json.dumps({"mcpServers": {"memvault": {
        "command": MEMVAULT, "args": ["serve"], "env": {"MEMVAULT_HOME": str(server_home)}}}}))
    shell = {k: v for k, v in host["env"].items() if k != "MEMVAULT_HOME"} | {"HOME": str(user)}
    done = subprocess.run([MEMVAULT, "hooks", "install"], capture_output=True, env=shell, cwd=user, timeout=60)
    assert done.returncode == 0, done.stderr
    assert str(server_home) in done.stderr.decode()
    hooks = json.loads((user / ".claude" / "settings.json").read_text())["hooks"]

    # What a host gives a hook: its own environment, nothing of the server's env block.
    bare = {"HOME": str(tmp_path / "elsewhere"), "PATH": "/usr/bin:/bin"}
    if "PYTHONPATH" in os.environ:  # a checkout's tests run its own code
        bare["PYTHONPATH"] = os.environ["PYTHONPATH"]

    def run(name: str, event: str, **extra) -> subprocess.CompletedProcess:
        command = hooks[name][0]["hooks"][0]["command"]
        return subprocess.run(["sh", "-c", command.replace(" hook stop ", " hook stop --foreground ")],
                              input=json.dumps(payload(host, event, **extra)).encode(),
                              capture_output=True, env=bare, cwd=host["repo"], timeout=60)

    assert run("Stop", "stop").returncode == 0
    assert ("decision", "We decided to cache the product catalogue in Redis for 5 minutes.") in stored(server_home)
    assert not (tmp_path / "elsewhere").exists() and not (user / ".local").exists()
    start = run("SessionStart", "session-start", session_id="next", source="startup")
    assert "Always run the linter before committing." in json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"]

    doctor = subprocess.run([MEMVAULT, "doctor", "--json"], capture_output=True, env=shell, cwd=user, timeout=60)
    assert not [c for c in json.loads(doctor.stdout)["checks"] if c["name"].startswith("hooks store")]
    (user / ".claude.json").write_text(json.dumps({"mcpServers": {"memvault": {
        "command": MEMVAULT, "args": ["serve"], "env": {"MEMVAULT_HOME": str(tmp_path / "moved")}}}}))
    doctor = subprocess.run([MEMVAULT, "doctor", "--json"], capture_output=True, env=shell, cwd=user, timeout=60)
    assert doctor.returncode == 1
    [check] = [c for c in json.loads(doctor.stdout)["checks"] if c["name"] == "hooks store (claude-code)"]
    assert check["status"] == "fail"
    assert str(server_home) in check["detail"] and str(tmp_path / "moved") in check["detail"]
    [terminal] = [c for c in json.loads(doctor.stdout)["checks"] if c["name"] == "terminal store"]
    assert terminal["status"] == "warn" and terminal["fix"] == f"export MEMVAULT_HOME={tmp_path / 'moved'} (in your shell profile)"


PLUGIN = Path(__file__).resolve().parent.parent / "plugin"


def test_the_plugin_folder_is_complete_and_its_launcher_runs_memvault(host):
    """The Claude Code plugin: its hooks call bin/memvault with each event; the launcher finds memvault or fails open."""
    from server.hooks.protocol import HOST_EVENTS

    manifest = json.loads((PLUGIN / ".claude-plugin" / "plugin.json").read_text())
    assert manifest["name"] == "memvault"
    hooks = json.loads((PLUGIN / "hooks" / "hooks.json").read_text())["hooks"]
    assert set(hooks) == set(HOST_EVENTS["claude-code"])
    for name, groups in hooks.items():
        command = groups[0]["hooks"][0]["command"]
        assert command == f'"${{CLAUDE_PLUGIN_ROOT}}/bin/memvault" hook {HOST_EVENTS["claude-code"][name]} --host claude-code'
    marketplace = json.loads((PLUGIN.parent / ".claude-plugin" / "marketplace.json").read_text())
    assert marketplace["plugins"][0]["source"] == "./plugin"

    launcher = str(PLUGIN / "bin" / "memvault")
    env = {**host["env"], "MEMVAULT_BIN": MEMVAULT, "CLAUDE_PLUGIN_ROOT": str(PLUGIN)}
    ran = subprocess.run(["sh", "-c", hooks["Stop"][0]["hooks"][0]["command"].replace(" stop ", " stop --foreground ")],
                         input=json.dumps(payload(host, "stop")).encode(), capture_output=True, env=env,
                         cwd=host["repo"], timeout=60)
    assert ran.returncode == 0 and len(stored(host["home"])) == 11  # 3 turns, 8 statements (the package manager among them)
    # A copy away from any checkout, with no memvault on PATH: hooks exit 0 silently, serve says what to do.
    elsewhere = host["repo"].parent / "cache" / "memvault"
    shutil.copytree(PLUGIN, elsewhere)
    nowhere = {"PATH": "/usr/bin:/bin", "MEMVAULT_HOME": str(host["home"]), "HOME": str(host["home"])}
    lost = subprocess.run([str(elsewhere / "bin" / "memvault"), "hook", "prompt"],
                          input=json.dumps(payload(host, "prompt", prompt="staging host?")).encode(),
                          capture_output=True, env=nowhere, cwd=host["repo"], timeout=60)
    assert (lost.returncode, lost.stdout, lost.stderr) == (0, b"", b"")
    serve = subprocess.run([str(elsewhere / "bin" / "memvault"), "serve"], capture_output=True, env=nowhere, timeout=60)
    assert serve.returncode == 1 and b"MEMVAULT_BIN" in serve.stderr
    found = subprocess.run([launcher, "--version"], capture_output=True, env={**nowhere, "PATH": "/usr/bin:/bin"}, timeout=60)
    assert found.returncode == 0 and found.stdout.startswith(b"memvault ")  # the checkout's .venv, in place


@pytest.mark.skipif(not hasattr(__import__("socket"), "AF_UNIX"), reason="no Unix sockets on this platform")
def test_hooks_ask_the_running_server_and_work_alone_when_it_is_gone(host):
    """`memvault serve` answers the hooks of its store; when it exits, its socket goes and the hooks work alone."""
    import tempfile

    home = Path(tempfile.mkdtemp(prefix="mv", dir="/tmp"))  # socket paths must stay short
    try:
        host["env"]["MEMVAULT_HOME"] = str(home)
        host["home"] = home
        subprocess.run([MEMVAULT, "hook", "stop", "--foreground"], input=json.dumps(payload(host, "stop")).encode(),
                       env=host["env"], cwd=host["repo"], timeout=60, check=True)
        server = subprocess.Popen([MEMVAULT, "serve"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, env=host["env"], cwd=host["repo"])
        socket_path = home / "hooks" / "relay" / f"{server.pid}.sock"
        try:
            deadline = time.monotonic() + 60
            while not socket_path.exists() and time.monotonic() < deadline:
                time.sleep(0.1)
            assert socket_path.exists()
            relayed = hook(host, "prompt", payload(host, "prompt", session_id="via-server", prompt="what is the staging host?"))
            with open(host["transcript"], "a") as handle:
                handle.write(json.dumps({"type": "user", "message": {"role": "user", "content": "Never deploy on Fridays."}}) + "\n")
            assert hook(host, "stop", payload(host, "stop")).returncode == 0
            deadline = time.monotonic() + 30
            while not any("(by the server)" in line for line in log_lines(home)) and time.monotonic() < deadline:
                time.sleep(0.1)
            assert any("(by the server): 1 transcript lines: 1 turns, 1 statements" in line for line in log_lines(home))
        finally:
            server.stdin.close()
            server.wait(timeout=60)
        assert relayed.returncode == 0
        assert "stg-orders.internal" in json.loads(relayed.stdout)["hookSpecificOutput"]["additionalContext"]
        assert not socket_path.exists()
        alone = hook(host, "prompt", payload(host, "prompt", session_id="alone", prompt="what is the staging host?"))
        assert json.loads(alone.stdout) == json.loads(relayed.stdout)
    finally:
        shutil.rmtree(home, ignore_errors=True)


@pytest.mark.skipif(not hasattr(__import__("socket"), "AF_UNIX"), reason="no Unix sockets on this platform")
def test_a_hung_server_costs_the_prompt_no_more_than_the_deadline(host):
    """A relay socket that accepts and never answers: the hook gives up at its deadline, exit 0, one log line."""
    import socket
    import tempfile

    home = Path(tempfile.mkdtemp(prefix="mv", dir="/tmp"))
    listener = socket.socket(socket.AF_UNIX)
    try:
        host["env"].update({"MEMVAULT_HOME": str(home), "MEMVAULT_HOOK_DEADLINE": "1"})
        subprocess.run([MEMVAULT, "hook", "stop", "--foreground"], input=json.dumps(payload(host, "stop")).encode(),
                       env=host["env"], cwd=host["repo"], timeout=60, check=True)
        (home / "hooks" / "relay").mkdir(parents=True)
        listener.bind(str(home / "hooks" / "relay" / "4242.sock"))
        listener.listen(8)  # connections queue up; nobody ever reads them
        started = time.monotonic()
        proc = hook(host, "prompt", payload(host, "prompt", session_id="hung", prompt="what is the staging host?"))
        took = time.monotonic() - started
        assert (proc.returncode, proc.stdout) == (0, b"")
        assert took < 1 + 3  # the deadline, plus process start on a busy machine
        assert "nothing injected" in log_lines(home)[-1]
    finally:
        listener.close()
        shutil.rmtree(home, ignore_errors=True)
