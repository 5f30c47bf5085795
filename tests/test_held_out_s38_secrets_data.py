"""Session 38's first held-out secrets part: its shape, and that the bench scores it as a tuning part now.

Built fresh (earlybird's and the Datadog agent scrubber's own tests) while every earlier part is tuned on, run once
by the lead on main (``--held-out-s38``: 101/160 caught, 10/117 changed); spent since, so a tuning part
(``tuning-s38``) whose misses are shown. No detector runs here: the tests read the corpus' fields and counts, rebuild
it from its builder, and check the bench's selection with the scoring replaced by a recorder.
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
SECRETS = DATA / "held_out_s38.json"
PART = "held-out-s38"  # the cases' id prefix
KEY = "tuning-s38"  # the bench's name for the part since its one run
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
    assert {c["source"].split("@")[0] for c in cases} == {"americanexpress/earlybird", "DataDog/datadog-agent"}
    assert len({c["id"] for c in cases}) == len(cases)
    for c in cases:
        assert set(c) <= {"id", "group", "label", "text", "source", "license", "secret"}, c["id"]
        assert c["label"] in ("secret", "benign") and c["group"] and c["text"], c["id"]
        assert c["id"].startswith(PART + "/") and SOURCE.match(c["source"]), c["id"]
        assert c["license"] == "Apache-2.0", c["id"]
    assert all(c["secret"] and c["secret"] in c["text"] for c in secrets)
    assert not any("secret" in c for c in benign)


def test_no_text_or_secret_value_of_the_part_is_in_another_part_either_way():
    mine = _cases()
    texts = {c["text"] for c in mine}
    blob = "\n".join(texts)
    values = {c["secret"] for c in mine if c["label"] == "secret" and len(c["secret"]) >= 12}
    for part in secrets_public.CORPORA:
        if part == KEY:
            continue
        other = secrets_public.load(part)["cases"]
        assert not texts & {c["text"] for c in other}, part
        other_blob = "\n".join(c["text"] for c in other)
        assert not [v for v in values if v in other_blob], part
        theirs = {c["secret"] for c in other if c["label"] == "secret" and len(c["secret"]) >= 12}
        assert not [v for v in theirs if v in blob], part


def test_the_builder_writes_the_committed_corpus(tmp_path):
    """The JSON is the builder's output, byte for byte: a text edited by hand in either would show here."""
    spec = importlib.util.spec_from_file_location("held_out_s38", DATA / "held_out_s38.py")
    builder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(builder)
    builder.main(tmp_path / "out.json")
    assert (tmp_path / "out.json").read_bytes() == SECRETS.read_bytes()


def test_the_bench_scores_the_spent_part_as_a_tuning_part_with_its_misses_shown(monkeypatch, tmp_path):
    # run once as held out by the lead on main; its misses are read since, so no run hides them
    assert secrets_public.CORPORA[KEY] == "held_out_s38.json" and KEY not in secrets_public.HELD_OUT
    assert PART not in secrets_public.CORPORA and PART not in secrets_public.HELD_OUT
    for argv in ([], ["--held-out-s38"]):  # the flag is accepted and changes nothing
        scored, result = parts_scored(monkeypatch, tmp_path, argv)
        assert PART in scored, argv  # the cases keep their ids; the part is scored by default now
        r = result[KEY]
        assert "misses_hidden" not in r and "missed" in r and "per_group" in r, argv
