"""Injected faults against a real memvault over stdio: are calls answered, clearly, and is anything lost?

Each fault is made from outside, as a user's machine makes it (bench/injectors.py), against
`python -m server` spoken to by the SDK's stdio client, as a host does:

  write-lock   another process holds the store's write lock; meanwhile recalls, resource
               reads and thread_prompt run, and remembers are sent. Reads must keep their
               normal latency (p50/p95 with and without the lock, same run); each remember
               must end with "the store is busy (another memvault process is writing); retry".
  disk-full    the data directory on a small tmpfs filled by remembers (root on Linux only;
               skipped, and said so, elsewhere): "disk full: nothing was stored", reads answer.
  links        MEMORY.md, SOUL.md and today's log are links to a file outside the data
               directory: refused with a message, never read, indexed or appended to.
  huge-files   a 20 MB MEMORY.md and a 300 MB daily log (2 MB / 30 MB with --quick): recall
               and thread_prompt answer, only the capped part is indexed, and remember costs
               what it costs on an empty log (each append reads nothing).
  malformed    lines no JSON-RPC parser takes (not JSON, lone surrogates, 5,000-deep nesting,
               a batch): each answered with an error and the request's id.
  start-up     a bad setting, a damaged database, a file where files/ belongs: one line,
               the documented exit status, no traceback.

For every fault: calls made, answered, answered with the expected clear error, answered with
an unclear error (any other error text), and data lost — acknowledged memories missing after
restarting the server on the healed store, or bytes changed in a file memvault must not touch.
Data lost must be 0.

    python bench/faults.py            # hold the lock 30 s, 20 MB / 300 MB files
    python bench/faults.py --quick    # 6 s, 2 MB / 30 MB (CI)

Prints a table, writes bench/results/faults.json, exits 1 if data was lost or a call went
unanswered or unclear.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import anyio

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from injectors import can_mount, fill, link_memory_files, small_disk, write_lock_held  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

BUSY = "the store is busy (another memvault process is writing); retry"
FULL = "disk full: nothing was stored"
LINK = "symbolic link"
WRITE_WAIT = 2.0  # MEMVAULT_WRITE_WAIT for the servers here: a busy remember answers after this


def server_params(home: Path, **extra: str) -> StdioServerParameters:
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "PYTHONPATH": path, "MEMVAULT_HOME": str(home), "MEMVAULT_EMBEDDER": "hash",
           "MEMVAULT_LOG_LEVEL": "WARNING", "MEMVAULT_WRITE_WAIT": str(WRITE_WAIT), **extra}
    return StdioServerParameters(command=sys.executable, args=["-m", "server"], env=env, cwd=str(ROOT))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def ms(values: list[float]) -> dict[str, float]:
    return {"p50_ms": round(statistics.median(values) * 1000, 1), "p95_ms": round(percentile(values, 0.95) * 1000, 1),
            "max_ms": round(max(values) * 1000, 1), "calls": len(values)} if values else {"calls": 0}


class Tally:
    """Calls of one fault: answered or not, and whether an error said what it should."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.calls = self.answered = self.clear = self.ok = 0
        self.unclear: list[str] = []
        self.data_lost = 0
        self.notes: dict[str, Any] = {}

    async def call(self, client: Client, tool: str, args: dict, expect: str | None = None, timeout: float = 60) -> Any:
        """Call a tool; an error counts as clear when its text contains `expect`."""
        self.calls += 1
        try:
            with anyio.fail_after(timeout):
                result = await client.call_tool(tool, args)
        except Exception as exc:  # noqa: BLE001 - a protocol error is an answer; a timeout is not
            return self._error(f"{tool}: {type(exc).__name__}: {exc}", expect, answered="Timeout" not in type(exc).__name__)
        self.answered += 1
        if result.is_error:
            return self._error(f"{tool}: {result.content[0].text}", expect, answered=True, counted=True)
        self.ok += 1
        return result.structured_content

    async def read(self, client: Client, uri: str, expect: str | None = None) -> str | None:
        self.calls += 1
        try:
            with anyio.fail_after(60):
                result = await client.read_resource(uri)
        except TimeoutError:
            return self._error(f"read {uri}: timeout", expect, answered=False)
        except Exception as exc:  # noqa: BLE001 - an MCP error is an answer
            self.answered += 1
            return self._error(f"read {uri}: {exc}", expect, answered=True, counted=True)
        self.answered += 1
        self.ok += 1
        return result.contents[0].text

    def _error(self, text: str, expect: str | None, answered: bool, counted: bool = False) -> None:
        if answered and not counted:
            self.answered += 1
        if answered and expect is not None and expect in text:
            self.clear += 1
        else:
            self.unclear.append(text[:300])
        return None

    def as_dict(self) -> dict[str, Any]:
        return {"fault": self.name, "calls": self.calls, "answered": self.answered, "succeeded": self.ok,
                "clear_errors": self.clear, "unclear_errors": len(self.unclear), "data_lost": self.data_lost,
                **self.notes, "unclear": self.unclear[:10]}


