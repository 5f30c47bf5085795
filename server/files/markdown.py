"""Markdown units: SOUL.md and MEMORY.md split into searchable pieces, each with a stable key.

``parse_markdown_units`` gives each bullet or paragraph a key (its normalised text plus
its section), so an indexer can add and remove pieces as a person edits the file.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

from server.frozen import record




@record
class Unit:
    """A searchable piece of SOUL.md / MEMORY.md: one bullet (with its continuation lines,
    nested bullets included) or one paragraph or one fenced code block.

    ``key`` depends only on the source, the section and the text with whitespace and the
    list marker normalised, so it survives edits elsewhere in the file and renumbering.
    """

    source: str
    section: str  # heading path, e.g. "Important Decisions" or "Tools > Python"; "" before any
    line: int  # 1-based first line
    end_line: int  # 1-based last line
    text: str
    key: str


_HEADING_RE = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))??(?:[ \t]+#+)?[ \t]*")
_BULLET_RE = re.compile(r"( *)(?:[-*+]|[0-9]{1,9}[.)])(?:[ \t]+.*)?")
_FENCE_RE = re.compile(r" {0,3}(`{3,}|~{3,}).*")
_RULE_RE = re.compile(r" {0,3}([-*_=])(?:[ \t]*\1){2,}[ \t]*")
# "Last updated: ..." in any dress ("- **Last updated:** ..."), but not "Last updated the schema".
_LAST_UPDATED_RE = re.compile(r"[\W_]*last[ _-]?updated[*_]*[ \t]*:", re.I)
_MARKER_RE = re.compile(r"\s*(?:[-*+]|[0-9]{1,9}[.)])(?:\s+|$)")
_PLACEHOLDERS = {"", "tbd", "todo", "none", "none yet", "nothing yet", "nothing here yet", "n a", "na", "empty"}


def _normalise(text: str) -> str:
    text = unicodedata.normalize("NFC", text)
    text = _MARKER_RE.sub("", text, count=1)  # renumbering or "-" -> "*" is not an edit
    return " ".join(text.split())


def _is_placeholder(norm: str) -> bool:
    core = " ".join(re.sub(r"[*_`()\[\]<>.:/…-]+", " ", norm).split()).lower()
    return core in _PLACEHOLDERS


def _strip_comments(line: str, in_comment: bool) -> tuple[str, bool, bool]:
    """(visible text, still inside a comment, whether the line had a comment)."""
    out, pos, had = [], 0, in_comment
    while True:
        if in_comment:
            end = line.find("-->", pos)
            if end < 0:
                return "".join(out), True, True
            pos, in_comment = end + 3, False
        else:
            start = line.find("<!--", pos)
            if start < 0:
                out.append(line[pos:])
                return "".join(out), False, had
            out.append(line[pos:start])
            pos, in_comment, had = start + 4, True, True


def parse_markdown_units(text: str, source: str) -> list[Unit]:
    """Split a Markdown memory file into ``Unit`` s.

    Skipped: headings (they become the ``section``), HTML comments, thematic breaks, the
    ``Last updated:`` line, and blank template placeholders ("-", "...", "TBD", "(none yet)").
    The first heading of the file, if it is a level-1 heading, is the document's title and
    not part of section paths. Setext (underlined) headings are not recognised as headings.
    Identical units in one section get distinct keys by occurrence (``key.2``, ``key.3``).
    """
    units: list[Unit] = []
    seen_keys: dict[str, int] = {}
    headings: list[tuple[int, str]] = []
    title_checked = False
    cur: dict | None = None  # {"kind", "start", "end", "lines", "indent", "blank"}
    fence: tuple[str, int] | None = None  # (fence char, length) while inside a code block
    fence_unit = False  # the open fence is a unit of its own (not inside a bullet)
    in_comment = False

    def flush() -> None:
        nonlocal cur
        if cur is None:
            return
        body = "\n".join(cur["lines"]).strip("\n")
        norm = _normalise(body)
        if not _is_placeholder(norm):
            section = " > ".join(title for _, title in headings)
            base = hashlib.sha256(f"{source}\0{section}\0{norm}".encode()).hexdigest()[:20]
            seen_keys[base] = seen_keys.get(base, 0) + 1
            key = base if seen_keys[base] == 1 else f"{base}.{seen_keys[base]}"
            units.append(Unit(source, section, cur["start"], cur["end"], body, key))
        cur = None

    def start(kind: str, number: int, line: str, indent: int) -> None:
        nonlocal cur
        cur = {"kind": kind, "start": number, "end": number, "lines": [line], "indent": indent, "blank": False}

    def add(number: int, line: str) -> None:
        assert cur is not None
        cur["lines"].append(line)
        cur["end"] = number
        cur["blank"] = False

    for number, raw in enumerate(text.split("\n"), start=1):
        raw = raw.rstrip("\r").rstrip()
        if fence is not None:  # inside a code block everything is literal
            if cur is not None:
                add(number, raw)
            marks = raw.strip()
            # A closing fence: the same character, at least as long, and nothing after it.
            if marks and set(marks) == {fence[0]} and len(marks) >= fence[1] and len(raw) - len(raw.lstrip()) <= 3:
                fence = None
                if fence_unit:
                    flush()
            continue

        line, in_comment, had_comment = _strip_comments(raw, in_comment)
        line = line.rstrip()
        expanded = line.expandtabs(4)
        indent = len(expanded) - len(expanded.lstrip(" "))
        if not line.strip():
            if had_comment:
                continue  # a comment-only line neither ends nor continues anything
            if cur is not None and cur["kind"] == "bullet":
                cur["blank"] = True  # an indented line may still continue the bullet
            else:
                flush()
            continue

        if m := _FENCE_RE.fullmatch(expanded):
            if cur is not None and cur["kind"] == "bullet" and indent > cur["indent"]:
                add(number, line)
                fence_unit = False
            else:
                flush()
                start("fence", number, line, indent)
                fence_unit = True
            fence = (m.group(1)[0], len(m.group(1)))
            continue
        if h := _HEADING_RE.fullmatch(expanded):
            flush()
            level, title = len(h.group(1)), (h.group(2) or "").strip()
            if not title_checked and level == 1:
                title_checked = True  # the document's title: not part of section paths
                continue
            title_checked = True
            while headings and headings[-1][0] >= level:
                headings.pop()
            headings.append((level, title))
            continue
        if _RULE_RE.fullmatch(expanded) or _LAST_UPDATED_RE.match(line):
            flush()
            continue
        continues = cur is not None and cur["kind"] == "bullet" and (indent > cur["indent"] or not cur["blank"])
        if _BULLET_RE.fullmatch(expanded):
            if cur is not None and cur["kind"] == "bullet" and indent > cur["indent"]:
                add(number, line)  # a nested bullet belongs to its parent
            else:
                flush()
                start("bullet", number, line, indent)
        elif continues or (cur is not None and cur["kind"] == "para"):
            add(number, line)
        else:
            flush()
            start("para", number, line, indent)
    flush()
    return units


_COMMENT_RE = re.compile(r"[ \t]*<!--.*?-->", re.S)


def strip_comments(text: str) -> str:
    """``text`` without HTML comments (template guidance is for people, not for the model),
    with the blank lines they leave behind collapsed. Use before putting a file in a prompt."""
    text = _COMMENT_RE.sub("", text)
    text = re.sub(r"\n[ \t]+(?=\n)", "\n", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n") + ("\n" if text.strip() else "")
