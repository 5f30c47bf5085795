"""Build bench/data/injections_bastion.json: a third public held-out corpus for the instruction flags.

    python bench/build_injections_bastion.py BASTIONCORPUS_WHEEL_DIR

The argument is the unpacked wheel of ``pip download --no-deps bastioncorpus==0.6.0`` (MIT, Stefano
Rizzello). Nothing is edited or chosen by hand: every row of its ``corpus/injections.jsonl`` is kept,
``malicious`` rows as attacks and ``benign`` rows (its false-positive traps: notes that say ignore,
forget, act as, system, reveal...) as benign, each with the package's own category as its source.
Written and committed before any detector ran on it; the whole file is held-out. See bench/data/README.md.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent / "data" / "injections_bastion.json"


def build(wheel: Path) -> dict:
    rows = [json.loads(line) for line in (wheel / "bastioncorpus" / "corpus" / "injections.jsonl")
            .read_text(encoding="utf-8").splitlines() if line.strip()]
    out: dict = {"source": "bastioncorpus 0.6.0 (PyPI wheel, MIT), corpus/injections.jsonl", "attacks": [], "benign": []}
    seen: set[str] = set()
    for r in rows:
        if r["text"] in seen:
            continue
        seen.add(r["text"])
        item = {"text": r["text"], "source": f"bastioncorpus {r['category']} ({r['lang']}, {r['channel']})",
                "split": "held-out"}
        out["attacks" if r["label"] == "malicious" else "benign"].append(item)
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    data = build(Path(argv[0]))
    OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT}: {len(data['attacks'])} attacks, {len(data['benign'])} benign")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