async def stored_ids(home: Path, **extra: str) -> set[int]:
    """The live memory ids a freshly started server sees (the store after healing)."""
    from server.config import Settings
    from server.storage.opener import open_location

    db, store = open_location(str(Settings(home=home).db_path), "default")
    try:
        with db.read() as conn:
            return {r.id for r in store.rows(conn)}
    finally:
        db.close()


# ----------------------------------------------------------------------------- faults


async def write_lock(args: argparse.Namespace) -> Tally:
    tally = Tally("write-lock")
    home = Path(tempfile.mkdtemp(prefix="memvault-faults-lock-"))
    acked: set[int] = set()
    async with Client(server_params(home), read_timeout_seconds=120) as client:
        for i in range(args.memories):
            out = await tally.call(client, "remember", {"content": f"deploy note {i}: service-{i % 17} ships via blue-green",
                                                        "thread": "ops"})
            if out:
                acked.add(out["id"])
        free: list[float] = []
        for _ in range(args.reads):
            started = time.perf_counter()
            await tally.call(client, "recall", {"query": "how does service-3 ship", "thread": "ops"})
            free.append(time.perf_counter() - started)
        locked: list[float] = []
        busy: list[float] = []
        resource: list[float] = []
        with write_lock_held(home / "memvault.db"):
            held_at = time.monotonic()
            # A person edits MEMORY.md meanwhile: the recall must answer from the index as it was.
            (home / "files" / "MEMORY.md").write_text("# MEMORY\n\n- The staging cluster is called kestrel\n")

            async def writer() -> None:
                while time.monotonic() - held_at < args.hold - WRITE_WAIT:
                    started = time.perf_counter()
                    out = await tally.call(client, "remember", {"content": f"written under the lock {time.time_ns()}"},
                                           expect=BUSY)
                    busy.append(time.perf_counter() - started)
                    if out:
                        acked.add(out["id"])

            async with anyio.create_task_group() as tg:
                tg.start_soon(writer)
                while time.monotonic() - held_at < args.hold:
                    started = time.perf_counter()
                    await tally.call(client, "recall", {"query": "how does service-3 ship", "thread": "ops"})
                    locked.append(time.perf_counter() - started)
                    started = time.perf_counter()
                    await tally.read(client, "memory://threads/ops")
                    await tally.call(client, "thread_prompt", {"thread": "ops", "query": "deploys"})
                    resource.append(time.perf_counter() - started)
        after = await tally.call(client, "recall", {"query": "staging cluster kestrel"})
        tally.notes["memory_md_indexed_after_the_lock"] = bool(after and after["memories"]
                                                               and "kestrel" in after["memories"][0]["content"])
    tally.data_lost = len(acked - await stored_ids(home))
    tally.notes |= {
        "hold_seconds": args.hold, "write_wait_seconds": WRITE_WAIT, "memories": args.memories,
        "recall_without_lock": ms(free), "recall_while_locked": ms(locked),
        "resource_and_thread_prompt_while_locked": ms(resource), "remember_while_locked": ms(busy),
        "recall_p50_ratio_locked_vs_free": round(statistics.median(locked) / statistics.median(free), 2),
    }
    return tally


