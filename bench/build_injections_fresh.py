"""Build bench/data/injections_fresh.json: a second public held-out corpus for the instruction flags.

    python bench/build_injections_fresh.py SPIKEE_WHEEL_DIR LLM_SDIST SHELL_GPT_SDIST OLLAMA_SDIST

Each argument is an unpacked distribution from PyPI (``pip download --no-deps spikee==0.9.2`` and
``pip download --no-deps --no-binary :all: llm==0.36 shell-gpt==1.5.1 ollama==0.6.3``, then unzip / untar).
Nothing is edited by hand: the attacks are spikee's own jailbreak templates with its own
``<INSTRUCTION>`` payloads filled in (what ``spikee generate`` plants in documents), the benign
texts are spikee's false-positive inputs and the prose and code blocks of three LLM command-line
tools' READMEs that talk about prompts, roles, system prompts and shell pipes. See bench/data/README.md.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent / "data" / "injections_fresh.json"
SEEDS = ("seeds-cybersec-2026-01", "seeds-llm-mailbox", "seeds-sysmsg-extraction-2025-04")
KEYWORDS = re.compile(r"prompt|system|role|pipe|\||shell|instruction|ignore|override|sudo|curl|command|assistant|"
                      r"template|persona|jailbreak|inject", re.I)


def _h(text: str) -> int:
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest(), 16)


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def attacks(spikee: Path) -> list[dict]:
    root = spikee / "spikee" / "data" / "workspace" / "datasets"
    templates: dict[str, str] = {}
    extract: dict[str, str] = {}
    other: dict[str, str] = {}
    for seed in SEEDS:
        for row in _jsonl(root / seed / "jailbreaks.jsonl"):
            templates.setdefault(row["text"], row["jailbreak_type"])
        for row in _jsonl(root / seed / "instructions.jsonl"):
            pool = extract if row["instruction_type"] == "sysmsg-extract" else other
            pool.setdefault(row["instruction"], row["instruction_type"])
    ex, ot = sorted(extract), sorted(other)
    out = []
    # every template twice: once with a system-prompt extraction payload, once with an
    # exfiltration / XSS / long-output payload, each chosen by the template's hash
    for template in sorted(templates):
        for pool, names in ((ex, extract), (ot, other)):
            instruction = pool[_h(template) % len(pool)]
            out.append({"source": f"spikee 0.9.2 jailbreak '{templates[template]}' + {names[instruction]} (Apache-2.0)",
                        "text": template.replace("<INSTRUCTION>", instruction)})
    return out


def readme_pieces(text: str) -> list[str]:
    """A README's code blocks whole; its prose split into sentences (build_injections_agents.py too)."""
    pieces = []
    for i, part in enumerate(re.split(r"^```[^\n]*\n", text, flags=re.M)):
        if i % 2:  # inside a fence
            pieces.append(part.strip())
            continue
        for para in re.split(r"\n\s*\n", part):
            para = " ".join(line.strip() for line in para.splitlines())
            if para.startswith(("#", "<", "![", "[!", "|")):
                continue
            pieces.extend(s.strip() for s in re.split(r"(?<=[.!?])\s+(?=[A-Z`])", para))
    return pieces


def benign(spikee: Path, readmes: list[tuple[str, Path]]) -> list[dict]:
    root = spikee / "spikee" / "data" / "workspace" / "datasets"
    out = [{"source": "spikee 0.9.2 seeds-investment-advice-fp (Apache-2.0)", "text": row["text"]}
           for row in _jsonl(root / "seeds-investment-advice-fp" / "standalone_user_inputs.jsonl")]
    for name, readme in readmes:
        for piece in readme_pieces(readme.read_text(encoding="utf-8")):
            if 20 <= len(piece) <= 800 and KEYWORDS.search(piece):
                out.append({"source": f"{name} README", "text": piece})
    return out


def main(argv: list[str]) -> int:
    spikee, llm, sgpt, ollama = (Path(a) for a in argv[1:5])
    readmes = [("llm 0.36 (Apache-2.0)", llm / "README.md"), ("shell-gpt 1.5.1 (MIT)", sgpt / "README.md"),
               ("ollama-python 0.6.3 (MIT)", ollama / "README.md")]
    seen: set[str] = set()
    data: dict = {"attacks": [], "benign": []}
    for key, rows in (("attacks", attacks(spikee)), ("benign", benign(spikee, readmes))):
        for row in rows:
            if row["text"] not in seen:
                seen.add(row["text"])
                data[key].append({**row, "split": "held-out"})
    OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT}: {len(data['attacks'])} attacks, {len(data['benign'])} benign")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
