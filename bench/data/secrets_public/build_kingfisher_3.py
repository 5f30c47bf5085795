"""Build kingfisher_3.json from kingfisher_3_examples.yml (Kingfisher rule examples typed from the rule files).

    python bench/data/secrets_public/build_kingfisher_3.py

The 33 rule files among the directory's first 99 that neither kingfisher.json nor held_out.json
sampled: a tuning part from the start (session 33). Labels and `secret` as build_held_out.py sets
them, plus the few captures the generic choice misreads (BY_HAND). A rule whose example is not a
credential (a search service URL) is left out.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from build_held_out import REPO, DIR, secret_of

HERE = Path(__file__).resolve().parent
OTHER_CORPORA = ("gitleaks.json", "detect_secrets.json", "noseyparker.json", "kingfisher.json", "held_out.json")
BY_HAND = {
    "kingfisher.cisco.1/tp1": "MyS3cretP@ss",
    "kingfisher.cisco.1/tp2": "$1$abc$hashvaluehere",
    "kingfisher.cisco.2/tp1": "pr1vate",
    "kingfisher.cisco.2/tp2": "S3cretCommunity",
    "kingfisher.cisco.3/tp1": "MyPacKeyS3cret",
    "kingfisher.cisco.3/tp2": "045802150C2E",
    "kingfisher.cloudant.1/tp1": "9a1b75eae487515172acc27e1203bd19d094f359bebb0f20ff69bb173cee3d4a",
    "kingfisher.cloudant.1/tp2": "abc123def456789012345678901234567890123456789012345678901234abcd",
    "kingfisher.blynk.8/tp1": "5uC5Y4Mcvdl5rB56rBmxnvB4DZgiIpcyTPbOoEWp",
    "kingfisher.blynk.8/tp2": "5uC5Y4Mcvdl5rB56rBmxnvB4DZgiIpcyTPbOoEWp",
    "kingfisher.blynk.8/tp3": "5uC5Y4Mcvdl5rB56rBmxnvB4DZgiIpcyTPbOoEWp",
    "kingfisher.blynk.9/tp1": "5uC5Y4Mcvdl5rB56rBmxnvB4DZgiIpcyTPbOoEWp",
    "kingfisher.blynk.9/tp2": "5uC5Y4Mcvdl5rB56rBmxnvB4DZgiIpcyTPbOoEWp",
    "kingfisher.deepl.1/tp1": "279a2e9d-83b3-c416-7e2d-f721593e42a0",
    "kingfisher.deepl.1/tp2": "5ef4a0d1-7e1f-47b2-ac0a-1282002aa2a1",
    "kingfisher.deepl.2/tp1": "279a2e9d-83b3-c416-7e2d-f721593e42a0",
    "kingfisher.deepl.2/tp2": "5ef4a0d1-7e1f-47b2-ac0a-1282002aa2a1",
    "kingfisher.cypress.1/tp1": "a1b2c3d4-e5f6-7890-abcd-ef1234567890",
    "kingfisher.cypress.1/tp2": "f8e7d6c5-b4a3-2190-fedc-ba0987654321",
    "kingfisher.anypoint.1/tp1": "33333333-cccc-dddd-eeee-444444444444",
    "kingfisher.configcat.1/tp1": "Aa1Bb2Cc3Dd4Ee5Ff6Gg7H/aA1bB2cC3dD4eE5fF6gG7h",
    "kingfisher.configcat.1/tp2": "Aa1Bb2Cc3Dd4Ee5Ff6Gg7H/aA1bB2cC3dD4eE5fF6gG7h",
    "kingfisher.configcat.2/tp1": "Aa1Bb2Cc3Dd4Ee5Ff6Gg7H/aA1bB2cC3dD4eE5fF6gG7h",
    "kingfisher.azurefunctionkey.1/tp1": "AbCdEfGhIjKlMnOpQrStUvWxYz1234567890/+==",
}


def main() -> None:
    staged = yaml.safe_load((HERE / "kingfisher_3_examples.yml").read_text(encoding="utf-8"))
    seen = set()
    for name in OTHER_CORPORA:
        seen |= {c["text"] for c in json.loads((HERE / name).read_text(encoding="utf-8"))["cases"]}
    cases, duplicates, invisible, not_secret, not_typed = [], [], [], [], []
    for fname, f in staged.items():
        source = f"{REPO}@{f['commit']} {DIR}/{fname}"
        invisible += f.get("skipped_invisible", [])
        not_typed += f.get("not_transcribed", [])
        for rule, r in f["rules"].items():
            if r.get("not_a_secret"):
                not_secret.append(rule)
                continue
            for label, key, tag in (("secret", "examples", "tp"), ("benign", "negative_examples", "fp")):
                for i, text in enumerate(r.get(key, []), 1):
                    cid = f"{rule}/{tag}{i}"
                    if text in seen:
                        duplicates.append(cid)
                        continue
                    seen.add(text)
                    case = {"id": f"kingfisher-3/{cid}", "group": rule, "label": label, "text": text, "source": source}
                    if label == "secret":
                        case["secret"] = BY_HAND.get(cid) or secret_of(text)
                    cases.append(case)
    out = {
        "source": {
            "repo": REPO, "license": "Apache-2.0",
            "paths": f"{DIR}/*.yml (each rule's examples / negative_examples)",
            "files": list(staged),
            "selection": ("the 33 rule files among the directory's first 99 (adobe.yml to delighted.yml, "
                          "alphabetical) that neither kingfisher.json nor held_out.json sampled"),
            "commits": "per case",
            "split": "tuning (session 33: read to fix its misses from the start)",
        },
        "skipped": {"invisible_rules": invisible, "not_a_credential": not_secret,
                    "not_transcribed": not_typed, "already_in_another_corpus": duplicates},
        "cases": cases,
    }
    (HERE / "kingfisher_3.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    secrets = [c for c in cases if c["label"] == "secret"]
    print(f"{len(cases)} cases: {len(secrets)} secrets ({len({c['secret'] for c in secrets})} distinct), "
          f"{len(cases) - len(secrets)} benign; {len({c['group'] for c in cases})} rules, {len(staged)} files; "
          f"{len(duplicates)} duplicates skipped")


if __name__ == "__main__":
    main()
