"""Session 38's second held-out secrets part (s39): its shape, and that only its own flag makes the bench score it.

Built fresh (CodeQL's hard-coded credential query tests, pre-commit-hooks' credential fixtures), from sources neither
held_out_s38.json nor any earlier part used, for the session's final figure. No detector runs here: the tests read the
corpus' fields and counts, rebuild it from its builder, and check the bench's selection with the scoring replaced by a
recorder. The lead runs it once, at the session's end: ``python bench/secrets_public.py --held-out-s39``.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys

from spawn import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import secrets_public  # noqa: E402
from secrets_bench_selection import parts_scored  # noqa: E402

DATA = ROOT / "bench" / "data" / "secrets_public"
SECRETS = DATA / "held_out_s39.json"
PART = "held-out-s39"
SOURCE = re.compile(r"^[\w.-]+/[\w.-]+@[0-9a-f]{40} \S+$")  # owner/repo@commit path


def _cases() -> list[dict]:
    return json.loads(SECRETS.read_text(encoding="utf-8"))["cases"]


def test_the_part_has_enough_secrets_of_enough_kinds_and_must_not_fire_lines_each_with_source_and_licence():
    data = json.loads(SECRETS.read_text(encoding="utf-8"))
    assert data["source"]["license"] and "held-out" in data["source"]["split"]
    cases = data["cases"]
    secrets = [c for c in cases if c["label"] == "secret"]
    benign = [c for c in cases if c["label"] == "benign"]
    assert len(secrets) >= 100 and len(benign) >= 100
    assert len({c["group"] for c in secrets}) >= 25
    assert {c["source"].split("@")[0] for c in cases} == {"github/codeql", "pre-commit/pre-commit-hooks"}
    assert len({c["id"] for c in cases}) == len(cases)
    for c in cases:
        assert set(c) <= {"id", "group", "label", "text", "source", "license", "secret"}, c["id"]
        assert c["label"] in ("secret", "benign") and c["group"] and c["text"], c["id"]
        assert c["id"].startswith(PART + "/") and SOURCE.match(c["source"]), c["id"]
        assert c["license"] == "MIT", c["id"]
    assert all(c["secret"] and c["secret"] in c["text"] for c in secrets)
    assert not any("secret" in c for c in benign)


def test_no_text_or_secret_value_of_the_part_is_in_another_part_either_way():
    mine = _cases()
    texts = {c["text"] for c in mine}
    blob = "\n".join(texts)
    values = {c["secret"] for c in mine if c["label"] == "secret" and len(c["secret"]) >= 12}
    for part in secrets_public.CORPORA:
        if part == PART:
            continue
        other = secrets_public.load(part)["cases"]
        assert not texts & {c["text"] for c in other}, part
        other_blob = "\n".join(c["text"] for c in other)
        assert not [v for v in values if v in other_blob], part
        theirs = {c["secret"] for c in other if c["label"] == "secret" and len(c["secret"]) >= 12}
        assert not [v for v in theirs if v in blob], part


def test_the_builder_writes_the_committed_corpus(tmp_path):
    """The JSON is the builder's output, byte for byte: a text edited by hand in either would show here."""
    spec = importlib.util.spec_from_file_location("held_out_s39", DATA / "held_out_s39.py")
    builder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(builder)
    builder.main(tmp_path / "out.json")
    assert (tmp_path / "out.json").read_bytes() == SECRETS.read_bytes()


def test_the_bench_scores_the_part_only_with_its_flag_and_hides_its_misses(monkeypatch, tmp_path):
    assert secrets_public.CORPORA[PART] == "held_out_s39.json"
    assert secrets_public.HELD_OUT.get(PART) == "held_out_s39"
    scored, result = parts_scored(monkeypatch, tmp_path, [])  # a tuning run never reads it
    assert PART not in scored and PART not in result
    for argv in (["--held-out-s39"], ["--held-out"]):
        scored, result = parts_scored(monkeypatch, tmp_path, argv)
        assert PART in scored, argv
        r = result[PART]
        assert r["misses_hidden"] is True and "missed" not in r and "per_group" not in r, argv
