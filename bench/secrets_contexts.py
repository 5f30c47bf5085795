"""Re-embed every known secret in the syntaxes a scanner corpus writes them in: catches per context.

    python bench/secrets_contexts.py              # from the repo root; writes bench/results/secrets_contexts.json
    python bench/secrets_contexts.py --show 5     # also print up to 5 misses / changes per context

Why: the public scanner corpora (bench/data/secrets_public/) each hold a secret in the one syntax their
fixture was written in (a bare token, ``KEY=value``, a curl line). A corpus nobody here has seen writes the
same providers' values in other syntaxes -- JSON, YAML, .env, a URL query, Python/Go/JS/Java/C#/PHP/Ruby code,
XML, HCL, Dockerfile ``ENV``/``ARG``, a Kubernetes Secret, a curl header, a comment. A context whose catch
rate is below the fixture's own (100 % by construction: only values caught in their own fixture are used) is
a *class* the detectors miss, not an example.

* **Secrets**: every distinct single-line value of the tuning parts (never a held-out part) whose own case
  redact() catches, under the key its fixture gave it when it names a credential (``TWILIO_KEY=...`` ->
  ``TWILIO_KEY``; a URL's or a
  pair's password -> ``password``), else ``password`` when the fixture speaks of one, else ``api_token`` (a bare
  token), in each context. A second pass puts the value under a key that says nothing
  (``setting``) -- the value's format alone (only values that are caught bare in their fixture, i.e. provider
  formats, are counted there).
* **Must not fire**: in the same contexts, credential keys holding references and placeholders (``${KEY}``,
  ``<REDACTED>``, ``os.environ[...]``, ``xxxx``...) and plain keys holding ids, hashes and UUIDs (a commit
  SHA, a SHA-256, a UUID request id, a Mongo ObjectId, an npm integrity hash, a version). Written here from
  the shapes, not from any corpus.

A catch is as in bench/secrets_public.py: the value no longer appears in the output outside the markers.
"""

from __future__ import annotations

import argparse
import base64
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.secrets_public import CORPORA, HELD_OUT, load  # noqa: E402
from server.guard.redact import redact  # noqa: E402

_MARKER = re.compile(r"\[REDACTED:[a-z0-9-]{1,40}\]")


def _b64(s: str) -> str:
    return base64.b64encode(s.encode()).decode()


def _k8s(key: str, v: str, *, data: bool) -> str:
    return ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: app-credentials\ntype: Opaque\n"
            + ("data:\n" if data else "stringData:\n") + f"  {key}: {_b64(v) if data else v}\n")


# Each context: name -> f(key, KEY, value). `key` is the key as the fixture wrote it, `KEY` its upper-case
# environment-variable form, `camel` a camelCase form for code that names things so.
def _camel(key: str) -> str:
    parts = [p for p in re.split(r"[_.\-]+", key) if p]
    return (parts[0].lower() + "".join(p[:1].upper() + p[1:].lower() for p in parts[1:])) if parts else key


