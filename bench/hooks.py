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
    transcripts (bench/data/hook_sessions.json) in one process, per 100 lines, and in-process.

The stores: `--sizes` memories in the thread of the repository (70% conversation turns,
30% statements drawn from bench/corpus.py) plus as many again in 9 other threads, with
random vectors (so a server started on it has no backfill to run). Targets (issue 15):
session-start p95 <= 300 ms, prompt p95 <= 250 ms. The machine's load average is recorded:
on a shared machine, compare with the bare Python spawn of the same run.

    python bench/hooks.py            # 10k and 100k (the README figures)
    python bench/hooks.py --quick    # CI: 500 and 2,000, fewer spawns, same code paths
    python bench/hooks.py --store <home> --thread project-3 --out bench/results/hooks_1m.json
                                     # on an existing store (bench/scale.py --keep's 1M), sessions in one thread
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
from startup import MEMVAULT, pct  # noqa: E402

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


def spawn(argv: list[str], payload: dict, env: dict[str, str], cwd: Path) -> tuple[float, str]:
    started = time.perf_counter()
    proc = subprocess.run(argv, input=json.dumps(payload).encode(), capture_output=True, env=env, cwd=cwd, timeout=60)
    elapsed = time.perf_counter() - started
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
    alone = spawn_series(env, repo, work, size, spawns, "alone")
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
    if store is not None:
        size = _count(store)
    return {
        "memories": size * 2 if store is None else size, "thread_memories": size if store is None else _count(store, thread),
        "store": None if store is None else str(store), "build_s": round(build_s, 1),
        "alone": alone, "with_server": relayed,
        "in_process_session_start": summary(warm_start), "in_process_prompt": summary(warm_prompt),
    }


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
    for i in range(spawns):  # interleaved, so a busy moment hits every kind alike
        bare.append(spawn([sys.executable, "-c", "pass"], {}, env, repo)[0])
        session = f"bench-{label}-{size}-{i}"
        took, out = spawn([MEMVAULT, "hook", "session-start"], {
            "session_id": session, "cwd": str(repo), "hook_event_name": "SessionStart", "source": "startup",
            "transcript_path": str(work / "none.jsonl")}, env, repo)
        start.append(took)
        injected_start.append(len(out))
        took, out = spawn([MEMVAULT, "hook", "prompt"], {
            "session_id": session, "cwd": str(repo), "hook_event_name": "UserPromptSubmit",
            "prompt": PROMPTS[i % len(PROMPTS)]}, env, repo)
        prompt.append(took)
        injected_prompt.append(len(out))
        if i % 4 == 0:  # what the host waits for at a Stop: the hand-off to a server, or the detach
            stop.append(spawn([MEMVAULT, "hook", "stop"], {
                "session_id": session, "cwd": str(repo), "hook_event_name": "Stop",
                "transcript_path": str(work / "none.jsonl")}, env, repo)[0])
    return {"bare_python_spawn": summary(bare), "session_start": summary(start), "prompt": summary(prompt),
            "stop": summary(stop),
            "session_start_chars_p50": statistics.median(injected_start), "prompt_chars_p50": statistics.median(injected_prompt)}


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
    args = ap.parse_args()
    sizes = args.sizes or ([500, 2000] if args.quick else [10_000, 100_000])
    spawns = args.spawns or (6 if args.quick else 40)
    results: dict = {"quick": args.quick, "sizes": [], "load_average_before": os.getloadavg() if hasattr(os, "getloadavg") else None}
    with tempfile.TemporaryDirectory(prefix="memvault-hooks-bench-") as tmp:
        work = Path(tmp)
        for size in ([0] if args.store else sizes):
            r = measure(size, spawns, work, args.store, args.thread)
            results["sizes"].append(r)
            for mode in ("with_server", "alone"):
                m = r[mode]
                print(f"{r['memories']:>7} memories ({r['thread_memories']} in the thread), {mode.replace('_', ' ')}: "
                      f"session-start p50 {m['session_start']['p50_ms']} / p95 {m['session_start']['p95_ms']} ms, "
                      f"prompt p50 {m['prompt']['p50_ms']} / p95 {m['prompt']['p95_ms']} ms, "
                      f"stop p95 {m['stop']['p95_ms']} ms "
                      f"(bare python spawn p50 {m['bare_python_spawn']['p50_ms']} ms)", flush=True)
            print(f"        in-process, imports done: "
                  f"session-start p50 {r['in_process_session_start']['p50_ms']}, prompt p50 {r['in_process_prompt']['p50_ms']} ms",
                  flush=True)
        if args.store:  # the capture cost does not depend on the store
            Path(args.out).parent.mkdir(exist_ok=True)
            Path(args.out).write_text(json.dumps({**results, "load_average": os.getloadavg()}, indent=2) + "\n")
            return
        results["capture"] = capture_cost(work)
        c = results["capture"]
        print(f"capture: {c['lines']} transcript lines of {c['transcripts']} sessions in one process: "
              f"{c['spawned_capture_ms']} ms ({c['spawned_nothing_new_ms']} ms with nothing new to read), so "
              f"{c['spawned_ms_per_100_lines']} ms per 100 lines; in-process {c['in_process_ms_per_100_lines']} ms per 100 lines")
    results["targets"] = {"session_start_p95_ms": 300, "prompt_p95_ms": 250}
    results["load_average"] = os.getloadavg() if hasattr(os, "getloadavg") else None
    Path(args.out).parent.mkdir(exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
