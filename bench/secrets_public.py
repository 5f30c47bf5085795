"""Measure redact() on public secret scanners' own test cases: text nobody on the team wrote.

    python bench/secrets_public.py            # from the repo root; writes bench/results/secrets_public.json
    python bench/secrets_public.py --limit 5  # the first 5 cases of each part (a smoke run)

The data are in bench/data/secrets_public/ (its README names each source, commit and licence):

* **tuning**  -- gitleaks' default rules' own true-positive examples (``gitleaks.json``);
  detector changes may be tuned on these.
* **tuning-detect-secrets** -- detect-secrets' plugin tests (``detect_secrets.json``): held out
  until its misses were shown in session 32, a tuning corpus since.
* **tuning-noseyparker** -- Nosey Parker's default rules' examples and negative examples
  (``noseyparker.json``): the held-out part of session 32's first round, a tuning corpus since
  its misses were shown.
* **tuning-kingfisher** -- Kingfisher's (MongoDB) rules' examples and negative examples
  (``kingfisher.json``): built fresh as the held-out part of session 32's second round, a tuning
  corpus since its misses were shown (third round).
* **tuning-kingfisher-2** -- more of Kingfisher's rules' examples (``held_out.json``), from rule
  files kingfisher.json did not sample: the held-out part of session 32's fourth round (74/91 then),
  spent since its misses were read in session 33, a tuning corpus now.
* **tuning-kingfisher-3** -- the remaining 33 of Kingfisher's first 99 rule files
  (``kingfisher_3.json``), a tuning corpus from the start (session 33).
* **tuning-kingfisher-4** -- Kingfisher rule files after its first 99 (``kingfisher_4.json``), looked
  up by provider name: its first figure was committed before any detector change; a tuning corpus since.
* **tuning-kingfisher-5** -- more Kingfisher rule files looked up by provider name (``kingfisher_5.json``,
  session 34): each batch's first figure committed before any detector change; a tuning corpus since.
* **tuning-secretlint-trivy** -- secretlint's and Trivy's own secret test fixtures
  (``held_out_secretlint_trivy.json``): typed and committed before any detector ran on them, held out
  in session 33 (run once: 102/111 caught, 20/74 benign lines changed), a tuning corpus since session 34.
* **tuning-s34** -- ripsecrets', whispers', talisman's and checkov's own fixtures (``held_out_s34.json``),
  built fresh in session 34 and committed before any detector ran on them, held out and run once (109/161
  caught, 30/203 benign lines changed), a tuning corpus since.
* **tuning-s35** -- leaky-repo's planted credentials, betterleaks' rules that gitleaks lacks, ggshield's and
  git-secrets' test fixtures (``held_out_s35.json``), typed and committed before any detector ran on them, held
  out and run once (106/128 caught, 47/226 benign lines changed), a tuning corpus since. A held-out part (in
  ``CORPORA`` and ``HELD_OUT`` with its flag) is scored only with ``--held-out`` or its own flag (once, at the
  end of a round), as counts unless ``--show-held-out``.
* **tuning-s36** -- KICS' "Passwords And Secrets" query tests, gosec's G101 samples, bandit's hard-coded
  password examples, eslint-plugin-no-secrets' tests and horusec's leak samples (``held_out_s36.json``), typed
  and committed before any detector ran on them, held out and run once (103/122 caught, 2/218 benign lines
  changed), a tuning corpus since.
* **tuning-s37** -- Checkmarx 2ms' rule tests and auth0 repo-supervisor's fixtures (``held_out_s37.json``), typed
  and committed before any detector ran on them, held out and run once (96/103 caught, 1/103 benign lines
  changed), a tuning corpus since.
* **tuning-s38** -- American Express earlybird's and the Datadog agent scrubber's own tests (``held_out_s38.json``),
  typed and committed before any detector ran on them, held out and run once by the lead on main (101/160 caught,
  10/117 benign lines changed), a tuning corpus since (``--held-out-s38`` is accepted and does nothing).
* **held-out-s39** -- GitHub CodeQL's hard-coded credential query tests and pre-commit-hooks' credential fixtures
  (``held_out_s39.json``), typed and committed before any detector ran on them: held out, scored only with
  ``--held-out-s39`` (or ``--held-out``).
* **benign**  -- each corpus' own false-positive examples, and the public benign notes of
  bench/data/injections_public.json (package docstrings mentioning prompts, pipes, curl...).

A catch is a secret case whose ``secret`` no longer appears in redact()'s output outside its
``[REDACTED:<kind>]`` markers (a password that *is* the word "password" is gone once redacted, though
its marker names the word); a false
positive is a benign text that redact() changes. Goal (issue 30): >= 95 % caught with
<= 1 % false positives on each part.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# The one line to change when the detectors move (server.guard.redact after issue 31's move).
from server.guard.redact import redact  # noqa: E402

DATA = ROOT / "bench" / "data" / "secrets_public"
CORPORA = {"tuning": "gitleaks.json", "tuning-detect-secrets": "detect_secrets.json",
           "tuning-noseyparker": "noseyparker.json", "tuning-kingfisher": "kingfisher.json",
           "tuning-kingfisher-2": "held_out.json", "tuning-kingfisher-3": "kingfisher_3.json",
           "tuning-kingfisher-4": "kingfisher_4.json", "tuning-kingfisher-5": "kingfisher_5.json",
           "tuning-secretlint-trivy": "held_out_secretlint_trivy.json", "tuning-s34": "held_out_s34.json",
           "tuning-s35": "held_out_s35.json", "tuning-s36": "held_out_s36.json",
           "tuning-s37": "held_out_s37.json", "tuning-s38": "held_out_s38.json",
           "held-out-s39": "held_out_s39.json"}
#: The held-out part(s) and the flag that asks for each: scored only when asked for (--held-out: all of them),
#: never by default; misses hidden unless --show-held-out. The secretlint/Trivy part was run once in session
#: 33, session 34's at the end of session 34, session 35's at the end of its first round: tuning parts since.
#: Session 36's part was run once in session 36 (by the lead, on main): a tuning part since.
#: Session 37's part (2ms' rule tests, repo-supervisor's fixtures) was run once at the end of session 36 (by the
#: lead, on the merged code): a tuning part since. Session 38's part (earlybird's and the Datadog agent scrubber's
#: tests) was run once by the lead on main (101/160, 10/117): a tuning part since; its second part (CodeQL's
#: credential query tests, pre-commit-hooks' fixtures), for the session's final figure: --held-out-s39.
HELD_OUT: dict[str, str] = {"held-out-s39": "held_out_s39"}
PUBLIC_BENIGN = ROOT / "bench" / "data" / "injections_public.json"
GOAL_CATCH, GOAL_FP = 0.95, 0.01


def load(part: str) -> dict:
    """One corpus file: ``{"source": {...}, "cases": [...], "skipped": {...}}``."""
    return json.loads((DATA / CORPORA[part]).read_text(encoding="utf-8"))


def public_benign() -> list[dict]:
    """The benign notes nobody here wrote, as benign cases."""
    notes = json.loads(PUBLIC_BENIGN.read_text(encoding="utf-8"))["benign"]
    return [{"id": f"injections_public-benign-{i}", "group": "package docstrings", "label": "benign",
             "text": n["text"] if isinstance(n, dict) else n,
             "source": "bench/data/injections_public.json (benign)"} for i, n in enumerate(notes)]


_MARKER = re.compile(r"\[REDACTED:[a-z0-9-]{1,40}\]")


def score(cases: list[dict]) -> dict:
    """Catch rate over the secrets, false-positive rate over the benign texts, misses by group."""
    secrets = [c for c in cases if c["label"] == "secret"]
    benign = [c for c in cases if c["label"] == "benign"]
    misses, fps = [], []
    per_group: dict[str, dict[str, int]] = defaultdict(lambda: {"secrets": 0, "caught": 0})
    for c in secrets:
        out = _MARKER.sub("\0", redact(c["text"]).text)
        g = per_group[c["group"]]
        g["secrets"] += 1
        if c["secret"] in out:
            misses.append({"id": c["id"], "group": c["group"], "text": c["text"], "secret": c["secret"]})
        else:
            g["caught"] += 1
    for c in benign:
        r = redact(c["text"])
        if r.changed:
            fps.append({"id": c["id"], "group": c["group"], "text": c["text"], "redacted": r.text, "kinds": list(r.kinds)})
    by_group: dict[str, list[str]] = defaultdict(list)
    for m in misses:
        by_group[m["group"]].append(m["id"])
    caught = len(secrets) - len(misses)
    # gitleaks renders one literal in 26 syntaxes: also count each distinct value once (caught = in every case)
    distinct = {c["secret"] for c in secrets}
    leaked = {m["secret"] for m in misses}
    return {
        "secrets": len(secrets), "caught": caught, "catch_rate": caught / len(secrets) if secrets else None,
        "distinct_secrets": len(distinct), "distinct_caught": len(distinct - leaked),
        "benign": len(benign), "false_positives": len(fps), "false_positive_rate": len(fps) / len(benign) if benign else None,
        "misses_by_group": dict(sorted(by_group.items())),
        "per_group": dict(sorted(per_group.items())),
        "missed": misses, "false_positive_examples": fps,
    }


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.1%}"


def report(name: str, r: dict, *, details: bool) -> None:
    print(f"{name}: {r['caught']}/{r['secrets']} secrets caught ({_pct(r['catch_rate'])}; distinct values "
          f"{r['distinct_caught']}/{r['distinct_secrets']}); "
          f"{r['false_positives']}/{r['benign']} benign texts changed ({_pct(r['false_positive_rate'])})")
    if not details:
        return
    for group, ids in r["misses_by_group"].items():
        print(f"  MISS {group} ({len(ids)}): {', '.join(ids)}")
    for ex in r["false_positive_examples"][:20]:
        print(f"  FP {ex['id']} {ex['kinds']}: {ex['text'][:100]!r}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "secrets_public.json"))
    ap.add_argument("--limit", type=int, default=0, help="only the first N secret and N benign cases of each part")
    ap.add_argument("--held-out", action="store_true",
                    help="also score the held-out part (counts only); once, at the end of a round")
    ap.add_argument("--held-out-s38", action="store_true",
                    help="accepted, does nothing: session 38's part is spent, a tuning part scored every run")
    ap.add_argument("--held-out-s39", action="store_true",
                    help="also score session 38's second held-out part (counts only); run once, by the lead")
    ap.add_argument("--show-held-out", action="store_true",
                    help="also print and write the held-out part's misses (not while tuning)")
    args = ap.parse_args(argv)

    def cut(cases: list[dict]) -> list[dict]:
        if not args.limit:
            return cases
        return ([c for c in cases if c["label"] == "secret"][:args.limit]
                + [c for c in cases if c["label"] == "benign"][:args.limit])

    result: dict = {"goal": {"catch_rate": GOAL_CATCH, "false_positive_rate": GOAL_FP}, "limit": args.limit or None}
    parts = [p for p in CORPORA if p not in HELD_OUT or args.held_out or getattr(args, HELD_OUT[p])]
    for part in parts:
        corpus = load(part)
        r = score(cut(corpus["cases"]))
        r["source"] = corpus["source"]
        r["skipped"] = corpus.get("skipped", {})
        show = part not in HELD_OUT or args.show_held_out
        if not show:
            # counts only: the held-out misses stay unread while anyone tunes
            r = {k: v for k, v in r.items() if k not in ("missed", "false_positive_examples", "misses_by_group", "per_group")}
            r["misses_hidden"] = True
        report(part, r, details=show)
        result[part] = r
    r = score(cut(public_benign()))
    print(f"benign (public notes): {r['false_positives']}/{r['benign']} changed ({_pct(r['false_positive_rate'])})")
    for ex in r["false_positive_examples"][:20]:
        print(f"  FP {ex['id']} {ex['kinds']}: {ex['text'][:100]!r}")
    result["benign_public_notes"] = {k: v for k, v in r.items() if k in ("benign", "false_positives", "false_positive_rate", "false_positive_examples")}

    out = Path(args.out).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {out}")
    met = all(result[p]["catch_rate"] is not None and result[p]["catch_rate"] >= GOAL_CATCH
              and (result[p]["false_positive_rate"] or 0) <= GOAL_FP for p in parts)
    return 0 if met and (result["benign_public_notes"]["false_positive_rate"] or 0) <= GOAL_FP else 1


if __name__ == "__main__":
    raise SystemExit(main())
