"""Automatic memory on real sessions: does a fresh session get, from what the hooks inject, what earlier ones settled?

The sessions are excerpts of coding sessions their authors published in public
repositories (bench/data/real_sessions/, one file per project; its README names the
sources and licences). Each project's earlier sessions are written as Claude Code
transcripts and replayed through the real hooks (`stop` every few steps, `pre-compact`
at a compaction, `session-end` at the end; in-process through server.hooks.run.main,
the code the installed command runs). Then every question starts a **fresh session**:
`session-start`, then one `prompt` with the question. A question counts as answered when
every one of its answer keys (case-insensitive strings the earlier sessions state) is in
what those two injected; no language model judges anything, and a key can be matched by
an injected turn that merely quotes it (so a figure is an upper bound on usefulness, a
miss is a real miss).

Negatives are prompts the sessions do not answer ("thanks", "hi", unrelated questions):
one counts as injected when its `prompt` hook injected anything (the session-start brief
does not depend on the prompt, so it is not counted against them).

Projects are split: `tuning` (looked at while changing capture and injection),
`held-out` (never looked at while tuning), `held-out-2` (more projects whose questions
were committed before the bench first ran on them; measured once, then its misses were
analysed into general classes that capture and injection were changed for, so it is no
longer clean: see the data README), `held-out-3` (written while capture was being changed,
measured once unexamined, then analysed, so no longer clean either), `held-out-4` (three
more projects written before anything ran on them, measured once, then analysed: no longer
clean) and `held-out-5` (three more projects whose questions were committed before anything
ran on them: it runs only when asked for by name, once, on the final code). The by-name
splits write results files of their own.
Each split is reported on its own line. A missed question or an injected negative keeps
what was injected (cut to INJECTED_KEPT characters), so a reader can see why.

    python bench/real_sessions.py                       # every split but held-out-3/4/5, bench/results/real_sessions.json
    python bench/real_sessions.py --split tuning        # only the tuning projects
    python bench/real_sessions.py --split held-out-3    # that set alone, bench/results/real_sessions-held-out-3.json
    python bench/real_sessions.py --split held-out-4    # that set alone, bench/results/real_sessions-held-out-4.json
    python bench/real_sessions.py --split held-out-5    # the clean set alone (once), bench/results/real_sessions-held-out-5.json
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from value_hooks import add_noise, append_lines, context_of, hook, transcript_lines  # noqa: E402

DATA = HERE / "data" / "real_sessions"
#: Steps between two `stop` captures while a session is replayed (a host stops after each reply).
STOP_EVERY = 3
#: The splits, in the order they are reported.
SPLITS = ("tuning", "held-out", "held-out-2", "held-out-3", "held-out-4", "held-out-5")
#: Splits left out of a run unless named with --split: a default run while tuning must not
#: look at them, or they stop being a clean measure.
BY_NAME_ONLY = ("held-out-3", "held-out-4", "held-out-5")
#: Characters of injected text kept in the results for a miss or an injected negative.
INJECTED_KEPT = 1500


def projects(split: str | None) -> list[dict]:
    """The projects of one split, or (split None) of every split but those run by name only."""
    found = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(DATA.glob("*.json"))]
    return [p for p in found if p["split"] == split or (split is None and p["split"] not in BY_NAME_ONLY)]


def replay(project: dict, work: Path, env: dict[str, str]) -> Path:
    """The project's earlier sessions through the capture hooks; returns the repository folder."""
    repo = work / project["name"]
    (repo / ".git").mkdir(parents=True, exist_ok=True)
    for session in project["sessions"]:
        path = work / f"{session['id']}.jsonl"
        groups = transcript_lines(session, repo)
        for cut in range(0, len(groups), STOP_EVERY):
            append_lines(path, groups[cut : cut + STOP_EVERY])
            compacted = any(step[0] == "compact" for step in session["steps"][cut : cut + STOP_EVERY])
            hook("pre-compact" if compacted else "stop", {
                "session_id": session["id"], "transcript_path": str(path), "cwd": str(repo),
                "hook_event_name": "PreCompact" if compacted else "Stop"}, env)
        hook("session-end", {"session_id": session["id"], "transcript_path": str(path), "cwd": str(repo),
                             "hook_event_name": "SessionEnd", "reason": "other"}, env)
    return repo


def fresh_session(repo: Path, env: dict[str, str], session_id: str, prompt: str) -> tuple[str, str]:
    """What a new session sees: (session-start injection, the prompt's injection)."""
    start = context_of(hook("session-start", {"session_id": session_id, "cwd": str(repo), "source": "startup",
                                              "hook_event_name": "SessionStart"}, env))
    said = context_of(hook("prompt", {"session_id": session_id, "cwd": str(repo), "prompt": prompt,
                                      "hook_event_name": "UserPromptSubmit"}, env))
    return start, said


def stored_kinds(home: Path, thread: str) -> dict[str, int]:
    import sqlite3

    con = sqlite3.connect(home / "memvault.db")
    try:
        rows = con.execute("SELECT kind, COUNT(*) FROM memories WHERE thread = ? GROUP BY kind", (thread,)).fetchall()
    finally:
        con.close()
    return dict(rows)


