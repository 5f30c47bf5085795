"""Measure server.guard.redact on the labelled secret set: catch rate per kind, false-positive rate, cost, linearity.

    python bench/secrets_fp.py            # from the repo root; writes bench/results/secrets_fp.json

The set is bench/secret_samples.py (the team's own, written from the providers' documented
formats): planted secrets of every kind in prose, code, shell history and config files, and
ordinary texts plus look-alikes (commit hashes, UUIDs, ids next to provider names, base64
data, digests, placeholders). A catch is a planted secret whose value no longer appears in
the output (the JSON also records whether the reported kind was right); a false positive is
a negative text that redact() changes. Targets: >= 95 % caught, <= 1 % false positives,
linear time on hostile input (a 1 MB input costs about 10x a 100 KB one).

Also reported: the known hard cases (limits), and how many of the planted secrets
detect-secrets' pattern plugins flag (a cross-check, when it is installed).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for p in (ROOT, ROOT / "bench"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from secret_samples import J, negatives, positives  # noqa: E402

from server.guard.redact import KINDS, redact  # noqa: E402

# Known-hard cases, reported apart: the limits the README states.
HARD_CLEAN = [
    "Token: expired",
    "Password: reset",
    "secret: sauce",
    "password: changeme is the vendor default, we changed it",
    "Authorization: Bearer eyJ... (truncated in the log)",
    "The commit AbCdEf1234567890AbCdEf1234567890AbCdEf12 looks random but is a fixture name.",
]
HARD_PLANTED = [
    ("no keyword: password in prose", "the staging db login is admin / " + "Kq7rT2mZ9x", "Kq7rT2mZ9x"),
    ("unlabelled AWS secret key", "creds: " + J("AK", "IA") + "Q3EGRIYP5SMNE2X7 " + "u5Xq9" + "Z2m7Lr0PbK8sYw4Tn1Vh6Jc3Fd0GeAo9Rk", "u5Xq9Z2m7Lr0PbK8sYw4Tn1Vh6Jc3Fd0GeAo9Rk"),
    ("spaced plain word", "password = swordfish", "swordfish"),
    ("value on the next line", "password:\n  " + "Kq7rT2mZ9x", "Kq7rT2mZ9x"),
    ("glued to a word", "key" + J("gh", "p_") + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8" + "x", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"),
]
HOSTILE = {
    "'password=' repeated": "password=",
    "'twilio_auth_token=' repeated": "twilio_auth_token=",
    "'curl -u ' repeated": "curl -u ",
    "'https://' + 'a'*n + '@'": None,
    "'-----BEGIN PRIVATE KEY-----' repeated": J("-----BEGIN PRIVATE", " KEY-----"),
    "'eyJabcdef.' repeated": "eyJabcdef.",
    "'heroku api key ' repeated": "heroku api key ",
    # prefixed-token and Microsoft-key shapes: runs of prefix-like segments, signatures in base64
    "'ab_cd-' repeated": "ab_cd-",
    "'aB3+JQQJ' repeated": "aB3+JQQJ",
    # session 38's rules: flags, INI lines, YAML next-line and flow values, Authorization headers, code values
    "'--secret-key ' repeated": "--secret-key ",
    "'[s]\\npassword = ' repeated": "[s]\npassword = ",
    "'password:\\n  ' repeated": "password:\n  ",
    "'api_key: [a1b2c3d4e5, ' repeated": "api_key: [a1b2c3d4e5, ",
    "'Authorization: Bearer ' repeated": "Authorization: Bearer ",
    "'token: T = key[:1' repeated": "token: T = key[:1",
}


def _hostile(label: str, size: int) -> str:
    unit = HOSTILE[label]
    if unit is None:
        return "https://" + "a" * (size - 9) + "@"
    return unit * (size // len(unit))


def _timed(text: str, rounds: int = 1) -> float:
    t0 = time.perf_counter()
    for _ in range(rounds):
        redact(text)
    return (time.perf_counter() - t0) / rounds


def _detect_secrets_flags(texts: list[str]) -> int | None:
    try:
        from detect_secrets.core.scan import _process_line_based_plugins  # noqa: F401 - presence check
        from detect_secrets.settings import default_settings
        from detect_secrets.core.scan import scan_line
    except ImportError:
        return None
    flagged = 0
    with default_settings() as settings:
        settings.disable_plugins("Base64HighEntropyString", "HexHighEntropyString")
        for text in texts:
            if any(any(True for _ in scan_line(line)) for line in text.splitlines() or [text]):
                flagged += 1
    return flagged


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "secrets_fp.json"))
    ap.add_argument("--hostile-mb", type=float, default=1.0, help="size of the largest hostile input (default 1 MB)")
    args = ap.parse_args(argv)
    planted, clean = positives(), negatives()
    for _, _, text, _ in planted[:50]:
        redact(text)  # compile the patterns first: the timings are the steady state

    t0 = time.perf_counter()
    fp_examples = [{"text": t, "redacted": r.text, "kinds": list(r.kinds)} for t in clean if (r := redact(t)).text != t]
    clean_secs = time.perf_counter() - t0

    per_kind: dict[str, dict[str, int]] = defaultdict(lambda: {"planted": 0, "caught": 0, "kind_ok": 0})
    per_context: dict[str, dict[str, int]] = defaultdict(lambda: {"planted": 0, "caught": 0})
    misses = []
    t0 = time.perf_counter()
    for kind, context, text, secret in planted:
        r = redact(text)
        k, c = per_kind[kind], per_context[context]
        k["planted"] += 1
        c["planted"] += 1
        if secret not in r.text:
            k["caught"] += 1
            c["caught"] += 1
            k["kind_ok"] += kind in r.kinds
        else:
            misses.append({"kind": kind, "context": context, "text": text, "redacted": r.text})
    planted_secs = time.perf_counter() - t0

    memory = " ".join(clean[:40])[:2000]
    two_kb_us = _timed(memory, 200) * 1e6
    size = int(args.hostile_mb * 1_000_000)
    hostile = {}
    for label in HOSTILE:
        small, big = _timed(_hostile(label, size // 10)), _timed(_hostile(label, size))
        hostile[label] = {"seconds_tenth": round(small, 4), "seconds_full": round(big, 4), "ratio": round(big / small, 1)}

    hard_fp = [t for t in HARD_CLEAN if redact(t).text != t]
    hard = [{"case": label, "caught": secret not in redact(text).text} for label, text, secret in HARD_PLANTED]
    n_caught = sum(v["caught"] for v in per_kind.values())
    ds = _detect_secrets_flags([text for _, _, text, _ in planted])
    result = {
        "positives": len(planted), "kinds": len(per_kind), "kinds_known": len(KINDS), "caught": n_caught,
        "catch_rate": n_caught / len(planted),
        "kind_accuracy": sum(v["kind_ok"] for v in per_kind.values()) / len(planted),
        "negatives": len(clean), "false_positives": len(fp_examples), "false_positive_rate": len(fp_examples) / len(clean),
        "per_context": {c: {**v, "catch_rate": v["caught"] / v["planted"]} for c, v in sorted(per_context.items())},
        "per_kind": {k: {**v, "catch_rate": v["caught"] / v["planted"]} for k, v in sorted(per_kind.items())},
        "mean_us_per_negative_text": clean_secs / len(clean) * 1e6,
        "mean_us_per_planted_text": planted_secs / len(planted) * 1e6,
        "us_per_2kb_memory": two_kb_us,
        "hostile_linearity": hostile,
        "detect_secrets_pattern_plugins_flag": ds,
        "hard_clean": {"texts": len(HARD_CLEAN), "changed": hard_fp},
        "hard_planted": hard,
        "false_positive_examples": fp_examples[:20],
        "missed_examples": misses[:20],
        "targets": {"catch_rate": 0.95, "false_positive_rate": 0.01, "hostile_ratio_max": 25},
    }

    print(f"planted: {n_caught}/{len(planted)} caught ({result['catch_rate']:.1%}) across {len(per_kind)} kinds; "
          f"kind right {result['kind_accuracy']:.1%}")
    print(f"negatives: {len(fp_examples)}/{len(clean)} changed ({result['false_positive_rate']:.2%})")
    for ex in fp_examples[:10]:
        print(f"  FP: {ex['text']!r} -> {ex['redacted']!r}")
    for c, v in result["per_context"].items():
        print(f"  {c:11s} {v['caught']:3d}/{v['planted']:<3d} caught")
    worst = sorted(result["per_kind"].items(), key=lambda kv: kv[1]["catch_rate"])[:5]
    print("  lowest per kind: " + ", ".join(f"{k} {v['caught']}/{v['planted']}" for k, v in worst))
    for ex in misses[:10]:
        print(f"  MISS {ex['kind']}: {ex['text']!r}")
    if ds is not None:
        print(f"detect-secrets pattern plugins flag {ds}/{len(planted)} of the planted texts (cross-check)")
    print(f"cost: {result['mean_us_per_negative_text']:.0f} us/negative text, {result['mean_us_per_planted_text']:.0f} "
          f"us/planted text, {two_kb_us:.0f} us per 2 KB memory")
    for label, h in hostile.items():
        print(f"  hostile {label:40s} {h['seconds_tenth']:.3f}s / {h['seconds_full']:.3f}s = {h['ratio']}x for 10x the input")
    print(f"hard clean (known limits): {len(hard_fp)}/{len(HARD_CLEAN)} changed: {hard_fp}")
    print(f"hard planted (known limits): {sum(h['caught'] for h in hard)}/{len(hard)} caught: "
          + ", ".join(f"{h['case']} {'yes' if h['caught'] else 'no'}" for h in hard))

    out = Path(args.out).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {out}")
    met = (result["catch_rate"] >= 0.95 and result["false_positive_rate"] <= 0.01
           and all(h["ratio"] <= 25 for h in hostile.values()))
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
