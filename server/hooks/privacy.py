"""A person's controls over capture: `<private>…</private>` spans and the `#nomem` marker.

Both are applied to the transcript before anything else reads it, so nothing inside a
private span reaches extraction, a turn, the database or a log line.
"""

from __future__ import annotations

import re

# An unclosed <private> hides everything after it: a forgotten closing tag must not leak.
_PRIVATE = re.compile(r"<private>.*?(?:</private>|\Z)", re.IGNORECASE | re.DOTALL)
# What the host wraps around injected context (ours included) and other harness notes:
# never the person's words, and storing our own injections back would loop.
_HARNESS = re.compile(r"<system-reminder>.*?(?:</system-reminder>|\Z)", re.IGNORECASE | re.DOTALL)
# Cursor wraps what the person typed in <user_query>…</user_query>: the words stay, the tags go.
_USER_QUERY = re.compile(r"\s*</?user_query>\s*", re.IGNORECASE)
_NOMEM = re.compile(r"(?<![\w#])#nomem\b", re.IGNORECASE)


def strip_private(text: str) -> str:
    """The text without private spans and harness reminders (each private span leaves nothing),
    and without Cursor's <user_query> wrapper."""
    if "<" not in text:
        return text
    return _USER_QUERY.sub(" ", _HARNESS.sub("", _PRIVATE.sub("", text))).strip()


def wants_no_memory(text: str) -> bool:
    """True when a prompt carries #nomem: capture is off for the rest of that session."""
    return bool(_NOMEM.search(text))
