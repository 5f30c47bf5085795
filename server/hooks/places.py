"""Where things are, as an assistant says it: the rules capture turns into location facts.

Three forms, each taken only from the assistant's words: a sentence saying where something is
("`parse()` is defined in `src/parser.ts`"), a summary's labelled line ("**Output Location**:
`~/exports/`", a part's name over its path), and a file it makes with what the file is for (the
sentence Aider writes before its edit block). A label or sentence without a path says nothing.
"""

from __future__ import annotations

import re

# Where things are, as the assistant found them: "`parse()` is defined in `src/parser.ts`".
LOCATION = re.compile(
    r"\b(?:is|are) (?:defined|implemented|declared|located|configured|registered|handled|stored|kept|set up)\s+(?:in|at|under)\b"
    r"|\blives? (?:in|under)\b|\bentry(?: point)? is\b|\bis the (?:main )?entry(?: point)?\b|\bnow lives?\b",
    re.IGNORECASE,
)
# A file the assistant makes, with what it is for ("To create an index file for the schemas, which exports
# them all for imports elsewhere, here is the block for `schemas/index.ts`"): hosts like Aider say where
# things go only this way, before the edit itself.
MAKES_FILE = re.compile(
    r"\b(?:create|creating|add|adding)\b.{0,60}?\b(?:an? |the )?(?:new )?[\w-]*\s*(?:file|module|script|index|config|helper"
    r"|component)\b.{0,200}?\b(?:for|which|that|so)\b",
    re.IGNORECASE,
)
PATH = re.compile(r"[\w.-]+/[\w./-]+|\b[\w-]+\.(?:ts|tsx|js|jsx|mjs|py|go|rs|rb|java|kt|c|h|cpp|cs|json|ya?ml|toml|vue|svelte|sh|sql)\b")
#: Location facts taken from one assistant message at most (a tour of the code is not a list of facts).
LOCATIONS_PER_MESSAGE = 2
# Where things are, as a summary labels them: "**Session Storage Location**: `~/.claude/projects/`",
# "1. **Python Export Script** (`~/tools/export.py`)", "### 📂 Output Location:" over a line holding only
# the path. Assistants state locations this way far more often than in a sentence.
_LABELLED_PATH = re.compile(
    r"^(?:#{1,6}\s*)?(?:[^\w`*#]+\s*)?\**(?P<label>[A-Za-z][\w /'&.+-]{2,60}?)\**"
    r"(?:\s*:\s*\**\s*|\s*\(\s*)`(?P<path>[^`\s]{3,200})`\)?\s*[.:]?$"
)
_LABEL_ALONE = re.compile(r"^(?:#{1,6}\s*)?(?:[^\w`*#]+\s*)?\**(?P<label>[A-Za-z][\w /'&.+-]{2,60}?)\**\s*:\s*\**$")
_PATH_ALONE = re.compile(r"^`(?P<path>[^`\s]{3,200})`\s*[.:]?$")
# A label that says the path is where something is (a "Run: `x`" or "Example: `y`" line is not).
_PLACE_WORD = re.compile(
    r"\b(?:locations?|paths?|dir(?:ector(?:y|ies))?|folders?|files?|scripts?|config(?:uration)?|output|install(?:ed)?"
    r"|stor(?:ed|age|e)|saved?|written|logs?|root|home|entry(?: point)?|modules?|templates?|repo(?:sitory)?|data(?:base)?|cache)\b",
    re.IGNORECASE,
)
# A label that lists what a step touched ("**Files changed**: `a.py`") reports the moment, not a place.
_CHANGE_WORD = re.compile(r"\b(?:chang|modifi|updat|edit|touch|delet|remov|renam)\w*", re.IGNORECASE)
#: Labelled locations taken from one assistant message at most.
LABELLED_PER_MESSAGE = 3


def _place(path: str) -> bool:
    return bool(PATH.search(path)) or path.startswith(("~", "/", "./"))


def labelled_locations(pieces: list[str]) -> list[str]:
    """"Label: `path`" lines of a reply whose label names a place (or a named part: "**X** (`path`)")."""
    found: list[tuple[bool, int, str]] = []
    for i, piece in enumerate(pieces):
        match = _LABELLED_PATH.match(piece)
        label, path = (match.group("label"), match.group("path")) if match else (None, None)
        if match is None:
            alone = _LABEL_ALONE.match(piece)
            after = _PATH_ALONE.match(pieces[i + 1]) if alone and i + 1 < len(pieces) else None
            if not after:
                continue
            label, path = alone.group("label"), after.group("path")
        named = match is not None and "(" in piece[match.end("label"):match.start("path")]
        place = bool(_PLACE_WORD.search(label))
        if not _place(path) or not (named or place) or len(label.split()) > 6 or _CHANGE_WORD.search(label):
            continue
        found.append((not place, i, f"{label.strip()}: `{path}`."))
    # A label that names a place ("Output Location") says more than a part's name ("Slash Command").
    return [line for _, _, line in sorted(found)[:LABELLED_PER_MESSAGE]]


def located(sentence: str) -> bool:
    """The sentence says where something is, or where a file it makes goes (and names the path)."""
    return bool((LOCATION.search(sentence) or MAKES_FILE.search(sentence)) and PATH.search(sentence)
                and not sentence.endswith("?"))
