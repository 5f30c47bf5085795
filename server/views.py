"""The Markdown pages the MCP resources show: daily logs, global prompts, threads.

Plain Python over the service (no MCP here): the MCP layer only caps the length and
maps errors. A missing page raises NotFound saying where the existing ones are listed.
"""

from __future__ import annotations

import os

from server.errors import NotFound
from server.files.days import safe_day
from server.service import MemoryService
from server.threads import thread_info

#: How many of a thread's latest memories its page shows.
THREAD_PAGE_MEMORIES = 10


def daily_index(service: MemoryService) -> str:
    """The days that have a log, newest first, as resource links."""
    days = "\n".join(f"- memory://daily/{d.isoformat()}" for d in reversed(service.files.list_days()))
    return "# Daily logs\n\n" + (days or "(none yet)") + "\n"


def daily(service: MemoryService, day: str) -> str:
    """One day's log as written (YYYY-MM-DD)."""
    parsed = safe_day(day)
    if parsed not in service.files.list_days():
        raise NotFound(f"No daily log for {parsed.isoformat()}; memory://daily lists the days that have one.")
    return service.files.read_daily(parsed)


def active_prompts(service: MemoryService) -> str:
    """The active global prompts, highest priority first."""
    prompts = service.store.global_prompts(active_only=True)
    body = "\n\n".join(f"## {p.name} (priority {p.priority})\n\n{p.content}" for p in prompts)
    return "# Global prompts\n\n" + (body or "(none active)") + "\n"


def global_prompt(service: MemoryService, name: str) -> str:
    """One global prompt, active or not."""
    for p in service.store.global_prompts(active_only=False):
        if p.name == name:
            state = "active" if p.active else "inactive"
            return f"# {p.name}\n\n_{state}, priority {p.priority}_\n\n{p.content}\n"
    raise NotFound(f"No global prompt {name!r}; memory://global-prompts lists the active ones.")


def threads_index(service: MemoryService) -> str:
    """The threads not archived, most recently active first, as resource links."""
    rows = service.store.list_threads()
    lines = [f"- memory://threads/{t.id}" + (f" — {t.title}" if t.title else "") for t in rows]
    return "# Threads\n\n" + ("\n".join(lines) or "(none yet)") + "\n"


def thread(service: MemoryService, name: str) -> str:
    """A thread's title, system prompt, latest memories and recent messages."""
    info = thread_info(service.threads.get(name))
    memories = service.recent(info.id, THREAD_PAGE_MEMORIES)
    messages = service.store.recent_messages(info.id, service.settings.window_size)
    parts = [
        f"# {info.title or info.id}",
        f"thread `{info.id}` · created {info.created_at} · last active {info.last_active_at}"
        + (" · archived" if info.archived else ""),
        "## System prompt\n\n" + (info.system_prompt or "(none)"),
        "## Recent memories\n\n"
        + ("\n".join(f"- [{m.kind} · {m.created_at[:10]} · #{m.id}] {m.content}" for m in memories) or "(none)"),
        "## Recent messages\n\n" + ("\n".join(f"- **{m.role}**: {m.content}" for m in messages) or "(none)"),
    ]
    return "\n\n".join(parts) + "\n"


def _stat(path: os.PathLike[str] | str) -> tuple[int, int, int] | None:
    try:
        st = os.lstat(path)  # a link is its own version: its target is never read
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size, st.st_ino


def page_versions(service: MemoryService) -> dict[str, object]:
    """A token per resource URI that changes whenever its page would: compare two snapshots to learn which changed.

    Cheap enough to take every second while a client listens: a stat per memory file,
    a directory listing, and two small queries (global prompts, threads).
    """
    files = service.files
    out: dict[str, object] = {
        "memory://soul": _stat(files.soul_path),
        "memory://memory": _stat(files.memory_path),
    }
    days = files.list_days()
    out["memory://daily"] = tuple(days)
    for day in days:
        out[f"memory://daily/{day.isoformat()}"] = _stat(files.day_path(day))
    prompts = service.store.global_prompts(active_only=False)
    out["memory://global-prompts"] = tuple((p.name, p.content, p.priority) for p in prompts if p.active)
    for p in prompts:
        out[f"memory://global-prompts/{p.name}"] = (p.content, p.active, p.priority, p.updated_at)
    threads = service.store.list_threads(include_archived=True)
    out["memory://threads"] = tuple((t.id, t.title) for t in threads if not t.archived)
    for t in threads:
        # last_active_at moves with every memory and message the thread's page shows.
        out[f"memory://threads/{t.id}"] = (t.title, t.system_prompt, t.archived, t.last_active_at)
    return out
