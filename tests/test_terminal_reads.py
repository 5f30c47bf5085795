"""The terminal's reading commands (`recall`, `list`, `show`) answer while another process holds the
store's write lock, and `recall` without --thread searches every thread, as its help says."""

from __future__ import annotations

import sqlite3
import time

from server.hooks.work import open_light
from server.storage.sqlite.db import BUSY_TIMEOUT_MS


def test_recall_without_a_thread_searches_every_thread(cli, monkeypatch):
    cli("remember", "We deploy billing with Helm", "--thread", "shop")
    cli("remember", "The ledger exports CSV nightly", "--thread", "ledger")
    code, out, _ = cli("recall", "billing helm")
    assert code == 0 and "We deploy billing with Helm" in out
    monkeypatch.setenv("MEMVAULT_THREAD", "ledger")  # a default thread: that one plus global, as documented
    code, out, _ = cli("recall", "billing helm")
    assert code == 0 and "We deploy billing with Helm" not in out


def test_reads_never_wait_for_another_processs_writer(cli, settings):
    """A store the hooks filled (no model recorded yet), locked by a writer: recall, list and show answer
    at once instead of waiting for it (recall used to fail with "the store is busy")."""
    hooks = open_light(settings, create=True)
    hooks.remember("We deploy billing with Helm", thread="shop", source="hook")
    hooks.close()
    writer = sqlite3.connect(settings.db_path, isolation_level=None, timeout=5)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("UPDATE memories SET importance = importance")
    try:
        for args, expected in ((("recall", "billing helm"), "Helm"), (("list",), "Helm"), (("show", "1"), "Helm")):
            started = time.monotonic()
            code, out, err = cli(*args)
            took = time.monotonic() - started
            assert (code, expected in out) == (0, True), err
            assert took < BUSY_TIMEOUT_MS / 1000 / 2, f"{args[0]} waited {took:.1f} s for the writer"
    finally:
        writer.execute("ROLLBACK")
        writer.close()
