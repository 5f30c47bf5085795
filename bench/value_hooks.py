"""The value of automatic memory: do later sessions get what earlier ones settled, from the injected context alone?

Ten scripted projects (bench/data/hook_sessions.json), each with two or three earlier
coding sessions written as Claude Code transcripts (user prompts, assistant text, Bash
tool calls with results that pass or fail, edits, a compaction summary) and a later
session that asks about decisions, commands, preferences and fixes from the earlier
ones. The earlier sessions go through the real hooks (`stop` / `pre-compact` capture,
in-process through server.hooks.run.main, the same code the command runs); the later
session runs `session-start` and one `prompt` per question. A question counts as
answered when every one of its answer keys appears in the context injected so far in
that session (session start + the prompts up to and including it); "strict" counts only
the session start and that question's own injection. No language model judges anything.

Reported: share answered (target >= 80 %), estimated tokens injected per later session
(target <= 1,000 on average), and a privacy check over everything memvault wrote (the
database, the daily logs, the hook state and log): 0 planted secrets and 0 words from
<private> spans. Around the projects the store holds --noise unrelated memories.

    python bench/value_hooks.py            # the README figures
    python bench/value_hooks.py --quick    # CI: the same sessions (it is fast), less noise
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

DATA = HERE / "data" / "hook_sessions.json"
SESSIONS_DOC = json.loads(DATA.read_text(encoding="utf-8"))
#: Every earlier session of every project, in order (bench/hooks.py times their capture).
SESSIONS = [s for p in SESSIONS_DOC["projects"] for s in p["sessions"]]


def transcript_lines(session: dict, cwd: Path) -> list[list[dict]]:
    """A scripted session as Claude Code transcript lines, grouped by step."""
    from datetime import datetime, timedelta

    at = datetime.fromisoformat(session.get("at", "2026-09-01T09:00:00"))
    n = 0

    def base(kind: str) -> dict:
        nonlocal n, at
        n += 1
        at += timedelta(seconds=20)
        return {"type": kind, "uuid": f"{session['id']}-{n}", "sessionId": session["id"], "cwd": str(cwd),
                "timestamp": at.isoformat(timespec="milliseconds") + "Z", "version": "2.1.0"}

    groups = []
    for step in session["steps"]:
        kind, lines = step[0], []
        if kind == "user":
            lines.append({**base("user"), "message": {"role": "user", "content": step[1]}})
        elif kind == "assistant":
            lines.append({**base("assistant"), "message": {"id": f"msg-{n}", "role": "assistant", "model": "claude",
                          "content": [{"type": "text", "text": step[1]}]}})
        elif kind in ("run", "fail"):
            tool_id = f"toolu_{session['id']}_{n}"
            lines.append({**base("assistant"), "message": {"id": f"msg-{n}", "role": "assistant", "content": [
                {"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": step[1], "description": "run"}}]}})
            output = step[2] if len(step) > 2 else ""
            failed = kind == "fail"
            lines.append({**base("user"), "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": tool_id, "content": f"Exit code 1\n{output}" if failed else output,
                 "is_error": failed}]},
                "toolUseResult": {"stdout": "" if failed else output, "stderr": output if failed else "",
                                  "interrupted": False, "isImage": False}})
        elif kind in ("edit", "multiedit", "write"):
            # ["edit", path] or ["edit", path, old, new]; ["multiedit", path, old, new]; ["write", path, content]
            tool_id = f"toolu_{session['id']}_{n}"
            old, new = (step[2], step[3]) if len(step) > 3 else ("x", "y")
            path = step[1] if step[1].startswith("/") else f"{cwd}/{step[1]}"  # hosts send absolute paths
            if kind == "write":
                name, tool_input = "Write", {"file_path": path, "content": step[2] if len(step) > 2 else ""}
            elif kind == "multiedit":
                name, tool_input = "MultiEdit", {"file_path": path, "edits": [{"old_string": old, "new_string": new}]}
            else:
                name, tool_input = "Edit", {"file_path": path, "old_string": old, "new_string": new}
            lines.append({**base("assistant"), "message": {"id": f"msg-{n}", "role": "assistant", "content": [
                {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}]}})
            lines.append({**base("user"), "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": tool_id, "content": f"The file {step[1]} has been updated."}]}})
        elif kind == "compact":
            lines.append({**base("system"), "subtype": "compact_boundary", "content": "Conversation compacted",
                          "compactMetadata": {"trigger": "auto", "preTokens": 160000}})
            lines.append({**base("user"), "isCompactSummary": True, "message": {"role": "user", "content": step[1]}})
        elif kind == "meta":
            lines.append({**base("user"), "isMeta": True, "message": {"role": "user", "content": step[1]}})
        else:
            raise ValueError(f"unknown step {kind!r} in session {session['id']}")
        groups.append(lines)
    return groups


def append_lines(path: Path, groups: list[list[dict]]) -> int:
    with open(path, "a", encoding="utf-8") as handle:
        lines = [line for group in groups for line in group]
        for line in lines:
            handle.write(json.dumps(line) + "\n")
    return len(lines)


def write_transcript(session: dict, path: Path, cwd: Path) -> int:
    """Write a scripted session as a Claude Code JSONL transcript; returns its number of lines."""
    return append_lines(path, transcript_lines(session, cwd))


def hook(event: str, payload: dict, env: dict[str, str], foreground: bool = True) -> str:
    """Run one hook through the command's own entry point, in-process; returns its stdout.

    foreground=False is what the command does for a capture: hand it to a running server
    (or detach a process)."""
    from server.hooks.run import main

    out = io.StringIO()
    old = dict(os.environ)
    os.environ.update(env)
    try:
        main(event, "claude-code", foreground=foreground, stdin=io.BytesIO(json.dumps(payload).encode()), stdout=out)
    finally:
        os.environ.clear()
        os.environ.update(old)
    return out.getvalue()


def context_of(stdout: str) -> str:
    if not stdout.strip():
        return ""
    return json.loads(stdout)["hookSpecificOutput"]["additionalContext"]


def add_noise(home: Path, count: int) -> None:
    from corpus import memories

    from server.config import Settings
    from server.hooks.work import open_light

    service = open_light(Settings(home=home, embedder="hash"), create=True)
    assert service is not None
    try:
        for i, text in enumerate(memories(count, seed=11)):
            service.remember(text, kind="note", thread=f"other-project-{i % 5}", source="import", daily=False)
    finally:
        service.close()


def crowd(home: Path, thread: str, count: int, seed: int) -> None:
    """`count` unrelated statements in the project's own thread, newer than its sessions."""
    from corpus import memories

    from server.config import Settings
    from server.hooks.work import open_light

    service = open_light(Settings(home=home, embedder="hash"), create=True)
    assert service is not None
    try:
        for i, text in enumerate(memories(count, seed=seed)):
            service.remember(text, kind=("decision", "preference", "fact", "snippet")[i % 4], thread=thread,
                             created_at="2026-10-01T00:00:00Z", source="import", daily=False)
    finally:
        service.close()


