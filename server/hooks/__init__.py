"""Automatic memory through the hosts' lifecycle hooks (Claude Code, Cursor).

`memvault hook EVENT` is what a host runs: at session start and on each prompt it
injects what memvault already knows (keyword recall, no embedding model, within a
token budget); before compaction, at a stop and at session end it captures what the
transcript added since the last capture (turns and durable statements found without
an LLM), through MemoryService.remember so redaction and duplicate suppression apply.
It fails open: any error means exit 0, nothing injected, one line in hooks.log.

Modules: settings (MEMVAULT_HOOK_* variables), protocol (each host's stdin and
stdout shapes), privacy (<private> spans, #nomem), transcript (reading the JSONL from
a byte offset), extract (turns and durable statements), sessions (the per-session
cursor and what was injected), inject (session-start and prompt context), capture,
run (the fail-open entry point) and install (writing the hosts' configuration).
"""
