"""Build held_out.json from held_out_examples.yml (Kingfisher rule examples typed from the rule files).

    python bench/data/secrets_public/build_held_out.py

Run once, before any detector ran on the result. Labels and each secret's `secret` value come from
this script, not from reading the examples: an `examples` entry is a secret, a `negative_examples`
entry benign (as Kingfisher labels them); the secret is the rule's capture as a plain rule finds
it (a URL's password, a `password=` value), else the longest token holding a digit.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
REPO, DIR = "mongodb/kingfisher", "crates/kingfisher-rules/data/rules"
OTHER_CORPORA = ("gitleaks.json", "detect_secrets.json", "noseyparker.json", "kingfisher.json")

# The longest token with a digit, as for kingfisher.json, plus '~' (Entra client secrets hold "Q~").
_TOKEN = re.compile(r"[A-Za-z0-9+/_.~-]+={0,2}")
# A URL's userinfo password (the credentials rule captures it, not the host).
_URL_PASSWORD = re.compile(r"https?://[^\s:/@]+:([^\s@/]+)@")
# A password assignment: `Password=...;`, `PASSWORD="..."`, `"password": "..."`.
_PASSWORD = re.compile(r"""password["']?\s*[:=]\s*["']?([^"'\s;,]+)""", re.IGNORECASE)
# Where the rule's capture spans a character the token pattern splits on (a checksum after '=').
BY_HAND = {
    "kingfisher.bitbucket.4/tp1":
        "ATCTT3xFfGN0Repo7_Token9-AbCdEfGhJkLmN2PqR5Repo7_Token9-AbCdEfGhJkLmN2PqR5Repo7_Token9-AbCdEfGhJkLmN2PqR5=BC67283D",
}


def secret_of(text: str) -> str:
    for pattern in (_URL_PASSWORD, _PASSWORD):
        m = pattern.search(text)
        if m:
            return m.group(1)
    tokens = [t for t in _TOKEN.findall(text) if any(ch.isdigit() for ch in t)]
    return max(tokens, key=len)


def main() -> None:
    staged = yaml.safe_load((HERE / "held_out_examples.yml").read_text(encoding="utf-8"))
    seen = set()
    for name in OTHER_CORPORA:
        seen |= {c["text"] for c in json.loads((HERE / name).read_text(encoding="utf-8"))["cases"]}
    cases, duplicates, invisible = [], [], []
    for fname, f in staged.items():
        source = f"{REPO}@{f['commit']} {DIR}/{fname}"
        invisible += f.get("skipped_invisible", [])
        for rule, r in f["rules"].items():
            for label, key, tag in (("secret", "examples", "tp"), ("benign", "negative_examples", "fp")):
                for i, text in enumerate(r.get(key, []), 1):
                    cid = f"{rule}/{tag}{i}"
                    if text in seen:
                        duplicates.append(cid)
                        continue
                    seen.add(text)
                    case = {"id": f"kingfisher-held-out/{cid}", "group": rule, "label": label,
                            "text": text, "source": source}
                    if label == "secret":
                        case["secret"] = BY_HAND.get(cid) or secret_of(text)
                    cases.append(case)
    out = {
        "source": {
            "repo": REPO, "license": "Apache-2.0",
            "paths": f"{DIR}/*.yml (each rule's examples / negative_examples)",
            "files": list(staged),
            "selection": ("every other file (1st, 3rd, 5th, ...) of the 66 rule files among the directory's "
                          "first 99 (adobe.yml to delighted.yml, alphabetical) that kingfisher.json did not sample"),
            "commits": "per case",
            "split": "held-out (fresh, session 32 fourth round; committed before any detector ran on it)",
        },
        "skipped": {"invisible_rules": invisible, "already_in_another_corpus": duplicates},
        "cases": cases,
    }
    (HERE / "held_out.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    secrets = [c for c in cases if c["label"] == "secret"]
    print(f"{len(cases)} cases: {len(secrets)} secrets ({len({c['secret'] for c in secrets})} distinct), "
          f"{len(cases) - len(secrets)} benign; {len({c['group'] for c in cases})} rules, {len(staged)} files; "
          f"{len(duplicates)} duplicates skipped")


if __name__ == "__main__":
    main()