def run_project(project: dict, work: Path, env: dict[str, str]) -> dict:
    from server.budget import estimate_tokens

    repo = replay(project, work, env)
    questions = []
    for i, q in enumerate(project["questions"]):
        start, said = fresh_session(repo, env, f"{project['name']}-q{i}", q["ask"])
        keys = [k.lower() for k in q["keys"]]
        both = (start + "\n" + said).lower()
        answered = all(k in both for k in keys)
        questions.append({
            "ask": q["ask"], "kind": q["kind"], "keys": q["keys"],
            "answered": answered,
            "from_start": all(k in start.lower() for k in keys),
            "from_prompt": all(k in said.lower() for k in keys),
            "start_tokens": estimate_tokens(start), "prompt_tokens": estimate_tokens(said),
            # What a miss was given instead: the evidence for why it missed.
            **({} if answered else {"missing_keys": [k for k in q["keys"] if k.lower() not in both],
                                   "injected_start": start[:INJECTED_KEPT], "injected_prompt": said[:INJECTED_KEPT]}),
        })
    negatives = []
    for i, q in enumerate(project["negatives"]):
        _, said = fresh_session(repo, env, f"{project['name']}-n{i}", q["ask"])
        negatives.append({"ask": q["ask"], "kind": q["kind"], "injected": bool(said.strip()),
                          "prompt_tokens": estimate_tokens(said),
                          **({"injected_prompt": said[:INJECTED_KEPT]} if said.strip() else {})})
    home = Path(env["MEMVAULT_HOME"])
    from server.config import repo_thread

    return {"project": project["name"], "split": project["split"], "source": project["source"]["repo"],
            "stored": stored_kinds(home, repo_thread(repo) or ""), "questions": questions, "negatives": negatives,
            "example_start": start}


def summarise(results: list[dict]) -> dict:
    qs = [q for p in results for q in p["questions"]]
    ns = [n for p in results for n in p["negatives"]]
    if not qs:
        return {}
    by_kind: dict[str, list[bool]] = {}
    for q in qs:
        by_kind.setdefault(q["kind"], []).append(q["answered"])
    neg_kind: dict[str, list[bool]] = {}
    for n in ns:
        neg_kind.setdefault(n["kind"], []).append(n["injected"])
    tokens = [q["start_tokens"] + q["prompt_tokens"] for q in qs]
    return {
        "projects": [p["project"] for p in results], "questions": len(qs),
        "answered": sum(q["answered"] for q in qs), "answered_share": round(sum(q["answered"] for q in qs) / len(qs), 3),
        "from_start_share": round(sum(q["from_start"] for q in qs) / len(qs), 3),
        "from_prompt_share": round(sum(q["from_prompt"] for q in qs) / len(qs), 3),
        "by_kind": {k: f"{sum(v)}/{len(v)}" for k, v in sorted(by_kind.items())},
        "tokens_per_session_mean": round(sum(tokens) / len(tokens), 1), "tokens_per_session_max": max(tokens),
        "negatives": len(ns), "negatives_injected": sum(n["injected"] for n in ns),
        "negatives_injected_share": round(sum(n["injected"] for n in ns) / len(ns), 3) if ns else 0.0,
        "negatives_by_kind": {k: f"{sum(v)}/{len(v)} injected" for k, v in sorted(neg_kind.items())},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", choices=SPLITS,
                    help=f"only these projects (default: every split but {', '.join(BY_NAME_ONLY)})")
    ap.add_argument("--noise", type=int, default=300, help="unrelated memories in other threads (default 300)")
    ap.add_argument("--out", help="results file (default bench/results/real_sessions.json; a by-name-only split "
                                  "writes real_sessions-<split>.json, so its one run does not overwrite the others)")
    args = ap.parse_args()
    if args.out is None:
        name = f"real_sessions-{args.split}.json" if args.split in BY_NAME_ONLY else "real_sessions.json"
        args.out = str(HERE / "results" / name)
    chosen = projects(args.split)
    results = []
    with tempfile.TemporaryDirectory(prefix="memvault-real-") as tmp:
        for project in chosen:  # each project in a store of its own: one user, one repository
            work = Path(tmp) / project["name"]
            env = {"MEMVAULT_HOME": str(work / "home"), "MEMVAULT_EMBEDDER": "hash"}
            add_noise(work / "home", args.noise)
            results.append(run_project(project, work, env))
    out = {"summary": {split: summarise([r for r in results if r["split"] == split]) for split in SPLITS},
           "noise_memories": args.noise, "targets": {"answered_share": 0.7, "tokens_per_session_mean": 1000,
                                                     "negatives_injected_share": 0.1},
           "projects": results}
    for p in results:
        for q in p["questions"]:
            print(f"{p['split']:<10} {p['project']:<18} {'ok ' if q['answered'] else 'MISS'} [{q['kind']}] {q['ask']}"
                  f"  ({q['start_tokens']}+{q['prompt_tokens']} tokens)"
                  + ("" if q["answered"] else f"  missing {q['missing_keys']}"))
        for n in p["negatives"]:
            print(f"{p['split']:<10} {p['project']:<18} {'INJ' if n['injected'] else 'ok '} [negative/{n['kind']}] {n['ask']}")
        print(f"  stored: {p['stored']}")
    for split, s in out["summary"].items():
        if s:
            print(f"\n{split}: {s['answered']}/{s['questions']} answered ({s['answered_share']:.0%}; session start alone "
                  f"{s['from_start_share']:.0%}, prompt alone {s['from_prompt_share']:.0%}), by kind {s['by_kind']}; "
                  f"tokens per session {s['tokens_per_session_mean']} mean, {s['tokens_per_session_max']} max; "
                  f"negatives injected {s['negatives_injected']}/{s['negatives']} {s['negatives_by_kind']}")
    Path(args.out).parent.mkdir(exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
