"""bench/real_sessions.py's data: every question is answerable in principle, and held-out-3 stays out of default runs.

A question counts as answered when its answer keys appear in what the hooks inject, so a
key the earlier sessions never state would be a miss no capture could fix. These checks
read the JSON only; they never replay a session through the hooks (held-out-3 must not be
measured before the lead's one run).
"""

from __future__ import annotations

import json
import sys

import pytest
from spawn import ROOT

BENCH = ROOT / "bench"
sys.path.insert(0, str(BENCH))
import real_sessions  # noqa: E402

PROJECTS = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(real_sessions.DATA.glob("*.json"))]


def transcript_text(project: dict) -> str:
    """Everything the earlier sessions say: prompts, replies, commands, outputs, edits, written files."""
    return "\n".join(part for s in project["sessions"] for step in s["steps"] for part in step[1:]
                     if isinstance(part, str)).lower()


@pytest.mark.parametrize("project", PROJECTS, ids=[p["name"] for p in PROJECTS])
def test_every_answer_key_is_in_the_earlier_sessions(project):
    text = transcript_text(project)
    missing = [(q["ask"], k) for q in project["questions"] for k in q["keys"] if k.lower() not in text]
    assert not missing, f"keys no earlier session states: {missing}"


@pytest.mark.parametrize("project", PROJECTS, ids=[p["name"] for p in PROJECTS])
def test_every_project_has_a_known_split_a_source_and_questions(project):
    assert project["split"] in real_sessions.SPLITS
    assert project["source"]["repo"] and project["source"]["license"]
    assert project["questions"] and all(q["keys"] for q in project["questions"])


def test_held_out_3_has_the_size_the_issue_asks_for():
    fresh = [p for p in PROJECTS if p["split"] == "held-out-3"]
    assert len(fresh) >= 2
    assert sum(len(p["questions"]) for p in fresh) >= 30
    assert sum(len(p["negatives"]) for p in fresh) >= 10
    older = {p["source"]["repo"] for p in PROJECTS if p["split"] != "held-out-3"}
    assert not older & {p["source"]["repo"] for p in fresh}, "held-out-3 reuses a project already in the data"


def test_held_out_4_is_fresh_and_has_the_size_the_brief_asks_for():
    fresh = [p for p in PROJECTS if p["split"] == "held-out-4"]
    assert len(fresh) >= 3
    assert sum(len(p["questions"]) for p in fresh) >= 30
    assert sum(len(p["negatives"]) for p in fresh) >= 10
    older = {p["source"]["repo"] for p in PROJECTS if p["split"] != "held-out-4"}
    assert not older & {p["source"]["repo"] for p in fresh}, "held-out-4 reuses a project already in the data"


def test_held_out_5_is_fresh_and_has_the_size_the_brief_asks_for():
    fresh = [p for p in PROJECTS if p["split"] == "held-out-5"]
    assert len(fresh) >= 3
    assert sum(len(p["questions"]) for p in fresh) >= 30
    assert sum(len(p["negatives"]) for p in fresh) >= 10
    assert all(len(p["sessions"]) >= 2 for p in fresh), "a later-session question needs earlier sessions"
    older = {p["source"]["repo"] for p in PROJECTS if p["split"] != "held-out-5"}
    assert not older & {p["source"]["repo"] for p in fresh}, "held-out-5 reuses a project already in the data"


def test_a_default_run_leaves_the_by_name_splits_out_and_naming_one_runs_only_it():
    default = {p["split"] for p in real_sessions.projects(None)}
    assert not default & {"held-out-3", "held-out-4", "held-out-5"} and {"tuning", "held-out", "held-out-2"} <= default
    for split in ("held-out-3", "held-out-4", "held-out-5"):
        assert {p["split"] for p in real_sessions.projects(split)} == {split}
