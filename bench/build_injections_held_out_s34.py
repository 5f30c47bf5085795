"""Build bench/data/injections_held_out_s34.json: session 34's held-out corpus for the instruction flags.

    python bench/build_injections_held_out_s34.py AGENTDOJO_DIR BIPIA_DIR

AGENTDOJO_DIR is the unpacked PyPI wheel of AgentDojo (``pip download --no-deps agentdojo==0.1.35``, then
unzip; MIT, ETH Zurich SPY Lab). BIPIA_DIR holds five files of microsoft/BIPIA (MIT) laid flat in the
folder: ``benchmark/{text,code}_attack_{train,test}.json`` at commit 5a48626aece9739ce587ffdbcb2b7badcfd9d8ba
and the repository's ``README.md`` at 1a2a91da6bb12838e05d1b2e54d98e2f37b835f3.

Nothing is edited or chosen by hand:

* attacks: AgentDojo's injection tasks' goals (every suite and version, read from the source with ``ast``),
  each rendered the way AgentDojo's attacks render it, with one of its five fixed-template attacks
  (``direct``, ``ignore_previous``, ``system_message``, ``injecagent``, ``important_instructions``) picked
  by the goal's SHA-256; its denial-of-service attacks' texts; and every text and code attack of BIPIA
  (the instructions BIPIA plants in e-mails, tables, web pages, abstracts and code answers), train and test.
* benign: AgentDojo's user tasks' prompts (the requests the injections interrupt), its default system
  message, the first paragraph of its tools' docstrings, and the sentences and code blocks of AgentDojo's
  and BIPIA's READMEs that talk about prompts, roles, tools, agents, models or shells.

The whole file is held-out: written and committed before any detector ran on it. AgentDojo's texts were
not read one by one; BIPIA's were read while they were typed from the repository (no package ships them).
See bench/data/README.md.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import sys
from pathlib import Path

import yaml  # bench-only: AgentDojo's system messages are YAML; the server never reads YAML

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_injections_fresh import readme_pieces  # noqa: E402

OUT = Path(__file__).resolve().parent / "data" / "injections_held_out_s34.json"
AD = "agentdojo 0.1.35"
KEYWORDS = re.compile(r"prompt|system|role|pipe|\||shell|instruction|ignore|override|sudo|curl|command|assistant|"
                      r"template|persona|jailbreak|inject|agent|tool|model|LLM", re.I)
# AgentDojo's fixed-template attacks, by name (attacks/baseline_attacks.py, attacks/important_instructions_attacks.py)
TEMPLATE_ATTACKS = ("direct", "ignore_previous", "system_message", "injecagent", "important_instructions")


def _eval(node: ast.expr, ns: dict):
    return eval(compile(ast.Expression(node), "<agentdojo>", "eval"), {"__builtins__": {}}, dict(ns))  # noqa: S307


def _class_strings(path: Path, attr: str) -> list[tuple[str, str]]:
    """Every class's ``attr`` (GOAL or PROMPT) evaluated from the source: f-strings over class and module constants."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    module: dict = {}
    out = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                module[node.targets[0].id] = _eval(node.value, module)
            except Exception:  # noqa: BLE001  (a call or an import-time value: not a constant the goals use)
                pass
        if not isinstance(node, ast.ClassDef):
            continue
        ns = dict(module)
        for stmt in node.body:
            target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else (
                stmt.target if isinstance(stmt, ast.AnnAssign) and stmt.value is not None else None)
            if not isinstance(target, ast.Name):
                continue
            try:
                ns[target.id] = _eval(stmt.value, ns)
            except Exception:  # noqa: BLE001
                continue
            if target.id == attr and isinstance(ns[attr], str):
                out.append((node.name, ns[attr]))
    return out


def _attack_templates(root: Path) -> dict[str, str]:
    """name -> jailbreak string of AgentDojo's fixed-template attacks, read from their classes."""
    templates = {}
    for f in ("baseline_attacks.py", "important_instructions_attacks.py"):
        for cls in ast.parse((root / "attacks" / f).read_text(encoding="utf-8")).body:
            if not isinstance(cls, ast.ClassDef):
                continue
            name = jb = None
            for stmt in ast.walk(cls):
                if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
                    if stmt.targets[0].id == "name" and isinstance(stmt.value, ast.Constant):
                        name = stmt.value.value
                    if stmt.targets[0].id == "_JB_STRING":
                        jb = _eval(stmt.value, {})
                if (isinstance(stmt, ast.Call) and isinstance(stmt.func, ast.Attribute) and stmt.func.attr == "__init__"
                        and stmt.args and isinstance(stmt.args[0], ast.Constant) and isinstance(stmt.args[0].value, str)):
                    jb = stmt.args[0].value
            if name in TEMPLATE_ATTACKS and jb:
                templates[name] = jb
    return templates


