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
_QUERY_BLOCK = re.compile(r"<user_query>(.*?)(?:</user_query>|\Z)", re.IGNORECASE | re.DOTALL)
# Blocks a host puts into the user's message (Cursor's <attached_files>, <system_reminder>,
# <open_and_recently_viewed_files>, <user_info> …): tags with a snake_case name, which people do
# not type around their own words (kebab-case ones are HTML custom elements a person may paste).
_HOST_BLOCK = re.compile(r"<([a-z]+(?:_[a-z]+)+)(?:\s[^>]*)?>.*?(?:</\1>|\Z)", re.DOTALL)


def strip_private(text: str, person: bool = False) -> str:
    """The text without private spans and harness reminders (each private span leaves nothing),
    and without Cursor's <user_query> wrapper. `person` (a user message or a prompt): only what
    the person typed -- inside <user_query> when the host wrapped it, and never the blocks a host
    inserts (their instructions are the host's template, not the person's preferences)."""
    if "<" not in text:
        return text
    text = _HARNESS.sub("", _PRIVATE.sub("", text))
    if person:
        queries = [q.strip() for q in _QUERY_BLOCK.findall(text) if q.strip()]
        text = "\n\n".join(queries) if queries else _HOST_BLOCK.sub("", text)
    return _USER_QUERY.sub(" ", text).strip()


def wants_no_memory(text: str) -> bool:
    """True when a prompt carries #nomem: capture is off for the rest of that session."""
    return bool(_NOMEM.search(text))
