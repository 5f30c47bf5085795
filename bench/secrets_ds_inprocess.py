"""Should redact() also run detect-secrets' plugins in process? Import cost, extra catches, false positives.

    python bench/secrets_ds_inprocess.py   # from the repo root; writes bench/results/secrets_ds_inprocess.json

Issue 30 suggested running a maintained scanner's pattern plugins next to our own patterns,
loaded lazily. This measures what that would buy: detect-secrets' plugins (all but the entropy
and public-IP ones, which flag ordinary text) on every line, each value they report replaced,
on top of redact(). What counts are the corpora the plugins were *not* written from: gitleaks'
rule examples, the team's labelled set, the public benign notes and, as counts only, the
held-out Nosey Parker corpus; detect-secrets' own test corpus is shown for reference.
Figures are counts; nothing is asserted.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import secret_samples  # noqa: E402
import secrets_public  # noqa: E402

from server.guard.redact import redact  # noqa: E402

SKIPPED_PLUGINS = ("Base64HighEntropyString", "HexHighEntropyString", "IPPublicDetector")


def import_cost() -> tuple[list, dict]:
    """The plugins, and what importing them costs (a fresh interpreter's -X importtime, and in process)."""
    probe = subprocess.run([sys.executable, "-X", "importtime", "-c",
                            "import detect_secrets.core.plugins.util as u; u.get_mapping_from_secret_type_to_class()"],
                           capture_output=True, text=True, check=False)
    lines = [ln for ln in probe.stderr.splitlines() if ln.rstrip().endswith("detect_secrets.core.plugins.util")]
    t0 = time.perf_counter()
    # Imported here, not at the top: the import itself is what is being measured.
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    plugins = [cls() for cls in get_mapping_from_secret_type_to_class().values() if cls.__name__ not in SKIPPED_PLUGINS]
    cost = {"in_process_ms": round((time.perf_counter() - t0) * 1000),
            "importtime_cumulative_ms": round(int(lines[-1].split("|")[1]) / 1000) if lines else None}
    return plugins, cost


def flagged_values(plugins: list, text: str) -> set[str]:
    values: set[str] = set()
    for line in text.splitlines() or [text]:
        for plugin in plugins:
            try:
                values.update(plugin.analyze_string(line))
            except Exception:  # noqa: BLE001 - a plugin failing on odd input flags nothing
                pass
    return values


def combined(plugins: list, text: str) -> str:
    out = redact(text).text
    for value in sorted(flagged_values(plugins, text), key=len, reverse=True):
        if len(value) >= 4:
            out = out.replace(value, "[REDACTED:detect-secrets]")
    return out


def compare(plugins: list, cases: list[dict]) -> dict:
    secrets = [c for c in cases if c["label"] == "secret"]
    benign = [c for c in cases if c["label"] == "benign"]
    return {
        "secrets": len(secrets), "benign": len(benign),
        "redact": {"caught": sum(c["secret"] not in redact(c["text"]).text for c in secrets),
                   "benign_changed": sum(redact(c["text"]).changed for c in benign)},
        "redact_plus_detect_secrets": {"caught": sum(c["secret"] not in combined(plugins, c["text"]) for c in secrets),
                                       "benign_changed": sum(combined(plugins, c["text"]) != c["text"] for c in benign)},
    }


def main() -> int:
    plugins, cost = import_cost()
    print(f"import: {cost}")
    team = ([{"label": "secret", "text": t, "secret": s} for _, _, t, s in secret_samples.positives()]
            + [{"label": "benign", "text": t} for t in secret_samples.negatives()])
    corpora = {
        "gitleaks rule examples (tuning)": secrets_public.load("tuning")["cases"],
        "team labelled set": team,
        "public benign notes": secrets_public.public_benign(),
        "noseyparker (tuning)": secrets_public.load("tuning-noseyparker")["cases"],
        "detect-secrets' own tests (the plugins were written from these)": secrets_public.load("tuning-detect-secrets")["cases"],
    }
    result: dict = {"import": cost, "skipped_plugins": list(SKIPPED_PLUGINS)}
    for name, cases in corpora.items():
        r = result[name] = compare(plugins, cases)
        a, b = r["redact"], r["redact_plus_detect_secrets"]
        print(f"{name}: redact {a['caught']}/{r['secrets']} caught, {a['benign_changed']}/{r['benign']} benign changed"
              f" | with detect-secrets {b['caught']}/{r['secrets']}, {b['benign_changed']}/{r['benign']}")
    texts = [c["text"] for c in corpora["public benign notes"]]
    t0 = time.perf_counter()
    for t in texts:
        redact(t)
    ours = time.perf_counter() - t0
    t0 = time.perf_counter()
    for t in texts:
        flagged_values(plugins, t)
    theirs = time.perf_counter() - t0
    result["cost_us_per_note"] = {"redact": round(ours * 1e6 / len(texts)), "detect_secrets": round(theirs * 1e6 / len(texts))}
    print(f"cost per public note: {result['cost_us_per_note']}")
    out = ROOT / "bench" / "results" / "secrets_ds_inprocess.json"
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
