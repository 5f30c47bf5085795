"""The real `memvault` command as a person runs it: tables on a terminal (a pseudo-terminal here), plain lines
in a pipe that may close early, and `memvault ui` on loopback only."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys

import pytest
from spawn import ROOT, command, server_env

pytestmark = pytest.mark.e2e


def _on_a_terminal(home, *args: str) -> tuple[int, str]:
    """Run `memvault ARGS` with stdout and stderr on a pseudo-terminal 120 columns wide; (exit code, screen)."""
    leader, follower = pty.openpty()
    env = server_env(home, COLUMNS="120", TERM="xterm-256color")
    env.pop("NO_COLOR", None)
    process = subprocess.Popen(command(*args), cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=follower,
                               stderr=follower)
    os.close(follower)
    screen = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the follower side closed: the process is done
            break
        if not chunk:
            break
        screen += chunk
    os.close(leader)
    return process.wait(timeout=60), screen.decode("utf-8", errors="replace")


def test_on_a_terminal_memories_are_an_aligned_coloured_table(tmp_path):
    env = server_env(tmp_path)
    for text, thread in (("We deploy billing with Helm", "shop"), ("Tests need PostgreSQL 16", "shop")):
        subprocess.run(command("remember", text, "--thread", thread), cwd=ROOT, env=env, check=True,
                       capture_output=True, timeout=60)
    code, screen = _on_a_terminal(tmp_path, "list")
    assert code == 0
    assert "┃" in screen and "━" in screen and "\x1b[" in screen  # box drawing and colour
    header = next(line for line in screen.splitlines() if "memory" in line and "kind" in line)
    rows = [line for line in screen.splitlines() if "We deploy billing" in line or "Tests need" in line]
    assert len(rows) == 2 and {r.index("│") for r in rows} == {header.index("┃")}  # columns line up
    code, screen = _on_a_terminal(tmp_path, "show", "1")
    assert code == 0 and "We deploy billing with Helm" in screen and "history" in screen


def test_in_a_pipe_output_is_plain_and_a_reader_that_stops_early_is_no_error(tmp_path):
    from server.config import Settings
    from server.embedding.embedders import HashEmbedder
    from server.service import MemoryService

    svc = MemoryService.open(Settings(home=tmp_path, embedder="hash"), embedder=HashEmbedder())
    for n in range(1000):  # more than a pipe holds (64 KiB), so `head` closes it mid-listing
        svc.remember(f"note {n}: " + "the build cache lives in ~/.cache/build and is safe to delete " * 2, thread="t")
    svc.close()
    env = server_env(tmp_path)
    listing = subprocess.run(command("list", "--limit", "3"), cwd=ROOT, env=env, capture_output=True, text=True,
                             timeout=60)
    assert listing.returncode == 0 and "\x1b[" not in listing.stdout and "┃" not in listing.stdout
    assert [line.split("\t")[4][:8] for line in listing.stdout.splitlines()] == ["note 999", "note 998", "note 997"]
    pipeline = subprocess.run(f"{' '.join(command('list', '--limit', '1000'))} | head -1", shell=True, cwd=ROOT,
                              env=env, capture_output=True, text=True, timeout=60)
    assert pipeline.stdout.startswith("1000\t") and pipeline.stdout.count("\n") == 1
    assert pipeline.stderr == ""  # no traceback, no "Broken pipe"


def test_the_web_page_listens_on_loopback_only(tmp_path):
    done = subprocess.run(command("ui", "--host", "0.0.0.0"), cwd=ROOT, env=server_env(tmp_path), capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and "loopback only" in done.stderr and done.stdout == ""


def test_help_lists_every_command(tmp_path):
    done = subprocess.run([sys.executable, "-m", "server", "--help"], cwd=ROOT, env=server_env(tmp_path),
                          capture_output=True, text=True, timeout=60)
    for name in ("serve", "info", "token", "export", "import", "reembed", "model", "migrate", "db", "recall", "list",
                 "show", "remember", "edit", "forget", "restore", "pin", "unpin", "threads", "stats", "curate",
                 "prompts", "doctor", "ui", "hook", "hooks"):
        assert f"    {name} " in done.stdout or f"    {name}\n" in done.stdout, name
    assert "Exit status: 0 done, 1 problems found" in done.stdout
