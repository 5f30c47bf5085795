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


def _collected(*args: str) -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *args],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return [line for line in proc.stdout.splitlines() if "::" in line]


def test_the_quick_loop_starts_no_postgres_no_browser_and_nothing_slow() -> None:
    paths = ["tests/pg/test_harness.py", "tests/pg/test_migrate.py", "tests/contract/test_copy_contract.py",
             "tests/test_web_browser.py", "tests/test_crash.py", "tests/test_load.py", "tests/test_model.py"]
    everything = _collected(*paths)
    quick = _collected("-m", _quick_expression(), *paths)
    assert set(quick) < set(everything)
    assert not [t for t in quick if t.startswith(("tests/pg/", "tests/test_web_browser.py", "tests/test_crash.py",
                                                  "tests/test_load.py", "tests/test_model.py"))]
    assert not [t for t in quick if "[postgres" in t]
    # the SQLite half of each test run on both backends stays in the quick loop
    assert {t.replace("[postgres", "[sqlite") for t in everything if "[postgres" in t} <= set(quick)
