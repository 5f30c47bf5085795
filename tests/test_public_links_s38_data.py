"""Session 38's first held-out decision records (bench/data/public_links/adr_projects_s38.json): their shape, not the linker.

The file is a held-out benchmark: nothing here may run the linker on it (that is done once, by the lead, through
`bench/public_links.py --held-out-s38`). What can go wrong before that run is the transcription: a label naming a
record that is not there, a pair written newer-first (it would count as "wrong: backwards"), a project without the
licence it was taken under, a repository some earlier set already used, an "unnamed" update whose newer record
does cite the older one's number after all, or the committed file drifting from its builder.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

from spawn import ROOT

DATA = ROOT / "bench" / "data" / "public_links"
S38 = json.loads((DATA / "adr_projects_s38.json").read_text(encoding="utf-8"))
PROJECTS = S38["projects"]
#: The files of the earlier sets (sessions 33 to 37, listed in the README beside the data): no repository repeated.
EARLIER = ("adr_projects.json", "adr_projects_more.json", "adr_projects_s35.json", "adr_projects_s36.json",
           "adr_projects_s37.json")
#: Permissive licences only (the first word of a project's `licence`).
PERMISSIVE = {"MIT", "Apache-2.0", "CC0-1.0", "BSD-2-Clause", "CC-BY-4.0"}
#: A record's number as its memory heads it: "BIP 16: ", "EIP-2200: ", "XLS-37: ", "CIP-36: ".
NUMBER = re.compile(r"^(?:BIP |EIP-|XLS-|CIP-)(\d+)")


def _builder():
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import build_adr_held_out_s38 as builder  # bench/ is not a package: the builder is imported from its folder
    finally:
        sys.path.remove(str(ROOT / "bench"))
    return builder


def test_the_set_is_as_large_as_its_readme_says():
    assert len({p["repo"] for p in PROJECTS}) >= 4
    assert sum(len(p["memories"]) for p in PROJECTS) >= 250
    assert sum(len(p["updates"]) for p in PROJECTS) >= 13
    assert sum(len(p["reports"]) for p in PROJECTS) >= 20
    assert sum(len(p["ambiguous"]) for p in PROJECTS) >= 10
    assert sum(len(p["updates_unnamed"]) for p in PROJECTS) >= 10  # new state in new words, no shared number


def test_every_project_is_held_out_from_a_repository_not_used_before():
    assert all(p["split"] == "held-out-s38" for p in PROJECTS)
    repos = [p["repo"] for p in PROJECTS]
    assert len(repos) == len(set(repos))
    earlier = {p["repo"] for name in EARLIER for p in json.loads((DATA / name).read_text(encoding="utf-8"))["projects"]}
    assert len(earlier) >= 30 and not set(repos) & earlier
    readme = (DATA / "README.md").read_text(encoding="utf-8")
    assert all(repo in readme for repo in repos)  # every source is named beside the data
    assert "held-out-s38" in readme


def test_every_project_and_record_says_where_it_comes_from():
    for p in PROJECTS:
        assert p["repo"].count("/") == 1 and p["licence"] and p["source"], p["name"]
        assert isinstance(p["licence_verified"], bool), p["name"]
        assert p["licence"].split(" ")[0].rstrip(",") in PERMISSIVE, p["name"]
        assert p["licence_verified"] or "NOT verified" in p["licence"], p["name"]  # an unverified one says so
        for m in p["memories"]:
            assert m["text"].strip() and m["file"], (p["name"], m["id"])
            assert re.fullmatch(r"[0-9a-f]{40}", m["commit"]), (p["name"], m["id"])
            assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", m["date"]), (p["name"], m["id"])


def test_every_label_names_records_of_its_project_older_first():
    for p in PROJECTS:
        order = {m["id"]: (m["date"], m["id"]) for m in p["memories"]}
        assert len(order) == len(p["memories"]), p["name"]  # ids unique
        updates = {tuple(u) for u in p["updates"]}
        assert len(updates) == len(p["updates"]), p["name"]
        for older, newer in updates:
            assert older in order and newer in order, (p["name"], older, newer)
            assert order[older] < order[newer], (p["name"], older, newer)  # written in that order
        assert {tuple(u) for u in p["updates_unnamed"]} <= updates, p["name"]
        for pair in p["ambiguous"]:
            assert set(pair) <= set(order), (p["name"], pair)
            assert order[pair[0]] < order[pair[1]], (p["name"], pair)
            assert tuple(pair) not in updates and tuple(reversed(pair)) not in updates, (p["name"], pair)
        reports = set(p["reports"])
        assert reports <= set(order), p["name"]
        assert not reports & {x for pair in p["updates"] + p["ambiguous"] for x in pair}, p["name"]


def test_a_record_is_written_under_its_own_number():
    for p in PROJECTS:
        reports = set(p["reports"])
        for m in p["memories"]:
            if m["id"] in reports:
                continue
            number = NUMBER.match(m["text"])
            assert number and int(number.group(1)) == int(re.sub(r"\D", "", m["id"])), (p["name"], m["id"])


def test_an_unnamed_update_does_not_cite_the_older_record_by_number():
    text = {(p["name"], m["id"]): m["text"] for p in PROJECTS for m in p["memories"]}
    for p in PROJECTS:
        for older, newer in p["updates_unnamed"]:
            number = NUMBER.match(text[p["name"], older]).group(1)
            cited = re.findall(r"\b0*(\d+)\b", text[p["name"], newer].split(":", 1)[1])
            assert number not in cited, (p["name"], older, newer)


def test_the_file_is_what_its_builder_writes():
    builder = _builder()
    assert builder.build() == S38
    written = json.dumps(builder.build(), indent=1, ensure_ascii=False) + "\n"
    assert (DATA / "adr_projects_s38.json").read_text(encoding="utf-8") == written  # byte for byte


def test_public_links_knows_the_held_out_set_only_behind_its_flag():
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "public_links.py"), "--help"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "--held-out-s38" in run.stdout
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import public_links  # bench/ is not a package: the bench script is imported from its folder
    finally:
        sys.path.remove(str(ROOT / "bench"))
    for default in (public_links.load_projects(), public_links.load_projects(held_out_s37=True)):
        assert not any(p["split"] == "held-out-s38" for p in default)
    chosen = public_links.load_projects(held_out_s38=True)
    assert [p["name"] for p in chosen] == [p["name"] for p in PROJECTS]
