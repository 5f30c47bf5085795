"""What a server pays before and right after it answers: the warm-up of the first recall's regexes."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

from server.guard import lazyre
from server.guard.lazyre import LazyRe, compile_all

ROOT = Path(__file__).resolve().parent.parent


def test_compile_all_compiles_every_pattern_made_and_keeps_none_alive():
    pattern = LazyRe(r"\bwarm(?:ed)? up\b")
    assert "search" not in vars(pattern)  # compiled on first use only
    assert compile_all() >= 1
    assert "search" in vars(pattern), "compile_all left a pattern for the first recall to compile"
    assert pattern.search("the server warmed up").group() == "warmed up"
    assert compile_all() == 0, "a second pass compiles nothing"
    dropped = LazyRe("dropped")
    del dropped
    gc.collect()
    assert all(p.pattern != "dropped" for p in lazyre._made), "the registry kept a dropped pattern alive"


def test_the_stemmer_loads_english_alone():
    """Comparing memories needs the English stemmer only: the snowballstemmer package's own import
    loads all 30 languages (3 MB of every server's memory), so it must stay unimported."""
    script = """
import sys
from server.updates.statements import stem
assert [stem(w) for w in ("running", "databases", "shown")] == ["run", "databas", "show"]
loaded = sorted(m for m in sys.modules if "stemmer" in m)
assert "snowballstemmer" not in sys.modules and not any("french" in m for m in loaded), loaded
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=str(ROOT))
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]