CONTEXTS = {
    "json": lambda k, K, v: '{"%s": "%s"}' % (k, v),
    "json-nested": lambda k, K, v: '{\n  "service": {\n    "url": "https://api.example.com",\n    "%s": "%s"\n  }\n}' % (k, v),
    "yaml": lambda k, K, v: f"{k}: {v}",
    "yaml-quoted": lambda k, K, v: f'{k}: "{v}"',
    "yaml-nested": lambda k, K, v: f"service:\n  endpoint: https://api.example.com\n  {k}: {v}\n",
    "dotenv": lambda k, K, v: f"{K}={v}",
    "dotenv-quoted": lambda k, K, v: f'{K}="{v}"',
    "shell-export": lambda k, K, v: f"export {K}='{v}'",
    "url-query": lambda k, K, v: f"https://api.example.com/v1/items?{k}={v}&limit=10",
    "python": lambda k, K, v: f'{k.lower().replace("-", "_").replace(".", "_")} = "{v}"',
    "python-kwarg": lambda k, K, v: f'client = Client({k.lower().replace("-", "_").replace(".", "_")}="{v}")',
    "python-dict": lambda k, K, v: f"config = {{'{k}': '{v}', 'timeout': 30}}",
    "go": lambda k, K, v: f'{_camel(k)} := "{v}"',
    "js-const": lambda k, K, v: f"const {_camel(k)} = '{v}';",
    "js-object": lambda k, K, v: f"module.exports = {{\n  {_camel(k)}: '{v}',\n  region: 'us-east-1',\n}};",
    "java": lambda k, K, v: f'private static final String {K} = "{v}";',
    "csharp": lambda k, K, v: f'var {_camel(k)} = "{v}";',
    "php": lambda k, K, v: f"${_camel(k)} = '{v}';",
    "php-define": lambda k, K, v: f"define('{K}', '{v}');",
    "ruby": lambda k, K, v: f"config.{k.lower().replace('-', '_').replace('.', '_')} = '{v}'",
    "xml-attr": lambda k, K, v: f'<add key="{k}" value="{v}" />',
    "xml-element": lambda k, K, v: f"<{k}>{v}</{k}>",
    "hcl": lambda k, K, v: f'{k.lower().replace("-", "_").replace(".", "_")} = "{v}"',
    "toml": lambda k, K, v: f'[service]\n{k} = "{v}"',
    "ini": lambda k, K, v: f"[service]\n{k} = {v}",
    "properties": lambda k, K, v: f"{k.lower().strip('_.').replace('_', '.')}={v}",
    "dockerfile-env": lambda k, K, v: f"ENV {K}={v}",
    "dockerfile-arg": lambda k, K, v: f"ARG {K}={v}",
    "compose-env": lambda k, K, v: f"services:\n  app:\n    environment:\n      - {K}={v}\n",
    "gha-env": lambda k, K, v: f"env:\n  {K}: {v}\n",
    "k8s-stringdata": lambda k, K, v: _k8s(k, v, data=False),
    "k8s-data-b64": lambda k, K, v: _k8s(k, v, data=True),
    "powershell": lambda k, K, v: f'$env:{K} = "{v}"',
    "cli-flag": lambda k, K, v: f"mytool deploy --{k.lower().replace('_', '-')} {v}",
    "cli-flag-eq": lambda k, K, v: f"mytool deploy --{k.lower().replace('_', '-')}={v}",
    "curl-bearer": lambda k, K, v: f'curl -H "Authorization: Bearer {v}" https://api.example.com/v1/me',
    "curl-header": lambda k, K, v: f'curl -H "X-{K.replace("_", "-").title()}: {v}" https://api.example.com/v1/me',
    "http-basic": lambda k, K, v: f"Authorization: Basic {_b64('deploy:' + v)}",
    "comment-hash": lambda k, K, v: f"# {k}: {v}",
    "comment-slash": lambda k, K, v: f"// {K} = {v}",
    "markdown-code": lambda k, K, v: f"Set it in your shell:\n\n```bash\nexport {K}={v}\n```\n",
    "log-json-escaped": lambda k, K, v: 'INFO request body="{\\"%s\\":\\"%s\\"}"' % (k, v),
}

# Contexts whose value is not the raw value (encoded): a catch there means the encoded form is gone.
ENCODED = {"k8s-data-b64": lambda v: _b64(v), "http-basic": lambda v: _b64("deploy:" + v)}

_KEY_BEFORE = re.compile(r"([A-Za-z_][A-Za-z0-9_.\-]{0,60})[\"'\]]?[ \t]*(?::=|=>|=|:)[ \t]*[\"'`]?[ \t]*\Z")
_VALUE_OK = re.compile(r"[^\s\"'`\\<>{}]{8,300}\Z")


_CREDENTIAL_WORD = re.compile(r"(?i)pass|pwd|secret|token|key|auth|cred|sig|session|cookie|bearer")


def fixture_key(text: str, secret: str) -> str | None:
    """The key the fixture wrote the value under (``TWILIO_KEY=v`` -> TWILIO_KEY) when it names a credential;
    a URL's or a pair's password (``user:pw@``, ``-u user:pw``) is a password; else None."""
    i = text.find(secret)
    if i < 0:
        return None
    if text[i + len(secret):i + len(secret) + 1] == "@" or ":" + secret in text and ("-u" in text or "://" in text):
        return "password"
    line_start = text.rfind("\n", 0, i) + 1
    m = _KEY_BEFORE.search(text, line_start, i)
    if m is None:
        return None
    return m.group(1) if _CREDENTIAL_WORD.search(m.group(1)) else None


def caught(text: str, value: str, encoded: str | None = None) -> bool:
    out = _MARKER.sub("\0", redact(text).text)
    return (encoded or value) not in out


