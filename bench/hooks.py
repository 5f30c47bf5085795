"""Hook latency (process start included) and capture cost, on stores of 10k and 100k memories.

What a host pays per event, measured by spawning the installed command the way Claude
Code does (JSON on stdin, cwd inside a git repository, a fresh process every time):
  * `memvault hook session-start` and `memvault hook prompt`: p50/p95 wall time from spawn
    to exit, beside the floor of a bare `python -c pass` spawn in the same run;
  * `memvault hook stop` as the host sees it (it detaches the capture and exits);
  * the capture itself (`--foreground`) per 100 transcript lines, on the value benchmark's
    transcripts (bench/data/hook_sessions.json), and in-process through capture().

The stores: `--sizes` memories in the thread of the repository (70% conversation turns,
30% statements drawn from bench/corpus.py) plus as many again in 9 other threads. No
vectors are needed: a hook never loads the embedding model. Targets (issue 15):
session-start p95 <= 300 ms, prompt p95 <= 250 ms.

    python bench/hooks.py            # 10k and 100k (the README figures)
    python bench/hooks.py --quick    # CI: 500 and 2,000, fewer spawns, same code paths
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
    from server.hooks.run import open_light
    from server.service import content_hash
    from server.storage.sqlite.store import NewMemory
    from server.textindex import index_text

    service = open_light(Settings(home=home, embedder="hash"), create=True)
    assert service is not None
    texts = memories(size * 2, seed=size)
    started = time.perf_counter()
    now = int(time.time() * 1000) - len(texts) * 1000
    for start in range(0, len(texts), 5000):
        with service.db.write() as conn:
            for i in range(start, min(start + 5000, len(texts))):
                thread = THREAD if i % 2 == 0 else f"project-{i % 9}"
                kind = "turn" if i % 10 < 7 else ("decision", "preference", "snippet", "fact")[i % 4]
                content = (f"user: {texts[i]}" if i % 20 < 7 else f"assistant: {texts[i]}") if kind == "turn" else texts[i]
                at = now + i * 1000
                service.store.insert_memory(conn, NewMemory(
                    thread=thread, content=content, kind=kind, source="hook", origin=None, importance=0.5, tags=(),
                    content_hash=content_hash(content), created_at=at, updated_at=at, index_text=index_text(content),
                    log_daily=False))
                service.store.touch_thread(conn, thread, at)
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


def measure(size: int, spawns: int, work: Path) -> dict:
    home = work / f"home-{size}"
    repo = work / THREAD
    repo.mkdir(exist_ok=True)
    (repo / ".git").mkdir(exist_ok=True)
    build_s = build(home, size)
    env = {**os.environ, "MEMVAULT_HOME": str(home), "MEMVAULT_EMBEDDER": "hash"}
    env.pop("MEMVAULT_THREAD", None)
    bare, start, prompt, injected_start, injected_prompt = [], [], [], [], []
    for i in range(spawns):  # interleaved, so a busy moment hits every kind alike
        bare.append(spawn([sys.executable, "-c", "pass"], {}, env, repo)[0])
        session = f"bench-{size}-{i}"
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
    stop = [spawn([MEMVAULT, "hook", "stop"], {
        "session_id": f"bench-stop-{size}-{i}", "cwd": str(repo), "hook_event_name": "Stop",
        "transcript_path": str(work / "none.jsonl")}, env, repo)[0] for i in range(max(3, spawns // 4))]
    return {
        "memories": size * 2, "thread_memories": size, "build_s": round(build_s, 1),
        "bare_python_spawn": summary(bare), "session_start": summary(start), "prompt": summary(prompt),
        "stop_detached": summary(stop),
        "session_start_chars_p50": statistics.median(injected_start), "prompt_chars_p50": statistics.median(injected_prompt),
    }


def capture_cost(work: Path) -> dict:
    """Capture of the value benchmark's transcripts: spawned (--foreground) and in-process, per 100 lines."""
    from value_hooks import SESSIONS, write_transcript

    from server.config import Settings
    from server.hooks.capture import capture
    from server.hooks.protocol import HookInput
    from server.hooks.run import hooks_dir, open_light
    from server.hooks.sessions import Sessions

    repo = work / THREAD
    lines = 0
    spawned = 0.0
    home = work / "home-capture"
    env = {**os.environ, "MEMVAULT_HOME": str(home), "MEMVAULT_EMBEDDER": "hash"}
    for n, session in enumerate(SESSIONS):
        path = work / f"capture-{n}.jsonl"
        lines += write_transcript(session, path, repo)
        took, _ = spawn([MEMVAULT, "hook", "stop", "--foreground"], {
            "session_id": f"cap-{n}", "cwd": str(repo), "hook_event_name": "Stop", "transcript_path": str(path)}, env, repo)
        spawned += took
    settings = Settings(home=work / "home-capture-inproc", embedder="hash")
    service = open_light(settings, create=True)
    assert service is not None
    started = time.perf_counter()
    for n, _ in enumerate(SESSIONS):
        hook = HookInput("claude-code", "stop", f"cap-{n}", repo, work / f"capture-{n}.jsonl")
        capture(service, hook, THREAD, Sessions(hooks_dir(settings) / "sessions"))
    inproc = time.perf_counter() - started
    service.close()
    return {"transcripts": len(SESSIONS), "lines": lines,
            "spawned_ms_per_100_lines": round(spawned * 1000 / lines * 100, 1),
            "in_process_ms_per_100_lines": round(inproc * 1000 / lines * 100, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--sizes", type=int, nargs="*")
    ap.add_argument("--spawns", type=int)
    ap.add_argument("--out", default=str(HERE / "results" / "hooks.json"))
    args = ap.parse_args()
    sizes = args.sizes or ([500, 2000] if args.quick else [10_000, 100_000])
    spawns = args.spawns or (6 if args.quick else 40)
    results: dict = {"quick": args.quick, "sizes": []}
    with tempfile.TemporaryDirectory(prefix="memvault-hooks-bench-") as tmp:
        work = Path(tmp)
        for size in sizes:
            r = measure(size, spawns, work)
            results["sizes"].append(r)
            print(f"{r['memories']:>7} memories ({r['thread_memories']} in the thread): "
                  f"session-start p50 {r['session_start']['p50_ms']} / p95 {r['session_start']['p95_ms']} ms, "
                  f"prompt p50 {r['prompt']['p50_ms']} / p95 {r['prompt']['p95_ms']} ms, "
                  f"stop (detached) p95 {r['stop_detached']['p95_ms']} ms, "
                  f"bare python spawn p50 {r['bare_python_spawn']['p50_ms']} ms", flush=True)
        results["capture"] = capture_cost(work)
        c = results["capture"]
        print(f"capture: {c['lines']} transcript lines of {c['transcripts']} sessions: "
              f"{c['spawned_ms_per_100_lines']} ms per 100 lines spawned, {c['in_process_ms_per_100_lines']} in-process")
    results["targets"] = {"session_start_p95_ms": 300, "prompt_p95_ms": 250}
    Path(args.out).parent.mkdir(exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
