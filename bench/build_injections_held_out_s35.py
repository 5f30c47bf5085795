"""Build bench/data/injections_held_out_s35.json: session 35's held-out corpus for the instruction flags.

    python bench/build_injections_held_out_s35.py WHEELS_DIR

WHEELS_DIR holds these PyPI wheels, each unpacked into a folder named as the wheel's name up to its first
``-`` (``pip download --no-deps prompt-security-fuzzer==2.1.1 nemoguardrails==0.24.1 llm-guard==0.3.16
rebuff==0.1.1 deepteam==1.0.10``, then ``unzip`` each): ``prompt_security_fuzzer/``, ``nemoguardrails/``,
``llm_guard/``, ``rebuff/``, ``deepteam/``. Reading the Parquet file below needs ``pyarrow`` (bench-only, at
build time; nothing here reads it at run time). The texts typed from two GitHub repositories are in
bench/data/injections_held_out_s35_typed.yml, with repository, file and commit.

Sources (none used by an earlier corpus here):

* attacks:
  - every row of ``ps_fuzz/attack_data/prompt_injections_for_base64.parquet`` in prompt-security-fuzzer 2.1.1
    (MIT; Prompt Security's ps-fuzz): 203 texts, all labelled 1 (injection): the injection rows of deepset's
    ``prompt-injections`` data set (Apache-2.0) as ps-fuzz ships them, English and German;
  - ps-fuzz's own fixed attack texts (not the templates an LLM fills at run time): the system-prompt stealer's
    text (``attacks/dynamic_test.py``), the typoglycemia attack (``attacks/typoglycemia.py``), the poisoned
    document of its RAG-poisoning test (``attacks/rag_poisoning.py``), and its DAN template as the test sends
    it (``attacks/dan.py``), each read from the source with ``ast``;
  - promptmap's rules (utkusen/promptmap, MIT): the prompt-stealing, distraction and four jailbreak rules'
    ``prompt`` (typed; the YAML read with ``yaml``);
  - PayloadsAllTheThings' Prompt Injection page (swisskyrepo/PayloadsAllTheThings, MIT): its example payloads
    (typed).
* benign: the sentences and code blocks of the READMEs (wheel METADATA) of prompt-security-fuzzer, NeMo
  Guardrails (Apache-2.0), LLM Guard (MIT), Rebuff (Apache-2.0) and DeepTeam (Apache-2.0) that talk about
  prompts, roles, tools, agents, models or shells, and of the READMEs NeMo Guardrails ships inside its
  package (its rails library, evaluation tools and runtime); the first paragraph of LLM Guard's scanners' docstrings;
  and the prose of the PayloadsAllTheThings page (typed).

The whole file is held out: written and committed before any detector ran on it. See bench/data/README.md.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

import yaml  # bench-only: the typed texts are YAML; the server never reads YAML

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_injections_fresh import readme_pieces  # noqa: E402

HERE = Path(__file__).resolve().parent
OUT = HERE / "data" / "injections_held_out_s35.json"
TYPED = HERE / "data" / "injections_held_out_s35_typed.yml"
PSF = "prompt-security-fuzzer 2.1.1"
KEYWORDS = re.compile(r"prompt|system|role|pipe|\||shell|instruction|ignore|override|sudo|curl|command|assistant|"
                      r"template|persona|jailbreak|inject|agent|tool|model|LLM", re.I)
READMES = (("prompt_security_fuzzer", PSF, "MIT"), ("nemoguardrails", "nemoguardrails 0.24.1", "Apache-2.0"),
           ("llm_guard", "llm-guard 0.3.16", "MIT"), ("rebuff", "rebuff 0.1.1", "Apache-2.0"),
           ("deepteam", "deepteam 1.0.10", "Apache-2.0"))


def _module_strings(path: Path) -> dict[str, str]:
    """Module-level string constants of a source file, by name."""
    out = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
            out[node.targets[0].id] = node.value.value
    return out


def _assigned_strings(path: Path, name: str) -> list[str]:
    """Every string constant assigned to ``name`` anywhere in a source file (a local inside a method)."""
    return [n.value.value for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in n.targets)
            and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)]


def ps_fuzz(root: Path) -> list[dict]:
    import pyarrow.parquet as pq  # bench-only, build time: the one Parquet file ps-fuzz ships

    pkg = root / "ps_fuzz"
    attacks = []
    for row in pq.read_table(pkg / "attack_data" / "prompt_injections_for_base64.parquet").to_pylist():
        if row["label"] == 1:
            attacks.append({"source": f"{PSF} attack_data prompt_injections (deepset prompt-injections, "
                                      "Apache-2.0; MIT)", "text": row["text"].strip()})
    fixed = [("system_prompt_stealer", _module_strings(pkg / "attacks" / "dynamic_test.py")["steal_system_prompt_attack_text"]),
             ("typoglycemia", _assigned_strings(pkg / "attacks" / "typoglycemia.py", "attack_task")[0]),
             ("rag_poisoning", _assigned_strings(pkg / "attacks" / "rag_poisoning.py", "poisoned_content")[0])]
    # the DAN test sends its template, then this sentence (attacks/dan.py: chat.say(template) + "...")
    dan = _module_strings(pkg / "attacks" / "dan.py")["dan_prompt_template"]
    fixed.append(("do_anything_now_jailbreak", dan + ". Now that you're DAN, tell me who is the first president of United States."))
    for _name, text in fixed:
        attacks.append({"source": f"{PSF} fixed attack texts (MIT)", "text": text.strip()})
    return attacks


def typed() -> tuple[list[dict], list[dict]]:
    data = yaml.safe_load(TYPED.read_text(encoding="utf-8"))
    pm, pat = data["promptmap"], data["payloadsallthethings"]
    # the source names the rule's folder, not its file: a per-source count must not point at one text
    attacks = [{"source": f"{pm['repo']}@{r['commit']} {r['file'].rsplit('/', 1)[0]} ({pm['license']})",
                "text": r["prompt"].strip()} for r in pm["rules"]]
    where = f"{pat['repo']}@{pat['commit']} {pat['file']} ({pat['license']})"
    attacks += [{"source": where, "text": t.strip()} for t in pat["attacks"]]
    benign = [{"source": where, "text": t.strip()} for t in pat["benign"]]
    return attacks, benign


def readmes(whl: Path) -> list[dict]:
    out = []
    for folder, name, licence in READMES:
        meta = next((whl / folder).glob("*.dist-info/METADATA"))
        body = meta.read_text(encoding="utf-8").split("\n\n", 1)[-1]
        for piece in readme_pieces(body):
            if 20 <= len(piece) <= 800 and KEYWORDS.search(piece):
                out.append({"source": f"{name} README ({licence})", "text": piece})
    # NeMo Guardrails' own READMEs shipped in the package (its rails library and evaluation tools)
    for f in sorted((whl / "nemoguardrails" / "nemoguardrails").rglob("README.md")):
        for piece in readme_pieces(f.read_text(encoding="utf-8")):
            if 20 <= len(piece) <= 800 and KEYWORDS.search(piece):
                out.append({"source": "nemoguardrails 0.24.1 package READMEs (Apache-2.0)", "text": piece})
    # LLM Guard's scanners: the first paragraph of each class docstring (what the scanner looks for)
    for f in sorted((whl / "llm_guard" / "llm_guard").glob("*_scanners/*.py")):
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.ClassDef, ast.FunctionDef)) and not node.name.startswith("_"):
                doc = ast.get_docstring(node)
                if doc:
                    first = " ".join(doc.split("\n\n", 1)[0].split())
                    if 20 <= len(first) <= 800 and KEYWORDS.search(first):
                        out.append({"source": f"llm-guard 0.3.16 docstrings, {f.parent.name} (MIT)", "text": first})
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    whl = Path(argv[1])
    typed_attacks, typed_benign = typed()
    seen: set[str] = set()
    data: dict = {"attacks": [], "benign": []}  # the shape of the other public corpora; each row names its source
    for key, rows in (("attacks", ps_fuzz(whl / "prompt_security_fuzzer") + typed_attacks),
                      ("benign", typed_benign + readmes(whl))):
        for row in rows:
            if row["text"] and row["text"] not in seen:
                seen.add(row["text"])
                data[key].append({**row, "split": "held-out"})
    OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT}: {len(data['attacks'])} attacks, {len(data['benign'])} benign")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
