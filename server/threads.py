"""Threads (title, system prompt, archive, recent-message window) and global prompts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from server import validation as check
from server.clock import Clock, iso, to_millis
from server.config import Settings
from server.errors import InvalidInput, NotFound
from server.redact import redact
from server.models import GlobalPromptInfo, GlobalPromptsResult, ThreadInfo
from server.store import Store, Thread

ROLES = ("user", "assistant", "system", "tool")
MAX_MESSAGES_PER_CALL = 50
PROMPT_ACTIONS = ("list", "set", "activate", "deactivate", "delete")


def thread_info(thread: Thread) -> ThreadInfo:
    return ThreadInfo(
        id=thread.id,
        title=thread.title,
        system_prompt=thread.system_prompt,
        archived=thread.archived,
        created_at=iso(thread.created_at),
        last_active_at=iso(thread.last_active_at),
    )


class Threads:
    def __init__(self, store: Store, settings: Settings, clock: Clock) -> None:
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
            fields["title"] = check.text(title, "title", 500) if title.strip() else None
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
        with self.store.db.write() as conn:
            self.store.touch_thread(conn, thread, to_millis(self.clock()))
            self.store.update_thread(conn, thread, **fields)
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
            turns.append((role, redact(text).text))
        if turns:
            now = to_millis(self.clock())
            with self.store.db.write() as conn:
                self.store.touch_thread(conn, thread, now)
                self.store.add_messages(conn, thread, turns, now, keep=self.settings.window_size)
        return len(turns)

    # -- global prompts -------------------------------------------------------
    def global_prompts(
        self, action: str, name: str | None = None, content: str | None = None, priority: int | None = None
    ) -> GlobalPromptsResult:
        if action not in PROMPT_ACTIONS:
            raise InvalidInput(f"unknown action {action!r}; use one of: {', '.join(PROMPT_ACTIONS)}")
        if priority is not None and (
            isinstance(priority, bool) or not isinstance(priority, int) or not -1000 <= priority <= 1000
        ):
            raise InvalidInput("priority must be a whole number from -1000 to 1000 (higher comes first)")
        message = "Global prompts, highest priority first."
        if action != "list":
            if name is None:
                raise InvalidInput(f"action {action!r} needs the prompt's name")
            name = check.thread_name(name)
            now = to_millis(self.clock())
            with self.store.db.write() as conn:
                if action == "set":
                    if content is None:
                        raise InvalidInput("action 'set' needs content: the prompt's text")
                    text = redact(check.text(content, "content", self.settings.max_content_bytes)).text
                    self.store.put_global_prompt(conn, name, text, priority if priority is not None else 0, now)
                    message = f"Global prompt {name!r} saved and active."
                elif action == "delete":
                    if not self.store.delete_global_prompt(conn, name):
                        raise NotFound(f"No global prompt {name!r}; action 'list' shows them.")
                    message = f"Global prompt {name!r} deleted."
                else:
                    fields: dict[str, int] = {"active": int(action == "activate")}
                    if priority is not None:
                        fields["priority"] = priority
                    if not self.store.set_global_prompt(conn, name, now, **fields):
                        raise NotFound(f"No global prompt {name!r}; action 'list' shows them.")
                    message = f"Global prompt {name!r} {action}d."
        prompts = [
            GlobalPromptInfo(name=p.name, content=p.content, active=p.active, priority=p.priority)
            for p in self.store.global_prompts(active_only=False)
        ]
        return GlobalPromptsResult(prompts=prompts, message=message)
