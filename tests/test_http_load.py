"""bench/http_load.py at CI size: 21 HTTP clients over 3 tenants, mixed calls, zero errors and zero leaks."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from spawn import ROOT, server_env

pytestmark = [pytest.mark.load, pytest.mark.e2e]


def test_twenty_one_http_clients_across_three_tenants_never_fail_or_leak(tmp_path):
    out = tmp_path / "http_load.json"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "http_load.py"), "--quick", "--home", str(tmp_path / "home"),
         "--out", str(out)],
        capture_output=True, text=True, timeout=300, cwd=ROOT, env=server_env(tmp_path / "home"),
    )
    assert out.exists(), proc.stdout[-2000:] + proc.stderr[-3000:]
    result = json.loads(out.read_text())
    assert proc.returncode == 0, (result["error_samples"], result["leak_samples"], proc.stderr[-3000:])
    assert result["errors"] == 0 and result["leaks"] == 0 and result["server_exit_code"] == 0
    assert result["clients"] >= 20 and len(result["calls_by_tenant"]) == 3
    assert all(n > 0 for n in result["calls_by_tenant"].values())  # every tenant really ran
    assert set(result["latency_ms"]) == {"remember", "recall", "thread_prompt", "resource"}