def start_server(home: Path, repo: Path, embedder: str):  # noqa: ANN201 - a Popen
    """A `memvault serve` on the store, as a host would run it; returns once its hook relay listens
    and its model has embedded the backlog (checked through `memvault info`)."""
    import subprocess
    import time

    exe = str(Path(sys.executable).with_name("memvault"))
    env = {**os.environ, "MEMVAULT_HOME": str(home), "MEMVAULT_EMBEDDER": embedder}
    proc = subprocess.Popen([exe, "serve"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=env, cwd=repo)
    socket_path = home / "hooks" / "relay" / f"{proc.pid}.sock"
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        if socket_path.exists():
            info = subprocess.run([exe, "info"], capture_output=True, env=env, timeout=120)
            if json.loads(info.stdout or b"{}").get("pending_embeddings") == 0:
                return proc
        time.sleep(1)
    proc.kill()
    raise SystemExit("the server did not come up (relay socket and embedded backlog) in 10 minutes")


def run(work: Path, noise: int, crowding: int = 0, server: str | None = None) -> dict:
    home = work / "home"
    env = {"MEMVAULT_HOME": str(home), "MEMVAULT_EMBEDDER": "hash"}
    add_noise(home, noise)
    results = []
    if server:
        # In-process, the injection's watchdog would end the benchmark itself: give the server's
        # first answers (model warm-up) room. The latency is bench/hooks.py's subject, not this one's.
        env["MEMVAULT_HOOK_DEADLINE"] = "30"
    running = start_server(home, work, server) if server else None
    try:
        results = _projects(work, home, env, crowding, running)
    finally:
        if running is not None:
            running.stdin.close()
            running.wait(timeout=120)
    return {"projects": results, "privacy": privacy(home, SESSIONS_DOC)}


def _projects(work: Path, home: Path, env: dict[str, str], crowding: int, server) -> list[dict]:  # noqa: ANN001
    # With a server, a prompt's recall there first embeds what the captures here queued (it drains
    # up to 128 per recall), so its answers are hybrid over everything.
    from server.budget import estimate_tokens

    results = []
    handed = 0
    for project in SESSIONS_DOC["projects"]:
        repo = work / project["name"]
        (repo / ".git").mkdir(parents=True, exist_ok=True)
        for session in project["sessions"]:
            path = work / f"{session['id']}.jsonl"
            # Like a host: a capture at every stop (each few steps here), then at the session's end.
            groups = transcript_lines(session, repo)
            for cut in range(0, len(groups), 4):
                append_lines(path, groups[cut : cut + 4])
                compacted = any(step[0] == "compact" for step in session["steps"][cut : cut + 4])
                hook("pre-compact" if compacted else "stop", {
                    "session_id": session["id"], "transcript_path": str(path), "cwd": str(repo),
                    "hook_event_name": "PreCompact" if compacted else "Stop"}, env, foreground=server is None)
                if server is not None:
                    handed += 1
            hook("session-end", {"session_id": session["id"], "transcript_path": str(path), "cwd": str(repo),
                                 "hook_event_name": "SessionEnd", "reason": "other"}, env, foreground=server is None)
            if server is not None:
                handed += 1
        if server is not None:  # the server captures on its threads: wait for them, as the next session would
            _wait_for_server_captures(home, handed)
        if crowding:
            crowd(home, project["name"], crowding, seed=len(results))
        later = f"{project['name']}-later"
        start = context_of(hook("session-start", {"session_id": later, "cwd": str(repo), "source": "startup",
                                                  "hook_event_name": "SessionStart"}, env))
        seen = start
        tokens = estimate_tokens(start)
        questions = []
        for q in project["questions"]:
            injected = context_of(hook("prompt", {"session_id": later, "cwd": str(repo), "prompt": q["ask"],
                                                  "hook_event_name": "UserPromptSubmit"}, env))
            tokens += estimate_tokens(injected)
            seen += "\n" + injected
            keys = [k.lower() for k in q["keys"]]
            questions.append({
                "ask": q["ask"], "type": q["type"],
                "answered": all(k in seen.lower() for k in keys),
                "strict": all(k in (start + "\n" + injected).lower() for k in keys),
                "from_start": all(k in start.lower() for k in keys),
            })
        results.append({"project": project["name"], "tokens": tokens, "start_tokens": estimate_tokens(start),
                        "questions": questions})
    return results


def _wait_for_server_captures(home: Path, count: int) -> None:
    import time

    log = home / "hooks" / "hooks.log"
    for _ in range(1200):
        done = log.read_text().count("(by the server)") if log.exists() else 0
        if done >= count:
            return
        time.sleep(0.1)
    raise SystemExit(f"the server finished {done} of {count} captures in 2 minutes")


def privacy(home: Path, doc: dict) -> dict:
    """Planted secrets and private words found anywhere memvault wrote (should be none)."""
    import sqlite3

    texts = []
    con = sqlite3.connect(home / "memvault.db")
    try:
        for table, column in (("memories", "content"), ("thread_messages", "content")):
            texts += [r[0] for r in con.execute(f"SELECT {column} FROM {table}")]  # noqa: S608 - fixed names
        texts += [str(r[0]) for r in con.execute("SELECT content FROM memories_fts")] if _has(con, "memories_fts") else []
    finally:
        con.close()
    for path in home.rglob("*"):
        if path.is_file() and path.suffix in (".md", ".json", ".log"):
            texts.append(path.read_text(encoding="utf-8", errors="replace"))
    blob = "\n".join(texts)
    secrets = [s for s in doc["planted_secrets"] if s in blob]
    private = [w for w in doc["private_words"] if w.lower() in blob.lower()]
    return {"planted_secrets": len(doc["planted_secrets"]), "secrets_found": secrets,
            "private_words": len(doc["private_words"]), "private_found": private}


def _has(con, table: str) -> bool:
    return con.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone() is not None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--noise", type=int, help="unrelated memories in other threads (default 3000; quick 300)")
    ap.add_argument("--crowd", type=int, default=0, help="also store this many unrelated statements in each project's "
                    "thread, newer than its sessions: the session start then shows those, and answers must come per prompt")
    ap.add_argument("--server", choices=("minilm", "hash"),
                    help="run a `memvault serve` with this embedder during the later sessions: the hooks then ask it "
                    "(hybrid recall through the relay) instead of searching by keyword themselves")
    ap.add_argument("--out", default=str(HERE / "results" / "value_hooks.json"))
    args = ap.parse_args()
    noise = args.noise if args.noise is not None else (300 if args.quick else 3000)
    with tempfile.TemporaryDirectory(prefix="memvault-value-") as tmp:
        result = run(Path(tmp), noise, args.crowd, args.server)
    qs = [q for p in result["projects"] for q in p["questions"]]
    answered = sum(q["answered"] for q in qs)
    tokens = [p["tokens"] for p in result["projects"]]
    by_type: dict[str, list[bool]] = {}
    for q in qs:
        by_type.setdefault(q["type"], []).append(q["answered"])
    result["summary"] = {
        "projects": len(result["projects"]), "questions": len(qs),
        "answered_share": round(answered / len(qs), 3),
        "strict_share": round(sum(q["strict"] for q in qs) / len(qs), 3),
        "from_session_start_share": round(sum(q["from_start"] for q in qs) / len(qs), 3),
        "by_type": {t: round(sum(v) / len(v), 3) for t, v in sorted(by_type.items())},
        "tokens_per_session_mean": round(sum(tokens) / len(tokens), 1), "tokens_per_session_max": max(tokens),
        "noise_memories": noise, "crowding_statements_per_thread": args.crowd, "server": args.server,
        "secrets_stored": len(result["privacy"]["secrets_found"]), "private_stored": len(result["privacy"]["private_found"]),
        "targets": {"answered_share": 0.8, "tokens_per_session_mean": 1000, "secrets_stored": 0, "private_stored": 0},
    }
    s = result["summary"]
    for p in result["projects"]:
        missed = [q["ask"] for q in p["questions"] if not q["answered"]]
        print(f"{p['project']:<18} {sum(q['answered'] for q in p['questions'])}/{len(p['questions'])} answered, "
              f"{p['tokens']} tokens injected" + (f"; missed: {missed}" if missed else ""))
    print(f"\n{s['questions']} questions over {s['projects']} projects: {s['answered_share']:.0%} answered by injected "
          f"context ({s['strict_share']:.0%} strict, {s['from_session_start_share']:.0%} by the session start alone); "
          f"by type {s['by_type']}; tokens per session {s['tokens_per_session_mean']} mean, {s['tokens_per_session_max']} max; "
          f"secrets stored {s['secrets_stored']}/{result['privacy']['planted_secrets']}, "
          f"private words stored {s['private_stored']}/{result['privacy']['private_words']}")
    Path(args.out).parent.mkdir(exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
