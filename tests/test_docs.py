"""The README stays short enough for a newcomer to read, and no link in it or in docs/ leads nowhere.

A relative link must name a file (or folder) that exists; a `#anchor` must name a heading of the
page it points into, spelled as GitHub spells heading anchors.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README_MAX_LINES = 400
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)


def _prose(text: str) -> str:
    """The page without its fenced code blocks (a `[x](y)` inside code is not a link)."""
    return FENCE.sub("", text)


def anchors(text: str) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens."""
    found: set[str] = set()
    for heading in re.findall(r"^#{1,6}\s+(.*?)\s*#*\s*$", _prose(text), re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        candidate, n = slug, 0
        while candidate in found:
            n += 1
            candidate = f"{slug}-{n}"
        found.add(candidate)
    return found


def broken_links(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    broken = []
    for target in LINK.findall(_prose(text)):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto: ...: not ours to check
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{target}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file.read_text(encoding="utf-8")):
            broken.append(f"{target}: no heading with that anchor in {file.name}")
    return broken


def test_the_readme_stays_short():
    """The README is what a newcomer reads first: detail belongs in docs/."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines; move detail into docs/"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(page):
    """Each relative link in README.md and docs/*.md names an existing file, and an existing heading."""
    assert broken_links(page) == []


def test_the_link_check_can_fail(tmp_path):
    """A link to a missing file, and one to a missing heading, are both reported."""
    (tmp_path / "there.md").write_text("# Title\n\n## A heading: with `code`, punctuation\n")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](there.md#a-heading-with-code-punctuation) [gone](missing.md) [no anchor](there.md#nowhere)\n"
        "```\n[inside code](ignored.md)\n```\n[web](https://example.com/x)\n"
    )
    assert broken_links(page) == ["missing.md: no such file", "there.md#nowhere: no heading with that anchor in there.md"]
