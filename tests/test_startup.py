"""What a server pays before and right after it answers: the warm-up of the first recall's regexes."""

from __future__ import annotations

import gc

from server.guard import lazyre
from server.guard.lazyre import LazyRe, compile_all


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
