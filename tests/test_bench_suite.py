"""The benchmark suite at CI size: every script runs end to end and writes its results.

The figures themselves are not asserted (they are timings on a shared machine); what
is asserted is that each script still runs against the current code and produces the
result file the README's figures come from. Full-size runs: `python bench/run.py`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from spawn import ROOT

pytestmark = [pytest.mark.e2e, pytest.mark.model, pytest.mark.timeout(1200)]  # as long as the run it waits for


def test_quick_suite_runs_every_benchmark(tmp_path):
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from run import SUITE
    finally:
        sys.path.pop(0)
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "run.py"), "--quick"],
        capture_output=True, text=True, timeout=1200, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT), "MEMVAULT_HOME": str(tmp_path / "home")},
    )
    summary = json.loads((ROOT / "bench" / "results" / "summary.quick.json").read_text())
    assert [r["name"] for r in summary["runs"]] == [b.name for b in SUITE]
    failed = [r for r in summary["runs"] if r["exit_code"] != 0 or not r["wrote_results"]]
    # Each failed run carries its own output's tail (the runner's stdout ends with later benchmarks).
    assert not failed, "\n\n".join(f"{r['name']} exited {r['exit_code']}:\n{r.get('output_tail', '')}" for r in failed)
    assert proc.returncode == 0
    for run in summary["runs"]:
        result = json.loads((ROOT / run["results"]).read_text())
        assert result, run  # a non-empty JSON object per benchmark
