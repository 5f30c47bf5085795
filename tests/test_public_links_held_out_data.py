"""The held-out decision-record sets of sessions 36 (its second, "s37") and 38 ("s38", "s39"): their shape, not the
linker (bench/data/public_links/adr_projects_s3*.json).

Each set was transcribed from public records and committed before the linker ever ran on it (run once by the lead:
`bench/public_links.py --held-out-s3N`). What can go wrong before that run is the transcription: a label naming a
record that does not exist, a pair written newer-first, a record without its source, a licence that is not
permissive, a file that no longer matches its builder. One table below says what differs between the sets; every
test runs on each."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass

import pytest

from spawn import ROOT

DATA = ROOT / "bench" / "data" / "public_links"
#: Permissive licences only (the first word of a project's `licence`); "MIT-style" is the XSF's legal notice on every
#: XEP, an MIT permission notice worded for a specification.
PERMISSIVE = {"MIT", "MIT-style", "Apache-2.0", "CC0-1.0", "BSD-2-Clause", "CC-BY-4.0"}


@dataclass(frozen=True)
class HeldOut:
    name: str  # "s37": the file adr_projects_s37.json, split held-out-s37, flag --held-out-s37, its builder
    earlier: tuple[str, ...]  # the files of the sets before it: no repository repeated
    number: str  # a record's number as its memory heads it
    repos: int
    memories: int
    updates: int
    reports: int
    ambiguous: int
    unnamed: int  # new state in new words, no shared number
    unnumbered: str = ""  # a memory opening so is a record named otherwise (a KEP named by its date)
    ambiguous_in_order: bool = True  # s37 lists one ambiguous pair newer-first

    @property
    def path(self):
        return DATA / f"adr_projects_{self.name}.json"

    @property
    def projects(self) -> list[dict]:
        return json.loads(self.path.read_text(encoding="utf-8"))["projects"]


FIRST = ("adr_projects.json", "adr_projects_more.json", "adr_projects_s35.json", "adr_projects_s36.json")
SETS = [
    HeldOut("s37", FIRST, r"^(?:Aries )?(?:PEP|KEP|RFC) 0*(\d+)",  # "PEP 241: ", "KEP 2377: ", "Aries RFC 0453: "
            repos=4, memories=300, updates=30, reports=15, ambiguous=10, unnamed=20, unnumbered="KEP: ",
            ambiguous_in_order=False),
    HeldOut("s38", FIRST + ("adr_projects_s37.json",), r"^(?:BIP |EIP-|XLS-|CIP-)(\d+)",  # "BIP 16: ", "EIP-2200: "
            repos=4, memories=250, updates=13, reports=20, ambiguous=10, unnamed=10),
    HeldOut("s39", FIRST + ("adr_projects_s37.json", "adr_projects_s38.json"),
            r"^(?:XEP-|FIP-|ZIP |NEP-|ADR-)(\d+)",  # "XEP-0203: ", "FIP-0092: ", "ZIP 317: ", "ADR-054: "
            repos=5, memories=450, updates=25, reports=21, ambiguous=14, unnamed=22),
]
pytestmark = pytest.mark.parametrize("held", SETS, ids=[s.name for s in SETS])


def _bench_module(name: str):
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        # bench/ is not a package: its scripts are imported from their folder
        return __import__(name)
    finally:
        sys.path.remove(str(ROOT / "bench"))


def test_the_set_is_as_large_as_its_readme_says(held):
    projects = held.projects
    assert len({p["repo"] for p in projects}) >= held.repos
    assert sum(len(p["memories"]) for p in projects) >= held.memories
    assert sum(len(p["updates"]) for p in projects) >= held.updates
    assert sum(len(p["reports"]) for p in projects) >= held.reports
    assert sum(len(p["ambiguous"]) for p in projects) >= held.ambiguous
    assert sum(len(p["updates_unnamed"]) for p in projects) >= held.unnamed


def test_every_project_is_held_out_from_a_repository_not_used_before(held):
    projects = held.projects
    assert all(p["split"] == f"held-out-{held.name}" for p in projects)
    repos = [p["repo"] for p in projects]
    assert len(repos) == len(set(repos))
    earlier = {p["repo"] for name in held.earlier
               for p in json.loads((DATA / name).read_text(encoding="utf-8"))["projects"]}
    assert len(earlier) >= 30 and not set(repos) & earlier
    readme = (DATA / "README.md").read_text(encoding="utf-8")
    assert all(repo in readme for repo in repos)  # every source is named beside the data
    assert f"held-out-{held.name}" in readme


def test_every_project_and_record_says_where_it_comes_from(held):
    for p in held.projects:
        assert p["repo"].count("/") == 1 and p["licence"] and p["source"], p["name"]
        assert isinstance(p["licence_verified"], bool), p["name"]
        assert p["licence"].split(" ")[0].rstrip(",") in PERMISSIVE, p["name"]
        assert p["licence_verified"] or "NOT verified" in p["licence"], p["name"]  # an unverified one says so
        for m in p["memories"]:
            assert m["text"].strip() and m["file"], (p["name"], m["id"])
            assert re.fullmatch(r"[0-9a-f]{40}", m["commit"]), (p["name"], m["id"])
            assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", m["date"]), (p["name"], m["id"])


def test_every_label_names_records_of_its_project_older_first(held):
    for p in held.projects:
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
            assert order[pair[0]] < order[pair[1]] or not held.ambiguous_in_order, (p["name"], pair)
            assert tuple(pair) not in updates and tuple(reversed(pair)) not in updates, (p["name"], pair)
        reports = set(p["reports"])
        assert reports <= set(order), p["name"]
        assert not reports & {x for pair in p["updates"] + p["ambiguous"] for x in pair}, p["name"]


def test_a_record_is_written_under_its_own_number(held):
    number_of = re.compile(held.number)
    for p in held.projects:
        reports = set(p["reports"])
        for m in p["memories"]:
            if m["id"] in reports or (held.unnumbered and m["text"].startswith(held.unnumbered)):
                continue
            number = number_of.match(m["text"])
            assert number and int(number.group(1)) == int(re.sub(r"\D", "", m["id"])), (p["name"], m["id"])


def test_an_unnamed_update_does_not_cite_the_older_record_by_number(held):
    number_of = re.compile(held.number)
    for p in held.projects:
        text = {m["id"]: m["text"] for m in p["memories"]}
        for older, newer in p["updates_unnamed"]:
            number = number_of.match(text[older])
            cited = {int(n) for n in re.findall(r"\b\d+\b", text[newer].split(":", 1)[1])}  # "XEP-0091" is 91
            assert int(number.group(1)) not in cited, (p["name"], older, newer)


def test_the_file_is_what_its_builder_writes(held):
    builder = _bench_module(f"build_adr_held_out_{held.name}")
    assert builder.build() == json.loads(held.path.read_text(encoding="utf-8"))
    written = json.dumps(builder.build(), indent=1, ensure_ascii=False) + "\n"
    assert held.path.read_text(encoding="utf-8") == written  # byte for byte


def test_public_links_knows_the_held_out_set_only_behind_its_flag(held):
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "public_links.py"), "--help"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert f"--held-out-{held.name}" in run.stdout
    public_links = _bench_module("public_links")
    others = [s.name for s in SETS if s.name != held.name]
    for default in [public_links.load_projects()] + [public_links.load_projects(**{f"held_out_{o}": True})
                                                     for o in others]:
        assert not any(p["split"] == f"held-out-{held.name}" for p in default)
    chosen = public_links.load_projects(**{f"held_out_{held.name}": True})
    assert [p["name"] for p in chosen] == [p["name"] for p in held.projects]
