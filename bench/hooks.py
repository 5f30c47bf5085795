"""Hook latency (process start included) and capture cost, on stores of 10k and 100k memories.

What a host pays per event, measured by spawning the installed command the way Claude
Code does (JSON on stdin, cwd inside a git repository, a fresh process every time), in
two situations: **with a server** (a `memvault serve` of the same store is running, as
when the host has memvault's MCP server connected: the hook hands the event over its
relay socket) and **alone** (no server: the hook opens the store itself, keyword search):
  * `memvault hook session-start` and `memvault hook prompt`: p50/p95 wall time from spawn
    to exit, beside the floor of a bare `python -c pass` spawn in the same run;
  * `memvault hook stop` as the host sees it (hand-off or detach, then exit);
  * the same injections in-process with the imports done (what the work itself costs);
  * a capture (`--foreground`, what the detached process runs) of the value benchmark's
    transcripts (bench/data/hook_sessions.json) in one process, per 100 lines, and in-process;
  * **locked**: the same injections, and the terminal's `recall`, `list` and `show`, while
    another process holds the store's write lock (a sqlite3 connection in a write
    transaction): they must answer, not wait for it;
  * **statement-heavy capture**: synthetic transcripts of `--heavy-lines` lines (per 8 lines a
    prompt stating a decision or a convention, two Bash calls that exit 0, the replies) captured
    in-process into the measured store: wall and CPU seconds per 1,000 lines (target <= 5 s, linear).

Run it from a checkout with PYTHONPATH pointing at it to measure the checkout's code (the
spawned `memvault` is the installed one).

The stores: `--sizes` memories in the thread of the repository (70% conversation turns,
30% statements drawn from bench/corpus.py) plus as many again in 9 other threads, with
random vectors (so a server started on it has no backfill to run). Targets (issue 15):
session-start p95 <= 300 ms, prompt p95 <= 250 ms (issue 29: both <= 300 ms at 100k). The machine's load average is recorded:
on a shared machine, compare with the bare Python spawn of the same run.

    python bench/hooks.py            # 10k and 100k (the README figures)
    python bench/hooks.py --quick    # CI: 500 and 2,000, fewer spawns, same code paths
    python bench/hooks.py --store <home> --thread project-3 --out bench/results/hooks_1m.json
                                     # on an existing store (bench/scale.py --keep's 1M), sessions in one thread
    python bench/hooks.py --sizes 100000 --injection-only --out bench/results/hooks_100k_injection.json
                                     # issue 29 item 5 alone: spawned session-start and prompt with no server at
                                     # 100k (+100k) memories, beside a bare `python -c pass` and the hello-world
                                     # server (bench/hello_server.py) of the same run, and the 1-minute load
                                     # average during it (target p95 <= 300 ms at load <= 2)
    python bench/hooks.py --store <a home of 100k+100k> --checkouts /tmp/main-copy . --spawns 40
                                     # the same, two source checkouts alternated spawn by spawn in one run
                                     # (before/after under the same load); `git archive main | tar -x -C
                                     # /tmp/main-copy` makes the copy of main

The package the spawned command imports is byte-compiled first (precompile), as a wheel install
does: this machine sets PYTHONDONTWRITEBYTECODE, and without the .pyc files every hook process
compiled ~80 modules from source (about 0.4 s of each spawn here, a cost no installed copy pays).
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
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from corpus import QUERIES, memories  # noqa: E402
from startup import MEMVAULT, pct, spawn_times  # noqa: E402

THREAD = "acme-api"
PROMPTS = QUERIES + [
    "how do we run the api tests", "which port does the staging database use", "why did we switch to Stripe",
    "fix the failing billing test", "what is the lint command", "deploy the worker to production",
]


def build(home: Path, size: int) -> float:
    """`size` memories in THREAD and `size` more in other threads, inserted in bulk through the store."""
    from server.config import Settings
    from server.hooks.work import open_light
    from server.service import content_hash
    from server.storage.sqlite.store import NewMemory
    from server.textindex import index_text

    import numpy as np

    service = open_light(Settings(home=home, embedder="hash"), create=True)
    assert service is not None
    texts = memories(size * 2, seed=size)
    rng = np.random.default_rng(size)
    started = time.perf_counter()
    now = int(time.time() * 1000) - len(texts) * 1000
    for start in range(0, len(texts), 5000):
        ids = []
        with service.db.write() as conn:
            for i in range(start, min(start + 5000, len(texts))):
                thread = THREAD if i % 2 == 0 else f"project-{i % 9}"
                kind = "turn" if i % 10 < 7 else ("decision", "preference", "snippet", "fact")[i % 4]
                content = (f"user: {texts[i]}" if i % 20 < 7 else f"assistant: {texts[i]}") if kind == "turn" else texts[i]
                at = now + i * 1000
                ids.append(service.store.insert_memory(conn, NewMemory(
                    thread=thread, content=content, kind=kind, source="hook", origin=None, importance=0.5, tags=(),
                    content_hash=content_hash(content), created_at=at, updated_at=at, index_text=index_text(content),
                    log_daily=False)))
                service.store.touch_thread(conn, thread, at)
        # Random unit vectors: a server started on this store has no backfill to run while it is measured.
        vectors = rng.standard_normal((len(ids), service.embedder.dimensions)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        service.store.store_vectors(dict(zip(ids, vectors)))
    with service.db.write() as conn:
        service.store.set_meta(conn, "embedding_model", "memvault/hash-trigram-v1")
        service.store.set_meta(conn, "embedding_dimensions", str(service.embedder.dimensions))
    service.close()
    return time.perf_counter() - started


#: CPU seconds (user + system) of each spawn() child, in call order: unlike wall time, hardly moved by the
#: machine's load (on 2 cores at load 7 a hook waits about twice its CPU time for a core).
child_cpu: list[float] = []


def spawn(argv: list[str], payload: dict, env: dict[str, str], cwd: Path) -> tuple[float, str]:
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(argv, input=json.dumps(payload).encode(), capture_output=True, env=env, cwd=cwd, timeout=60)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    child_cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise SystemExit(f"{argv} exited {proc.returncode}: {proc.stderr.decode()[-500:]}")
    return elapsed, proc.stdout.decode()


def summary(values: list[float]) -> dict:
    return {"p50_ms": round(statistics.median(values) * 1000, 1), "p95_ms": round(pct(values, 0.95) * 1000, 1),
            "n": len(values)}


def measure(size: int, spawns: int, work: Path, store: Path | None = None, thread: str = THREAD) -> dict:
    """Hooks on a store of `size` + `size` memories built here, or on an existing `store` (its
    sessions in `thread`, its own embedding model: bench/scale.py --keep makes a 1M one)."""
    repo = work / thread
    repo.mkdir(exist_ok=True)
    (repo / ".git").mkdir(exist_ok=True)
    if store is None:
        home, embedder = work / f"home-{size}", "hash"
        build_s = build(home, size)
    else:
        home, build_s = store, 0.0
        embedder = "hash" if "hash" in _store_model(store) else "minilm"
    env = {**os.environ, "MEMVAULT_HOME": str(home), "MEMVAULT_EMBEDDER": embedder}
    env.pop("MEMVAULT_THREAD", None)
    if checkouts:
        compared = compare_series(checkouts, env, repo, work, size, spawns)
        return {"memories": size * 2 if store is None else _count(store),
                "thread_memories": size if store is None else _count(store, thread),
                "store": None if store is None else str(store), "build_s": round(build_s, 1), "compared": compared}
    alone = spawn_series(env, repo, work, size, spawns, "alone")
    if injection_only:
        if store is not None:
            size = _count(store)
        return {"memories": size * 2 if store is None else size,
                "thread_memories": size if store is None else _count(store, thread),
                "store": None if store is None else str(store), "build_s": round(build_s, 1), "alone": alone}
    server = subprocess.Popen([MEMVAULT, "serve"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, env=env, cwd=repo)
    try:
        relay = home / "hooks" / "relay" / f"{server.pid}.sock"
        deadline = time.monotonic() + 300
        while not relay.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        if not relay.exists():
            raise SystemExit("the server never opened its hook relay")
        relayed = spawn_series(env, repo, work, size, spawns, "relayed")
    finally:
        server.stdin.close()  # type: ignore[union-attr]
        server.wait(timeout=60)
    warm_start, warm_prompt = in_process(env, repo, size, spawns)
    locked = locked_series(env, repo, work, size, max(4, spawns // 2), home)
    heavy = [] if store is not None else [heavy_capture(home, repo, work, n) for n in heavy_lines]
    if store is not None:
        size = _count(store)
    return {
        "memories": size * 2 if store is None else size, "thread_memories": size if store is None else _count(store, thread),
        "store": None if store is None else str(store), "build_s": round(build_s, 1),
        "alone": alone, "with_server": relayed, "locked": locked, "statement_heavy_capture": heavy,
        "in_process_session_start": summary(warm_start), "in_process_prompt": summary(warm_prompt),
    }


#: Transcript lengths of the statement-heavy capture (main() sets them from --heavy-lines).
heavy_lines: list[int] = [960, 3840]
#: Only the spawned injection hooks with no server (main() sets it from --injection-only).
injection_only = False
#: Checkouts whose injection hooks are compared, alternated in one run (main() sets it from --checkouts).
checkouts: list[Path] = []


def locked_series(env: dict[str, str], repo: Path, work: Path, size: int, spawns: int, home: Path) -> dict:
    """Injections (no server: the hook opens the store itself) and the terminal's reads while another
    process holds the write lock: wall time from spawn to exit, and how many injected anything."""
    import sqlite3

    writer = sqlite3.connect(home / "memvault.db", isolation_level=None, timeout=30)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("UPDATE meta SET value = value WHERE key = 'embedding_model'")  # the write lock, taken
    try:
        start, prompt, injected = [], [], 0
        for i in range(spawns):
            session = f"bench-locked-{size}-{i}"
            took, out = spawn([MEMVAULT, "hook", "session-start"], {
                "session_id": session, "cwd": str(repo), "hook_event_name": "SessionStart", "source": "startup"}, env, repo)
            start.append(took)
            injected += bool(out.strip())
            took, out = spawn([MEMVAULT, "hook", "prompt"], {
                "session_id": session, "cwd": str(repo), "hook_event_name": "UserPromptSubmit",
                "prompt": PROMPTS[i % len(PROMPTS)]}, env, repo)
            prompt.append(took)
            injected += bool(out.strip())
        terminal = {}
        for name, argv in (("recall", ["recall", PROMPTS[0]]), ("list", ["list", "--limit", "20"]), ("show", ["show", "1"])):
            began = time.perf_counter()
            done = subprocess.run([MEMVAULT, *argv], capture_output=True, env=env, cwd=repo, timeout=120)
            terminal[name] = {"ms": round((time.perf_counter() - began) * 1000, 1), "exit": done.returncode,
                              "answered": bool(done.stdout.strip())}
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    return {"session_start": summary(start), "prompt": summary(prompt), "injected": injected,
            "hooks": 2 * spawns, "terminal": terminal}


def write_heavy_transcript(path: Path, lines: int, repo: Path, seed: int = 7) -> int:
    """A statement-heavy Claude Code transcript of about `lines` lines (see the module docstring)."""
    import random

    rng = random.Random(seed)
    tools = ["Redis", "Postgres", "Kafka", "Celery", "Dramatiq", "pytest", "ruff", "Helm", "Terraform", "Nginx"]
    areas = ["billing", "orders", "catalogue", "auth", "search", "payments", "reports", "uploads", "emails"]
    out: list[dict] = []
    i = 0

    def add(kind: str, message: dict, **extra: object) -> None:
        stamp = f"2026-10-04T{10 + i // 3600 % 10:02d}:{i // 60 % 60:02d}:{i % 60:02d}.000Z"
        out.append({"type": kind, "uuid": f"h{len(out)}", "timestamp": stamp, "sessionId": "heavy", "cwd": str(repo),
                    "message": message, **extra})

    while len(out) < lines:
        area, other, tool = rng.choice(areas), rng.choice(areas), rng.choice(tools)
        said = (f"We decided to use {tool} for the {area} service (change {i}); update the {other} module."
                if i % 2 else f"From now on always run the {other} checks with {tool} before merging {area} work (rule {i}).")
        add("user", {"role": "user", "content": said})
        add("assistant", {"role": "assistant", "content": [{"type": "text", "text": f"I'll move {area} to {tool}."}]})
        for k, command in enumerate((f"make test-{area} ARGS=--case={i}", f"ruff check src/{other}/module_{i}.py")):
            add("assistant", {"role": "assistant", "content": [
                {"type": "tool_use", "id": f"t{i}-{k}", "name": "Bash", "input": {"command": command}}]})
            add("user", {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{i}-{k}",
                                                      "content": f"{12 + i % 7} passed", "is_error": False}]},
                toolUseResult={"stdout": "ok", "stderr": "", "interrupted": False})
        add("assistant", {"role": "assistant", "content": [{"type": "text", "text": f"Done: {area} uses {tool}."}]})
        add("user", {"role": "user", "content": f"thanks, next one {i}"})
        i += 1
    path.write_text("".join(json.dumps(line) + "\n" for line in out), encoding="utf-8")
    return len(out)


def heavy_capture(home: Path, repo: Path, work: Path, lines: int) -> dict:
    """One statement-heavy transcript captured in-process into `home` (the store just measured)."""
    from server.config import Settings
    from server.hooks.capture import capture
    from server.hooks.protocol import HookInput
    from server.hooks.sessions import Sessions
    from server.hooks.work import hooks_dir, open_light

    path = work / f"heavy-{lines}.jsonl"
    written = write_heavy_transcript(path, lines, repo, seed=lines)
    settings = Settings(home=home, embedder=_store_model_name(home))
    service = open_light(settings, create=True)
    assert service is not None
    try:
        hook = HookInput("claude-code", "stop", f"heavy-{lines}-{time.time_ns()}", repo, path)
        began, cpu = time.perf_counter(), time.process_time()
        report = capture(service, hook, repo.name, Sessions(hooks_dir(settings) / "sessions"))
        wall, cpu = time.perf_counter() - began, time.process_time() - cpu
    finally:
        service.close()
    return {"lines": written, "turns": report.turns, "statements": report.statements,
            "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
            "wall_s_per_1000_lines": round(wall * 1000 / written, 2), "cpu_s_per_1000_lines": round(cpu * 1000 / written, 2)}


def _store_model_name(home: Path) -> str:
    return "hash" if "hash" in _store_model(home) else "minilm"


def _store_model(home: Path) -> str:
    import sqlite3

    with sqlite3.connect(home / "memvault.db") as conn:
        row = conn.execute("SELECT value FROM meta WHERE key = 'embedding_model'").fetchone()
    return row[0] if row else ""


def _count(home: Path, thread: str | None = None) -> int:
    import sqlite3

    with sqlite3.connect(home / "memvault.db") as conn:
        if thread is None:
            return conn.execute("SELECT count(*) FROM memories WHERE deleted_at IS NULL").fetchone()[0]
        return conn.execute("SELECT count(*) FROM memories WHERE thread = ? AND deleted_at IS NULL", (thread,)).fetchone()[0]


def spawn_series(env: dict[str, str], repo: Path, work: Path, size: int, spawns: int, label: str) -> dict:
    """`spawns` session-start + prompt pairs (fresh sessions), interleaved with a bare Python spawn."""
    bare, start, prompt, stop, injected_start, injected_prompt = [], [], [], [], [], []
    hello, load, bare_cpu, start_cpu, prompt_cpu = [], [], [], [], []
    for i in range(spawns):  # interleaved, so a busy moment hits every kind alike
        load.append(os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0)
        bare.append(spawn([sys.executable, "-c", "pass"], {}, env, repo)[0])
        bare_cpu.append(child_cpu[-1])
        if i % 4 == 0:  # the hello-world MCP server until it answers initialize: Python with the mcp SDK imported
            hello.append(spawn_times([sys.executable, str(HERE / "hello_server.py")], env)[0])
        session = f"bench-{label}-{size}-{i}"
        took, out = spawn([MEMVAULT, "hook", "session-start"], {
            "session_id": session, "cwd": str(repo), "hook_event_name": "SessionStart", "source": "startup",
            "transcript_path": str(work / "none.jsonl")}, env, repo)
        start.append(took)
        start_cpu.append(child_cpu[-1])
        injected_start.append(len(out))
        took, out = spawn([MEMVAULT, "hook", "prompt"], {
            "session_id": session, "cwd": str(repo), "hook_event_name": "UserPromptSubmit",
            "prompt": PROMPTS[i % len(PROMPTS)]}, env, repo)
        prompt.append(took)
        prompt_cpu.append(child_cpu[-1])
        injected_prompt.append(len(out))
        if i % 4 == 0:  # what the host waits for at a Stop: the hand-off to a server, or the detach
            stop.append(spawn([MEMVAULT, "hook", "stop"], {
                "session_id": session, "cwd": str(repo), "hook_event_name": "Stop",
                "transcript_path": str(work / "none.jsonl")}, env, repo)[0])
    return {"bare_python_spawn": summary(bare), "hello_server_initialize": summary(hello),
            "session_start": summary(start), "prompt": summary(prompt), "stop": summary(stop),
            # Same-run ratios: on a loaded machine every spawn slows alike, the ratio less so.
            "ratio_to_bare_python_p50": {"session_start": _ratio(start, bare), "prompt": _ratio(prompt, bare)},
            "ratio_to_hello_server_p50": {"session_start": _ratio(start, hello), "prompt": _ratio(prompt, hello)},
            "cpu": {"bare_python_spawn": summary(bare_cpu), "session_start": summary(start_cpu), "prompt": summary(prompt_cpu)},
            "load_1min": {"min": round(min(load), 2), "median": round(statistics.median(load), 2), "max": round(max(load), 2)},
            "session_start_chars_p50": statistics.median(injected_start), "prompt_chars_p50": statistics.median(injected_prompt)}


def compare_series(checkouts: list[Path], env: dict[str, str], repo: Path, work: Path, size: int, spawns: int) -> dict:
    """`spawns` session-start + prompt pairs per checkout, the checkouts alternated spawn by spawn (their order
    reversed every other round), beside a bare Python spawn: the same store, the same moments of the machine's
    load, so a before/after is measured in one run. Each checkout runs as `python -m server hook ...` with
    PYTHONPATH at it (its own code, byte-compiled first), the way the installed command runs it."""
    runs = {str(c): {"session_start": [], "prompt": [], "session_start_cpu": [], "prompt_cpu": [], "outputs": []}
            for c in checkouts}
    bare, load = [], []
    for i in range(spawns):
        load.append(os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0)
        bare.append(spawn([sys.executable, "-c", "pass"], {}, env, repo)[0])
        for checkout in checkouts if i % 2 == 0 else checkouts[::-1]:
            run = runs[str(checkout)]
            tree_env = {**env, "PYTHONPATH": str(checkout)}
            session = f"bench-compare-{size}-{i}-{time.time_ns()}"
            argv = [sys.executable, "-m", "server", "hook"]
            took, start_out = spawn([*argv, "session-start"], {
                "session_id": session, "cwd": str(repo), "hook_event_name": "SessionStart", "source": "startup",
                "transcript_path": str(work / "none.jsonl")}, tree_env, repo)
            run["session_start"].append(took)
            run["session_start_cpu"].append(child_cpu[-1])
            took, prompt_out = spawn([*argv, "prompt"], {
                "session_id": session, "cwd": str(repo), "hook_event_name": "UserPromptSubmit",
                "prompt": PROMPTS[i % len(PROMPTS)]}, tree_env, repo)
            run["prompt"].append(took)
            run["prompt_cpu"].append(child_cpu[-1])
            run["outputs"].append((start_out, prompt_out))
    first = runs[str(checkouts[0])]["outputs"]
    return {
        "bare_python_spawn": summary(bare),
        "load_1min": {"min": round(min(load), 2), "median": round(statistics.median(load), 2), "max": round(max(load), 2)},
        "checkouts": {name: {"session_start": summary(r["session_start"]), "prompt": summary(r["prompt"]),
                             "cpu": {"session_start": summary(r["session_start_cpu"]), "prompt": summary(r["prompt_cpu"])},
                             "same_output_as_first": sum(a == b for a, b in zip(r["outputs"], first)),
                             "session_start_chars_p50": statistics.median(len(o[0]) for o in r["outputs"]),
                             "prompt_chars_p50": statistics.median(len(o[1]) for o in r["outputs"])}
                      for name, r in runs.items()},
    }


def _ratio(values: list[float], reference: list[float]) -> float:
    return round(statistics.median(values) / statistics.median(reference), 2)


def precompile() -> str:
    """Byte-compile the package the spawned command imports, as installing a wheel does. Without it, a
    machine with PYTHONDONTWRITEBYTECODE set (this one) compiles ~80 modules from source in every hook
    process, a cost no installed copy pays."""
    import compileall

    if checkouts:
        for checkout in checkouts:
            compileall.compile_dir(str(checkout / "server"), quiet=1, workers=1)
        return ", ".join(str(c / "server") for c in checkouts)

    import server

    root = Path(server.__file__).resolve().parent
    compileall.compile_dir(str(root), quiet=1, workers=1)
    return "this checkout's server/" if root == HERE.parent / "server" else str(root)


def in_process(env: dict[str, str], repo: Path, size: int, n: int) -> tuple[list[float], list[float]]:
    """The same hooks through run.main in this process, imports already done: what the work itself costs."""
    import io

    from server.hooks.run import main

    old = dict(os.environ)
    os.environ.update({k: env[k] for k in ("MEMVAULT_HOME", "MEMVAULT_EMBEDDER")})
    starts, prompts = [], []
    try:
        for i in range(n + 1):
            session = f"warm-{size}-{i}"
            for event, payload, into in (
                ("session-start", {"session_id": session, "cwd": str(repo), "source": "startup"}, starts),
                ("prompt", {"session_id": session, "cwd": str(repo), "prompt": PROMPTS[i % len(PROMPTS)]}, prompts),
            ):
                began = time.perf_counter()
                main(event, "claude-code", stdin=io.BytesIO(json.dumps(payload).encode()), stdout=io.StringIO())
                if i:  # the first pays the imports
                    into.append(time.perf_counter() - began)
    finally:
        os.environ.clear()
        os.environ.update(old)
    return starts, prompts


def capture_cost(work: Path) -> dict:
    """Capture of the value benchmark's transcripts: one spawned process per capture, and in-process.

    Spawned: all sessions in one transcript captured by one `memvault hook stop --foreground`
    (what the detached process does), beside a capture with nothing new (the fixed cost of a
    capture process). In-process: each session's capture through capture(), per 100 lines.
    """
    from value_hooks import SESSIONS, write_transcript

    from server.config import Settings
    from server.hooks.capture import capture
    from server.hooks.protocol import HookInput
    from server.hooks.work import hooks_dir, open_light
    from server.hooks.sessions import Sessions

    repo = work / THREAD
    env = {**os.environ, "MEMVAULT_HOME": str(work / "home-capture"), "MEMVAULT_EMBEDDER": "hash"}
    whole = work / "capture-all.jsonl"
    lines = sum(write_transcript(session, whole, repo) for session in SESSIONS)
    payload = {"session_id": "cap-all", "cwd": str(repo), "hook_event_name": "Stop", "transcript_path": str(whole)}
    spawned, _ = spawn([MEMVAULT, "hook", "stop", "--foreground"], payload, env, repo)
    fixed = [spawn([MEMVAULT, "hook", "stop", "--foreground"], payload, env, repo)[0] for _ in range(3)]
    settings = Settings(home=work / "home-capture-inproc", embedder="hash")
    service = open_light(settings, create=True)
    assert service is not None
    per_session = []
    for n, session in enumerate(SESSIONS):
        path = work / f"capture-{n}.jsonl"
        per_session.append(write_transcript(session, path, repo))
    started = time.perf_counter()
    for n in range(len(SESSIONS)):
        hook = HookInput("claude-code", "stop", f"cap-{n}", repo, work / f"capture-{n}.jsonl")
        capture(service, hook, THREAD, Sessions(hooks_dir(settings) / "sessions"))
    inproc = time.perf_counter() - started
    service.close()
    return {"transcripts": len(SESSIONS), "lines": lines,
            "spawned_capture_ms": round(spawned * 1000, 1), "spawned_nothing_new_ms": round(statistics.median(fixed) * 1000, 1),
            "spawned_ms_per_100_lines": round((spawned - statistics.median(fixed)) * 1000 / lines * 100, 1),
            "in_process_ms_per_100_lines": round(inproc * 1000 / sum(per_session) * 100, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--sizes", type=int, nargs="*")
    ap.add_argument("--spawns", type=int)
    ap.add_argument("--out", default=str(HERE / "results" / "hooks.json"))
    ap.add_argument("--store", type=Path, help="measure on this existing data directory (e.g. bench/scale.py --keep's 1M)")
    ap.add_argument("--thread", default=THREAD, help="with --store: the thread the sessions are in")
    ap.add_argument("--heavy-lines", type=int, nargs="*", help="statement-heavy transcript lengths (default 960 3840)")
    ap.add_argument("--injection-only", action="store_true",
                    help="only session-start and prompt spawned with no server (issue 29: p95 <= 300 ms at 100k), "
                    "beside a bare Python spawn and the hello-world server, with the load average during the run")
    ap.add_argument("--checkouts", type=Path, nargs="+", metavar="DIR",
                    help="compare these source checkouts' injection hooks (no server), alternated spawn by spawn in "
                    "one run, each as `python -m server hook` with PYTHONPATH=DIR (e.g. a copy of main and a branch)")
    args = ap.parse_args()
    global heavy_lines, injection_only, checkouts
    injection_only = args.injection_only or bool(args.checkouts)
    checkouts = [c.resolve() for c in args.checkouts or []]
    for checkout in checkouts:
        if not (checkout / "server" / "hooks").is_dir():
            ap.error(f"{checkout} is not a memvault checkout (no server/hooks in it)")
    heavy_lines = args.heavy_lines if args.heavy_lines is not None else ([480, 1920] if args.quick else [960, 3840])
    sizes = args.sizes or ([500, 2000] if args.quick else [10_000, 100_000])
    spawns = args.spawns or (6 if args.quick else 40)
    results: dict = {"quick": args.quick, "sizes": [], "load_average_before": os.getloadavg() if hasattr(os, "getloadavg") else None,
                     "precompiled": precompile(), "cpus": os.cpu_count()}
    with tempfile.TemporaryDirectory(prefix="memvault-hooks-bench-") as tmp:
        work = Path(tmp)
        for size in ([0] if args.store else sizes):
            r = measure(size, spawns, work, args.store, args.thread)
            results["sizes"].append(r)
            if checkouts:
                c = r["compared"]
                print(f"{r['memories']:>7} memories ({r['thread_memories']} in the thread), no server, checkouts alternated: "
                      f"bare python spawn p50 {c['bare_python_spawn']['p50_ms']} ms, 1-min load {c['load_1min']}", flush=True)
                for name, m in c["checkouts"].items():
                    print(f"    {name}: session-start p50 {m['session_start']['p50_ms']} / p95 {m['session_start']['p95_ms']} ms "
                          f"(CPU {m['cpu']['session_start']['p50_ms']} / {m['cpu']['session_start']['p95_ms']}), prompt p50 "
                          f"{m['prompt']['p50_ms']} / p95 {m['prompt']['p95_ms']} ms (CPU {m['cpu']['prompt']['p50_ms']} / "
                          f"{m['cpu']['prompt']['p95_ms']}); output as the first checkout's in {m['same_output_as_first']} "
                          f"of {spawns}", flush=True)
                continue
            for mode in ("alone",) if injection_only else ("with_server", "alone"):
                m = r[mode]
                print(f"{r['memories']:>7} memories ({r['thread_memories']} in the thread), {mode.replace('_', ' ')}: "
                      f"session-start p50 {m['session_start']['p50_ms']} / p95 {m['session_start']['p95_ms']} ms, "
                      f"prompt p50 {m['prompt']['p50_ms']} / p95 {m['prompt']['p95_ms']} ms, "
                      f"stop p95 {m['stop']['p95_ms']} ms "
                      f"(bare python spawn p50 {m['bare_python_spawn']['p50_ms']} ms, hello-world server initialize p50 "
                      f"{m['hello_server_initialize']['p50_ms']} ms; p50 ratios to bare python {m['ratio_to_bare_python_p50']}, "
                      f"to the hello server {m['ratio_to_hello_server_p50']}; 1-min load {m['load_1min']})", flush=True)
                c = m["cpu"]
                print(f"        CPU (user+system) per spawn: session-start p50 {c['session_start']['p50_ms']} / p95 "
                      f"{c['session_start']['p95_ms']} ms, prompt p50 {c['prompt']['p50_ms']} / p95 {c['prompt']['p95_ms']} ms, "
                      f"bare python p50 {c['bare_python_spawn']['p50_ms']} ms", flush=True)
            if injection_only:
                continue
            lk = r["locked"]
            print(f"        locked by another writer: session-start p95 {lk['session_start']['p95_ms']} ms, prompt p95 "
                  f"{lk['prompt']['p95_ms']} ms, {lk['injected']} of {lk['hooks']} injected; terminal "
                  + ", ".join(f"{k} {v['ms']} ms (exit {v['exit']})" for k, v in lk["terminal"].items()), flush=True)
            for h in r["statement_heavy_capture"]:
                print(f"        statement-heavy capture: {h['lines']} lines ({h['statements']} statements, {h['turns']} turns) "
                      f"in {h['wall_s']} s wall / {h['cpu_s']} s CPU = {h['wall_s_per_1000_lines']} s wall, "
                      f"{h['cpu_s_per_1000_lines']} s CPU per 1,000 lines", flush=True)
            print(f"        in-process, imports done: "
                  f"session-start p50 {r['in_process_session_start']['p50_ms']}, prompt p50 {r['in_process_prompt']['p50_ms']} ms",
                  flush=True)
        if args.store or injection_only:  # the capture cost does not depend on the store
            Path(args.out).parent.mkdir(exist_ok=True)
            Path(args.out).write_text(json.dumps({**results, "load_average": os.getloadavg()}, indent=2) + "\n")
            return
        results["capture"] = capture_cost(work)
        c = results["capture"]
        print(f"capture: {c['lines']} transcript lines of {c['transcripts']} sessions in one process: "
              f"{c['spawned_capture_ms']} ms ({c['spawned_nothing_new_ms']} ms with nothing new to read), so "
              f"{c['spawned_ms_per_100_lines']} ms per 100 lines; in-process {c['in_process_ms_per_100_lines']} ms per 100 lines")
    results["targets"] = {"session_start_p95_ms": 300, "prompt_p95_ms": 250, "issue_29_injection_p95_ms_at_100k": 300,
                          "issue_29_capture_s_per_1000_lines": 5}
    results["load_average"] = os.getloadavg() if hasattr(os, "getloadavg") else None
    Path(args.out).parent.mkdir(exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
