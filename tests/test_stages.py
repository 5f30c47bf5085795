"""Start-up stage marks (server/stages.py): silent by default, one stderr line per stage when asked."""

from __future__ import annotations

import re
import threading

from server import stages


def test_marks_say_nothing_unless_asked(monkeypatch, capsys):
    monkeypatch.setattr(stages, "ON", False)
    stages.mark("serve")
    stages.threads_cpu()
    assert capsys.readouterr() == ("", "")


def test_a_mark_says_the_stage_the_time_from_spawn_and_the_cpu_on_stderr_only(monkeypatch, capsys):
    monkeypatch.setattr(stages, "ON", True)
    stages.mark("store open")
    worker = threading.Thread(target=stages.mark, args=("model loaded",), name="memvault-model-load")
    worker.start()
    worker.join()
    stages.threads_cpu()
    out, err = capsys.readouterr()
    assert out == ""  # stdout is JSON-RPC's
    lines = err.splitlines()
    assert re.fullmatch(r"memvault stage store open: \d+\.\d\d s from spawn, cpu \d+\.\d\d s "
                        r"\(thread MainThread \d+\.\d\d s\)", lines[0]), lines[0]
    assert "(thread memvault-model-load " in lines[1]
    assert lines[2].startswith("memvault stage threads: ") and "MainThread" in lines[2]
