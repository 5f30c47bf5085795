"""Argument checks with messages that say what is wrong and what to send instead."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

from server.config import THREAD_PATTERN, THREAD_WORDS, Settings
from server.errors import InvalidInput
from server.models import ALL_THREADS, GLOBAL_THREAD, KINDS
from server.guard.redact import identifier_secrets, marker

#: THREAD_PATTERN / THREAD_WORDS (a thread id, also a global prompt name) live in config: MEMVAULT_THREAD is checked there.
#: recall also takes '*' (every thread).
THREAD_OR_ALL_PATTERN = r"^(\*|[A-Za-z0-9][A-Za-z0-9._@+-]{0,127})$"
_THREAD = re.compile(THREAD_PATTERN)
#: A tenant is a namespace: the same rule as MEMVAULT_NAMESPACE (config.Settings.from_env).
_TENANT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def _show(value: Any, limit: int = 80) -> str:
    """repr for an error message, cut short: a hostile 5 MB argument must not come back in the error."""
    shown = repr(value)
    if len(shown) <= limit:
        return shown
    return shown[:limit] + ("...'" if isinstance(value, str) else "...")


def text(value: Any, what: str, max_bytes: int, setting: str = "MEMVAULT_MAX_CONTENT_BYTES") -> str:
    """A non-empty, valid-UTF-8 string without NUL bytes, stripped, within max_bytes.

    `setting` names the environment variable that raises the limit, for the message.
    """
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be a string, got {type(value).__name__}")
    value = value.strip()
    if not value:
        raise InvalidInput(f"{what} is empty; send the text to store or search for")
    if "\x00" in value:
        raise InvalidInput(f"{what} contains a NUL character; remove it and try again")
    try:
        size = len(value.encode("utf-8"))
    except UnicodeEncodeError:
        raise InvalidInput(
            f"{what} is not valid Unicode (it contains a lone surrogate); send UTF-8 text"
        ) from None
    if size > max_bytes:
        raise InvalidInput(
            f"{what} is {size} bytes, over the limit of {max_bytes}; send less text or raise {setting}"
        )
    return value


def kind(value: Any) -> str:
    if value not in KINDS:
        raise InvalidInput(f"unknown kind {_show(value)}; use one of: {', '.join(KINDS)}")
    return value


def kinds(values: Any) -> tuple[str, ...] | None:
    if values is None:
        return None
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise InvalidInput("kinds must be a list of kind names")
    return tuple(dict.fromkeys(kind(v) for v in values)) or None


def _no_secret_in_key(value: str, what: str, example: str) -> str:
    """A thread id or prompt name is a key the caller sends again and that is shown and logged,
    so one holding a secret is refused whole (rewriting it would split or merge keys). The
    secret is not echoed back."""
    found = identifier_secrets(value)
    if found:
        raise InvalidInput(
            f"{what} cannot hold a secret ({', '.join(found)}); pick a plain name such as {example!r} "
            "and keep credentials out of memory"
        )
    return value


def thread_name(value: Any) -> str:
    # fullmatch: with match, `$` also accepts a trailing newline ("web\n").
    if not isinstance(value, str) or not _THREAD.fullmatch(value):
        raise InvalidInput(f"invalid thread {_show(value)}: use {THREAD_WORDS}, e.g. the repository name")
    return _no_secret_in_key(value, "a thread id", "my-repo")


def prompt_name(value: Any) -> str:
    """A global prompt's name: the same characters as a thread id, reported as a prompt name."""
    if not isinstance(value, str) or not _THREAD.fullmatch(value):
        raise InvalidInput(
            f"invalid global prompt name {_show(value)}: use {THREAD_WORDS}, e.g. 'code-style'"
        )
    return _no_secret_in_key(value, "a global prompt's name", "review-rules")


