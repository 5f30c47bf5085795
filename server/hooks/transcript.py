"""Reading a host's JSONL transcript from a byte offset, as a list of plain entries.

Claude Code appends one JSON object per line to `transcript_path`: `{"type": "user" |
"assistant" | "system" | ..., "message": {"role", "content"}, "timestamp", ...}`.
A user message's content is a string (what the person typed) or a list of blocks
(`text`, `tool_result` with `tool_use_id`, `content`, `is_error`); an assistant
message's blocks are `text`, `thinking` and `tool_use` (`id`, `name`, `input`).
Compaction appends a `system` line (subtype `compact_boundary`) and a user line with
`isCompactSummary: true`; harness notes are user lines with `isMeta: true`; subagent
lines carry `isSidechain: true`. Cursor's transcripts use `role` instead of `type`.
The file only grows, so a byte offset is a cursor; a half-written last line is left
for the next read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from server.hooks.privacy import strip_private

#: At most this much of a transcript is read per capture; the rest waits for the next one.
MAX_READ_BYTES = 16 * 1024 * 1024
# A line this long is a pasted file or a huge tool output: skipped, not parsed.
MAX_LINE_BYTES = 4 * 1024 * 1024
# User text the harness writes for slash commands and their output, not the person's words.
_COMMAND_MARKS = ("<command-name>", "<command-message>", "<command-args>", "<local-command-stdout>",
                  "<local-command-stderr>", "[Request interrupted", "Caveat: The messages below")


@dataclass(frozen=True)
class Entry:
    """One thing that happened: kind is "user", "assistant", "tool_call", "tool_result" or "summary"."""

    kind: str
    text: str = ""
    at: datetime | None = None
    tool: str | None = None  # tool_call: the tool's name
    tool_id: str | None = None  # tool_call / tool_result: the id pairing them
    command: str | None = None  # tool_call of a shell tool: the command line
    file_path: str | None = None  # tool_call of an editing tool: the file
    change: str | None = None  # tool_call of an editing tool: the lines it wrote (Edit/MultiEdit: added ones)
    is_error: bool = False  # tool_result


@dataclass(frozen=True)
class Chunk:
    entries: list[Entry]
    offset: int  # where the next read starts
    lines: int  # complete lines consumed


def read_from(path: Path, offset: int, max_bytes: int = MAX_READ_BYTES) -> Chunk:
    """The entries of the complete lines after `offset` (at most `max_bytes` of them)."""
    with open(path, "rb") as handle:
        handle.seek(offset)
        data = handle.read(max_bytes)
    end = data.rfind(b"\n")
    if end < 0:
        # No complete line. A single line longer than max_bytes would stall the cursor: skip it.
        return Chunk([], offset + len(data) if len(data) >= max_bytes else offset, 0)
    complete = data[: end + 1]
    entries: list[Entry] = []
    lines = 0
    for line in complete.split(b"\n")[:-1]:
        lines += 1
        if not line.strip() or len(line) > MAX_LINE_BYTES:
            continue
        try:
            record = json.loads(line)
        except (ValueError, UnicodeDecodeError):
            continue  # a corrupt line is skipped, never fatal
        if isinstance(record, dict):
            entries.extend(parse_record(record))
    return Chunk(entries, offset + len(complete), lines)


def parse_record(record: dict) -> list[Entry]:
    """The entries of one transcript line (none for metadata, subagents and harness notes)."""
    if record.get("isSidechain") or record.get("isMeta"):
        return []
    kind = record.get("type") or record.get("role")
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else record.get("content")
    at = _time(record.get("timestamp"))
    if kind == "user":
        if record.get("isCompactSummary"):
            return [Entry("summary", _clean(_flatten(content)), at)]
        return list(_user(content, at))
    if kind == "assistant":
        return list(_assistant(content, at))
    return []


def _user(content: object, at: datetime | None) -> Iterable[Entry]:
    if isinstance(content, str):
        text = _clean(content, person=True)
        if text and not text.startswith(_COMMAND_MARKS):
            yield Entry("user", text, at)
        return
    if not isinstance(content, list):
        return
    for block in content:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "tool_result":
            yield Entry(
                "tool_result",
                _clean(_flatten(block.get("content"))),
                at,
                tool_id=str(block.get("tool_use_id") or ""),
                is_error=bool(block.get("is_error")),
            )
        elif block.get("type") == "text":
            text = _clean(str(block.get("text") or ""), person=True)
            if text and not text.startswith(_COMMAND_MARKS):
                yield Entry("user", text, at)


def _assistant(content: object, at: datetime | None) -> Iterable[Entry]:
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    if not isinstance(content, list):
        return
    for block in content:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            text = _clean(str(block.get("text") or ""))
            if text:
                yield Entry("assistant", text, at)
        elif block.get("type") == "tool_use":
            raw_input = block.get("input")
            tool_input: dict = raw_input if isinstance(raw_input, dict) else {}
            command = tool_input.get("command")
            path = tool_input.get("file_path") or tool_input.get("path") or tool_input.get("notebook_path")
            change = _change(tool_input) if isinstance(path, str) else None
            yield Entry(
                "tool_call",
                at=at,
                tool=str(block.get("name") or ""),
                tool_id=str(block.get("id") or ""),
                command=_clean(command) if isinstance(command, str) else None,
                file_path=path if isinstance(path, str) else None,
                change=_clean(change) if change else None,
            )


#: Most of an edit kept as its change: enough to find it and say what it did, not the whole file.
MAX_CHANGE_CHARS = 1500
# Lines that name what is around a change or what a file holds: headings, definitions, config keys.
_ANCHOR = re.compile(
    r"^(?:#{1,6}\s|\[[\w.\- ]+\]$|(?:export\s+)?(?:async\s+)?(?:def|class|function|interface|type|struct|enum|impl|fn|func"
    r"|const|let|var|module|package)\b|[\w.\-\"']+\s*[:=]\s*\S)"
)
#: Context lines (unchanged, but naming where the change is) kept before an edit's added lines.
CONTEXT_ANCHORS = 2


def _change(tool_input: dict) -> str:
    """What an editing tool wrote: the lines an edit added (those not in the text it replaced), after
    the heading or definition around them, or what a write wrote; blank lines dropped, at most
    MAX_CHANGE_CHARS -- past that, a write keeps its headings, definitions and config keys first.
    Claude Code's Edit/MultiEdit/Write/NotebookEdit and Cursor's edit_file/StrReplace name them differently."""
    pairs = [tool_input] + [e for e in tool_input.get("edits") or [] if isinstance(e, dict)]
    added: list[str] = []
    for pair in pairs:
        new = _first_text(pair, "new_string", "new_str", "new_source", "code_edit")
        if new is None:
            continue
        before = {line.strip() for line in (_first_text(pair, "old_string", "old_str") or "").splitlines()}
        lines = [line.strip() for line in new.splitlines() if line.strip()]
        fresh = [line for line in lines if line not in before]
        context = [line for line in lines if line in before and _ANCHOR.match(line)][:CONTEXT_ANCHORS]
        added += [line for line in context if line not in added] + fresh
    written = _first_text(tool_input, "content", "contents")
    if not added and written:
        added = [line.strip() for line in written.splitlines() if line.strip()]
    return _bounded(added, MAX_CHANGE_CHARS)


def _bounded(lines: list[str], limit: int) -> str:
    """`lines` joined by "; " within `limit` characters: all when they fit, else the anchors first
    (in their order), then the other lines from the start, shown in the text's order."""
    joined = "; ".join(lines)
    if len(joined) <= limit:
        return joined
    chosen: set[int] = set()
    used = 0
    for i in [i for i, ln in enumerate(lines) if _ANCHOR.match(ln)] + list(range(len(lines))):
        cost = min(len(lines[i]), 200) + 2
        if i in chosen or used + cost > limit:
            continue
        chosen.add(i)
        used += cost
    out, last = [], -1
    for i in sorted(chosen):
        if i != last + 1:
            out.append("…")
        out.append(lines[i] if len(lines[i]) <= 200 else lines[i][:199] + "…")
        last = i
    if last != len(lines) - 1:
        out.append("…")
    return "; ".join(out)[:limit]


def _first_text(values: dict, *keys: str) -> str | None:
    for key in keys:
        if isinstance(values.get(key), str):
            return values[key]
    return None


def _flatten(content: object) -> str:
    """Text of a content that is a string or a list of blocks (images and the like dropped)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [str(b.get("text") or "") for b in content if isinstance(b, dict) and b.get("type") == "text"]
        return "\n".join(p for p in parts if p)
    return ""


def _clean(text: str, person: bool = False) -> str:
    return strip_private(text, person).replace("\x00", "").strip()


def _time(value: object) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
