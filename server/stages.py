"""Start-up stage marks on stderr, to see what a server's first recall waits for (MEMVAULT_TRACE_START=1).

Off unless the variable is set (one environment lookup at import; `mark` then returns at once). Each
mark is one stderr line: seconds since the process was spawned (from /proc, 10 ms steps), the
process's CPU seconds and the calling thread's, so that a run of bench/first_recall.py can say which
stage of the path from spawn to the first recall spent what, and on which thread. stdout stays
JSON-RPC's.
"""

from __future__ import annotations

import os
import sys
import threading
import time

ON = bool(os.environ.get("MEMVAULT_TRACE_START"))


def _since_spawn() -> float:
    """Seconds since this process was spawned (Linux; NaN elsewhere)."""
    try:
        with open("/proc/self/stat", encoding="ascii") as f:
            started = int(f.read().rsplit(")", 1)[1].split()[19]) / os.sysconf("SC_CLK_TCK")
        with open("/proc/uptime", encoding="ascii") as f:
            return float(f.read().split()[0]) - started
    except (OSError, ValueError, IndexError):
        return float("nan")


def mark(stage: str) -> None:
    """Say that `stage` is reached, when MEMVAULT_TRACE_START is set."""
    if not ON:
        return
    sys.stderr.write(
        f"memvault stage {stage}: {_since_spawn():.2f} s from spawn, cpu {time.process_time():.2f} s "
        f"(thread {threading.current_thread().name} {time.thread_time():.2f} s)\n"
    )
    sys.stderr.flush()


def threads_cpu() -> None:
    """Each thread's CPU seconds so far, one stderr line (when MEMVAULT_TRACE_START is set)."""
    if not ON:
        return
    names = {t.native_id: t.name for t in threading.enumerate()}
    parts = []
    try:
        for task in sorted(os.listdir("/proc/self/task"), key=int):
            with open(f"/proc/self/task/{task}/stat", encoding="ascii") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            seconds = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
            if seconds:
                parts.append(f"{names.get(int(task), task)} {seconds:.2f}")
    except (OSError, ValueError, IndexError):
        return
    sys.stderr.write("memvault stage threads: " + ", ".join(parts) + "\n")
    sys.stderr.flush()


def first_recall_answered() -> None:
    """The mark a server's first recall ends with, and every thread's CPU up to it."""
    mark("first recall answered")
    threads_cpu()
