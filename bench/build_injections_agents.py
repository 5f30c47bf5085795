"""Build bench/data/injections_agents.json: a fourth public held-out corpus for the instruction flags.

    python bench/build_injections_agents.py RAGINJECT_DIR HERMES_DIR AIB_DIR READMES

RAGINJECT_DIR, HERMES_DIR and AIB_DIR are unpacked PyPI wheels (``pip download --no-deps raginject==0.12.0
hermes-jailbench==0.2.2 agent-injection-bench==0.1.0``, then unzip); READMES is a folder of wheels left
zipped (``pip download --no-deps smolagents==1.26.0 pydantic-ai-slim==2.68.0 guidance==0.3.1
mistralai==3.7.0 groq==1.7.0``). Nothing is edited or chosen by hand: the attacks are raginject's
indirect-injection documents, hermes-jailbench's attack templates rendered as the package renders
them, and agent-injection-bench's injected tool outputs and documents; the benign texts are the user
questions and tasks the same packages pair with them, agent-injection-bench's control (clean) content,
and the paragraphs and code blocks of five agent libraries' READMEs that talk about prompts, roles,
system prompts, tools and shells. See bench/data/README.md. The whole file is held-out: it was
written and committed before any detector ran on it.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
import zipfile
from pathlib import Path

import yaml  # bench-only: the builder reads the packages' YAML; the server never does

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_injections_fresh import readme_pieces  # noqa: E402

OUT = Path(__file__).resolve().parent / "data" / "injections_agents.json"
KEYWORDS = re.compile(r"prompt|system|role|pipe|\||shell|instruction|ignore|override|sudo|curl|command|assistant|"
                      r"template|persona|jailbreak|inject|agent|tool", re.I)


def raginject(root: Path) -> tuple[list[dict], list[dict]]:
    attacks, benign = [], []
    for f in sorted((root / "raginject" / "attacks").rglob("*.yaml")):
        for row in yaml.safe_load(f.read_text(encoding="utf-8")) or []:
            src = f"raginject 0.12.0 {row.get('category', f.stem)} (Apache-2.0)"
            if isinstance(row.get("injected_content"), str) and row["injected_content"].strip():
                attacks.append({"source": src, "text": row["injected_content"].strip()})
            if isinstance(row.get("question"), str) and row["question"].strip():
                benign.append({"source": "raginject 0.12.0 user questions (Apache-2.0)", "text": row["question"].strip()})
    return attacks, benign


def hermes(root: Path) -> list[dict]:
    spec = importlib.util.spec_from_file_location("hermes_attacks", root / "hermes_jailbench" / "attacks.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["hermes_attacks"] = mod  # dataclasses look the module up by name
    spec.loader.exec_module(mod)
    return [{"source": f"hermes-jailbench 0.2.2 {a.category.value} (MIT)", "text": a.render().strip()}
            for attacks in mod.ATTACKS_BY_CATEGORY.values() for a in attacks]


def agent_injection_bench(root: Path) -> tuple[list[dict], list[dict]]:
    attacks, benign = [], []
    for line in (root / "aib" / "data" / "attacks.jsonl").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        injected = row.get("injected")
        if isinstance(injected, str) and injected.strip():
            if row.get("family") == "control":
                benign.append({"source": "agent-injection-bench 0.1.0 control content (MIT)", "text": injected.strip()})
            else:
                attacks.append({"source": f"agent-injection-bench 0.1.0 {row.get('family')} via {row.get('channel')} (MIT)",
                                "text": injected.strip()})
        if isinstance(row.get("task"), str) and row["task"].strip():
            benign.append({"source": "agent-injection-bench 0.1.0 user tasks (MIT)", "text": row["task"].strip()})
    return attacks, benign


LICENCES = {"smolagents": "Apache-2.0", "pydantic_ai_slim": "MIT", "guidance": "MIT", "mistralai": "Apache-2.0",
            "groq": "Apache-2.0"}


def readmes(folder: Path) -> list[dict]:
    out = []
    for whl in sorted(folder.glob("*.whl")):
        name, version = whl.name.split("-")[:2]
        with zipfile.ZipFile(whl) as z:
            meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
            body = z.read(meta).decode("utf-8", "replace").split("\n\n", 1)[-1]
        for piece in readme_pieces(body):
            if 20 <= len(piece) <= 800 and KEYWORDS.search(piece):
                out.append({"source": f"{name} {version} README ({LICENCES.get(name, '?')})", "text": piece})
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 5:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    rag, herm, aib, docs = (Path(a) for a in argv[1:5])
    rag_att, rag_ben = raginject(rag)
    aib_att, aib_ben = agent_injection_bench(aib)
    seen: set[str] = set()
    data: dict = {"attacks": [], "benign": []}
    for key, rows in (("attacks", rag_att + hermes(herm) + aib_att), ("benign", rag_ben + aib_ben + readmes(docs))):
        for row in rows:
            if row["text"] not in seen:
                seen.add(row["text"])
                data[key].append({**row, "split": "held-out"})
    OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT}: {len(data['attacks'])} attacks, {len(data['benign'])} benign")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
