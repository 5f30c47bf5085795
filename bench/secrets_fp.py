"""Measure server.redact: false positives on ordinary technical prose, catches of planted secrets.

    python bench/secrets_fp.py            # from the repo root; writes bench/results/secrets_fp.json

Both corpora are generated here from templates (no downloads, fixed seed):

* clean: commit messages with hashes, UUIDs, base64 blobs, versions, paths, URLs without
  credentials, code identifiers, config snippets whose secrets are references
  (``$TOKEN``, ``os.environ[...]``) and prose that uses "password"/"token"/"key" as words.
  A false positive is a clean text that redact() changes.
* planted: fake, format-valid secrets of every kind embedded in several contexts.
  A catch is a planted secret whose value no longer appears in the output; the JSON also
  records whether the reported kind matched.

Fake secrets are assembled from pieces at run time so this file never contains a string
that a secret scanner would flag.
"""

from __future__ import annotations

import base64
import itertools
import json
import random
import string
import sys
import time
import uuid
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from server.redact import redact  # noqa: E402

SEED = 20240601
rng = random.Random(SEED)
ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
UPPER_DIGITS = string.ascii_uppercase + string.digits


def rand(n: int, alphabet: str = ALNUM) -> str:
    while True:
        s = "".join(rng.choice(alphabet) for _ in range(n))
        if alphabet != ALNUM or (any(c.isdigit() for c in s) and any(c.isalpha() for c in s)):
            return s