async def disk_full(args: argparse.Namespace) -> Tally:
    tally = Tally("disk-full")
    if not can_mount():
        tally.notes["skipped"] = "needs root on Linux to mount a small tmpfs (a real full disk)"
        return tally
    home = Path(tempfile.mkdtemp(prefix="memvault-faults-full-")) / "home"
    acked: set[int] = set()
    with small_disk(home, args.disk):
        async with Client(server_params(home), read_timeout_seconds=120) as client:
            first = await tally.call(client, "remember", {"content": "The API gateway is Envoy"})
            acked.add(first["id"])
            filler = fill(home, leave=256 * 1024)  # the disk is nearly full; remembers finish it
            failures = 0
            for i in range(2000):
                out = await tally.call(client, "remember", {"content": f"note {i} " + "lorem ipsum " * 400}, expect=FULL)
                if out:
                    acked.add(out["id"])
                else:
                    failures += 1
                    if failures >= 5:
                        break
            found = await tally.call(client, "recall", {"query": "API gateway"})
            tally.notes["recall_answers_while_full"] = bool(found and found["memories"])
            await tally.read(client, "memory://memory")
            filler.unlink()  # space again: the same server stores again
            again = await tally.call(client, "remember", {"content": "After freeing space it works again"})
            if again:
                acked.add(again["id"])
        tally.data_lost = len(acked - await stored_ids(home))
        tally.notes["disk"] = args.disk
    return tally


async def links(args: argparse.Namespace) -> Tally:
    tally = Tally("links")
    home = Path(tempfile.mkdtemp(prefix="memvault-faults-links-"))
    outside = home.parent / f"{home.name}-outside.txt"
    outside.write_text("root:x:0:0:root:/root:/bin/bash\n- zebracorn secret bullet\n")
    before = outside.read_bytes()
    async with Client(server_params(home), read_timeout_seconds=120) as client:
        await tally.call(client, "remember", {"content": "first"})  # the data directory exists now
        link_memory_files(home / "files", outside, datetime.now().astimezone().date().isoformat())
        await tally.read(client, "memory://memory", expect=LINK)
        await tally.read(client, "memory://soul", expect=LINK)
        found = await tally.call(client, "recall", {"query": "zebracorn secret bullet"})
        leaked = bool(found and any("zebracorn" in m["content"] for m in found["memories"]))
        tally.notes["recall_note_says_why"] = bool(found and LINK in (found.get("note") or ""))
        context = await tally.call(client, "thread_prompt", {"query": "zebracorn"})
        leaked |= bool(context and ("zebracorn" in context["text"] or "root:x" in context["text"]))
        stored = await tally.call(client, "remember", {"content": "The release train leaves on Tuesdays"})
        tally.notes["remember_says_the_log_line_was_refused"] = bool(stored and "could not be written" in stored["message"])
    tally.notes["outside_file_leaked"] = leaked
    tally.data_lost = int(outside.read_bytes() != before) + int(leaked)
    return tally


