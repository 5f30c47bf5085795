"""Settings and start-up faults end the server with one clear line on stderr and a documented exit status.

Spawned as a host would start it (stdin a pipe, nothing on stdout): a bad setting (2),
a data directory it cannot write (4), a damaged database (5). No traceback, and stdout,
the JSON-RPC channel, stays empty.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from spawn import ROOT, command, server_env

sys.path.insert(0, str(ROOT / "bench"))
from injectors import can_mount, remount, small_disk  # noqa: E402

sys.path.pop(0)

pytestmark = pytest.mark.e2e


def _start(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(command(*args), input=b"", capture_output=True, cwd=ROOT, env=server_env(home, **env), timeout=90)


def _one_message(proc: subprocess.CompletedProcess, status: int, *words: str) -> str:
    err = proc.stderr.decode(errors="replace")
    assert proc.returncode == status, err
    assert proc.stdout == b""  # nothing but JSON-RPC on stdout, and there was none to send
    assert "Traceback" not in err, err
    problems = [line for line in err.splitlines() if line.startswith("memvault: ")]
    assert len(problems) == 1, err
    for word in words:
        assert word in problems[0], problems[0]
    return problems[0]


@pytest.mark.parametrize(
    "env, words",
    [
        ({"MEMVAULT_THREAD": "my project"}, ["MEMVAULT_THREAD='my project'", "letters, digits"]),
        ({"MEMVAULT_HOME": "relative/home"}, ["MEMVAULT_HOME='relative/home' is a relative path"]),
        ({"MEMVAULT_MAX_K": "ten"}, ["MEMVAULT_MAX_K='ten' is not a whole number"]),
        ({"MEMVAULT_WRITE_WAIT": "inf"}, ["MEMVAULT_WRITE_WAIT='inf' is not a finite number"]),
        ({"MEMVAULT_TOKEN_BUDGET": "10"}, ["MEMVAULT_TOKEN_BUDGET=10", "50 to 200000"]),
        ({"MEMVAULT_LOG_LEVEL": "LOUD"}, ["MEMVAULT_LOG_LEVEL='LOUD'"]),
        ({"MEMVAULT_CURATE_ON_START": "compress,nuke"}, ["MEMVAULT_CURATE_ON_START"]),
        ({"MEMVAULT_PROMOTE_MIN_SCORE": "3"}, ["MEMVAULT_PROMOTE_MIN_SCORE=3.0"]),
    ],
)
def test_a_bad_setting_is_refused_at_start_naming_it(tmp_path, env, words):
    _one_message(_start(tmp_path, **env), 2, *words)


def test_a_damaged_database_is_one_message_and_exit_5(tmp_path):
    db = tmp_path / "memvault.db"
    db.write_bytes(b"SQLite format 3\x00" + os.urandom(8192))
    before = db.read_bytes()
    line = _one_message(_start(tmp_path), 5, f"the database {db} is damaged", "Restore a backup", ".recover",
                        "memvault doctor")
    assert db.read_bytes() == before, line  # left exactly as it was


def test_a_file_where_the_files_folder_belongs_is_exit_4(tmp_path):
    (tmp_path / "files").write_text("not a folder")
    _one_message(_start(tmp_path), 4, f"{tmp_path / 'files'} is a file, not a folder", "MEMVAULT_HOME")


def test_a_read_only_data_directory_is_exit_4(tmp_path):
    home = tmp_path / "ro"
    if os.geteuid() != 0:
        home.mkdir()
        home.chmod(0o555)
        try:
            _one_message(_start(home), 4, f"cannot write its data directory {home}", "writable")
        finally:
            home.chmod(0o755)
        return
    if not can_mount():
        pytest.skip("root ignores file modes, and this machine cannot mount a read-only file system")
    with small_disk(home, "4m"):
        assert _start(home).returncode == 0  # a store made while it was writable
        remount(home, "ro")
        _one_message(_start(home), 4, f"cannot write its data directory {home}", "writable")


def test_the_data_directory_is_logged_at_start(tmp_path):
    proc = _start(tmp_path)
    assert proc.returncode == 0
    assert f"data directory: {tmp_path} (MEMVAULT_HOME)" in proc.stderr.decode()


@pytest.mark.parametrize("error, status, words", [
    ("SetupError", 2, "invalid arguments, input or settings"),
    ("NotFound", 3, "no such memory"),
    ("DataDirUnusable", 4, "cannot be written"),
    ("StoreBusy", 4, "cannot be written"),
    ("StoreDamaged", 5, "damaged"),
    ("DriverUnavailable", 6, "installation"),
])
def test_each_error_exits_with_the_status_the_docs_list(error, status, words):
    import re

    import server.errors as errors
    from server.cli import output

    cls = getattr(errors, error)
    assert getattr(cls, "exit_status", output.NOT_FOUND if issubclass(cls, errors.NotFound) else None) == status
    assert status in (output.USAGE, output.NOT_FOUND, output.STORE_UNWRITABLE, output.STORE_DAMAGED, output.INSTALLATION)
    row = re.search(rf"^\| {status} \| (.*)$", (ROOT / "docs" / "commands.md").read_text(encoding="utf-8"), re.M)
    assert row and words in row.group(1), row