def b64url(obj: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")


# --------------------------------------------------------------------------- clean corpus


def clean_corpus() -> list[str]:
    files = ["server/search.py", "server/db.py", "tests/test_store.py", "README.md", "pyproject.toml",
             "src/app/components/Button.tsx", "cmd/api/main.go", "migrations/0003_add_index.sql"]
    funcs = ["hybrid_search", "rank_fusion", "open_db", "load_settings", "parse_token_stream",
             "reset_password_flow", "rotate_api_keys", "TokenBucket.acquire", "KeyError", "primary_key"]
    verbs = ["Fix", "Refactor", "Add", "Remove", "Speed up", "Document", "Revert", "Harden"]
    topics = ["the token bucket limiter", "the password reset flow", "API key rotation docs",
              "secret scanning in CI", "the key-value cache", "max_tokens handling", "auth token refresh",
              "the credentials page copy", "FTS5 tokenizer config", "sqlite-vec loading"]
    versions = ["1.2.3", "0.1.6", "2.0.0-rc.1", "3.11.7", "4.17.21", "1.4.2+build.15", "v0.9.0", "2024.1"]

    out: list[str] = []
    # commit messages with full and short hashes
    for v, t in itertools.product(verbs, topics):
        sha = rand(40, HEX)
        short = sha[: rng.choice([7, 8, 10, 12])]
        out.append(f"{v} {t} ({short}); follows {sha}.")
    # UUIDs, versions, paths
    for f, ver in itertools.product(files, versions):
        out.append(f"Memory {uuid.UUID(int=rng.getrandbits(128))} notes {f} changed in {ver}.")
    # base64 test data and digests
    for _ in range(40):
        blob = base64.b64encode(bytes(rng.getrandbits(8) for _ in range(rng.randint(12, 48)))).decode()
        out.append(f"The fixture decodes the base64 blob {blob} into bytes for the parser test.")
        out.append(f"sha256:{rand(64, HEX)} is the pinned image digest.")
    # URLs without credentials
    hosts = ["github.com/org/repo/pull/42", "docs.python.org/3/library/re.html", "example.com:8443/api/v1/items?page=2&limit=50",
             "localhost:8000/health", "registry.npmjs.org/lodash", "pypi.org/project/hypothesis/"]
    for h, scheme in itertools.product(hosts, ["https", "http"]):
        out.append(f"See {scheme}://{h} for details.")
    out += ["Remote is git@github.com:org/repo.git.", "Mirror: ssh://git@gitlab.com:22/org/repo.git",
            "postgres://app@localhost:5432/app has no password in dev.",
            "DATABASE_URL=postgresql://{user}:{password}@{host}/{db} is templated at runtime."]
    # code identifiers and config without secrets
    for fn in funcs:
        out.append(f"`{fn}()` raises ValueError when the input is empty.")
        out.append(f"def {fn.split('.')[-1].lower()}(token: str, password: str | None = None) -> bool: ...")
    refs = ["$TOKEN", "${GITHUB_TOKEN}", "<your password>", "os.environ['API_KEY']", 'os.getenv("DB_PASSWORD")',
            "settings.SECRET_KEY", "${{ secrets.NPM_TOKEN }}", "{{ vault_password }}", "None", '""', "********",
            "getpass.getpass()", "process.env.STRIPE_KEY", "$(gh auth token)", "[REDACTED]"]
    keys = ["password", "DB_PASSWORD", "token", "GITHUB_TOKEN", "api_key", "OPENAI_API_KEY", "client_secret", "secret"]
    seps = ["=", ": ", " = ", "="]
    for k, r in itertools.product(keys, refs):
        out.append(f"{k}{rng.choice(seps)}{r}")
    # harmless key=value config
    configs = ["password_min_length=12", "token_url=https://oauth2.example.com/token", "max_tokens=4096",
               "token_type=bearer", "SECRET_KEY_FILE=/run/secrets/django", "PWD=/home/dev/project",
               "primary_key=id", "sort_key: created_at", "api_key_header: X-API-Key", "timeout: 30s",
               "retries=3", "log_level=INFO", "DB_HOST=localhost", "DB_PORT=5432", "cache_ttl=300",
               "AWS_REGION=eu-west-1", "AWS_ACCESS_KEY_ID=$AWS_ACCESS_KEY_ID", "tokens_per_minute=90000",
               "password: null", "password: str", "api_key: Optional[str] = None"]
    out += configs
    # prose with the words
    prose = ["We need to reset the password flow before launch.", "The token bucket limiter allows 10 rps.",
             "Never commit secrets; use the vault.", "Rotate API keys every 90 days.",
             "The key is to keep writes idempotent.", "Bearer tokens expire after an hour.",
             "Basic authentication is disabled in production.", "password: must be at least 12 characters",
             "token: see the vault entry", "The sk-learn alias is just a name.",
             "AKIA prefixes mark AWS access key ids.", "JWTs start with eyJ.", "ghp_ tokens are classic GitHub PATs.",
             "Stripe publishable keys start with pk_live_ and are public.",
             "The secret sauce is caching.", "Use --password-stdin with docker login.",
             "x-api-key header is required for /v1/ingest.", "if password == confirm_password:",
             "conn = connect(password=password, user=user)", "client = Client(token=access_token)"]
    for p, suffix in itertools.product(prose, ["", " (noted 2024-05-01)", " See ADR-0007."]):
        out.append(p + suffix)
    # certificates and public keys are not private keys
    out.append("-----BEGIN CERTIFICATE-----\n" + rand(64, ALNUM + "+/") + "\n-----END CERTIFICATE-----")
    out.append("-----BEGIN PUBLIC KEY-----\n" + rand(64, ALNUM + "+/") + "\n-----END PUBLIC KEY-----")
    return out


# ------------------------------------------------------------------------ planted corpus


def secrets_by_kind() -> dict[str, list[str]]:
    def jwt() -> str:
        return (b64url({"alg": "HS256", "typ": "JWT"}) + "." + b64url({"sub": rand(8), "iat": rng.randint(10**9, 2 * 10**9)})
                + "." + rand(43, ALNUM + "_-"))

    def pem() -> str:
        body = "\n".join(rand(64, ALNUM + "+/") for _ in range(3))
        kind = rng.choice(["RSA ", "EC ", "OPENSSH ", ""])
        return f"-----BEGIN {kind}PRIVATE" + f" KEY-----\n{body}\n-----END {kind}PRIVATE" + " KEY-----"

    gens = {
        "aws-access-key-id": lambda: "AK" + "IA" + rand(16, UPPER_DIGITS),
        "github-token": lambda: "gh" + rng.choice("pousr") + "_" + rand(36),
        "gitlab-token": lambda: "gl" + "pat-" + rand(20, ALNUM + "_-"),
        "openai-api-key": lambda: "sk" + "-proj-" + rand(64, ALNUM + "_-"),
        "anthropic-api-key": lambda: "sk" + "-ant-api03-" + rand(93, ALNUM + "_-") + "AA",
        "slack-token": lambda: "xo" + "xb-" + str(rng.randint(10**11, 10**12)) + "-" + str(rng.randint(10**11, 10**12)) + "-" + rand(24),
        "slack-webhook": lambda: "https://hooks.slack.com/" + "services/T" + rand(8, UPPER_DIGITS) + "/B" + rand(8, UPPER_DIGITS) + "/" + rand(24),
        "stripe-key": lambda: rng.choice(["sk", "rk"]) + "_" + rng.choice(["live", "test"]) + "_" + rand(24),
        "google-api-key": lambda: "AI" + "za" + rand(35, ALNUM + "_-"),
        "jwt": jwt,
        "npm-token": lambda: "np" + "m_" + rand(36),
        "pypi-token": lambda: "py" + "pi-AgEIcHlwaS5vcmc" + rand(80, ALNUM + "_-"),
        "huggingface-token": lambda: "h" + "f_" + rand(34),
        "sendgrid-key": lambda: "S" + "G." + rand(22) + "." + rand(43),
        "private-key": pem,
    }
    return {k: [g() for _ in range(6)] for k, g in gens.items()}


def assignment_secrets() -> list[tuple[str, str, str]]:
    """(kind, context, secret) for generic key=value, URL, header cases."""
    out = []
    for _ in range(6):
        pw = rand(14, ALNUM + "!#%^")
        out += [
            ("password", f"DB_PASSWORD={pw}", pw),
            ("password", f'{{"user": "svc", "password": "{pw}"}}', pw),
            ("password", f"password: {pw}\n", pw),
            ("secret", f"client_secret = '{pw}'", pw),
            ("api-key", f"X-API-Key: {pw}", pw),
            ("token", f"export AUTH_TOKEN={pw}", pw),
            ("url-password", f"postgres://svc:{pw.replace('#', 'x').replace('%', 'y')}@db.internal:5432/app",
             pw.replace("#", "x").replace("%", "y")),
            ("bearer-token", f"curl -H 'Authorization: Bearer {rand(40)}' https://api.example.com", None),
        ]
    # bearer secret is the generated token: recover it from the context
    fixed = []
    for kind, ctx, secret in out:
        if secret is None:
            secret = ctx.split("Bearer ", 1)[1].split("'", 1)[0]
        fixed.append((kind, ctx, secret))
    return fixed


# Known-hard cases, reported separately: the main corpora above are built from the formats
# the redactor targets, so their rates are an upper bound; these show the known limits.
HARD_CLEAN = [
    "Token: expired",
    "Password: reset",
    "secret: sauce",
    "password: changeme is the vendor default, we changed it",
    "Authorization: Bearer eyJ... (truncated in the log)",
    "The commit AbCdEf1234567890AbCdEf1234567890AbCdEf12 looks random but is a fixture name.",
]


def hard_planted() -> list[tuple[str, str]]:
    aws_secret = rand(40, ALNUM + "/+")
    pw = rand(12)
    return [
        ("no keyword: password in prose", f"the staging db login is admin / {pw}", pw),
        ("unlabelled AWS secret key", f"aws creds: {'AK' + 'IA' + rand(16, UPPER_DIGITS)} {aws_secret}", aws_secret),
        ("spaced plain word", "password = swordfish", "swordfish"),
        ("mysql -p flag", f"mysql -uroot -p{pw} app", pw),
        ("value split by newline", f"password:\n  {pw}", pw),
        ("glued to a word", f"key{'gh' + 'p_' + rand(36)}x", None),
    ]


CONTEXTS = [
    "{s}",
    "Use {s} for the staging deploy.",
    "export TOKEN={s}",
    'config = {{"key": "{s}"}}',
    "Note to self: the key is {s} (rotate after the demo).",
    "- credential: `{s}`",
]


def main() -> int:
    import argparse

    ap = argparse.ArgumentParser(description="False-positive and catch rates of the secret scanner.")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "secrets_fp.json"))
    args = ap.parse_args()
    t_start = time.perf_counter()
    clean = clean_corpus()
    fp_examples = []
    t0 = time.perf_counter()
    for text in clean:
        r = redact(text)
        if r.text != text:
            fp_examples.append({"text": text, "redacted": r.text, "kinds": list(r.kinds)})
    clean_secs = time.perf_counter() - t0

    per_kind: dict[str, dict[str, int]] = defaultdict(lambda: {"planted": 0, "caught": 0, "kind_ok": 0})
    misses = []
    planted = []
    for kind, values in secrets_by_kind().items():
        for value in values:
            ctx = rng.choice(CONTEXTS)
            if kind == "private-key":
                ctx = rng.choice(["{s}", "key:\n{s}\nend", "deploy key below\n{s}\n"])
            planted.append((kind, ctx.format(s=value), value))
    planted += assignment_secrets()
    t0 = time.perf_counter()
    for kind, text, value in planted:
        r = redact(text)
        stat = per_kind[kind]
        stat["planted"] += 1
        if value not in r.text:
            stat["caught"] += 1
            if kind in r.kinds:
                stat["kind_ok"] += 1
        else:
            misses.append({"kind": kind, "text": text, "redacted": r.text})
    planted_secs = time.perf_counter() - t0

    hard_fp = [t for t in HARD_CLEAN if redact(t).text != t]
    hard = []
    for label, text, value in hard_planted():
        if value is None:
            value = text[3:-1]
        out_text = redact(text).text
        hard.append({"case": label, "caught": value not in out_text, "redacted": out_text})

    n_planted = sum(s["planted"] for s in per_kind.values())
    n_caught = sum(s["caught"] for s in per_kind.values())
    result = {
        "seed": SEED,
        "clean_texts": len(clean),
        "false_positives": len(fp_examples),
        "false_positive_rate": len(fp_examples) / len(clean),
        "planted": n_planted,
        "caught": n_caught,
        "catch_rate": n_caught / n_planted,
        "per_kind": {
            k: {**v, "catch_rate": v["caught"] / v["planted"], "kind_accuracy": v["kind_ok"] / v["planted"]}
            for k, v in sorted(per_kind.items())
        },
        "mean_us_per_clean_text": clean_secs / len(clean) * 1e6,
        "mean_us_per_planted_text": planted_secs / len(planted) * 1e6,
        "hard_clean": {"texts": len(HARD_CLEAN), "false_positives": len(hard_fp), "changed": hard_fp},
        "hard_planted": hard,
        "false_positive_examples": fp_examples[:20],
        "missed_examples": misses[:20],
    }

    print(f"clean texts: {len(clean)}  false positives: {len(fp_examples)}  "
          f"FP rate: {result['false_positive_rate']:.2%}")
    for ex in fp_examples[:10]:
        print(f"  FP: {ex['text']!r} -> {ex['redacted']!r}")
    print(f"planted: {n_planted}  caught: {n_caught}  catch rate: {result['catch_rate']:.2%}")
    for k, v in result["per_kind"].items():
        print(f"  {k:22s} {v['caught']:3d}/{v['planted']:<3d} caught  kind ok {v['kind_accuracy']:.0%}")
    for ex in misses[:10]:
        print(f"  MISS {ex['kind']}: {ex['text']!r}")
    print(f"hard clean (known limits): {len(hard_fp)}/{len(HARD_CLEAN)} changed: {hard_fp}")
    print(f"hard planted (known limits): {sum(h['caught'] for h in hard)}/{len(hard)} caught")
    for h in hard:
        print(f"  {'caught' if h['caught'] else 'MISSED':6s} {h['case']}")
    print(f"mean cost: {result['mean_us_per_clean_text']:.0f} us/clean text, "
          f"{result['mean_us_per_planted_text']:.0f} us/planted text; total {time.perf_counter() - t_start:.2f}s")

    out = Path(args.out).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
