"""The public decision records (bench/data/public_links/): their labels resolve, and the split stays as committed.

The figures of bench/public_links.py count a link wrong unless the authors marked the pair, so every labelled
pair must name records of its project, older first. The split is by repository and was fixed before anything
was run on the records: a project moved between tuning and held out afterwards would make the held-out figure
one that was tuned on, so the held-out projects are named here.
"""

from __future__ import annotations

import json
import subprocess
import sys

from spawn import ROOT

DATA = ROOT / "bench" / "data" / "public_links"
PROJECTS = [p for name in ("adr_projects.json", "adr_projects_more.json")
            for p in json.loads((DATA / name).read_text(encoding="utf-8"))["projects"]]
#: Held out when committed (sessions 33 and 34): run once each, never read to tune.
HELD_OUT = {"moj-cloud-platform", "gov-infrastructure", "gsp", "getgov"}


def test_every_labelled_pair_names_records_of_its_project_older_first():
    for p in PROJECTS:
        dates = {m["id"]: m["date"] for m in p["memories"]}
        assert len(dates) == len(p["memories"]), p["name"]
        for older, newer in p["updates"]:
            assert older in dates and newer in dates, (p["name"], older, newer)
            assert (dates[older], older) < (dates[newer], newer), (p["name"], older, newer)  # written in that order
        for pair in p["ambiguous"]:
            assert set(pair) <= set(dates), (p["name"], pair)
        assert set(p.get("reports", [])) <= set(dates), p["name"]


def test_the_split_is_by_repository_and_the_held_out_projects_stay_held_out():
    assert {p["name"] for p in PROJECTS if p["split"] == "held_out"} == HELD_OUT
    assert all(p["split"] in ("tuning", "held_out") for p in PROJECTS)
    tuning = {p["repo"] for p in PROJECTS if p["split"] == "tuning"}
    held = {p["repo"] for p in PROJECTS if p["split"] == "held_out"}
    assert not tuning & held  # no repository on both sides
    assert all(p["repo"] and p["licence"] for p in PROJECTS)


def test_public_links_runs_on_a_project_with_the_lexical_embedder(tmp_path):
    out = tmp_path / "links.json"
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "public_links.py"), "--split", "tuning",
                          "--projects", "log4brains", "--embedder", "hash", "--strip-numbers", "--out", str(out)],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    found = json.loads(out.read_text())
    assert list(found["by_project"]) == ["log4brains"] and found["strip_numbers"] is True
    assert found["splits"]["tuning"]["memories"] == 15
