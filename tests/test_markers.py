"""`make test` (the quick loop) leaves out PostgreSQL, the browser and what is marked slow; `make test-all` runs all.

The selection is the Makefile's own QUICK expression, collected as `make test` collects it.
"""

from __future__ import annotations

import re
import subprocess
import sys

from spawn import ROOT


def _quick_expression() -> str:
    match = re.search(r"^QUICK \?= (.+)$", (ROOT / "Makefile").read_text(encoding="utf-8"), re.M)
    assert match, "the Makefile names the quick selection as QUICK ?= ..."
    return match.group(1).strip()


def test_the_quick_loop_starts_no_postgres_no_browser_and_nothing_slow() -> None:
    left_out = ["tests/pg/test_harness.py", "tests/pg/test_migrate.py", "tests/test_web_browser.py", "tests/test_crash.py",
                "tests/test_load.py", "tests/test_model.py", "tests/test_http.py"]
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-m", _quick_expression(),
         "tests/contract/test_copy_contract.py", "tests/test_e2e.py", *left_out],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    quick = [line for line in proc.stdout.splitlines() if "::" in line]
    assert not [t for t in quick if t.startswith(tuple(left_out)) or "[postgres" in t]
    # the SQLite half of a test run on both backends stays, and so do the stdio end-to-end tests
    assert any(t.startswith("tests/contract/") and "[sqlite" in t for t in quick)
    assert any(t.startswith("tests/test_e2e.py::") for t in quick)
