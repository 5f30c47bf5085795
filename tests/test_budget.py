"""Fitting the start context into a token budget."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # so the tests also run without an installed package
    sys.path.insert(0, str(ROOT))

from server.budget import Part, estimate_tokens, fit, start_context_parts  # noqa: E402

SOUL = (ROOT / "memory-files" / "SOUL.md").read_text(encoding="utf-8")
MEMORY = """\
# MEMORY

## User Facts

- Senior backend developer. Works mostly in Python and Go.

## Project Context

- memvault is an offline MCP memory server. It stores memories in SQLite.
- Tests run with pytest. The CI runs on Linux only.

## Preferences

- Short answers. No emoji.

## Important Decisions

- 2026-01-15: chose SQLite over Postgres. It ships with Python.
"""


def standard(**overrides: object) -> list[Part]:
    values: dict[str, object] = dict(
        soul=SOUL,
        global_prompts=["Answer in English.", "Never guess file paths."],
        thread_prompt="We are refactoring the indexer. Keep changes small.",
        memory=MEMORY,
        memories=[f"Memory {i}: a fact about topic {i}." for i in range(8)],
        messages=[f"user: message number {i} in this thread." for i in range(10)],
    )
    values.update(overrides)
    return start_context_parts(**values)  # type: ignore[arg-type]


def headings(text: str) -> list[str]:
    return re.findall(r"^## (SOUL\.md|Global prompts|Thread prompt|MEMORY\.md|Relevant memories|Recent messages)$", text, re.M)


def full_size(parts: list[Part]) -> int:
    return fit(parts, 10**9).tokens


# --------------------------------------------------------------------------- estimate_tokens


def test_estimate_tokens_examples() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("a") == 1
    assert estimate_tokens("hello world") == 3  # ceil(11 / 4) beats 2 words
    assert estimate_tokens("f(a,b)={x:[1,2]};") == 17  # symbols count one each
    assert estimate_tokens("日本語のテキスト") == 8  # about a token per CJK character
    prose = "The quick brown fox jumps over the lazy dog. " * 20
    assert estimate_tokens(prose) == estimate_tokens(prose)  # deterministic
    assert 0.9 * len(prose.split()) * 4 / 3 < estimate_tokens(prose) < 1.3 * len(prose.split()) * 4 / 3


@given(st.text(max_size=200), st.text(max_size=200))
def test_estimate_tokens_is_sub_additive(a: str, b: str) -> None:
    assert estimate_tokens(a + b) <= estimate_tokens(a) + estimate_tokens(b)
    assert estimate_tokens(a + b) >= max(estimate_tokens(a), estimate_tokens(b)) - 1


# --------------------------------------------------------------------------- fit


def test_everything_fits_in_order_under_headings() -> None:
    parts = standard()
    out = fit(parts, 10_000)
    assert out.complete and out.omitted == ""
    assert headings(out.text) == [p.name for p in parts]
    assert out.tokens == estimate_tokens(out.text) <= 10_000
    assert [r.status for r in out.parts] == ["kept"] * 6
    assert sum(r.tokens for r in out.parts) >= out.tokens
    assert "Memory 7: a fact about topic 7." in out.text and "message number 0" in out.text


def test_never_over_budget_and_order_kept_at_every_budget() -> None:
    parts = standard()
    full = full_size(parts)
    for budget in range(0, full + 5, 7):
        out = fit(parts, budget)
        assert estimate_tokens(out.text) <= budget
        assert sum(r.tokens for r in out.parts) <= budget
        order = [p.name for p in parts]
        shown = headings(out.text)
        assert shown == [name for name in order if name in shown]
        assert out.text or out.omitted


def test_fit_is_deterministic() -> None:
    for budget in (50, 333, 700):
        assert fit(standard(), budget) == fit(standard(), budget)


def test_trimming_order_follows_priority() -> None:
    """As the budget shrinks, parts give way in the documented order, each fully before the next."""
    parts = standard()
    trim_order = ["Relevant memories", "Recent messages", "MEMORY.md", "Thread prompt", "Global prompts", "SOUL.md"]
    first_touched = {}
    for budget in range(full_size(parts), -1, -3):
        reports = {r.name: r for r in fit(parts, budget).parts}
        for name, report in reports.items():
            if report.status != "kept":
                first_touched.setdefault(name, budget)
        # A part is reduced only once every less important part is gone entirely.
        for i, name in enumerate(trim_order):
            if reports[name].status != "kept":
                assert all(reports[lower].status == "left out" for lower in trim_order[:i]), (budget, name)
    assert sorted(first_touched, key=lambda n: -first_touched[n]) == trim_order


def test_memories_drop_from_the_end_and_messages_from_the_start() -> None:
    parts = standard()
    full = full_size(parts)
    out = fit(parts, full - 20)
    memories = next(r for r in out.parts if r.name == "Relevant memories")
    assert memories.status == "trimmed"
    k = len(memories.dropped_items)
    assert memories.dropped_items == tuple(range(8 - k, 8))  # least relevant = last listed
    assert f"[… {k} of 8 memories omitted …]" in out.text
    assert "Memory 0:" in out.text and "Memory 7:" not in out.text
    assert f"{k} of 8 memories from Relevant memories" in out.omitted

    no_memories = standard(memories=[])
    out = fit(no_memories, full_size(no_memories) - 20)
    messages = next(r for r in out.parts if r.name == "Recent messages")
    k = len(messages.dropped_items)
    assert messages.status == "trimmed" and messages.dropped_items == tuple(range(k))  # oldest first
    assert "message number 9" in out.text and "message number 0 " not in out.text
    section = out.text.split("## Recent messages\n\n", 1)[1]
    assert section.startswith(f"[… {k} of 10 messages omitted …]\n")


def test_long_text_is_cut_at_sentence_or_line_boundaries_with_a_marker() -> None:
    parts = standard(memories=[], messages=[])
    budget = full_size(parts) - 60
    out = fit(parts, budget)
    memory = next(r for r in out.parts if r.name == "MEMORY.md")
    assert memory.status == "trimmed" and memory.cut_tokens > 0
    body = out.text.split("## MEMORY.md\n\n", 1)[1].rstrip("\n")
    kept, marker = body.rsplit("\n", 1)
    assert re.fullmatch(rf"\[… {memory.cut_tokens} tokens omitted …\]", marker)
    assert MEMORY.startswith(kept)
    assert kept.endswith((".", "Python and Go.")) or MEMORY[len(kept)] == "\n"
    assert "MEMORY.md" in out.omitted and "section" in out.omitted
    assert "'Important Decisions'" in out.omitted  # a whole section that is gone is named


def test_budget_too_small_for_soul_alone() -> None:
    parts = standard()
    soul_only = fit([parts[0]], 10**6).tokens
    out = fit(parts, soul_only // 2)
    assert headings(out.text) == ["SOUL.md"]
    assert re.search(r"\n\[… \d+ tokens omitted …\]$", out.text.rstrip())
    assert estimate_tokens(out.text) <= soul_only // 2
    assert "too small even for SOUL.md alone" in out.omitted
    assert "Relevant memories (all of it" in out.omitted
    assert not out.complete


def test_tiny_budgets_explain_an_empty_result() -> None:
    for budget in (0, 1, 3):
        out = fit(standard(), budget)
        assert out.text == "" and out.tokens == 0
        assert "nothing fits" in out.omitted and "SOUL.md" in out.omitted
    # A few tokens: a word-boundary cut of the first sentence, still marked.
    out = fit([Part("SOUL.md", "One two three four five six seven eight nine ten eleven twelve.")], 14)
    assert out.text.startswith("## SOUL.md\n\nOne two") and "tokens omitted" in out.text
    assert estimate_tokens(out.text) <= 14


def test_empty_parts_are_reported_not_rendered() -> None:
    out = fit([Part("SOUL.md", "Be kind."), Part("Thread prompt", "   "), Part("Relevant memories", items=[])], 100)
    assert [r.status for r in out.parts] == ["kept", "empty", "empty"]
    assert headings(out.text) == ["SOUL.md"] and out.complete and out.omitted == ""
    nothing = fit([Part("SOUL.md", "")], 100)
    assert nothing.text == "" and "every part is empty" in nothing.omitted


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="budget"):
        fit(standard(), -1)
    with pytest.raises(ValueError, match="drop"):
        Part("x", drop="middle")  # type: ignore[arg-type]


# --------------------------------------------------------------------------- properties

sentences = st.lists(
    st.sampled_from(["Short one.", "A longer sentence with several words in it!", "Why?", "line\n", "code(x) = {y};\n", "ünïcödé 日本."]),
    max_size=12,
).map(" ".join)
parts_strategy = st.lists(
    st.builds(
        Part,
        name=st.sampled_from(["SOUL.md", "Global prompts", "MEMORY.md", "Notes", "A\nB"]),
        text=sentences,
        priority=st.integers(0, 5),
        items=st.lists(st.text(max_size=40), max_size=8),
        drop=st.sampled_from(["last", "first"]),
        noun=st.sampled_from(["items", "memories"]),
    ),
    max_size=6,
)


@settings(max_examples=300, deadline=None)
@given(parts_strategy, st.integers(0, 400))
def test_fit_never_exceeds_the_budget(parts: list[Part], budget: int) -> None:
    out = fit(parts, budget)
    assert estimate_tokens(out.text) <= budget
    assert out.tokens == estimate_tokens(out.text)
    assert sum(r.tokens for r in out.parts) <= budget
    assert out.text or out.omitted  # never empty without a word
    assert out.complete or out.omitted
    assert fit(parts, budget) == out
    # Priority: nothing is trimmed while a less important part still shows anything.
    rank = sorted(range(len(parts)), key=lambda i: (parts[i].priority, -i))
    statuses = [out.parts[i].status for i in rank]
    for pos, status in enumerate(statuses):
        if status in ("trimmed", "left out"):
            assert all(s in ("left out", "empty") for s in statuses[:pos])
