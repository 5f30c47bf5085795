"""The real `memvault` command as a person runs it: tables on a terminal (a pseudo-terminal here), plain lines
in a pipe that may close early, and `memvault ui` on loopback only."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys

import pytest
from spawn import ROOT, command, server_env

pytestmark = pytest.mark.e2e


def _on_a_terminal(home, *args: str, columns: int = 120) -> tuple[int, str]:
    """Run `memvault ARGS` with stdout and stderr on a pseudo-terminal 120 columns wide; (exit code, screen)."""
    leader, follower = pty.openpty()
    env = server_env(home, COLUMNS=str(columns), TERM="xterm-256color")
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


def _plain_screen(screen: str) -> list[str]:
    """The screen's lines without colour codes (a pseudo-terminal ends lines with CR LF)."""
    return re.sub(r"\x1b\[[0-9;]*m", "", screen).replace("\r\n", "\n").split("\n")


LONG = ("The nightly job rebuilds the staging cluster at 02:00 UTC from the main branch, restores the anonymised "
        "customer snapshot, runs the migrations and the smoke tests, and posts the result to #staging-status; "
        "when it fails, the cluster keeps yesterday's build and the on-call engineer gets paged.")


def test_show_wraps_long_text_at_spaces_to_the_terminals_width_and_not_in_a_pipe(tmp_path):
    """On a 60-column terminal every content line fits and no word is cut; piped, the text is one line as stored."""
    env = server_env(tmp_path)
    subprocess.run(command("remember", LONG), cwd=ROOT, env=env, check=True, capture_output=True, timeout=60)
    code, screen = _on_a_terminal(tmp_path, "show", "1", columns=60)
    lines = _plain_screen(screen)
    content = lines[lines.index("content") + 1: lines.index("history") - 1]
    assert code == 0 and len(content) >= 4 and all(len(line) <= 60 for line in content)
    assert " ".join(content).split() == LONG.split()  # broken only between words
    piped = subprocess.run(command("show", "1"), cwd=ROOT, env={**env, "COLUMNS": "60"}, capture_output=True,
                           text=True, timeout=60)
    lines = piped.stdout.splitlines()
    assert lines[lines.index("# content") + 1] == LONG


def test_hints_on_a_terminal_name_the_terminals_commands(tmp_path):
    """remember's update note names `memvault restore N` (not the MCP tool) and quotes the values without the
    word "now"; show and forget of a missing id say the same thing about finding ids."""
    env = server_env(tmp_path)
    subprocess.run(command("remember", "The release is due 2024-06-20", "--kind", "fact"), cwd=ROOT, env=env,
                   check=True, capture_output=True, timeout=60)
    code, screen = _on_a_terminal(tmp_path, "remember", "The release is due 2025-03-31 now", "--kind", "fact")
    said = " ".join(line.strip() for line in _plain_screen(screen))
    assert code == 0 and "This updates memory 1" in said
    assert "'2024-06-20' changed to '2025-03-31'" in said and "`memvault restore 1` undoes it" in said
    assert "curate_memory" not in said and "dry_run" not in said
    missing = []
    for args in (("show", "99"), ("forget", "99"), ("restore", "99"), ("edit", "99", "--text", "x")):
        code, screen = _on_a_terminal(tmp_path, *args)
        missing.append((code, " ".join(line.strip() for line in _plain_screen(screen) if line.strip())))
    assert set(missing) == {(3, "memvault: No memory 99; `memvault list` or `memvault recall WORDS` shows current "
                                "memory ids.")}


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


def _archive_of(tmp_path, count: int):
    """An archive of `count` distinct memories, written directly (storing them one by one takes minutes)."""
    import json

    from server.config import Settings
    from server.curation import archive
    from server.curation.archive_load import checksum
    from server.embedding.embedders import HashEmbedder
    from server.service import MemoryService, content_hash

    svc = MemoryService.open(Settings(home=tmp_path / "source", embedder="hash"), embedder=HashEmbedder())
    try:
        svc.remember("seed", thread="t")
        [document] = archive.export(svc).values()
    finally:
        svc.close()
    seed = document["payload"]["memories"][0]
    memories = []
    for n in range(1, count + 1):
        text = f"note {n}: the build cache number {n} lives in ~/.cache/build-{n} and is safe to delete"
        memories.append({**seed, "id": n, "content": text, "content_hash": content_hash(text)})
    document["payload"]["memories"] = memories
    document["counts"]["memories"] = count
    document["sha256"] = checksum(document["payload"])
    path = tmp_path / "big.json"
    path.write_text(json.dumps(document))
    return path


def _interrupt_import(home, path, when: str) -> tuple[int, str]:
    """`memvault import PATH`, sent SIGINT (Ctrl-C) as soon as its progress on stderr starts with `when`."""
    import signal

    with subprocess.Popen(command("import", str(path)), cwd=ROOT, env=server_env(home), stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True) as process:
        said = []
        for line in process.stderr:
            said.append(line)
            if line.startswith(when):
                process.send_signal(signal.SIGINT)
                break
        said.append(process.stderr.read())
        return process.wait(timeout=60), "".join(said)


def _counts(home) -> dict:
    import json

    done = subprocess.run(command("info", "--json"), cwd=ROOT, env=server_env(home), capture_output=True, text=True,
                          timeout=60)
    return json.loads(done.stdout)


def test_ctrl_c_during_import_says_what_is_stored_and_what_is_left(tmp_path):
    """A real SIGINT in `memvault import`: while storing, nothing is (the archive is one transaction); while
    embedding, all of it is and the rest waits for the backfill. Each time the message matches the store, and
    running the import again finishes it (issue 35)."""
    path = _archive_of(tmp_path, 2000)
    home = tmp_path / "home"
    code, said = _interrupt_import(home, path, "imported 500/2000")
    assert code == 130 and said.endswith(
        "memvault: interrupted: nothing was stored (an archive is stored whole or not at all). It is safe to run "
        f"`memvault import {path}` again: memories already present are skipped.\n")
    assert _counts(home)["live"] == 0
    code, said = _interrupt_import(home, path, "embedded ")
    pending = _counts(home)["pending_embeddings"]
    assert code == 130 and 0 < pending < 2000 and _counts(home)["live"] == 2000
    assert said.endswith(
        "memvault: interrupted while embedding: the import itself is complete (2000 new memories stored from the "
        f"archive). {pending} memories still wait for a vector: keyword search finds them now, and the server's "
        f"background backfill embeds them when it runs. It is safe to run `memvault import {path}` again: memories "
        "already present are skipped.\n")
    again = subprocess.run(command("import", str(path), "--json"), cwd=ROOT, env=server_env(home), capture_output=True,
                           text=True, timeout=120)
    assert again.returncode == 0 and '"already_present": 2000' in again.stdout
    assert (_counts(home)["live"], _counts(home)["pending_embeddings"]) == (2000, 0)
