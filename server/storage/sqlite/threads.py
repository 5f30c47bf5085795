"""The SQLite store's threads role: threads, their recent-message windows and global prompts.

store.py composes the roles into the Store; the SQL is SQLite's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from server.storage import shapes
from server.storage.protocol import (
    GLOBAL,
    NewMessage,
)
from server.storage.sqlite.common import SqliteStoreBase


class SqliteThreads(SqliteStoreBase):
    # -- threads and prompts ------------------------------------------------------
    def touch_thread(self, conn: Any, thread: str, now: int) -> None:
        if thread == GLOBAL:
            return
        conn.execute(
            "INSERT INTO threads(namespace, id, created_at, last_active_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(namespace, id) DO UPDATE SET last_active_at = max(last_active_at, excluded.last_active_at)",
            (self.namespace, thread, now, now),
        )

    get_thread = shapes.get_thread

    list_threads = shapes.list_threads

    thread_ids = shapes.thread_ids

    update_thread = shapes.update_thread

    def add_messages(self, conn: Any, thread: str, messages: Sequence[NewMessage], now: int, keep: int) -> None:
        conn.executemany(
            "INSERT INTO thread_messages(namespace, thread, role, content, created_at) VALUES (?, ?, ?, ?, ?)",
            [(self.namespace, thread, m.role, m.content, now) for m in messages],
        )
        conn.execute(
            "DELETE FROM thread_messages WHERE namespace = ? AND thread = ? AND id NOT IN "
            "(SELECT id FROM thread_messages WHERE namespace = ? AND thread = ? ORDER BY id DESC LIMIT ?)",
            (self.namespace, thread, self.namespace, thread, keep),
        )

    recent_messages = shapes.recent_messages

    global_prompts = shapes.global_prompts

    def put_global_prompt(self, conn: Any, name: str, content: str, priority: int, now: int) -> None:
        conn.execute(
            "INSERT INTO global_prompts(namespace, name, content, active, priority, created_at, updated_at) "
            "VALUES (?, ?, ?, 1, ?, ?, ?) ON CONFLICT(namespace, name) DO UPDATE SET content = excluded.content, "
            "priority = excluded.priority, updated_at = excluded.updated_at",
            (self.namespace, name, content, priority, now, now),
        )

    set_global_prompt = shapes.set_global_prompt

    delete_global_prompt = shapes.delete_global_prompt
