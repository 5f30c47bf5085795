"""The scale and profile benchmarks run end to end in their --quick mode (so the scripts never rot)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # benchmark scripts at their --quick size

BENCH = Path(__file__).resolve().parent.parent / "bench"


def test_scale_quick_measures_every_figure(tmp_path):
    out = tmp_path / "scale.json"
    run = subprocess.run([sys.executable, str(BENCH / "scale.py"), "--quick", "--out", str(out)],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    sizes = json.loads(out.read_text())["sizes"]
    assert [s["memories"] for s in sizes] == [500, 2000]
    for s in sizes:
        assert s["recall_at_10_vs_exact"] >= 0.95  # the sidecar scores at least 1,000 rows exactly
        assert 0 < s["vector_search_ms_p50"] and 0 < s["numpy_floor_ms_p50"]
        assert s["disk"]["tables"]["vec_memories_vector_chunks00"] > s["memories"] * 384 * 4  # every vector on disk
        assert s["vector_rows"] >= s["memories"]  # and in the shared sidecar
        # Below the keyword budget every term is ranked: the bounded search is the whole query.
        assert s["keyword_budget"]["top50_kept"] >= 0.98 and s["keyword_budget"]["bounded_ms_p50"] > 0
        # vec0 allocates whole chunks per thread (64 rows x 1,536 B): in these small stores of 200
        # threads that allocation, not the memories, dominates the file.
        chunks = s["threads"] * 64 * 384 * 4
        assert s["disk"]["total_bytes"] < s["memories"] * 4096 + chunks
    assert "recall_stdio_ms" in sizes[1] and "recall_stdio_ms" not in sizes[0]
    assert sizes[1]["recall_stdio_ms"]["one_thread_p50"] > 0 and sizes[1]["stdio_server_memory_mb"]["pss"] > 0


def test_the_top_10_kept_counts_a_memory_tied_with_the_tenth_once_per_tied_place():
    sys.path.insert(0, str(BENCH))
    from scale import _kept

    reference = [(1, -9.0), *[(m, -5.0) for m in range(2, 11)]]  # the tenth place is a tie of nine
    assert _kept(reference, {1: -9.0, 2: -5.0}) == (0.2, 0.2)
    # Other memories of the tie (the reference took the oldest) fill the tied places, up to their number.
    assert _kept(reference, {1: -9.0, **{m: -5.0 for m in range(20, 40)}}) == (0.1, 1.0)
    assert _kept(reference, {40: -5.0, 41: -4.9}) == (0.0, 0.1)  # below the tenth: no place
    # A reference without a tie at its end: only its own members count.
    distinct = [(m, -20.0 + m) for m in range(1, 11)]
    assert _kept(distinct, {1: -19.0, 99: -10.0}) == (0.1, 0.2)  # (99 ties the tenth's rank, -10.0)
    assert _kept(distinct, {1: -19.0, 99: -10.5}) == (0.1, 0.1)


def test_the_keyword_budget_and_impact_lists_run_on_a_kept_store(tmp_path):
    """`scale.py --store` measures the keyword budget on a store an earlier run kept, and
    keyword_impacts.py (budget forced down, so that it binds) checks bm25's sum over terms there."""
    out = tmp_path / "scale.json"
    run = subprocess.run([sys.executable, str(BENCH / "scale.py"), "--quick", "--sizes", "500", "--keep",
                          "--out", str(out)], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    home = Path(json.loads(out.read_text())["sizes"][0]["home"])
    try:
        run = subprocess.run([sys.executable, str(BENCH / "scale.py"), "--store", str(home)],
                             capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stderr[-2000:]
        budget = json.loads(run.stdout)
        assert budget["memories"] == 500
        assert budget["keyword_budget"]["top10_in_top50"] == budget["keyword_budget"]["top10_in_top50_ties"] == 1.0
        impacts = tmp_path / "impacts.json"
        run = subprocess.run([sys.executable, str(BENCH / "keyword_impacts.py"), "--store", str(home),
                              "--budget", "20", "--sizes", "5,20,1000", "--out", str(impacts)],
                             capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stderr[-2000:]  # (it asserts the whole query's bm25 is its terms' sum)
        summary = json.loads(impacts.read_text())["summary"]
        assert summary["queries"] > 0 and summary["scored_size"] == 20
        by_size = summary["by_size"]
        # A longer list never keeps less, and lists as long as the store (500) hold the whole top 10.
        assert by_size["5"]["kept10"] <= by_size["20"]["kept10"] <= by_size["1000"]["kept10"]
        assert by_size["1000"]["certified"] == summary["queries"] and by_size["1000"]["kept10"] == 1.0
        # --stdio-on: recall over MCP stdio from a spawned server on the kept store, and nothing else.
        latency = tmp_path / "stdio.json"
        run = subprocess.run([sys.executable, str(BENCH / "scale.py"), "--stdio-on", str(home), "--embedder", "hash",
                              "--rounds", "1", "--out", str(latency)], capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stderr[-2000:]
        stdio = json.loads(latency.read_text())["recall_stdio_ms"]
        assert 0 < stdio["p50"] <= stdio["p95"] and 0 < stdio["one_thread_p50"] <= stdio["one_thread_p95"]
    finally:
        shutil.rmtree(home, ignore_errors=True)


def test_profile_quick_reports_each_stage(tmp_path):
    out = tmp_path / "profile.json"
    run = subprocess.run([sys.executable, str(BENCH / "profile_recall.py"), "--quick", "--out", str(out)],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    stages = json.loads(out.read_text())["stage_ms_p50"]
    assert {"query embedding", "keyword search", "vector knn", "rows", "neighbours"} <= stages.keys()
    assert "recall" in run.stdout  # the cProfile table was printed
