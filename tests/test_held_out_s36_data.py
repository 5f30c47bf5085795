"""Session 36's held-out corpora: their shape, and which bench run scores them.

No detector runs here: the tests read the corpora's fields and counts only, and check the benches' selection
with the scoring replaced by a recorder. Both parts were run once by the lead in session 36 and are tuning data since:
the secrets part as ``tuning-s36`` (103/122 caught, 2/218 changed on its one run), the injections corpus as a tuning
corpus of ``python bench/poisoning.py`` (80/309 caught, 9/256 benign flagged on its one run).
"""

from __future__ import annotations

import json
import re
import sys

from spawn import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import secrets_public  # noqa: E402
from secrets_bench_selection import parts_scored  # noqa: E402

SECRETS = ROOT / "bench" / "data" / "secrets_public" / "held_out_s36.json"
SOURCE = re.compile(r"^[\w.-]+/[\w.-]+@[0-9a-f]{40} \S+$")  # owner/repo@commit path


def _secret_cases() -> list[dict]:
    return json.loads(SECRETS.read_text(encoding="utf-8"))["cases"]


def test_the_secrets_part_has_enough_cases_of_enough_kinds_each_with_its_source_licence_and_secret():
    data = json.loads(SECRETS.read_text(encoding="utf-8"))
    assert data["source"]["license"] and "held-out" in data["source"]["split"]  # as built; spent since
    cases = data["cases"]
    secrets = [c for c in cases if c["label"] == "secret"]
    benign = [c for c in cases if c["label"] == "benign"]
    assert len(secrets) >= 120 and len(benign) >= 120
    assert len({c["group"] for c in secrets}) >= 30
    assert len({c["source"].split("@")[0] for c in secrets}) >= 4
    assert len({c["id"] for c in cases}) == len(cases)
    for c in cases:
        assert set(c) <= {"id", "group", "label", "text", "source", "license", "secret"}, c["id"]
        assert c["label"] in ("secret", "benign") and c["group"] and c["text"], c["id"]
        assert c["id"].startswith("held-out-s36/") and SOURCE.match(c["source"]), c["id"]
        assert c["license"] in ("MIT", "Apache-2.0"), c["id"]
    assert all(c["secret"] and c["secret"] in c["text"] for c in secrets)
    assert not any("secret" in c for c in benign)


def test_no_text_or_secret_value_of_the_secrets_part_is_in_another_part():
    mine = _secret_cases()
    texts = {c["text"] for c in mine}
    values = {c["secret"] for c in mine if c["label"] == "secret" and len(c["secret"]) >= 12}
    for part in secrets_public.CORPORA:
        if part == "tuning-s36":
            continue
        other = secrets_public.load(part)["cases"]
        assert not texts & {c["text"] for c in other}, part
        blob = "\n".join(c["text"] for c in other)
        assert not [v for v in values if v in blob], part




def test_the_secrets_bench_scores_the_spent_s36_part_as_a_tuning_part_with_its_misses_shown(monkeypatch, tmp_path):
    # run once as held out by the lead in session 36; its misses are read since, so no run hides them
    assert secrets_public.CORPORA["tuning-s36"] == "held_out_s36.json" and "tuning-s36" not in secrets_public.HELD_OUT
    assert "held-out-s36" not in secrets_public.CORPORA
    scored, result = parts_scored(monkeypatch, tmp_path, [])
    assert "held-out-s36" in scored  # the cases keep their ids; the part is scored by default now
    r = result["tuning-s36"]
    assert "misses_hidden" not in r and "missed" in r and "per_group" in r


INJECTIONS = ROOT / "bench" / "data" / "injections_held_out_s36.json"
LICENCE = re.compile(r"\((?:[^()]*; )?MIT\)$")  # "(MIT)", or "(<benchmark>; MIT)"


def _injection_rows() -> dict:
    return json.loads(INJECTIONS.read_text(encoding="utf-8"))


def test_the_injections_corpus_has_enough_attacks_from_three_sources_and_benign_notes_each_with_a_licence():
    data = _injection_rows()
    assert set(data) == {"attacks", "benign"}  # the shape of the other public corpora
    attacks, benign = data["attacks"], data["benign"]
    assert len(attacks) >= 150 and len(benign) >= 150
    families = {("InjecAgent" if "InjecAgent" in a["source"] else a["source"].split()[1]) for a in attacks}
    assert {"InjecAgent", "data/all_attack_tools.jsonl",
            "CybersecurityBenchmarks/datasets/prompt_injection/prompt_injection.json"} <= families
    for row in attacks + benign:
        assert set(row) == {"source", "text", "split"} and row["text"].strip()
        assert row["split"] == "held-out" and LICENCE.search(row["source"]), row["source"]
        assert re.match(r"[\w.-]+/[\w.-]+@[0-9a-f]{40} \S", row["source"]), row["source"]  # owner/repo@commit path
    texts = [r["text"] for r in attacks + benign]
    assert len(set(texts)) == len(texts)


def test_no_text_of_the_injections_corpus_is_in_another_public_corpus():
    mine = {r["text"] for part in ("attacks", "benign") for r in _injection_rows()[part]}
    for name in ("injections_public", "injections_fresh", "injections_bastion", "injections_agents",
                 "injections_held_out_s34", "injections_held_out_s35"):
        other = json.loads((ROOT / "bench" / "data" / f"{name}.json").read_text(encoding="utf-8"))
        assert not mine & {r["text"] for part in ("attacks", "benign") for r in other[part]}, name


def test_the_poisoning_bench_scores_the_spent_s36_corpus_every_run_as_a_tuning_corpus(monkeypatch, tmp_path):
    """Run once by the lead in session 36 (80/309 caught, 9/256 benign flagged), tuned on since: scored by default,
    with and without the model, and reported as a tuning corpus."""
    import poisoning  # bench/poisoning.py; imported here so the secrets tests above do not load the guards' model

    scored: list = []

    def fake_corpus(path=poisoning.PUBLIC, splits=("dev", "held-out")):
        scored.append(path)
        one = {"attacks": 1, "caught": 0, "catch_rate": 0.0, "benign": 1, "flagged": 0, "false_positive_rate": 0.0,
               "per_source": {}, "benign_per_source": {}}
        return {s: dict(one) for s in splits}

    # no detector runs: the flags and the model are stubbed, the corpora's scoring recorded
    monkeypatch.setattr(poisoning, "public_corpus", fake_corpus)
    monkeypatch.setattr(poisoning, "instruction_flags", lambda text: ())
    monkeypatch.setattr(poisoning.instruction_model, "score", lambda text: 0.0)
    out = tmp_path / "p.json"
    for argv in ([], ["--held-out-s36"]):  # the old flag is still accepted, and changes nothing
        scored.clear()
        poisoning.main(["--out", str(out), *argv])
        assert scored.count(poisoning.HELD_OUT_S36) == 2, argv  # with the model, and by the rules-only pass
        result = json.loads(out.read_text())
        assert result["public_s36"]["held-out"]["reported_as"] == "tuning (held out once, tuned on since)"
        assert "public_s36" in result["rules_only"] and "public_held_out_s36" not in result


def test_the_s36_corpus_is_kept_out_of_the_models_training():
    import train_injection_model as T  # bench/; reads the corpora's texts only, trains nothing

    kept_out = set(T.held_out_texts())
    assert {r["text"] for part in ("attacks", "benign") for r in _injection_rows()[part]} <= kept_out