async def huge_files(args: argparse.Namespace) -> Tally:
    tally = Tally("huge-files")
    home = Path(tempfile.mkdtemp(prefix="memvault-faults-huge-"))
    files = home / "files"
    (files / "daily").mkdir(parents=True)
    line = "- 09:00 a note a person typed about the quarterly zebra planning and its budget\n"
    memory = "# MEMORY\n\n" + "".join(f"- fact {i}: the zebra-{i} service is owned by team {i % 50}\n"
                                      for i in range(args.memory_mb * 1024 * 1024 // 56))
    (files / "MEMORY.md").write_text(memory)
    today = files / "daily" / f"{datetime.now().astimezone().date().isoformat()}.md"
    with open(today, "w") as f:
        chunk = line * 10_000
        for _ in range(args.daily_mb * 1024 * 1024 // len(chunk)):
            f.write(chunk)
    async with Client(server_params(home), read_timeout_seconds=300) as client:
        started = time.perf_counter()
        first = await tally.call(client, "recall", {"query": "who owns the zebra-3 service"}, timeout=300)
        first_recall = time.perf_counter() - started
        tally.notes["recall_says_files_are_capped"] = bool(first and "MEMVAULT_MAX_FILE_BYTES" in (first.get("note") or ""))
        started = time.perf_counter()
        await tally.call(client, "thread_prompt", {"query": "zebra planning"}, timeout=300)
        prompt = time.perf_counter() - started
        remember_huge = []
        for i in range(args.reads):
            started = time.perf_counter()
            await tally.call(client, "remember", {"content": f"appended to a huge log {i}"})
            remember_huge.append(time.perf_counter() - started)
        today.rename(today.with_suffix(".bak"))  # the same server, today's log now empty
        remember_empty = []
        for i in range(args.reads):
            started = time.perf_counter()
            await tally.call(client, "remember", {"content": f"appended to a fresh log {i}"})
            remember_empty.append(time.perf_counter() - started)
    pending = await _count(home)
    tally.notes |= {
        "memory_md_mb": round(len(memory) / 2**20, 1), "daily_log_mb": round(today.with_suffix(".bak").stat().st_size / 2**20, 1),
        "first_recall_s": round(first_recall, 2), "thread_prompt_s": round(prompt, 2),
        "memories_indexed_from_files": pending,
        "remember_on_huge_log": ms(remember_huge), "remember_on_empty_log": ms(remember_empty),
        "remember_p50_ratio_huge_vs_empty": round(statistics.median(remember_huge) / statistics.median(remember_empty), 2),
    }
    return tally


async def _count(home: Path) -> int:
    from server.config import Settings
    from server.storage.opener import open_location

    db, store = open_location(str(Settings(home=home).db_path), "default")
    try:
        return store.count()["live"]
    finally:
        db.close()


MALFORMED = [
    b"hello\n",
    b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"remember","arguments":{"content":"\\ud800"}}}\n',
    b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"recall","arguments":{"query":"x","d":'
    + b"[" * 5000 + b"]" * 5000 + b"}}}\n",
    b'[{"jsonrpc":"2.0","id":3,"method":"ping"}]\n',
    b'{"jsonrpc":"2.0","id":4,"method":"tools/li\n',
    b'{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"memory://threads/\\udfff"}}\n',
]


def malformed(args: argparse.Namespace) -> Tally:
    tally = Tally("malformed")
    home = Path(tempfile.mkdtemp(prefix="memvault-faults-raw-"))
    init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "faults", "version": "1"}}
    lines = [json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init}).encode() + b"\n",
             b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n', *MALFORMED]
    params = server_params(home)
    proc = subprocess.run([params.command, *params.args], input=b"".join(lines), capture_output=True, env=params.env,
                          cwd=params.cwd, timeout=120)
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    errors = [a for a in answers if "error" in a]
    tally.calls = len(MALFORMED)
    tally.answered = len(errors)
    tally.clear = sum(1 for a in errors if a["error"]["code"] in (-32700, -32600))
    tally.unclear = [json.dumps(a)[:200] for a in errors if a["error"]["code"] not in (-32700, -32600)]
    tally.notes["ids_answered"] = [a.get("id") for a in errors]
    return tally


def start_up(args: argparse.Namespace) -> Tally:
    tally = Tally("start-up")
    cases = []
    base = Path(tempfile.mkdtemp(prefix="memvault-faults-start-"))
    damaged = base / "damaged"
    damaged.mkdir()
    (damaged / "memvault.db").write_bytes(b"SQLite format 3\x00" + os.urandom(8192))
    a_file = base / "file"
    a_file.mkdir()
    (a_file / "files").write_text("not a folder")
    cases = [("bad setting", base / "setting", {"MEMVAULT_THREAD": "my project"}, 2, "MEMVAULT_THREAD"),
             ("damaged database", damaged, {}, 5, "is damaged"),
             ("files/ is a file", a_file, {}, 4, "is a file, not a folder")]
    statuses = {}
    for name, home, env, status, words in cases:
        params = server_params(home, **env)
        proc = subprocess.run([params.command, *params.args], input=b"", capture_output=True, env=params.env,
                              cwd=params.cwd, timeout=120)
        err = proc.stderr.decode(errors="replace")
        lines = [line for line in err.splitlines() if line.startswith("memvault: ")]
        tally.calls += 1
        tally.answered += 1
        good = proc.returncode == status and len(lines) == 1 and words in lines[0] and "Traceback" not in err
        tally.clear += good
        if not good:
            tally.unclear.append(f"{name}: exit {proc.returncode}: {err[-300:]}")
        statuses[name] = proc.returncode
    tally.notes["exit_statuses"] = statuses
    return tally