def secret_values() -> list[dict]:
    """Distinct single-line values caught in their own fixture, with the fixture's key (or None)."""
    seen: dict[str, dict] = {}
    for part in CORPORA:
        if part in HELD_OUT:
            continue  # a held-out part is never read while tuning, not even re-embedded
        for c in load(part)["cases"]:
            v = c["secret"] if c["label"] == "secret" else None
            if v is None or v in seen or not _VALUE_OK.match(v):
                continue
            if not caught(c["text"], v):
                continue
            seen[v] = {"value": v, "part": part, "group": c["group"], "id": c["id"],
                       "key": fixture_key(c["text"], v), "bare": c["text"].strip() == v,
                       "fallback": "password" if re.search(r"(?i)pass|pwd", c["group"] + c["text"]) else "api_token"}
    return list(seen.values())


# ------------------------------------------------------------------ must not fire

CREDENTIAL_KEYS = ["password", "db_password", "api_key", "apiKey", "secret_key", "client_secret", "auth_token",
                   "access_token", "GITHUB_TOKEN", "STRIPE_SECRET_KEY", "private_key", "passwd", "token"]
REFERENCES = {
    "env-brace": lambda K: "${%s}" % K, "env-dollar": lambda K: f"${K}", "env-default": lambda K: "${%s:-}" % K,
    "helm": lambda K: "{{ .Values.%s }}" % K.lower(), "ansible": lambda K: "{{ vault_%s }}" % K.lower(),
    "github-actions": lambda K: "${{ secrets.%s }}" % K, "angle": lambda K: f"<{K.lower()}>",
    "redacted": lambda K: "<REDACTED>", "your": lambda K: f"YOUR_{K.upper()}_HERE",
    "xxxx": lambda K: "xxxxxxxxxxxxxxxxxxxxxxxx", "stars": lambda K: "********",
    "environ": lambda K: f'os.environ["{K}"]', "process-env": lambda K: f"process.env.{K}",
    "getenv": lambda K: f'System.getenv("{K}")', "empty-ish": lambda K: "none",
    "vault-ref": lambda K: f"vault:secret/data/app#{K.lower()}", "changeme": lambda K: "changeme",
}
PLAIN_VALUES = {  # a plain key and a random-looking value that is not a secret
    "commit": "9fceb02d0ae598e95dc970b74767f19372d61af8",
    "sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "request_id": "3f2b8c1e-9d4a-4f6b-8e2a-7c5d1b0a9e34",
    "object_id": "507f1f77bcf86cd799439011",
    "integrity": "sha512-Wq3kz9tV1mXc0PqR7sLb2nYh5JdGf8KeAo4iUw6ZxTvBy1CmNp3QrSs9EuHg7WjKl2OaDf5Rb8Yt0IeZn4LcVx==",
    "version": "4.17.21-rc.3+build.20240611",
    "trace_id": "4bf92f3577b34da6a3ce929d0e0e4736",
    "md5": "d41d8cd98f00b204e9800998ecf8427e",
    "image": "nginx@sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31",
    "user_id": "1029384756102938",
    "etag": "W/\"5e15153d-120f\"".replace('"', ""),
    "node_id": "MDQ6VXNlcjU4MzIzMQ==",
    "build_id": "20240611.7",
    "correlation_id": "01HZX3K8Q2V9N4T6B7C5M1R0PA",
    "avatar_url": "https://avatars.githubusercontent.com/u/583231?v=4",
    "file_path": "/var/lib/app/cache/2f/3a9c1e7b5d.bin",
    "client_id": "8f14e45f-ceea-467a-9575-6b9c2f8e1d3a",
    "public_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl",
    "fingerprint": "SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s",
}
NO_KEY = {"curl-bearer", "http-basic"}  # contexts where the key is not written (for references: skip them)


