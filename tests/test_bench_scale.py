"""The scale and profile benchmarks run end to end in their --quick mode (so the scripts never rot)."""

from __future__ import annotations

import json
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


def test_profile_quick_reports_each_stage(tmp_path):
    out = tmp_path / "profile.json"
    run = subprocess.run([sys.executable, str(BENCH / "profile_recall.py"), "--quick", "--out", str(out)],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    stages = json.loads(out.read_text())["stage_ms_p50"]
    assert {"query embedding", "keyword (FTS5)", "vector knn", "rows", "neighbours"} <= stages.keys()
    assert "recall" in run.stdout  # the cProfile table was printed
