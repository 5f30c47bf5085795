"""Fitting text into limits: a conversation's start context into a token budget (`fit`), a resource into a character cap (`bounded`).

The server assembles the context from parts in a fixed order — SOUL.md, the active global
prompts (by priority), the thread's system prompt, MEMORY.md, the memories relevant to the
query, the recent-message window — and ``fit`` keeps that order while trimming the least
important parts first until the whole, headings included, fits the budget.

Trimming is deterministic. Parts are reduced one at a time, lowest ``priority`` first
(equal priorities: the later part first); each part is reduced only as far as needed, in
this order, before the next one is touched:

1. drop its items one by one (from the end of the list, or from the start for
   ``drop="first"`` — e.g. the oldest messages), leaving a "[… 3 of 8 memories omitted …]" line;
2. cut its text at a sentence or line boundary, leaving "[… N tokens omitted …]"; only if
   not even the first sentence fits, at a word boundary (still with the marker);
3. leave the part out.

Nothing is ever cut silently: every cut leaves a marker in the text, and ``Assembly``
reports per part what was kept, and a one-line ``omitted`` summary for the user.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from server.frozen import record

# Words (ASCII letters/digits/_ runs) and every other non-space character on its own.
_PIECE_RE = re.compile(r"[A-Za-z0-9_]+|[^\sA-Za-z0-9_]")


def estimate_tokens(text: str) -> int:
    """Estimated tokens of ``text`` for GPT-style BPE tokenizers: max(ceil(chars / 4), pieces).

    ``pieces`` counts each ASCII word and each other non-space character (punctuation,
    symbols, every non-ASCII character) as one. ``chars / 4`` is the usual rule of thumb
    for English prose, where it dominates; ``pieces`` takes over for code and symbol-heavy
    text (each bracket or operator is about one token) and for non-Latin scripts (about a
    token per character). ``ESTIMATOR_ERROR`` says how far off it was when measured.

    Deterministic, and sub-additive — ``estimate_tokens(a + b) <= estimate_tokens(a) +
    estimate_tokens(b)`` — which is what lets ``fit`` budget the parts separately and
    still guarantee the whole.
    """
    if not text:
        return 0
    pieces = len(_PIECE_RE.findall(text))  # a list, counted in C: a third of the time of counting matches one by one
    return max(math.ceil(len(text) / 4), pieces)


# How far off the estimate is. No GPT-family tokenizer is available offline to this
# project, so this was measured against the WordPiece tokenizer of all-MiniLM-L6-v2 (a
# proxy: it also splits off punctuation, but ignores whitespace, which BPE tokenizers
# partly count) on 2,000-character samples: 76 English docstrings from the standard
# library and 255 chunks of its Python source. Ratio estimate / proxy tokens:
ESTIMATOR_ERROR = (
    "English prose: 0.98 overall, median 0.95, 90% of samples within 0.81-1.17. "
    "Python code: 0.97 overall, median 0.96, 90% within 0.82-1.21. "
    "Expect under-counts for long identifiers, numbers and base64, and leave headroom "
    "(say 20%) below a model's hard context limit."
)


@dataclass(frozen=True)
class Part:
    """One section of the context.

    ``text`` comes first, then ``items`` (one per line group, e.g. a memory or a message),
    which can be dropped one at a time. ``priority``: lower is trimmed first. ``drop``:
    ``"last"`` drops from the end of ``items`` (list them most relevant first), ``"first"``
    from the start (list them oldest first). ``noun`` names the items in markers ("memories").
    """

    name: str
    text: str = ""
    priority: int = 0
    items: Sequence[str] = ()
    drop: Literal["last", "first"] = "last"
    noun: str = "items"

    def __post_init__(self) -> None:
        if self.drop not in ("last", "first"):
            raise ValueError(f"Part {self.name!r}: drop must be 'last' or 'first', not {self.drop!r}")


@record
class PartReport:
    """What happened to one part. ``status``: "kept", "trimmed", "left out" or "empty"."""

    name: str
    status: str
    tokens: int  # in the assembled text, heading included; 0 when left out
    full_tokens: int  # what the whole part would have taken
    dropped_items: tuple[int, ...] = ()  # indices into Part.items
    cut_tokens: int = 0  # estimated tokens of text cut away
    note: str = ""  # human-readable; "" when kept whole


@record
class Assembly:
    """The fitted context: ``text`` (≤ ``budget`` tokens) and what was trimmed."""

    text: str
    tokens: int
    budget: int
    parts: tuple[PartReport, ...]
    omitted: str = ""  # "" when everything fit; otherwise "left out: ..." for the user

    @property
    def complete(self) -> bool:
        return all(p.status in ("kept", "empty") for p in self.parts)


# --------------------------------------------------------------------------- rendering


@record
class _State:
    """A reduced part: items kept as a slice, text kept up to ``cut`` (None = all)."""

    start: int
    stop: int
    cut: int | None = None
    cut_tokens: int = 0
    rendered: str = ""
    tokens: int = 0


def _heading(name: str) -> str:
    return "## " + (" ".join(name.split()) or "(unnamed)")


def _render(part: Part, start: int, stop: int, cut: int | None) -> tuple[str, int]:
    """(rendered part, cut tokens). "" when nothing of the part would be shown."""
    chunks = []
    cut_tokens = 0
    if cut is None:
        text = part.text.strip()
    else:
        text = part.text[:cut].strip()
        rest = part.text[cut:].strip()
        cut_tokens = estimate_tokens(rest)
        if rest:
            text = f"{text}\n[… {cut_tokens} tokens omitted …]" if text else ""
    items = [item.strip() for item in part.items[start:stop]]
    if not text and not any(items):
        return "", cut_tokens
    if text:
        chunks.append(text)
    dropped = len(part.items) - (stop - start)
    note = f"[… {dropped} of {len(part.items)} {part.noun} omitted …]" if dropped else ""
    body = [note] if note and part.drop == "first" else []
    body += [item for item in items if item]
    if note and part.drop == "last":
        body.append(note)
    if body:
        chunks.append("\n".join(body))
    return f"{_heading(part.name)}\n\n" + "\n\n".join(chunks) + "\n\n", cut_tokens


def _state(part: Part, start: int, stop: int, cut: int | None = None) -> _State:
    rendered, cut_tokens = _render(part, start, stop, cut)
    return _State(start, stop, cut, cut_tokens, rendered, estimate_tokens(rendered))


def _largest(lo: int, hi: int, cost: Callable[[int], _State], allowance: int) -> _State | None:
    """The state for the largest x in [lo, hi] whose tokens fit ``allowance`` (None if none).

    Cost grows with x almost monotonically (a marker's digits can wobble by one), so a
    binary search finds the spot and a short downward scan makes sure the answer fits.
    """
    if hi < lo:
        return None
    a, b = lo, hi
    while a < b:
        mid = (a + b + 1) // 2
        if cost(mid).tokens <= allowance:
            a = mid
        else:
            b = mid - 1
    for x in range(a, lo - 1, -1):
        state = cost(x)
        if state.tokens <= allowance and state.rendered:
            return state
        if a - x > 8:
            break
    return None


_SENTENCE_END_RE = re.compile(r"[.!?…][\"'”’)\]]*(?=\s)|\n")
_HEADING_LINE_RE = re.compile(r" {0,3}#{1,6}(?:[ \t].*)?")


def _cut_points(text: str) -> list[int]:
    """Positions where the text may be cut: after a sentence or a line, not after a heading
    (a heading with nothing under it would only waste tokens)."""
    points = []
    for m in _SENTENCE_END_RE.finditer(text):
        end = m.end()
        while end > 0 and text[end - 1].isspace():
            end -= 1
        if end == 0:
            continue
        line_start = text.rfind("\n", 0, end) + 1
        if not _HEADING_LINE_RE.fullmatch(text, line_start, end):
            points.append(m.end())
    return points


def _fit_part(part: Part, allowance: int) -> _State | None:
    """The least-reduced state of ``part`` that fits ``allowance`` tokens, or None."""
    if allowance <= 0:
        return None
    n = len(part.items)
    if n:
        if part.drop == "last":
            found = _largest(0, n - 1, lambda k: _state(part, 0, k), allowance)
        else:
            found = _largest(0, n - 1, lambda k: _state(part, n - k, n), allowance)
        if found is not None:
            return found
    stop = start = n  # every item dropped from here on
    if part.drop == "last":
        start = stop = 0
    points = _cut_points(part.text)
    found = _largest(0, len(points) - 1, lambda i: _state(part, start, stop, points[i]), allowance)
    if found is not None:
        return found
    # Not even the first sentence fits: cut it at a word boundary, marker included.
    first = points[0] if points else len(part.text)
    words = [m.start() for m in re.finditer(r"\s+", part.text[:first].strip())]
    offset = len(part.text) - len(part.text.lstrip())
    words = [offset + w for w in words if w > 0]
    return _largest(0, len(words) - 1, lambda i: _state(part, start, stop, words[i]), allowance)


# --------------------------------------------------------------------------- reporting

_SECTION_RE = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$", re.M)


def _cut_note(part: Part, cut: int, cut_tokens: int) -> str:
    kept_sections = _SECTION_RE.findall(part.text[:cut])
    lost_sections = _SECTION_RE.findall(part.text[cut:])
    where = []
    if kept_sections:
        where.append(f"the rest of section '{kept_sections[-1]}'")
    if lost_sections:
        label = "section" if len(lost_sections) == 1 else "sections"
        where.append(f"{label} " + ", ".join(f"'{s}'" for s in lost_sections))
    tail = f" ({'; '.join(where)})" if where else ""
    return f"the end of {part.name}, ~{cut_tokens} tokens{tail}"


def _report(part: Part, full: _State, state: _State | None) -> PartReport:
    if not full.rendered:
        return PartReport(part.name, "empty", 0, 0)
    if state is None:
        return PartReport(part.name, "left out", 0, full.tokens, tuple(range(len(part.items))),
                          note=f"{part.name} (all of it, ~{full.tokens} tokens)")
    if state == full:
        return PartReport(part.name, "kept", full.tokens, full.tokens)
    dropped = tuple(i for i in range(len(part.items)) if not state.start <= i < state.stop)
    notes = []
    if dropped:
        which = "earliest" if part.drop == "first" else "last"
        notes.append(f"{len(dropped)} of {len(part.items)} {part.noun} from {part.name} ({which} in its list)")
    if state.cut is not None:
        notes.append(_cut_note(part, state.cut, state.cut_tokens))
    return PartReport(part.name, "trimmed", state.tokens, full.tokens, dropped, state.cut_tokens, "; ".join(notes))


# --------------------------------------------------------------------------- fitting


def fit(parts: Sequence[Part], budget: int) -> Assembly:
    """Assemble ``parts`` in order, each under a ``## name`` heading, within ``budget`` tokens.

    ``estimate_tokens(result.text) <= budget`` always. If the budget is too small for the
    most important part, that part is cut (or, if not even a few words fit, left out) and
    ``omitted`` says so; an empty ``text`` always comes with an explanation.
    """
    if budget < 0:
        raise ValueError(f"budget must be 0 or more tokens, not {budget}")
    fulls = [_state(p, 0, len(p.items)) for p in parts]
    states: list[_State | None] = list(fulls)
    total = sum(s.tokens for s in fulls)
    for i in sorted(range(len(parts)), key=lambda i: (parts[i].priority, -i)):
        if total <= budget:
            break
        current = states[i]
        if current is None or not current.rendered:
            continue
        states[i] = _fit_part(parts[i], budget - (total - current.tokens))
        total += (states[i].tokens if states[i] else 0) - current.tokens

    # Sub-additivity of estimate_tokens makes the whole cost at most the sum of the parts.
    text = "".join(s.rendered for s in states if s is not None).rstrip() + "\n"
    text = "" if not text.strip() else text
    reports = tuple(_report(p, f, s) for p, f, s in zip(parts, fulls, states))
    return Assembly(text, estimate_tokens(text), budget, reports, _summary(parts, reports, budget, text))


def _summary(parts: Sequence[Part], reports: Sequence[PartReport], budget: int, text: str) -> str:
    notes = [r.note for r in reports if r.status in ("trimmed", "left out")]
    if not notes and text:
        return ""
    lines = []
    shown = [i for i, r in enumerate(reports) if r.status != "empty"]
    if shown:
        top = max(shown, key=lambda i: (parts[i].priority, -i))  # the part trimmed last
        if reports[top].status in ("trimmed", "left out"):
            lines.append(f"the budget of {budget} tokens is too small even for {parts[top].name} alone")
    if not text:
        lines.append("nothing fits: the context is empty" if shown else "nothing to include: every part is empty")
    if notes:
        lines.append("left out: " + "; ".join(notes))
    return ". ".join(lines)


def start_context_parts(
    *,
    soul: str,
    global_prompts: Sequence[str] = (),
    thread_prompt: str = "",
    memory: str = "",
    memories: Sequence[str] = (),
    messages: Sequence[str] = (),
) -> list[Part]:
    """The standard parts, in the fixed order, with the default trimming priorities.

    ``global_prompts`` highest priority first; ``memories`` most relevant first;
    ``messages`` oldest first. Trimmed first to last: relevant memories (least relevant
    first), recent messages (oldest first), MEMORY.md, the thread prompt, the global
    prompts (lowest priority first), SOUL.md.
    """
    return [
        Part("SOUL.md", soul, priority=60),
        Part("Global prompts", priority=50, items=tuple(global_prompts), noun="prompts"),
        Part("Thread prompt", thread_prompt, priority=40),
        Part("MEMORY.md", memory, priority=30),
        Part("Relevant memories", priority=10, items=tuple(memories), noun="memories"),
        Part("Recent messages", priority=20, items=tuple(messages), drop="first", noun="messages"),
    ]


def bounded(text: str, max_chars: int, how_to_see_more: str) -> str:
    """``text`` if it fits in ``max_chars``; otherwise its head, cut at a line end, plus a marker.

    The marker says how many characters and lines were left out, from which line, and
    ``how_to_see_more`` (e.g. "call read_memory with offset=120"). The result never exceeds
    ``max_chars`` unless even the bare marker does not fit, in which case only the marker
    is returned (so the reader still learns that there is something to fetch). A first line
    longer than the limit is cut at a space (or, with none, mid-word), and the marker says so.
    """
    if max_chars < 0:
        raise ValueError("max_chars must be 0 or more")
    if len(text) <= max_chars:
        return text

    def marker(chars: int, lines: int, from_line: int, partial: bool) -> str:
        where = f"from the middle of line {from_line}" if partial else f"from line {from_line}"
        return f"[… {chars} more characters in {lines} more lines not shown, {where}; {how_to_see_more}]"

    total_lines = _count_lines(text)
    # Reserve room for the widest marker this text could need (numbers only get smaller).
    room = max_chars - len(marker(len(text), total_lines, total_lines, True)) - 1
    if room <= 0:
        return marker(len(text), total_lines, 1, False)
    cut = text.rfind("\n", 0, room + 1)
    partial = cut < 0
    if partial:  # not even one whole line fits: cut at a space, else anywhere
        space = max(text.rfind(" ", 0, room + 1), text.rfind("\t", 0, room + 1))
        cut = space if space > 0 else room
    kept, rest = text[:cut], text[cut:]
    if not partial:
        rest = rest[1:]  # the newline we cut at
    from_line = kept.count("\n") + 1 + (0 if partial else 1)
    note = marker(len(rest), _count_lines(rest), from_line, partial)
    return f"{kept}\n{note}" if kept else note


def _count_lines(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)
