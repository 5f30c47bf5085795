"""The cyclic collector during a server's start (cli.main, admin._collect_again, app.stdio.FirstReply).

Off from the CLI's start until a stdio server has answered `initialize`; on for every other
command once parsed; never left off after main returns, whatever happens.
"""

from __future__ import annotations

import gc
import os

import anyio
import pytest

import server.cli as cli
from server.app.stdio import FirstReply
from server.cli import admin


@pytest.fixture(autouse=True)
def _collector_back_on():
    yield
    gc.enable()  # a failing test must not leave the rest of the session without a collector


def test_a_stdio_server_starts_without_the_collector_and_main_turns_it_back_on(monkeypatch):
    seen = {}

    def serve(settings, args, out):  # noqa: ANN001, ANN202
        seen["during"] = gc.isenabled()
        return 0

    monkeypatch.setattr(admin, "serve", serve)
    monkeypatch.setattr(os, "_exit", lambda code: seen.setdefault("exit", code))
    assert gc.isenabled()
    cli.main(["serve"])
    assert seen == {"during": False, "exit": 0}
    assert gc.isenabled()


def test_other_commands_run_with_the_collector(monkeypatch):
    seen = {}

    def info(settings, args, out):  # noqa: ANN001, ANN202
        seen["during"] = gc.isenabled()
        return 0

    monkeypatch.setattr(admin, "_info", info)
    assert cli.main(["info"]) == 0
    assert seen == {"during": True}
    with pytest.raises(SystemExit):
        cli.main(["--version"])
    assert gc.isenabled()


def test_a_caller_without_the_collector_keeps_it_off(monkeypatch):
    monkeypatch.setattr(admin, "_info", lambda settings, args, out: 0)
    gc.disable()
    cli.main(["info"])
    assert not gc.isenabled()


def test_the_first_reply_turns_the_collector_back_on_with_the_start_frozen():
    gc.disable()
    before = gc.get_freeze_count()
    first = FirstReply(then=admin._collect_again)  # noqa: SLF001 - what _serve passes

    async def reply_twice() -> None:
        first.set()
        assert gc.isenabled() and gc.get_freeze_count() > before
        gc.disable()
        first.set()  # only the first reply calls it
        assert not gc.isenabled()

    anyio.run(reply_twice)
    gc.unfreeze()


def test_a_server_that_stops_waiting_for_initialize_collects_again_all_the_same():
    """build_server's background start calls FirstReply.then() after START_AFTER without a reply."""
    calls = []
    first = FirstReply(then=lambda: calls.append(1))

    async def no_reply_then_a_late_one() -> None:
        first.then()
        first.then()
        first.set()

    anyio.run(no_reply_then_a_late_one)
    assert calls == [1]
