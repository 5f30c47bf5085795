"""Threads: what a caller's thread word means, and a thread's title, system prompt, archived
flag and recent-message window."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from server import validation as check
from server.clock import Clock, iso, to_millis
from server.config import Settings
from server.errors import InvalidInput, NotFound
from server.guard.redact import redact
from server.models import ALL_THREADS, GLOBAL_THREAD
from server.storage.protocol import GLOBAL, NewMessage, Thread, ThreadsAndPrompts

if TYPE_CHECKING:
    from server.results import ThreadInfo

ROLES = ("user", "assistant", "system", "tool")
MAX_MESSAGES_PER_CALL = 50


def omitted_thread(default_thread: str | None) -> str:
    """What an omitted thread means in remember, recall, thread_prompt and the thread_prompt prompt
    (one rule): the default thread -- MEMVAULT_THREAD, or the git repository the server started
    in -- when there is one, else 'global'. So a recall without a thread searches the memories a
    remember without a thread stores (plus, in a thread, the global ones)."""
    return default_thread or GLOBAL_THREAD


def thread_scope(thread: str | None, default: str = ALL_THREADS) -> str | None:
    """The stored thread a caller's thread word names: None for every thread ('*'), GLOBAL ('')
    for the global memories ('global'), else the validated thread name.

    `default` stands for an omitted thread: the service passes `omitted_thread(...)`,
    curation and export mean every thread. Each caller decides what a scope it
    cannot use means (remember refuses '*'; recall adds the global memories).
    """
    if thread is None:
        thread = default
    if thread == ALL_THREADS:
        return None
    if thread == GLOBAL_THREAD:
        return GLOBAL
    return check.thread_name(thread)


_QUERY_WORD = re.compile(r"[\w][\w.@+-]*[\w]|[\w]")


def named_threads(query: str, threads: Sequence[str]) -> tuple[str, ...]:
    """The threads a query names ("how do I run the tests in ledgerly?", "shopfront's deploy"),
    in the order given. A thread name is not in the text of its memories, so a search over
    every thread cannot tell one project's test command from another's without it."""
    words = _words(query)
    return tuple(t for t in threads if len(t) >= 3 and t.lower() in words)


def thread_words(query: str) -> list[str]:
    """The query's words that could name a thread (3 characters or more): named_threads' candidates, for
    the store to read only the threads among them (Store.thread_ids's `among`), not every thread id."""
    return sorted(w for w in _words(query) if len(w) >= 3)


def _words(query: str) -> set[str]:
    words = {w.lower().removesuffix("'s") for w in _QUERY_WORD.findall(query.replace("\u2019", "'"))}
    words |= {w[:-2] for w in words if w.endswith("'s")}
    return words


def thread_info(thread: Thread) -> ThreadInfo:
    # lazy: pydantic, ~0.2 s that a hook process never needs
    from server.results import ThreadInfo

    return ThreadInfo(
        id=thread.id,
        title=thread.title,
        system_prompt=thread.system_prompt,
        archived=thread.archived,
        created_at=iso(thread.created_at),
        last_active_at=iso(thread.last_active_at),
    )


class Threads:
    def __init__(self, store: ThreadsAndPrompts, settings: Settings, clock: Clock) -> None:
        self.store = store
        self.settings = settings
        self.clock = clock

    def get(self, thread: str) -> Thread:
        found = self.store.get_thread(check.thread_name(thread))
        if found is None:
            raise NotFound(f"No thread {thread!r}; threads are created by remember or thread_prompt.")
        return found

    def configure(
        self,
        thread: str,
        title: str | None = None,
        system_prompt: str | None = None,
        archived: bool | None = None,
    ) -> Thread:
        """Create the thread if new and set what is given; '' clears a title or system prompt."""
        thread = check.thread_name(thread)
        fields: dict[str, Any] = {}
        if title is not None:
            fields["title"] = redact(check.text(title, "title", 500)).text if title.strip() else None
        if system_prompt is not None:
            fields["system_prompt"] = (
                redact(check.text(system_prompt, "system prompt", self.settings.max_content_bytes)).text
                if system_prompt.strip()
                else None
            )
        if archived is not None:
            if not isinstance(archived, bool):
                raise InvalidInput("archived must be true or false")
            fields["archived"] = int(archived)
        self.store.save_thread(thread, to_millis(self.clock()), **fields)
        return self.get(thread)

    def add_messages(self, thread: str, messages: Sequence[Any]) -> int:
        """Append turns to the thread's recent-message window; only the last N are kept."""
        thread = check.thread_name(thread)
        if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence):
            raise InvalidInput('messages must be a list of {"role": ..., "content": ...} objects')
        if len(messages) > MAX_MESSAGES_PER_CALL:
            raise InvalidInput(f"{len(messages)} messages given; send at most {MAX_MESSAGES_PER_CALL} per call")
        turns = []
        for message in messages:
            role = message.get("role") if isinstance(message, dict) else getattr(message, "role", None)
            content = message.get("content") if isinstance(message, dict) else getattr(message, "content", None)
            if role not in ROLES:
                raise InvalidInput(f"message role {role!r} is not one of: {', '.join(ROLES)}")
            text = check.text(content, "message content", self.settings.max_content_bytes)
            turns.append(NewMessage(role, redact(text).text))
        if turns:
            now = to_millis(self.clock())
            self.store.append_messages(thread, turns, now, keep=self.settings.window_size)
        return len(turns)
