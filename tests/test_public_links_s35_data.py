"""Session 35's held-out decision records (bench/data/public_links/adr_projects_s35.json): their shape, not the linker.

The file is a held-out benchmark: nothing here may run the linker on it (that is done once, by the lead, through
`bench/public_links.py --held-out-s35`). What can go wrong before that run is the transcription: a label naming a
record that is not there, a pair written newer-first (it would count as "wrong: backwards"), a project without the
licence it was taken under, a repository already used by the tuning or earlier held-out sets, or the committed file
drifting from its builder.
"""

from __future__ import annotations

import json
import subprocess
import sys

from spawn import ROOT

DATA = ROOT / "bench" / "data" / "public_links"
S35 = json.loads((DATA / "adr_projects_s35.json").read_text(encoding="utf-8"))
PROJECTS = S35["projects"]
#: Repositories of the earlier sets (sessions 33 and 34): a held-out set must not repeat one.
USED = {"alphagov/forms", "ministryofjustice/modernisation-platform", "alphagov/govuk-infrastructure",
        "ministryofjustice/cloud-platform", "thomvaill/log4brains", "backstage/backstage", "alphagov/govuk-aws",
        "alphagov/gsp", "cisagov/manage.get.gov"}


def test_the_set_is_as_large_as_promised():
    assert len({p["repo"] for p in PROJECTS}) >= 8
    assert sum(len(p["memories"]) for p in PROJECTS) >= 150
    assert sum(len(p["updates"]) for p in PROJECTS) >= 25
    assert sum(len(p["reports"]) for p in PROJECTS) >= 10
    assert sum(len(p["ambiguous"]) for p in PROJECTS) >= 5
    assert sum(len(p["updates_unnamed"]) for p in PROJECTS) >= 3  # new state in new words, no shared number


def test_every_project_is_held_out_from_a_repository_not_used_before():
    assert all(p["split"] == "held-out-s35" for p in PROJECTS)
    repos = [p["repo"] for p in PROJECTS]
    assert len(repos) == len(set(repos))
    assert not set(repos) & USED
    earlier = {p["repo"] for name in ("adr_projects.json", "adr_projects_more.json")
               for p in json.loads((DATA / name).read_text(encoding="utf-8"))["projects"]}
    assert not set(repos) & earlier


def test_every_project_and_record_says_where_it_comes_from():
    for p in PROJECTS:
        assert p["repo"].count("/") == 1 and p["licence"] and p["source"], p["name"]
        assert isinstance(p["licence_verified"], bool), p["name"]
        assert p["licence"].split(" ")[0] in {"MIT", "Apache-2.0"}, p["name"]  # permissive only
        for m in p["memories"]:
            assert m["text"].strip() and m["file"], (p["name"], m["id"])
            assert m["commit"], (p["name"], m["id"])


def test_every_label_names_records_of_its_project_older_first():
    for p in PROJECTS:
        order = {m["id"]: (m["date"], m["id"]) for m in p["memories"]}
        assert len(order) == len(p["memories"]), p["name"]  # ids unique
        for older, newer in p["updates"]:
            assert older in order and newer in order, (p["name"], older, newer)
            assert order[older] < order[newer], (p["name"], older, newer)  # written in that order
        assert {tuple(u) for u in p["updates_unnamed"]} <= {tuple(u) for u in p["updates"]}, p["name"]
        for pair in p["ambiguous"]:
            assert set(pair) <= set(order) and tuple(pair) not in {tuple(u) for u in p["updates"]}, (p["name"], pair)
        reports = set(p["reports"])
        assert reports <= set(order), p["name"]
        assert not reports & {x for pair in p["updates"] + p["ambiguous"] for x in pair}, p["name"]


def test_the_file_is_what_its_builder_writes(tmp_path):
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import build_adr_held_out_s35 as builder  # bench/ is not a package: the builder is imported from its folder
    finally:
        sys.path.remove(str(ROOT / "bench"))
    assert builder.build() == S35


def test_public_links_knows_the_held_out_set_only_behind_its_flag():
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "public_links.py"), "--help"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "--held-out-s35" in run.stdout
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import public_links  # bench/ is not a package: the bench script is imported from its folder
    finally:
        sys.path.remove(str(ROOT / "bench"))
    default = public_links.load_projects(held_out_s35=False)
    assert not any(p["split"] == "held-out-s35" for p in default)
    assert [p["name"] for p in public_links.load_projects(held_out_s35=True)] == [p["name"] for p in PROJECTS]
