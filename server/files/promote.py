"""Adding promoted memories to MEMORY.md as text, without touching what a person wrote.

Each promoted entry is one bullet at the end of its section, carrying its source in an
HTML comment (hidden when rendered): ``- text  <!-- memvault:id=12 daily/2026-05-04.md:3 -->``.
The only existing line ever changed is ``Last updated:``; a missing section is added
before it. Pure text in, text out: the curator reads, backs up and writes the file.

A project's memories go to that project's own section, ``## Project: <thread>``; global
ones to the shared sections. `for_thread` is MEMORY.md as one thread's context shows it:
the shared part plus that thread's section, never another project's.
"""

from __future__ import annotations

import re

SECTIONS = ("User Facts", "Project Context", "Preferences", "Important Decisions")
_HEADING = re.compile(r" {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_LAST_UPDATED = re.compile(r"([\W_]*last[ _-]?updated[*_]*[ \t]*:)", re.I)
_MARK = re.compile(r"<!--\s*memvault:id=([0-9]+)\b")


PROJECT_PREFIX = "Project: "
_PROJECT = re.compile(r"project:\s*(\S+)\s*", re.I)


def section_for(kind: str, thread: str) -> str:
    """A project's memories go to its own section; global decisions and preferences have theirs,
    other global knowledge is a user fact."""
    if thread:
        return PROJECT_PREFIX + thread
    if kind == "decision":
        return "Important Decisions"
    if kind == "preference":
        return "Preferences"
    return "User Facts"


def for_thread(text: str, thread: str | None) -> str:
    """MEMORY.md without the sections of other projects (`## Project: <name>`): what the context
    of `thread` (None: no thread, the shared part only) includes."""
    lines = text.split("\n")
    heads = _headings(lines)
    drop: list[tuple[int, int]] = []
    for k, (start, level, title) in enumerate(heads):
        m = _PROJECT.fullmatch(title)
        if m is None or (thread is not None and m.group(1).lower() == thread.lower()):
            continue
        end = next((i for i, lvl, _ in heads[k + 1 :] if lvl <= level), len(lines))
        at = next((i for i, l in enumerate(lines) if _LAST_UPDATED.match(l)), None)
        if at is not None and start < at < end:
            end = at
        drop.append((start, end))
    for start, end in reversed(drop):
        del lines[start:end]
    return "\n".join(lines)


def entry(text: str, memory_id: int, source: str | None, day: str | None = None) -> str:
    one_line = " ".join(text.split()).replace("<!--", "<\\!--").replace("-->", "--\\>")
    if day:
        one_line = f"{day}: {one_line}"
    origin = f"memvault:id={memory_id}" + (f" {source}" if source else "")
    return f"- {one_line}  <!-- {origin} -->"


def promoted_ids(text: str) -> set[int]:
    """Memory ids already carried by entries of the file (whoever moved them around)."""
    return {int(m) for m in _MARK.findall(text)}


def _headings(lines: list[str]) -> list[tuple[int, int, str]]:
    """(line index, level, title) of each heading outside code fences."""
    found, fence = [], None
    for i, line in enumerate(lines):
        if m := _FENCE.match(line):
            mark = m.group(1)[0]
            fence = None if fence == mark else (fence or mark)
            continue
        if fence is None and (h := _HEADING.fullmatch(line.rstrip())):
            found.append((i, len(h.group(1)), h.group(2).strip()))
    return found


def insert(text: str, entries: dict[str, list[str]], today: str) -> str:
    """`text` with `entries` appended to their sections and `Last updated:` set to `today`."""
    lines = text.split("\n")
    last_updated = next((i for i, l in enumerate(lines) if _LAST_UPDATED.match(l)), None)
    # Work bottom-up so earlier indices stay valid.
    plans: list[tuple[int, list[str]]] = []
    missing: list[str] = []
    heads = _headings(lines)
    for section, items in entries.items():
        if not items:
            continue
        at = next((k for k, (_, _, title) in enumerate(heads) if title.lower() == section.lower()), None)
        if at is None:
            missing.append(section)
            continue
        start, level = heads[at][0], heads[at][1]
        end = next((i for i, lvl, _ in heads[at + 1 :] if lvl <= level), len(lines))
        if last_updated is not None and start < last_updated < end:
            end = last_updated
        last = max((i for i in range(start, end) if lines[i].strip()), default=start)
        block = list(items)
        if not lines[last].lstrip().startswith(("-", "*", "+")) or lines[last].startswith("#"):
            block.insert(0, "")
        plans.append((last + 1, block))
    for position, block in sorted(plans, reverse=True):
        lines[position:position] = block
    if missing:
        extra: list[str] = []
        for section in missing:
            extra += ["", f"## {section}", "", *entries[section]]
        at = next((i for i, l in enumerate(lines) if _LAST_UPDATED.match(l)), None)
        if at is None:
            while lines and not lines[-1].strip():
                lines.pop()
            lines += extra + [""]
        else:
            lines[at:at] = extra[1:] + [""]
    at = next((i for i, l in enumerate(lines) if _LAST_UPDATED.match(l)), None)
    if at is None:
        while lines and not lines[-1].strip():
            lines.pop()
        lines += ["", f"Last updated: {today}", ""]
    else:
        lines[at] = f"{_LAST_UPDATED.match(lines[at]).group(1)} {today}"  # type: ignore[union-attr]
    return "\n".join(lines)
