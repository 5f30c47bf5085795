"""Build kingfisher_5.json from kingfisher_5_examples.yml (Kingfisher rule examples typed from the rule files).

    python bench/data/secrets_public/build_kingfisher_5.py

Kingfisher rule files none of kingfisher.json, held_out.json, kingfisher_3.json and kingfisher_4.json
sampled. The directory's full listing could not be read here, so the files were looked up by provider
name, blind to their contents (the README lists the names looked up and not found). A tuning part
(session 34), added in batches, each committed with its first figure (measured on the detectors of that
moment, before any change tuned on it), then its misses read to fix them. Labels and `secret` as
build_held_out.py sets them, plus the captures the generic choice misreads (BY_HAND).
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from build_held_out import REPO, DIR, secret_of

HERE = Path(__file__).resolve().parent
OTHER_CORPORA = ("gitleaks.json", "detect_secrets.json", "noseyparker.json", "kingfisher.json", "held_out.json",
                 "kingfisher_3.json", "kingfisher_4.json", "held_out_secretlint_trivy.json")
BY_HAND: dict[str, str] = {
    # a webhook URL's secret is its last path segment; a service account's secret follows "Secret:",
    # after its longer user name
    "kingfisher.mattermost.3/tp1": "9xuqwrwgstrb3mzrxb83nb357a",
    "kingfisher.mixpanel.2/tp1": "FakeExampleServiceAcctSecretAb12",
    # an Infura key is the 32 characters the rule captures: the URL's last segment, the run after "-"
    "kingfisher.infura.1/tp1": "7238211010344719ad14a89db874158c",
    "kingfisher.infura.1/tp2": "abcdef1234567890abcdef1234567890",
    # batch 3: a URL's password (one holding an "@", one before a long host name), the first run of a
    # Travis CI encrypted value
    "kingfisher.postgres.1/tp1": "s2Tf2k@rLMy",
    "kingfisher.postgres.1/tp2": "vg498hwegw1udp6s",
    "kingfisher.postgres.1/tp4": "s2Tf2k@rLMy",
    "kingfisher.redis.1/tp4": "oJs3RjFV5CVDyObDiooJk8NGGSylGTlNmAzCaPVydjM=",
    "kingfisher.redis.1/tp5": "MyP4ssw0rd",
    "kingfisher.travisci.2/tp1": "VJh0l9gOb+6AVNDk6cziZSs1AqVM8CqtZU6ot9ZQeJ+KfL1pxnGQ4qQF8Cz9",
}


def main() -> None:
    staged = yaml.safe_load((HERE / "kingfisher_5_examples.yml").read_text(encoding="utf-8"))
    seen = set()
    for name in OTHER_CORPORA:
        seen |= {c["text"] for c in json.loads((HERE / name).read_text(encoding="utf-8"))["cases"]}
    cases, duplicates, invisible, not_secret, not_typed = [], [], [], [], []
    for fname in sorted(staged):
        f = staged[fname]
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
                    case = {"id": f"kingfisher-5/{cid}", "group": rule, "label": label, "text": text, "source": source}
                    if label == "secret":
                        case["secret"] = BY_HAND[cid] if cid in BY_HAND else secret_of(text)
                    cases.append(case)
    out = {
        "source": {
            "repo": REPO, "license": "Apache-2.0",
            "paths": f"{DIR}/*.yml (each rule's examples / negative_examples)",
            "files": sorted(staged),
            "selection": ("rule files no earlier Kingfisher part sampled, looked up by provider name blind to "
                          "their contents (the full listing could not be read), in batches"),
            "commits": "per case",
            "split": "tuning (session 34: each batch's first figure committed before any detector change, then its misses read)",
        },
        "skipped": {"invisible_rules": invisible, "not_a_credential": not_secret,
                    "not_transcribed": not_typed, "already_in_another_corpus": duplicates},
        "cases": cases,
    }
    (HERE / "kingfisher_5.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    secrets = [c for c in cases if c["label"] == "secret"]
    print(f"{len(cases)} cases: {len(secrets)} secrets ({len({c['secret'] for c in secrets})} distinct), "
          f"{len(cases) - len(secrets)} benign; {len({c['group'] for c in cases})} rules, {len(staged)} files; "
          f"{len(duplicates)} duplicates skipped")


if __name__ == "__main__":
    main()
