"""The throwaway server never outlives its owner: a SIGKILLed test process leaves no postmaster behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from pgharness import _alive

OWNER = r"""
import sys
sys.path.insert(0, sys.argv[1])
from pgharness import ThrowawayPG
pg = ThrowawayPG(base=sys.argv[2])
print(pg.root, pg.pid, flush=True)
import time
time.sleep(600)
"""


def test_a_killed_owner_leaves_no_server_and_no_files(tmp_path):
    base = "/dev/shm" if os.path.isdir("/dev/shm") else str(tmp_path)
    owner = subprocess.Popen([sys.executable, "-c", OWNER, str(Path(__file__).parent.parent), base],
                             stdout=subprocess.PIPE, text=True)
    try:
        root, pid = owner.stdout.readline().split()
        assert _alive(int(pid)) and Path(root).is_dir()
    finally:
        owner.send_signal(signal.SIGKILL)  # no atexit, no finally: only the watchdog can clean up
        owner.wait()
        owner.stdout.close()
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and (_alive(int(pid)) or Path(root).exists()):
        time.sleep(0.05)
    assert not _alive(int(pid)), "postmaster outlived its owner"
    assert not Path(root).exists(), "data directory left behind"
