"""On PostgreSQL too, a write waits a bounded time for the tenant's writer and then says the store is busy;
reads do not wait at all, and other tenants are not held up."""

from __future__ import annotations

import threading
import time

import pytest

from pgharness import tenant_settings
from server.embedding.embedders import HashEmbedder
from server.errors import StoreBusy
from server.service import MemoryService

pytest.importorskip("psycopg", reason="the test extra installs it")


def test_a_held_tenant_lock_makes_writes_busy_and_leaves_reads_and_other_tenants_alone(settings, pg_url, clock):
    service = MemoryService.open(settings.with_(write_wait_seconds=3.0), embedder=HashEmbedder(), clock=clock)
    other = MemoryService.open(tenant_settings(settings, pg_url), embedder=HashEmbedder(), clock=clock)
    holder = MemoryService.open(settings, embedder=HashEmbedder(), clock=clock)  # another process's pool
    try:
        stored = service.remember("Billing runs on Postgres", thread="b").id
        held, release = threading.Event(), threading.Event()

        def hold() -> None:
            with holder.db.write():  # the tenant's writer lock, as a long write elsewhere holds it
                held.set()
                release.wait(30)

        thread = threading.Thread(target=hold)
        thread.start()
        assert held.wait(10)
        try:
            started = time.monotonic()
            with pytest.raises(StoreBusy, match=r"the store is busy \(another memvault process is writing\); retry"):
                service.remember("waits for the writer")
            assert 3.0 <= time.monotonic() - started < 8
            started = time.monotonic()
            assert service.recall("billing database", thread="b").memories[0].id == stored
            assert time.monotonic() - started < 1.5  # the recall's counters did not wait for the lock
            assert other.remember("another tenant writes at once").status == "stored"
        finally:
            release.set()
            thread.join()
        assert service.remember("after the writer finished").status == "stored"
    finally:
        for s in (service, other, holder):
            s.close()
