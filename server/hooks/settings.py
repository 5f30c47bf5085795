"""The hooks' settings (MEMVAULT_HOOK_* environment variables), read once per hook process.

Kept beside the hooks rather than in server.config: only `memvault hook` reads them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from server.errors import SetupError

#: What MEMVAULT_HOOKS_OFF can name: any event, capture as a whole (its three events), or only the turns.
SWITCHES = ("session-start", "prompt", "pre-compact", "stop", "session-end", "capture", "turns")


@dataclass(frozen=True)
class HookSettings:
    # Estimated tokens injected at session start (the thread's context) and per prompt: together
    # at most 1,000 for a session that asks one question (the target of bench/real_sessions.py).
    # The prompt's share is the larger one it was (700 / 300): on real sessions the brief rarely
    # fills its budget, while the answer to a question is often in a long reply whose excerpt
    # needs the room (held-out-3 20/30 -> 24/30 at 550 / 450, tuning unchanged).
    start_tokens: int = 550
    prompt_tokens: int = 450
    # A prompt's recall injects only memories scoring at least this (keyword strength:
    # the share of the prompt's distinctive terms a memory contains).
    min_score: float = 0.5
    # Parts switched off: any of SWITCHES, or "all".
    off: frozenset[str] = field(default_factory=frozenset)
    # An injecting hook gives up (exit 0, nothing injected) after this many seconds;
    # the hosts wait for it, so a locked or slow store must not hold the prompt.
    deadline_seconds: float = 3.0

    def enabled(self, switch: str) -> bool:
        return "all" not in self.off and switch not in self.off

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> HookSettings:
        env = os.environ if env is None else env
        values: dict[str, object] = {}
        for name, key, kind, low, high in _NUMBERS:
            raw = env.get(key, "").strip()
            if not raw:
                continue
            try:
                value = kind(raw)
            except ValueError:
                raise SetupError(f"{key}={raw!r} is not a number; unset it or fix the value") from None
            if not low <= value <= high:
                raise SetupError(f"{key}={raw}: use a value from {low} to {high}")
            values[name] = value
        off = {w.strip().lower() for w in env.get("MEMVAULT_HOOKS_OFF", "").split(",") if w.strip()}
        unknown = off - set(SWITCHES) - {"all"}
        if unknown:
            raise SetupError(f"MEMVAULT_HOOKS_OFF names {sorted(unknown)}; use any of {', '.join(SWITCHES)} or all")
        return cls(off=frozenset(off), **values)  # type: ignore[arg-type]


_NUMBERS: tuple[tuple[str, str, type, float, float], ...] = (
    ("start_tokens", "MEMVAULT_HOOK_START_TOKENS", int, 0, 20_000),
    ("prompt_tokens", "MEMVAULT_HOOK_PROMPT_TOKENS", int, 0, 20_000),
    ("min_score", "MEMVAULT_HOOK_MIN_SCORE", float, 0.0, 1.0),
    ("deadline_seconds", "MEMVAULT_HOOK_DEADLINE", float, 0.1, 60.0),
)
