"""bench/secrets_public.py's data load, every case says where it came from, and the bench runs.

The figures are not asserted here (they are what the bench reports); what is asserted is that
the public corpora stay well-formed: each secret case names the value that must disappear, each
case names its source repository, commit and file, and a tiny slice runs end to end.
"""

from __future__ import annotations

import json
import re
import sys

import pytest
from spawn import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import secrets_public  # noqa: E402

PARTS = sorted(secrets_public.CORPORA)
SOURCE = re.compile(r"^[\w.-]+/[\w.-]+@[0-9a-f]{40} \S+$")  # owner/repo@commit path


@pytest.mark.parametrize("part", PARTS)
def test_every_case_has_a_label_a_group_and_source_attribution(part):
    corpus = secrets_public.load(part)
    assert corpus["source"]["repo"] and corpus["source"]["license"]
    cases = corpus["cases"]
    assert cases
    bad = [c.get("id") for c in cases
           if c["label"] not in ("secret", "benign") or not c["group"] or not SOURCE.match(c["source"])]
    assert not bad, f"cases without a label, group or owner/repo@commit path source: {bad[:5]}"
    assert len({c["id"] for c in cases}) == len(cases), "case ids repeat"


@pytest.mark.parametrize("part", PARTS)
def test_every_secret_case_names_a_value_that_occurs_in_its_text(part):
    secrets = [c for c in secrets_public.load(part)["cases"] if c["label"] == "secret"]
    bad = [c["id"] for c in secrets if not c.get("secret") or c["secret"] not in c["text"]]
    assert not bad, f"secret cases whose secret is missing from the text: {bad[:5]}"


def test_both_parts_hold_secrets_and_benign_texts():
    for part in PARTS:
        labels = {c["label"] for c in secrets_public.load(part)["cases"]}
        assert labels == {"secret", "benign"}, part


def test_a_secret_left_in_the_output_is_a_miss_and_a_changed_benign_text_a_false_positive():
    cases = [
        {"id": "a", "group": "g", "label": "secret", "text": "token: hello", "secret": "hello"},
        {"id": "b", "group": "g", "label": "benign", "text": "nothing to see here"},
    ]
    r = secrets_public.score(cases)
    assert (r["secrets"], r["caught"], r["benign"], r["false_positives"]) == (1, 0, 1, 0)
    assert r["misses_by_group"] == {"g": ["a"]}


def test_a_secret_that_is_the_word_its_marker_names_is_caught_once_redacted():
    cases = [{"id": "a", "group": "g", "label": "secret", "text": 'DBI->connect("dsn", "root", "password")',
              "secret": "password"}]
    assert secrets_public.score(cases)["caught"] == 1


def test_the_bench_runs_on_a_tiny_slice_shows_the_tuning_misses_and_hides_the_held_out_ones(tmp_path, capsys, monkeypatch):
    out = tmp_path / "secrets_public.json"
    # a held-out part is scored only with --held-out, its misses hidden; the secretlint/Trivy part,
    # run once in session 33, stands in for one here (the real held-out parts are taken out: no detector
    # may run on them before the lead's one run)
    for part in secrets_public.HELD_OUT:
        monkeypatch.delitem(secrets_public.CORPORA, part)
    monkeypatch.setattr(secrets_public, "HELD_OUT", {"held-out": "held_out_secretlint_trivy.json"})
    monkeypatch.setitem(secrets_public.CORPORA, "held-out", "held_out_secretlint_trivy.json")
    secrets_public.main(["--limit", "3", "--out", str(out), "--held-out"])
    result = json.loads(out.read_text())
    assert result["tuning"]["secrets"] == 3 and result["tuning"]["benign"] == 3
    # Kingfisher's part is a tuning corpus since its misses were shown: no longer hidden
    assert result["tuning-kingfisher"]["secrets"] == 3 and "misses_hidden" not in result["tuning-kingfisher"]
    assert "per_group" in result["tuning-kingfisher"]
    held_out = result["held-out"]
    assert held_out["secrets"] == 3 and held_out["misses_hidden"] is True
    assert "missed" not in held_out and "misses_by_group" not in held_out and "per_group" not in held_out
    assert result["benign_public_notes"]["benign"] == 3
    # the spent held-out parts are tuning corpora now, their misses shown
    assert "per_group" in result["tuning-kingfisher-2"]
    assert "per_group" in result["tuning-secretlint-trivy"]
    assert "tuning-kingfisher:" in capsys.readouterr().out


def test_a_default_run_leaves_the_held_out_part_unscored(tmp_path, monkeypatch):
    # tuning runs must not even read the held-out part's counts: it is scored once, with --held-out
    # (HELD_OUT maps a held-out part to the flag that asks for it; "held-out" stands for a future part)
    monkeypatch.setattr(secrets_public, "HELD_OUT", {**secrets_public.HELD_OUT, "held-out": "held_out"})
    monkeypatch.setitem(secrets_public.CORPORA, "held-out", "held_out_secretlint_trivy.json")
    out = tmp_path / "secrets_public.json"
    secrets_public.main(["--limit", "1", "--out", str(out)])
    result = json.loads(out.read_text())
    assert "held-out" not in result
    assert result["tuning-kingfisher-2"]["secrets"] == 1


def test_the_secretlint_trivy_part_is_a_tuning_part_now():
    # run once as held out in session 33; its misses were read in session 34
    assert secrets_public.CORPORA["tuning-secretlint-trivy"] == "held_out_secretlint_trivy.json"
    assert "held-out" not in secrets_public.CORPORA