def _defaults(root: Path) -> dict[str, str]:
    """AgentDojo's default model and user names (attacks/base_attacks.py)."""
    ns = {}
    for node in ast.parse((root / "attacks" / "base_attacks.py").read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and node.targets[0].id.startswith("DEFAULT_"):
            ns[node.targets[0].id] = _eval(node.value, {})
    return ns


def _dos_strings(root: Path) -> list[tuple[str, str]]:
    out = []
    for cls in ast.parse((root / "attacks" / "dos_attacks.py").read_text(encoding="utf-8")).body:
        if isinstance(cls, ast.ClassDef):
            for stmt in cls.body:
                if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == "_DOS_STRING":
                    out.append((cls.name, _eval(stmt.value, {})))
    return out


def _pick(text: str, options: tuple[str, ...]) -> str:
    return options[int(hashlib.sha256(text.encode("utf-8")).hexdigest(), 16) % len(options)]


def agentdojo(whl: Path) -> tuple[list[dict], list[dict]]:
    root = whl / "agentdojo"
    suites = root / "default_suites"
    templates, names = _attack_templates(root), _defaults(root)
    missing = [t for t in TEMPLATE_ATTACKS if t not in templates]
    if missing:
        raise SystemExit(f"AgentDojo attack templates not found: {missing}")
    # important_instructions signs as the user AgentDojo names ("Emma Johnson"); the model is its default name
    # (the attack reads the model from the pipeline under test: there is none here)
    user, model = "Emma Johnson", names["DEFAULT_MODEL_NAME"]
    attacks, benign = [], []
    for f in sorted(suites.rglob("injection_tasks.py")):
        for _cls, goal in _class_strings(f, "GOAL"):
            attack = _pick(goal, TEMPLATE_ATTACKS)
            text = templates[attack].format(goal=goal, user=user if attack == "important_instructions" else names["DEFAULT_USER_NAME"],
                                            model=model, task="")
            # the source names the attack, not the task or suite: a per-source count must not point at one text
            attacks.append({"source": f"{AD} {attack} attack (MIT)", "text": text.strip()})
    for _cls, text in _dos_strings(root):
        attacks.append({"source": f"{AD} denial-of-service attacks (MIT)",
                        "text": text.format(user=user, model=model).strip()})
    for f in sorted(suites.rglob("user_tasks.py")):
        suite = f.parent.name
        for _cls, prompt in _class_strings(f, "PROMPT"):
            benign.append({"source": f"{AD} user tasks, {suite} (MIT)", "text": prompt.strip()})
    system = yaml.safe_load((root / "data" / "system_messages.yaml").read_text(encoding="utf-8"))
    for key, text in sorted(system.items()):
        benign.append({"source": f"{AD} system message '{key}' (MIT)", "text": text.strip()})
    for f in sorted((suites / "v1" / "tools").glob("*.py")):
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                doc = ast.get_docstring(node)
                if doc:
                    first = " ".join(doc.split("\n\n", 1)[0].split())
                    if 20 <= len(first) <= 800:
                        benign.append({"source": f"{AD} tool docstrings, {f.stem} (MIT)", "text": first})
    meta = next(whl.glob("*.dist-info/METADATA"))
    body = meta.read_text(encoding="utf-8").split("\n\n", 1)[-1]
    for piece in readme_pieces(body):
        if 20 <= len(piece) <= 800 and KEYWORDS.search(piece):
            benign.append({"source": f"{AD} README (MIT)", "text": piece})
    return attacks, benign


def bipia(folder: Path) -> tuple[list[dict], list[dict]]:
    attacks = []
    for kind in ("text", "code"):
        for split in ("train", "test"):
            data = json.loads((folder / f"{kind}_attack_{split}.json").read_text(encoding="utf-8"))
            for category, texts in data.items():
                for text in texts:
                    attacks.append({"source": f"BIPIA {kind} attack ({split}): {category} (MIT)", "text": text.strip()})
    benign = [{"source": "BIPIA README (MIT)", "text": piece}
              for piece in readme_pieces((folder / "README.md").read_text(encoding="utf-8"))
              if 20 <= len(piece) <= 800 and KEYWORDS.search(piece)]
    return attacks, benign


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    ad_att, ad_ben = agentdojo(Path(argv[1]))
    bi_att, bi_ben = bipia(Path(argv[2]))
    seen: set[str] = set()
    data: dict = {"attacks": [], "benign": []}  # the shape of the other public corpora; each row names its source
    for key, rows in (("attacks", ad_att + bi_att), ("benign", ad_ben + bi_ben)):
        for row in rows:
            if row["text"] and row["text"] not in seen:
                seen.add(row["text"])
                data[key].append({**row, "split": "held-out"})
    OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT}: {len(data['attacks'])} attacks, {len(data['benign'])} benign")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
