"""Several server processes on one store, driven at once by real MCP clients: nothing fails, is lost or doubled.

Runs bench/load.py at CI size (4 processes x 4 s); the benchmark itself checks the
store after shutdown and exits non-zero on any violation.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from spawn import ROOT, server_env

pytestmark = [pytest.mark.load, pytest.mark.e2e]


def test_four_processes_on_one_store_under_mixed_load(tmp_path):
    out = tmp_path / "load.json"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "load.py"), "--processes", "4", "--seconds", "4",
         "--home", str(tmp_path / "home"), "--out", str(out)],
        capture_output=True, text=True, timeout=240, cwd=ROOT, env=server_env(tmp_path / "home"),
    )
    assert out.exists(), proc.stderr[-3000:]
    result = json.loads(out.read_text())
    assert proc.returncode == 0, (result["failures"], result["violations"], proc.stderr[-3000:])
    assert result["failed_calls"] == 0 and result["violations"] == []
    assert result["calls"] > 40, result  # the clients really ran concurrently for a while
    assert set(result["tools"]) == {"remember", "recall", "forget"}
    assert result["remember_statuses"].get("duplicate", 0) > 0  # the shared-thread race happened
