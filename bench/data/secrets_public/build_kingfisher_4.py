"""Build kingfisher_4.json from kingfisher_4_examples.yml (Kingfisher rule examples typed from the rule files).

    python bench/data/secrets_public/build_kingfisher_4.py

Rule files after the first 99 of Kingfisher's directory (``delighted.yml`` and before were sampled by
kingfisher.json, held_out.json and kingfisher_3.json). The directory's full listing could not be read
here, so the files were looked up by provider name, blind to their contents; every file found is kept
but for a few long texts (`not_transcribed`), and the README lists the names that were not found. A
tuning part (session 33), added in two batches, each committed with its first figure before any
detector change tuned on it, then its misses read to fix them. Labels and
`secret` as build_held_out.py sets them, plus the captures the generic choice misreads (BY_HAND).
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from build_held_out import REPO, DIR, secret_of

HERE = Path(__file__).resolve().parent
OTHER_CORPORA = ("gitleaks.json", "detect_secrets.json", "noseyparker.json", "kingfisher.json", "held_out.json",
                 "kingfisher_3.json")
BY_HAND = {
    # HuggingFace tokens hold no digit, which the generic choice (a token with a digit) needs
    "kingfisher.huggingface.1/tp1": "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",
    "kingfisher.huggingface.1/tp2": "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",
    # a webhook URL's secret part is its last path segment; a DSN's is the key before '@'
    "kingfisher.discord.1/tp1": "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ1234567890abcdef",
    "kingfisher.slack.4/tp1": "NGUyXK6nK7HMAqd0ASzXluoV",
    "kingfisher.slack.4/tp2": "CdVQm6KZiMPRxAqiIraNkYBW",
    "kingfisher.sentry.4/tp1": "0123456789abcdef0123456789abcdef",
    # a MongoDB URI's password (build_held_out's URL pattern reads http(s) URLs only)
    "kingfisher.mongodb.3/tp1": "hunter2",
    "kingfisher.mongodb.3/tp2": "passw0rd",
    "kingfisher.mongodb.3/tp3": "contoso",
    # the second batch: a token as a URL's user (no password after it), a client secret or HMAC secret
    # next to a longer client id or access id
    "kingfisher.github.4/tp2": "ghu_imqBAXUtRirzzcJPwAiqImhkzsvzYZ1eDtPf",
    "kingfisher.github.5/tp2": "ghs_RguXIkihJjwHAP6eXEYxaPNvywurTr5IOAbg",
    "kingfisher.google.6/tp1": "P5C9REQW_6NT5NMQO8FP75VO",
    "kingfisher.google.6/tp2": "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",
    "kingfisher.gcp.5/tp1": "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789+/aB",
    "kingfisher.gcp.6/tp1": "GOCSPX-ExampleClientSecret123456789",
}


def main() -> None:
    staged = yaml.safe_load((HERE / "kingfisher_4_examples.yml").read_text(encoding="utf-8"))
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
                    case = {"id": f"kingfisher-4/{cid}", "group": rule, "label": label, "text": text, "source": source}
                    if label == "secret":
                        case["secret"] = BY_HAND[cid] if cid in BY_HAND else secret_of(text)
                    cases.append(case)
    out = {
        "source": {
            "repo": REPO, "license": "Apache-2.0",
            "paths": f"{DIR}/*.yml (each rule's examples / negative_examples)",
            "files": sorted(staged),
            "selection": ("rule files after the directory's first 99 (after delighted.yml), looked up by provider "
                          "name blind to their contents (the full listing could not be read), in two batches"),
            "commits": "per case",
            "split": "tuning (session 33: first figure committed before any detector change, then its misses read)",
        },
        "skipped": {"invisible_rules": invisible, "not_a_credential": not_secret,
                    "not_transcribed": not_typed, "already_in_another_corpus": duplicates},
        "cases": cases,
    }
    (HERE / "kingfisher_4.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    secrets = [c for c in cases if c["label"] == "secret"]
    print(f"{len(cases)} cases: {len(secrets)} secrets ({len({c['secret'] for c in secrets})} distinct), "
          f"{len(cases) - len(secrets)} benign; {len({c['group'] for c in cases})} rules, {len(staged)} files; "
          f"{len(duplicates)} duplicates skipped")


if __name__ == "__main__":
    main()
