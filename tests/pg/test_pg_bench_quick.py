"""The PostgreSQL benchmarks run at CI size, so they never rot; their figures are checked for sanity only."""

from __future__ import annotations

import json
import subprocess
import sys

from spawn import ROOT


def _bench(script: str, out, *args: str) -> dict:
    done = subprocess.run([sys.executable, str(ROOT / "bench" / script), "--quick", "--out", str(out), *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(out.read_text())


def test_pg_store_bench_compares_both_stores(tmp_path):
    result = _bench("pg_store.py", tmp_path / "store.json")
    for backend in ("sqlite", "postgres"):
        assert result[backend]["remember_p50_ms"] > 0 and result[backend]["backfill_per_s"] > 0
    assert set(result["postgres_keyword_rls"]) == {"as_shipped", "leakproof"}


def test_pg_scale_bench_reports_recall_against_exact(tmp_path):
    result = _bench("pg_scale.py", tmp_path / "scale.json", "-n", "3000")
    # All threads at once go through the sidecar's binary-code prefilter, whose candidates are re-scored: not
    # exact (vec0 is, for one thread's scope). 0.99 here with f749396's code as well, on this machine's packages.
    assert result["sqlite"]["recall_at_10"] >= 0.98
    by_ef = {r["ef_search"]: r for r in result["postgres"]}
    assert by_ef[200]["recall_at_10"] >= 0.95


def test_migrate_bench_copies_both_ways(tmp_path):
    result = _bench("migrate.py", tmp_path / "migrate.json")
    for direction in ("sqlite_to_postgres", "postgres_to_sqlite"):
        assert result[direction]["memories"] == result["n"] > 0 and result[direction]["rows_per_second"] > 0