def secret_free_tag(tag: str, redacted: set[str]) -> str:
    """The tag, or the marker of the secret it holds (the whole tag replaced: a tag is one word),
    its kinds added to ``redacted``."""
    found = identifier_secrets(tag)
    if not found:
        return tag
    redacted.update(found)
    return marker(found[0])


def tags(values: Any, settings: Settings, redacted: set[str] | None = None) -> tuple[str, ...]:
    """Lower-cased, unique tags. With ``redacted`` (a write), a tag holding a secret is replaced
    whole by its marker first -- before lower-casing, which would hide a token's format -- and
    the kinds added."""
    if values is None:
        return ()
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise InvalidInput("tags must be a list of strings, e.g. [\"billing\", \"infra\"]")
    out: dict[str, None] = {}
    for value in values:
        if not isinstance(value, str):
            raise InvalidInput(f"every tag must be a string; got {type(value).__name__} {_show(value)}")
        tag = text(value, "a tag", settings.max_tag_chars * 4, "MEMVAULT_MAX_TAG_CHARS")
        if redacted is not None:
            tag = secret_free_tag(tag, redacted)
        tag = tag.lower()
        if len(tag) > settings.max_tag_chars or any(c.isspace() or not c.isprintable() for c in tag):
            raise InvalidInput(
                f"invalid tag {_show(value)}: tags are single words (no spaces) of at most {settings.max_tag_chars} characters"
            )
        out[tag] = None
        if len(out) > settings.max_tags:  # stop at once on a hostile million-item list
            raise InvalidInput(
                f"more than {settings.max_tags} distinct tags given; at most {settings.max_tags} are allowed "
                "(MEMVAULT_MAX_TAGS)"
            )
    return tuple(out)


def importance(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InvalidInput("importance must be a number between 0 and 1")
    if not 0.0 <= value <= 1.0:
        raise InvalidInput(f"importance {value} is out of range; use a number between 0 (trivial) and 1 (critical)")
    return float(value)


def timestamp(value: Any, what: str) -> datetime | None:
    """ISO-8601 date or date-time; a time without zone is taken as UTC."""
    if value is None:
        return None
    if isinstance(value, datetime):
        parsed = value
    else:
        if not isinstance(value, str) or not value.strip():
            raise InvalidInput(f"{what} must be an ISO-8601 date or time, e.g. 2026-05-01 or 2026-05-01T14:30:00Z")
        raw = value.strip()
        try:
            parsed = datetime.fromisoformat(raw.replace("Z", "+00:00").replace("z", "+00:00"))
        except ValueError:
            raise InvalidInput(
                f"{what} {_show(value)} is not an ISO-8601 date or time; use e.g. 2026-05-01 or 2026-05-01T14:30:00Z"
            ) from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    # The range applies in UTC, the zone it is stored and shown in: 9999-12-31T23:00-05:00
    # is year 10000 in UTC, which Python cannot represent when the memory is read back.
    try:
        utc = parsed.astimezone(timezone.utc)
    except OverflowError:
        utc = None
    if utc is None or not 1970 <= utc.year <= 9999:
        raise InvalidInput(f"{what} {_show(value)} is out of range (1970-9999, UTC)")
    return utc


def k(value: Any, settings: Settings) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= settings.max_k:
        raise InvalidInput(f"k must be a whole number from 1 to {settings.max_k} (MEMVAULT_MAX_K)")
    return value


#: SQLite's largest integer: a bigger id cannot exist, and binding it raises OverflowError.
MAX_ID = 2**63 - 1


def memory_id(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_ID:
        raise InvalidInput("a memory id is a positive whole number, as returned by remember or recall")
    return value


def is_reserved_thread(value: str) -> bool:
    return value in (GLOBAL_THREAD, ALL_THREADS)


def tenant_name(value: str) -> str:
    if not isinstance(value, str) or not _TENANT.match(value):
        raise InvalidInput(f"tenant {value!r}: use 1-64 letters, digits, '.', '_' or '-' (it names a namespace)")
    return value