# ----------------------------------------------------------------------------- main


async def run_all(args: argparse.Namespace) -> list[Tally]:
    chosen = args.faults or ["write-lock", "disk-full", "links", "huge-files", "malformed", "start-up"]
    out = []
    for name in chosen:
        print(f"... {name}", file=sys.stderr, flush=True)
        if name == "write-lock":
            out.append(await write_lock(args))
        elif name == "disk-full":
            out.append(await disk_full(args))
        elif name == "links":
            out.append(await links(args))
        elif name == "huge-files":
            out.append(await huge_files(args))
        elif name == "malformed":
            out.append(malformed(args))
        elif name == "start-up":
            out.append(start_up(args))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="CI size: a 6 s lock, 2 MB / 30 MB files")
    parser.add_argument("--hold", type=float, default=30.0, help="seconds the other process holds the write lock")
    parser.add_argument("--memories", type=int, default=200, help="memories stored before the lock is taken")
    parser.add_argument("--reads", type=int, default=30, help="timed calls per reference measurement")
    parser.add_argument("--memory-mb", type=int, default=20, help="size of the huge MEMORY.md")
    parser.add_argument("--daily-mb", type=int, default=300, help="size of the huge daily log")
    parser.add_argument("--disk", default="8m", help="size of the tmpfs the disk-full fault fills")
    parser.add_argument("--faults", nargs="*", help="only these (default all)")
    parser.add_argument("--out", default=str(HERE / "results" / "faults.json"))
    args = parser.parse_args(argv)
    if args.quick:
        args.hold, args.memories, args.reads, args.memory_mb, args.daily_mb = 6.0, 50, 10, 2, 30
    # Every fault's data directory goes under one scratch folder removed at the end: the huge-files fault
    # alone writes ~50 MB, and CI runs this on every build.
    with tempfile.TemporaryDirectory(prefix="memvault-faults-") as scratch:
        tempfile.tempdir = scratch
        try:
            results = anyio.run(run_all, args)
        finally:
            tempfile.tempdir = None
    rows = [t.as_dict() for t in results]
    ok = all(r["data_lost"] == 0 and r["answered"] == r["calls"] and r["unclear_errors"] == 0 for r in rows)
    print(f"{'fault':12} {'calls':>6} {'answered':>9} {'ok':>5} {'clear err':>10} {'unclear':>8} {'data lost':>10}")
    for r in rows:
        print(f"{r['fault']:12} {r['calls']:6} {r['answered']:9} {r['succeeded']:5} {r['clear_errors']:10} "
              f"{r['unclear_errors']:8} {r['data_lost']:10}" + (f"  ({r['skipped']})" if "skipped" in r else ""))
    lock = next((r for r in rows if r["fault"] == "write-lock"), None)
    if lock:
        print(f"recall while another process holds the write lock ({lock['hold_seconds']:g} s): "
              f"p50 {lock['recall_while_locked']['p50_ms']} ms / p95 {lock['recall_while_locked']['p95_ms']} ms; "
              f"without the lock p50 {lock['recall_without_lock']['p50_ms']} ms / p95 {lock['recall_without_lock']['p95_ms']} ms "
              f"(ratio {lock['recall_p50_ratio_locked_vs_free']}); a remember answers busy after "
              f"{lock['remember_while_locked'].get('p50_ms', '-')} ms (MEMVAULT_WRITE_WAIT {WRITE_WAIT:g} s)")
    huge = next((r for r in rows if r["fault"] == "huge-files"), None)
    if huge:
        print(f"huge files ({huge['memory_md_mb']} MB MEMORY.md, {huge['daily_log_mb']} MB log): first recall "
              f"{huge['first_recall_s']} s, thread_prompt {huge['thread_prompt_s']} s, remember p50 "
              f"{huge['remember_on_huge_log']['p50_ms']} ms vs {huge['remember_on_empty_log']['p50_ms']} ms on an empty log")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
    out.write_text(json.dumps({"commit": commit, "quick": args.quick, "ok": ok, "faults": rows}, indent=2) + "\n")
    print(f"{'OK' if ok else 'FAILED'}; details in {out}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