def negative_cases() -> list[tuple[str, str, str]]:
    """(class, context, text) triples that must come back unchanged."""
    out = []
    for ctx, f in CONTEXTS.items():
        if ctx in ENCODED:
            continue
        for key in CREDENTIAL_KEYS:
            for name, ref in REFERENCES.items():
                if ctx in NO_KEY and name not in ("env-brace", "env-dollar", "redacted", "angle"):
                    continue
                v = ref(key.upper() if name.startswith("env") or name == "github-actions" else key)
                out.append((f"reference:{name}", ctx, f(key, key.upper(), v)))
        if ctx in NO_KEY:
            continue
        for key, v in PLAIN_VALUES.items():
            if " " in v and ctx in ("dotenv", "shell-export", "url-query", "dockerfile-env", "dockerfile-arg",
                                    "cli-flag", "cli-flag-eq", "properties", "compose-env"):
                continue
            out.append((f"plain:{key}", ctx, f(key, key.upper(), v)))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "secrets_contexts.json"))
    ap.add_argument("--show", type=int, default=0, help="print up to N misses / changes per context")
    args = ap.parse_args(argv)

    values = secret_values()
    keyed = defaultdict(lambda: [0, 0])
    neutral = defaultdict(lambda: [0, 0])
    misses: dict[str, list] = defaultdict(list)
    nmisses: dict[str, list] = defaultdict(list)
    for item in values:
        v = item["value"]
        key = item["key"] or item["fallback"]
        for ctx, f in CONTEXTS.items():
            enc = ENCODED[ctx](v) if ctx in ENCODED else None
            ok = caught(f(key, key.upper(), v), v, enc)
            keyed[ctx][0] += ok
            keyed[ctx][1] += 1
            if not ok:
                misses[ctx].append({"id": item["id"], "key": key, "value": v, "text": f(key, key.upper(), v)})
            if item["bare"]:
                ok = caught(f("setting", "SETTING", v), v, enc)
                neutral[ctx][0] += ok
                neutral[ctx][1] += 1
                if not ok:
                    nmisses[ctx].append({"id": item["id"], "value": v, "text": f("setting", "SETTING", v)})
    neg = defaultdict(lambda: [0, 0])
    neg_cls = defaultdict(lambda: [0, 0])
    changes: dict[str, list] = defaultdict(list)
    for cls, ctx, text in negative_cases():
        r = redact(text)
        neg[ctx][0] += r.changed
        neg[ctx][1] += 1
        neg_cls[cls][0] += r.changed
        neg_cls[cls][1] += 1
        if r.changed:
            changes[ctx].append({"class": cls, "text": text, "redacted": r.text})

    bare = sum(1 for i in values if i["bare"])
    print(f"{len(values)} distinct values caught in their own fixture ({bare} bare tokens); "
          f"{len(negative_cases())} must-not-fire texts")
    print(f"{'context':18} {'keyed':>14} {'format alone':>14} {'must-not-fire changed':>22}")
    for ctx in CONTEXTS:
        k, n, ng = keyed[ctx], neutral[ctx], neg.get(ctx, [0, 0])
        print(f"{ctx:18} {k[0]:>6}/{k[1]:<6} {n[0]:>6}/{n[1]:<6} {ng[0]:>10}/{ng[1]:<10}")
        for m in misses[ctx][:args.show]:
            print(f"    MISS {m['id']}: {m['text'][:140]!r}")
        for m in nmisses[ctx][:args.show]:
            print(f"    MISS(format) {m['id']}: {m['text'][:140]!r}")
        for m in changes[ctx][:args.show]:
            print(f"    CHANGED {m['class']}: {m['text'][:120]!r} -> {m['redacted'][:120]!r}")
    tk = sum(v[0] for v in keyed.values()), sum(v[1] for v in keyed.values())
    tn = sum(v[0] for v in neutral.values()), sum(v[1] for v in neutral.values())
    tg = sum(v[0] for v in neg.values()), sum(v[1] for v in neg.values())
    print(f"{'all':18} {tk[0]:>6}/{tk[1]:<6} {tn[0]:>6}/{tn[1]:<6} {tg[0]:>10}/{tg[1]:<10}")
    print("must-not-fire by class: " + ", ".join(f"{c} {a}/{b}" for c, (a, b) in sorted(neg_cls.items()) if a))
    out = Path(args.out).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({
        "values": len(values), "bare": bare,
        "keyed": {c: {"caught": a, "of": b} for c, (a, b) in keyed.items()},
        "format_alone": {c: {"caught": a, "of": b} for c, (a, b) in neutral.items()},
        "must_not_fire": {c: {"changed": a, "of": b} for c, (a, b) in neg.items()},
        "must_not_fire_by_class": {c: {"changed": a, "of": b} for c, (a, b) in neg_cls.items()},
        "misses": misses, "format_misses": nmisses, "changes": changes,
    }, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
