"""Global prompts: standing instructions included in every thread's context, highest priority first."""

from __future__ import annotations

from typing import TYPE_CHECKING

from server import validation as check
from server.clock import Clock, to_millis
from server.config import Settings
from server.errors import InvalidInput, NotFound
from server.guard.redact import redact
from server.storage.protocol import ThreadsAndPrompts

if TYPE_CHECKING:  # pydantic loads when a result is built, not with the service (hooks import it)
    from server.results import GlobalPromptsResult

ACTIONS = ("list", "set", "activate", "deactivate", "delete")


class GlobalPrompts:
    def __init__(self, store: ThreadsAndPrompts, settings: Settings, clock: Clock) -> None:
        self.store = store
        self.settings = settings
        self.clock = clock

    def run(
        self, action: str, name: str | None = None, content: str | None = None, priority: int | None = None
    ) -> GlobalPromptsResult:
        # lazy: pydantic, ~0.2 s that a hook process never needs
        from server.results import GlobalPromptInfo, GlobalPromptsResult

        if action not in ACTIONS:
            raise InvalidInput(f"unknown action {action!r}; use one of: {', '.join(ACTIONS)}")
        if priority is not None and (
            isinstance(priority, bool) or not isinstance(priority, int) or not -1000 <= priority <= 1000
        ):
            raise InvalidInput("priority must be a whole number from -1000 to 1000 (higher comes first)")
        message = "Global prompts, highest priority first."
        if action != "list":
            if name is None:
                raise InvalidInput(f"action {action!r} needs the prompt's name")
            name = check.prompt_name(name)  # refuses a name holding a secret
            now = to_millis(self.clock())
            if action == "set":
                if content is None:
                    raise InvalidInput("action 'set' needs content: the prompt's text")
                text = redact(check.text(content, "content", self.settings.max_content_bytes)).text
                self.store.save_global_prompt(name, text, priority if priority is not None else 0, now)
                message = f"Global prompt {name!r} saved and active."
            elif action == "delete":
                if not self.store.remove_global_prompt(name):
                    raise NotFound(f"No global prompt {name!r}; action 'list' shows them.")
                message = f"Global prompt {name!r} deleted."
            else:
                fields: dict[str, int] = {"active": int(action == "activate")}
                if priority is not None:
                    fields["priority"] = priority
                if not self.store.change_global_prompt(name, now, **fields):
                    raise NotFound(f"No global prompt {name!r}; action 'list' shows them.")
                message = f"Global prompt {name!r} {action}d."
        prompts = [
            GlobalPromptInfo(name=p.name, content=p.content, active=p.active, priority=p.priority)
            for p in self.store.global_prompts(active_only=False)
        ]
        return GlobalPromptsResult(prompts=prompts, message=message)
