"""The PostgreSQL store's threads role: threads, their recent-message windows and global prompts.

store.py composes the roles into the Store; the SQL is PostgreSQL's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from server import ranking
from server.storage.protocol import (
    GLOBAL,
    NewMessage,
)

# Weights of ts_rank_cd for labels {D, C, B, A}: own text is A, a turn's context D.
_WEIGHTS = "{%s, 0, 0, 1}" % ranking.CONTEXT_COLUMN_WEIGHT
from server.storage import shapes
from server.storage.pg.common import PgStoreBase


class PgThreads(PgStoreBase):
    # -- threads and prompts ------------------------------------------------------
    def touch_thread(self, conn: Any, thread: str, now: int) -> None:
        if thread == GLOBAL:
            return
        conn.execute(
            "INSERT INTO threads(tenant, id, created_at, last_active_at) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT (tenant, id) DO UPDATE SET last_active_at = "
            "greatest(threads.last_active_at, excluded.last_active_at)",
            (self.namespace, thread, now, now),
        )

    get_thread = shapes.get_thread

    list_threads = shapes.list_threads

    thread_ids = shapes.thread_ids

    update_thread = shapes.update_thread

    def add_messages(self, conn: Any, thread: str, messages: Sequence[NewMessage], now: int, keep: int) -> None:
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO thread_messages(tenant, thread, role, content, created_at) VALUES (%s, %s, %s, %s, %s)",
                [(self.namespace, thread, m.role, m.content, now) for m in messages],
            )
        conn.execute(
            "DELETE FROM thread_messages WHERE thread = %s AND id NOT IN "
            "(SELECT id FROM thread_messages WHERE thread = %s ORDER BY id DESC LIMIT %s)",
            (thread, thread, keep),
        )

    recent_messages = shapes.recent_messages

    global_prompts = shapes.global_prompts

    def put_global_prompt(self, conn: Any, name: str, content: str, priority: int, now: int) -> None:
        conn.execute(
            "INSERT INTO global_prompts(tenant, name, content, active, priority, created_at, updated_at) "
            "VALUES (%s, %s, %s, true, %s, %s, %s) ON CONFLICT (tenant, name) DO UPDATE SET "
            "content = excluded.content, priority = excluded.priority, updated_at = excluded.updated_at",
            (self.namespace, name, content, priority, now, now),
        )

    set_global_prompt = shapes.set_global_prompt

    delete_global_prompt = shapes.delete_global_prompt
