"""The token formats server.guard.redact recognises, written from each provider's documented format.

Two kinds of rule:

* **Prefixed tokens** (``TOKEN_RULES``): formats that carry their own recognisable
  prefix (``ghp_``, ``xoxb-``, ``sk-ant-``, ``glpat-``, ``AKIA``, ``hvs.``, ...). Each is
  a regex that starts with that literal, so it runs only when the literal occurs in the
  text (``str.__contains__``) and then uses the regex engine's fast literal search; a
  look-behind placed *after* the literal rejects a start glued to a word.
* **Keyword-anchored values** (``KEYWORD_RULES``): formats that are only random
  characters (a Twilio auth token is 32 hex digits, a Heroku key a UUID). They count
  only just after the provider's name (``twilio``, ``heroku``, ...), with at most ~40
  characters of key name, separator and quotes in between, and a key word (key, token,
  secret, ...) among them, so a Heroku *app id* or a commit hash next to "datadog" is
  not taken for a key.

Kind names are lower-case words joined by ``-`` (they appear as ``[REDACTED:<kind>]``).
Publishable keys designed to sit in public web pages (Stripe ``pk_``, Mapbox ``pk.``,
Supabase ``sb_publishable_``) are deliberately absent.
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Callable

from server.guard.lazyre import LazyRe as _LazyRe

_LA = r"(?![A-Za-z0-9_])"  # end boundary
_LA_DASH = r"(?![A-Za-z0-9_\-])"
_B_WORD = r"[A-Za-z0-9_]"
_B_WORD_DASH = r"[A-Za-z0-9_\-]"
_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"

# ------------------------------------------------------------------------- value checks


def has_digit(s: str) -> bool:
    return any(c.isdigit() for c in s)


def mixed(s: str) -> bool:
    """At least two of: digit, lowercase, uppercase -- random tokens, not words."""
    d = lo = up = False
    for c in s:
        if c.isdigit():
            d = True
        elif c.islower():
            lo = True
        elif c.isupper():
            up = True
    return d + lo + up >= 2


def random_looking(s: str) -> bool:
    """A token body that is not a word or a kebab/snake identifier."""
    core = s.replace("-", "").replace("_", "")
    return has_digit(core) and any(c.isalpha() for c in core)


def _all_classes(s: str) -> bool:
    """Upper, lower and digit: a random mixed-case token, not a hex digest."""
    return any(c.isdigit() for c in s) and any(c.islower() for c in s) and any(c.isupper() for c in s)


def _all_cases(s: str) -> bool:  # 4+ capitals and 4+ small letters: random with no digit, not a word
    return sum(c.isupper() for c in s) >= 4 and sum(c.islower() for c in s) >= 4


def _letters_and_digits(s: str, n: int) -> bool:
    return sum(c.isdigit() for c in s) >= n and sum(c.isalpha() for c in s) >= n


def _hexy(s: str) -> bool:
    """Hex that is not all digits or all letters (a real key has both)."""
    return any(c.isdigit() for c in s) and any(c.isalpha() for c in s)


def _b64url_json(part: str) -> bool:
    std = part.replace("-", "+").replace("_", "/")
    try:
        raw = binascii.a2b_base64(std + "=" * (-len(std) % 4))
    except (binascii.Error, ValueError):
        return False
    return raw[:1] == b"{"


def jwt_ok(token: str) -> bool:
    parts = token.split(".")
    if len(parts) == 3 and len(parts[0]) >= 9 and len(parts[1]) >= 4 and len(parts[2]) >= 16:
        return _b64url_json(parts[0])
    # Unsigned (alg "none": "header.payload." or "header.payload"): a bearer credential all the
    # same wherever a server accepts it; both parts must decode to JSON objects.
    return (2 <= len(parts) <= 3 and (len(parts) == 2 or parts[2] == "") and len(parts[0]) >= 9
            and len(parts[1]) >= 16 and _b64url_json(parts[0]) and _b64url_json(parts[1]))


def _der_private(value: str) -> bool:
    try:
        head = binascii.a2b_base64(value[:16])
    except (binascii.Error, ValueError):
        return False
    return head[:2] == b"\x30\x82" and head[4:7] in (b"\x02\x01\x00", b"\x02\x01\x01")


def _b64_private_pem(value: str) -> bool:
    """Base64 of a PEM block (a Kubernetes Secret's tls.key, a PRIVATE_KEY_B64 variable) whose
    BEGIN line names a private key; a base64 certificate or public key is not a secret."""
    try:
        head = binascii.a2b_base64(value[:88])
    except (binascii.Error, ValueError):
        return False
    return b"PRIVATE KEY" in head.split(b"\n", 1)[0]


def _slack_ok(token: str) -> bool:
    """Slack's shape: numeric ids (one of 6+ digits) then the secret part, or a one-digit version then
    a long secret (xoxe-1-..., xoxa-2-...). `xoxp-1234-1234-1234-...`, `xoxb-12345-abcd234` and a
    run cut at `####` are samples."""
    parts = token[5:].split("-")
    last = parts[-1]
    if len(parts) < 2 or len(last) < 8 or not has_digit(token[5:]):
        return False
    return len(last) >= 40 or any(p.isdigit() and len(p) >= 6 for p in parts[:-1])


def basic_auth_ok(value: str) -> bool:
    body = value.rstrip("=")
    if len(body) < 6 or len(value) - len(body) > 2:
        return False
    if len(body) >= 40 and mixed(body) and has_digit(body):
        return True  # long and random: a credential whatever it decodes to
    try:
        raw = binascii.a2b_base64(body + "=" * (-len(body) % 4))
        decoded = raw.decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return False
    return ":" in decoded and decoded.isprintable()


# ------------------------------------------------------------------------- prefixed tokens


class Rule:
    """One pattern. (A plain class: a dataclass would add ~1 ms to import.)

    ``triggers``: literals one of which must occur for the rule to run; ``ci``: matched at
    each occurrence of a lower-case trigger in text.lower() instead of by finditer;
    ``before``: characters that may not precede a ci match; ``group``: the group holding
    the secret; ``check``: a validator on it; ``rank``: lower wins when merged spans
    disagree on the kind; ``maxlen``: longer runs are not this kind of token.
    """

    __slots__ = ("kind", "regex", "triggers", "before", "group", "check", "rank", "ci", "maxlen")

    def __init__(
        self,
        kind: str,
        regex: _LazyRe,
        triggers: tuple[str, ...],
        before: frozenset[str] = frozenset(),
        group: int = 0,
        check: Callable[[str], bool] | None = None,
        rank: int = 0,
        ci: bool = False,
        maxlen: int | None = None,
    ) -> None:
        self.kind, self.regex, self.triggers, self.before = kind, regex, triggers, before
        self.group, self.check, self.rank = group, check, rank
        self.ci, self.maxlen = ci, maxlen


def tok(kind: str, prefix: str, rest: str, before: str | None = _B_WORD, **kw: object) -> Rule:
    """A token that starts with ``prefix``; ``before``: what may not come right before it."""
    lit = re.escape(prefix)
    # ...but a JSON/C escape like "\\nghp_..." does not glue the token to the "n".
    guard = f"(?:(?<!{before}{lit})|(?<=\\\\[nrt]{lit}))" if before else ""
    return Rule(kind, _LazyRe(lit + guard + rest), (prefix,), **kw)  # type: ignore[arg-type]


def _toks(kind: str, prefixes: tuple[str, ...], rest: str, before: str | None = _B_WORD, **kw: object) -> list[Rule]:
    return [tok(kind, p, rest, before, **kw) for p in prefixes]


_AN = "A-Za-z0-9"
TOKEN_RULES: tuple[Rule, ...] = (
    # --- cloud
    tok("aws-access-key-id", "A", r"(?:KIA|SIA|BIA|CCA|3T[A-Z0-9])[A-Z0-9]{16}" + _LA),
    tok("aws-mws-key", "amzn.mws.", UUID + _LA),
    tok("google-api-key", "AIza", r"[0-9A-Za-z_\-]{35}" + _LA_DASH, _B_WORD_DASH),
    tok("google-oauth-secret", "GOCSPX-", r"[0-9A-Za-z_\-]{28}" + _LA_DASH, _B_WORD_DASH),
    tok("google-oauth-token", "ya29.", r"[0-9A-Za-z_\-]{20,}", check=random_looking),
    tok("google-refresh-token", "1//0", r"[0-9A-Za-z_\-]{40,}", check=random_looking),
    tok("azure-storage-key", "AccountKey=", r"([A-Za-z0-9+/]{86}==)", None, group=1),
    tok("azure-sas-key", "SharedAccessKey=", r"([A-Za-z0-9+/]{43}=)", None, group=1),
    tok("azure-sas-token", "sig=", r"([A-Za-z0-9%+/]{40,}(?:%3D|=){0,2})" + _LA, None, group=1,
        check=lambda s: has_digit(s) and s.endswith(("%3D", "=")) or len(s) >= 43),
    # Entra ID client secrets: three characters, a digit, "Q~", 31-34 more.
    Rule("azure-client-secret", _LazyRe(r"(?<![A-Za-z0-9_~.\-])[A-Za-z0-9_~.\-]{3}[0-9]Q~[A-Za-z0-9_~.\-]{31,34}(?![A-Za-z0-9_~.\-])"),
         ("Q~",)),
    tok("digitalocean-token", "do", r"[opr]_v1_[a-f0-9]{64}" + _LA),
    tok("heroku-api-key", "HRKU-", r"[0-9A-Za-z_\-]{20,}"),
    tok("alibaba-access-key-id", "LTAI", r"[A-Za-z0-9]{12,20}" + _LA, check=mixed),
    tok("tencent-secret-id", "AKID", r"[A-Za-z0-9]{32}" + _LA, check=mixed),
    tok("scaleway-access-key", "SCW", r"[A-Z0-9]{17}" + _LA, check=has_digit),
    tok("vault-token", "hvs.", r"[A-Za-z0-9_\-]{24,}"),
    tok("vault-token", "hvb.", r"[A-Za-z0-9_\-]{24,}"),
    tok("vault-token", "hvr.", r"[A-Za-z0-9_\-]{24,}"),
    Rule("terraform-cloud-token", _LazyRe(r"(?<![A-Za-z0-9])[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=\-]{60,70}"), (".atlasv1.",)),
    tok("pulumi-token", "pul-", r"[a-f0-9]{40}" + _LA),
    # (a service token may name its environment: dp.st.<env>.<secret>)
    tok("doppler-token", "dp.", r"(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_\-]{1,40}\.)?[A-Za-z0-9]{40,44}" + _LA),
    tok("1password-service-token", "ops_", r"eyJ[A-Za-z0-9+/=_\-]{40,}"),
    tok("cloudflare-origin-ca-key", "v1.0-", r"[a-f0-9]{24}-[a-f0-9]{146}"),
    tok("tailscale-key", "tskey-", r"(?:api|auth|client|webhook|scim)-[A-Za-z0-9]{6,}-[A-Za-z0-9]{16,}"),
    tok("openshift-token", "sha256~", r"[A-Za-z0-9_\-]{43}" + _LA_DASH),
    tok("fly-token", "fo1_", r"[A-Za-z0-9_\-]{43}"),
    tok("fly-token", "FlyV1 fm", r"[12][ar]?_[A-Za-z0-9+/=_\-]{40,}"),
    tok("render-api-key", "rnd_", r"[A-Za-z0-9]{32}" + _LA),
    tok("netlify-token", "nfp_", r"[A-Za-z0-9]{36}" + _LA),
    tok("supabase-key", "sbp_", r"[a-f0-9]{40}" + _LA),
    tok("supabase-key", "sb_secret_", r"[A-Za-z0-9_\-]{20,}"),
    tok("planetscale-token", "pscale_", r"(?:tkn|pw|oauth)_[A-Za-z0-9_.=\-]{32,64}"),
    # Dependency-Track API keys (4.10+): "odt_" and 32+ random characters.
    tok("dependency-track-key", "odt_", r"[A-Za-z0-9_]{32,64}" + _LA, check=lambda s: mixed(s[4:]) and has_digit(s)),
    # TrueNAS API keys: the key's numeric id, "-", 64 random letters and digits.
    Rule("truenas-api-key", _LazyRe(r"(?<![A-Za-z0-9_\-])[0-9]{1,6}-[A-Za-z0-9]{64}(?![A-Za-z0-9_\-])"), ("-",),
         check=lambda s: _all_classes(s.split("-", 1)[1])),
    # Kubernetes bootstrap tokens (kubeadm): "[a-z0-9]{6}.[a-z0-9]{16}", the id then the secret.
    Rule("kubernetes-bootstrap-token", _LazyRe(r"(?<![A-Za-z0-9_.\-/])[a-z0-9]{6}\.[a-z0-9]{16}(?![A-Za-z0-9_\-/]|\.[A-Za-z0-9])"),
         (".",), check=lambda s: _letters_and_digits(s[7:], 2)),
    # A ThingsBoard device's access token in its HTTP/CoAP API path (/api/v1/<token>/telemetry).
    tok("thingsboard-token", "/api/v1/", r"([A-Za-z0-9_\-]{8,64})/(?:telemetry|attributes|rpc|claim)\b", None, group=1,
        check=random_looking),
    tok("databricks-token", "dapi", r"[a-f0-9]{32}(?:-\d)?" + _LA),
    tok("octopus-deploy-key", "API-", r"[A-Z0-9]{26}" + _LA, check=has_digit),
    *_toks("harness-token", ("pat.", "sat."), r"[A-Za-z0-9_\-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}" + _LA),
    tok("infracost-key", "ico-", r"[A-Za-z0-9]{32}" + _LA, r"[A-Za-z0-9_.]", check=mixed),  # not favicon.ico-<hash>.png
    tok("scalingo-token", "tk-us-", r"[A-Za-z0-9_\-]{48}" + _LA_DASH),
    tok("settlemint-token", "sm_", r"(?:pat|aat|sat)_[A-Za-z0-9]{16}" + _LA),
    tok("1password-secret-key", "A3-", r"[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}" + _LA),
    Rule("maxmind-license-key", _LazyRe(r"(?<![A-Za-z0-9_])[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk" + _LA), ("_mmk",)),
    # Sidekiq Pro/Enterprise gem credentials, set as BUNDLE_GEMS__CONTRIBSYS__COM=user:pass
    Rule("sidekiq-secret", _LazyRe(r"(?i:__contribsys__com)[ \t]*[=:][ \t]*[\"']?([a-f0-9]{8}:[a-f0-9]{8})" + _LA),
         ("__contribsys__com",), group=1, ci=True),
    # Amazon Bedrock API keys: long-lived "ABSK" + base64; short-lived: a presigned URL, base64-encoded.
    tok("aws-bedrock-api-key", "ABSK", r"[A-Za-z0-9+/]{109,269}={0,2}"),
    tok("aws-bedrock-api-key", "bedrock-api-key-", r"[A-Za-z0-9+/=%._\-]{40,}", None),
    tok("datafactory-shir-key", "IR@", r"[0-9a-zA-Z\-]{36}@[^@\s]{1,100}@[0-9a-zA-Z\-=]{0,60}@[A-Za-z0-9+/=]{44}", None),
    tok("castai-api-key", "castai_v1_", r"[A-Za-z0-9]{64}_[A-Za-z0-9]{8}" + _LA),
    tok("django-secret-key", "django-insecure-", r"[^\s\"'`]{8,250}", None),
    tok("ansible-vault", "$ANSIBLE_VAULT;", r"[0-9]\.[0-9];AES256(?:;[^\s]*)?[ \t]*(?:\r?\n|\\n)[ \t]*[0-9a-f]+(?:[ \t]*(?:\r?\n|\\n)[ \t]*[0-9a-f]+)*",
        None),
    # --- source hosting, CI, packages
    tok("github-token", "gh", r"[pousr]_[A-Za-z0-9]{36,}", maxlen=255),
    tok("github-token", "github_pat_", r"[A-Za-z0-9_]{22,}", maxlen=255),
    # (a 20-character legacy PAT may hold no digit: mixed case is random enough)
    tok("gitlab-token", "gl", r"(?:pat|dt|ft|soat|rt|cbt|ptt|imt|oas|agent|ffct)-[A-Za-z0-9_\-]{20,}", maxlen=1100,
        check=lambda s: random_looking(s.split("-", 1)[1]) or (s.startswith("glpat-") and _all_cases(s[6:]))),
    tok("gitlab-token", "GR1348941", r"[A-Za-z0-9_\-]{20,}"),
    tok("gitlab-session-cookie", "_gitlab_session=", r"[0-9a-z]{32}" + _LA, None, check=has_digit),
    tok("atlassian-api-token", "ATATT3", r"[A-Za-z0-9_=\-]{20,}"),
    tok("bitbucket-app-password", "ATBB", r"[A-Za-z0-9_=\-]{24,}" + _LA_DASH, check=mixed),
    # Sourcegraph access tokens: hex in either case, optionally an instance id or "local" first.
    *_toks("sourcegraph-token", ("sgp_", "sgph_"), r"(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}" + _LA,
           check=lambda s: _hexy(s[-40:])),
    tok("sonar-token", "sq", r"[pua]_[A-Za-z0-9]{40}" + _LA, check=lambda s: random_looking(s[4:])),
    # ClickHouse Cloud API secret keys.
    tok("clickhouse-api-secret", "4b1d", r"[A-Za-z0-9]{38}" + _LA, check=mixed),
    tok("circleci-token", "CCIPAT_", r"[A-Za-z0-9]{22}_[a-f0-9]{40}" + _LA),
    tok("buildkite-token", "bkua_", r"[a-f0-9]{40}" + _LA),
    tok("docker-hub-token", "dckr_pat_", r"[A-Za-z0-9_\-]{20,}"),
    tok("npm-token", "npm_", r"[A-Za-z0-9]{36}" + _LA),
    tok("npm-token", "_auth", r"(?:Token)?[ \t]*=[ \t]*[\"']?([^\s\"'\[]{8,})", group=1, maxlen=1024,
        check=lambda s: not s.startswith(("$", "{", "<"))),
    tok("pypi-token", "pypi-AgE", r"[A-Za-z0-9_\-]{50,}"),
    tok("rubygems-token", "rubygems_", r"[a-f0-9]{48}" + _LA),
    tok("nuget-key", "oy2", r"[a-z0-9]{43}" + _LA, check=has_digit),
    tok("crates-io-token", "cio", r"[A-Za-z0-9]{32}" + _LA, check=mixed),
    tok("clojars-token", "CLOJARS_", r"[a-z0-9]{60}" + _LA),
    tok("packagist-token", "packagist_", r"[ou][ru]t_[a-f0-9]{68}" + _LA),
    tok("artifactory-token", "AKC", r"[A-Za-z0-9]{10,}" + _LA, check=mixed),
    tok("artifactory-token", "cmVmdGtuOjAxOj", r"[A-Za-z0-9]{40,}" + _LA),
    tok("artifactory-token", "cmVmd", r"[A-Za-z0-9]{59}" + _LA, check=mixed),  # base64 of "ref..."
    tok("artifactory-token", "AP", r"[0-9A-F][A-Za-z0-9]{8,}" + _LA, check=random_looking),
    tok("prefect-key", "pnu_", r"[A-Za-z0-9]{36}" + _LA),
    *_toks("chieftools-token", ("ctp_", "cto_", "ctr_"), r"[A-Za-z0-9]{30,248}" + _LA, check=mixed),
    tok("readme-key", "rdme_", r"[a-z0-9]{70}" + _LA),
    # --- AI providers
    # (Anthropic's and OpenAI's keys: secret_providers.py, with the checks that tell them from near misses.)
    tok("jina-api-key", "jina_", r"[A-Za-z0-9]{60}" + _LA, check=mixed),
    tok("huggingface-token", "hf_", r"[A-Za-z0-9]{34,}", check=mixed, maxlen=43),
    tok("huggingface-token", "api_org_", r"[A-Za-z0-9]{34}" + _LA, check=mixed),
    tok("replicate-token", "r8_", r"[A-Za-z0-9]{37}" + _LA, check=mixed),
    tok("groq-api-key", "gsk_", r"[A-Za-z0-9]{52}" + _LA, check=mixed),
    tok("perplexity-api-key", "pplx-", r"[A-Za-z0-9]{48}" + _LA, check=mixed),
    tok("xai-api-key", "xai-", r"[A-Za-z0-9]{80}" + _LA, check=mixed),
    tok("langsmith-key", "lsv2_", r"(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}" + _LA),
    tok("pinecone-api-key", "pcsk_", r"[A-Za-z0-9_]{40,}"),
    # A Claude Code session's URL lets whoever holds it drive the session.
    # (Host names are case-insensitive: CLAUDE.AI is the same host.)
    Rule("claude-code-session-url", _LazyRe(r"(?i:claude\.ai/code/session_)[A-Za-z0-9]{16,}"), ("claude.ai/code/session_",),
         check=mixed, ci=True),
    # --- payments and commerce
    tok("stripe-key", "sk_", r"(?:live|test)_[A-Za-z0-9]{16,}", maxlen=255),
    tok("stripe-key", "rk_", r"(?:live|test)_[A-Za-z0-9]{16,}", maxlen=255),
    tok("stripe-key", "whsec_", r"[A-Za-z0-9+/=]{24,}"),
    tok("square-token", "sq0atp-", r"[0-9A-Za-z_\-]{22}" + _LA_DASH),
    tok("square-token", "sq0csp-", r"[0-9A-Za-z_\-]{43}" + _LA_DASH),
    tok("square-token", "EAAA", r"[A-Za-z0-9_\-]{60}" + _LA_DASH, check=mixed),
    tok("braintree-token", "access_token$", r"(?:production|sandbox)\$[a-z0-9]{16}\$[a-f0-9]{32}"),
    tok("shopify-token", "shp", r"(?:at|ca|pa|ss)_[a-fA-F0-9]{32}" + _LA),
    tok("plaid-token", "access-", r"(?:sandbox|development|production)-" + UUID),
    tok("flutterwave-key", "FLWSECK", r"(?:_TEST)?-[a-h0-9]{32}-X"),
    tok("flutterwave-key", "FLWSECK_TEST-", r"[a-h0-9]{12}" + _LA),  # the encryption key
    tok("flutterwave-key", "FLWPUBK", r"(?:_TEST)?-[a-h0-9]{32}-X"),
    tok("shippo-token", "shippo_", r"(?:live|test)_[a-f0-9]{40}" + _LA),
    tok("adyen-api-key", "AQE", r"[a-z0-9]{5,40}\.[A-Za-z0-9_=\-]{50,80}" + _LA_DASH),
    tok("easypost-key", "EZAK", r"[A-Za-z0-9]{54}" + _LA),
    tok("easypost-key", "EZTK", r"[A-Za-z0-9]{54}" + _LA),
    tok("duffel-token", "duffel_", r"(?:test|live)_[A-Za-z0-9_=\-]{43}"),
    # --- messaging, e-mail, chat
    tok("slack-token", "xox", r"[abposre]-[A-Za-z0-9\-]{10,}", maxlen=300, check=_slack_ok),
    tok("slack-token", "xapp-", r"\d-[A-Za-z0-9\-]{10,}", maxlen=300),
    tok("slack-webhook", "https://hooks.slack.com/", r"(?:services|workflows|triggers)/[A-Za-z0-9_/\-]{8,}", None),
    # ...and over http://, or with the host in capitals: the path is the secret whatever the scheme.
    Rule("slack-webhook", _LazyRe(r"(?i:hooks\.slack\.com/(?:services|workflows|triggers)/)[A-Za-z0-9_/\-]{8,}"),
         ("hooks.slack.com/",), ci=True),
    Rule("discord-webhook", _LazyRe(r"(?i:discord(?:app)?\.com/api/webhooks/)[0-9]{8,20}/[A-Za-z0-9_\-]{60,68}"),
         ("discord",), ci=True),
    tok("discord-webhook", "https://discord", r"(?:app)?\.com/api/webhooks/[0-9]{8,20}/[A-Za-z0-9_\-]{60,68}", None),
    # The legacy Office 365 connector URL (outlook.office.com/webhook/<group>@<tenant>/<Connector>/<id>/<owner>).
    Rule("teams-webhook", _LazyRe(r"(?i:outlook\.office(?:365)?\.com/webhook/)[A-Za-z0-9@/%\-]{40,}"),
         ("outlook.office.com/webhook/", "outlook.office365.com/webhook/"), ci=True),
    Rule("teams-webhook", _LazyRe(r"https://[a-z0-9_\-]+\.webhook\.office\.com/webhookb2/[A-Za-z0-9@/\-]{40,}(?:/[A-Za-z0-9/\-]{20,})?"),
         (".webhook.office.com/",)),
    # Discord bot tokens: base64 of the bot's id (M/N/O...), a timestamp, an HMAC.
    Rule("discord-bot-token",
         _LazyRe(r"(?<![A-Za-z0-9_\-])[MNO][A-Za-z0-9_\-]{23,25}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,38}(?![A-Za-z0-9_\-])"),
         (".",), check=mixed),
    # The bot's id, ":", 35 characters starting with "A"; also inside an API URL (".../bot<id>:<secret>/getMe").
    Rule("telegram-bot-token",
         _LazyRe(r"(?:(?<![A-Za-z0-9_])|(?<=bot)(?<![A-Za-z0-9_]bot))[0-9]{5,16}:A[0-9A-Za-z_\-]{33,34}" + _LA_DASH), (":A",),
         check=mixed),
    # An Azure Functions key in the function's URL (https://<app>.azurewebsites.net/api/<fn>?code=<key>).
    Rule("azure-function-key",
         _LazyRe(r"\.azurewebsites\.net/api/[^\s?#\"'<>]{0,200}\?(?:[^\s#&\"'<>]{0,200}&){0,10}?code=([A-Za-z0-9_\-]{20,}={0,2})"),
         (".azurewebsites.net/api/",), group=1, check=mixed),
    tok("aiven-token", "AVNS_", r"[A-Za-z0-9_\-]{8,}" + _LA_DASH, _B_WORD_DASH, check=mixed),
    tok("twilio-key", "SK", r"[0-9a-f]{32}" + _LA, check=_hexy),
    tok("twilio-account-sid", "AC", r"[0-9a-f]{32}" + _LA, check=_hexy),
    # (SG.<22>.<43> is specific enough to count glued to words: "somSG.<key>where" still holds one)
    tok("sendgrid-key", "SG.", r"[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}", None),
    tok("mailgun-key", "key-", r"[0-9a-f]{32}" + _LA, check=_hexy),
    tok("mailgun-key", "pubkey-", r"[0-9a-f]{32}" + _LA, check=_hexy),
    Rule("mailchimp-key", _LazyRe(r"(?<![A-Za-z0-9_])[0-9a-f]{32}-us[0-9]{1,2}" + _LA), ("-us",), check=_hexy),
    tok("mandrill-key", "md-", r"[A-Za-z0-9_\-]{22}" + _LA_DASH, check=mixed),
    tok("brevo-key", "xkeysib-", r"[a-f0-9]{64}-[A-Za-z0-9]{16}"),
    tok("brevo-key", "xsmtpsib-", r"[a-f0-9]{64}-[A-Za-z0-9]{16}"),
    tok("firebase-fcm-key", "AAAA", r"[A-Za-z0-9_\-]{7}:[A-Za-z0-9_\-]{140}"),
    # --- productivity, design, work tracking
    tok("notion-token", "secret_", r"[A-Za-z0-9]{43}" + _LA, check=mixed),
    tok("notion-token", "ntn_", r"[0-9]{11}[A-Za-z0-9]{35}" + _LA),
    tok("airtable-token", "pat", r"[A-Za-z0-9]{14}\.[a-f0-9]{64}" + _LA),
    tok("linear-api-key", "lin_api_", r"[A-Za-z0-9]{40}" + _LA),
    tok("linear-api-key", "lin_oauth_", r"[a-f0-9]{64}" + _LA),
    tok("clickup-token", "pk_", r"[0-9]{6,9}_[A-Z0-9]{32}" + _LA),
    tok("figma-token", "figd_", r"[A-Za-z0-9_\-]{40}"),
    tok("typeform-token", "tfp_", r"[A-Za-z0-9_\-]{44}_[A-Za-z0-9_\-]{12,14}"),
    tok("contentful-token", "CFPAT-", r"[A-Za-z0-9_\-]{43}"),
    tok("dropbox-token", "sl.", r"[A-Za-z0-9_\-]{130,}"),
    tok("postman-key", "PMAK-", r"[a-f0-9]{24}-[a-f0-9]{34}" + _LA),
    tok("adobe-client-secret", "p8e-", r"[A-Za-z0-9]{32}" + _LA, check=mixed),
    tok("intra42-secret", "s-s4t2", r"(?:ud|af)-[a-f0-9]{64}" + _LA),
    tok("hubspot-token", "pat-", r"(?:na|eu)1-" + UUID),
    tok("frameio-token", "fio-u-", r"[A-Za-z0-9_=\-]{64}"),
    tok("yandex-api-key", "AQVN", r"[A-Za-z0-9_\-]{35,38}" + _LA_DASH, check=mixed),
    tok("defined-networking-key", "dnkey-", r"[a-z0-9=_\-]{26}-[a-z0-9=_\-]{52}"),
    tok("mapbox-secret-token", "sk.eyJ", r"[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]{20,}"),
    tok("facebook-access-token", "EAA", r"[A-Za-z0-9]{90,}" + _LA, check=mixed),
    # A Facebook app access token: the app id, "|" (or %7C in a URL), the app secret.
    Rule("facebook-access-token",
         _LazyRe(r"(?<![A-Za-z0-9_])[0-9]{15,16}(?:\||%7[Cc])[A-Za-z0-9_\-]{27,40}(?![A-Za-z0-9_\-])"), ("|", "%7C", "%7c"),
         check=lambda s: mixed(s[17:])),
    # A private key as bare base64 DER, without the PEM lines: "MII" (a long SEQUENCE), then a
    # version INTEGER 0 or 1 -- which a certificate or a public key never has there.
    tok("private-key", "MII", r"[A-Za-z0-9+/]{100,}={0,2}", r"[A-Za-z0-9+/]", check=lambda s: _der_private(s), rank=-2),
    tok("instagram-token", "IGQV", r"[A-Za-z0-9_\-]{100,}"),
    tok("twitter-bearer-token", "AAAAAAAAAAAAAAAAAAAA", r"[A-Za-z0-9%]{30,}"),
    Rule("salesforce-token", _LazyRe(r"(?<![A-Za-z0-9])00D[A-Za-z0-9]{12,15}![A-Za-z0-9._]{80,}"), ("00D",)),
    # --- observability
    tok("grafana-token", "glc_", r"[A-Za-z0-9+/]{32,400}={0,2}"),
    tok("grafana-token", "eyJrIjoi", r"[A-Za-z0-9]{70,400}={0,3}", _B_WORD_DASH),  # the legacy API key
    tok("grafana-token", "glsa_", r"[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}" + _LA),
    tok("newrelic-key", "NRAK-", r"[A-Z0-9]{27}" + _LA),
    tok("newrelic-key", "NRJS-", r"[a-f0-9]{19}" + _LA),
    tok("newrelic-key", "NRII-", r"[A-Za-z0-9_\-]{32}" + _LA_DASH),
    # License keys: 36 hex then NRAL, or (EU accounts) "eu01xx" and 30 hex then NRAL.
    Rule("newrelic-key", _LazyRe(r"(?<![A-Za-z0-9])(?:[a-f0-9]{36}|eu01xx[a-f0-9]{30})NRAL" + _LA), ("NRAL",)),
    tok("newrelic-key", "NRAA-", r"[a-f0-9]{27}" + _LA),  # admin API key
    *_toks("newrelic-key", ("NRIQ-", "NRIK-"), r"[A-Za-z0-9_\-]{32}" + _LA_DASH, check=mixed),  # Insights query / insert
    tok("sentry-token", "sntrys_", r"eyJ[A-Za-z0-9+/=_\-]{40,}"),
    tok("sentry-token", "sntryu_", r"[a-f0-9]{64}" + _LA),
    tok("dynatrace-token", "dt0c01.", r"[A-Z0-9]{24}\.[A-Z0-9]{64}" + _LA),
    # Adafruit IO keys: "aio_" and 28 random letters and digits.
    tok("adafruit-key", "aio_", r"[A-Za-z0-9]{28}" + _LA, check=lambda s: mixed(s[4:]) and has_digit(s)),
    # --- more providers with a documented prefix (session 32, second round)
    tok("openrouter-api-key", "sk-or-v1-", r"[a-f0-9]{64}" + _LA, _B_WORD_DASH),
    tok("langfuse-secret-key", "sk-lf-", UUID + _LA_DASH, _B_WORD_DASH),
    tok("helicone-api-key", "sk-helicone-", r"[A-Za-z0-9_\-]{20,}", _B_WORD_DASH, check=random_looking),
    tok("elevenlabs-api-key", "sk_", r"[a-f0-9]{48}" + _LA, check=_hexy),
    tok("nvidia-api-key", "nvapi-", r"[A-Za-z0-9_\-]{64}" + _LA_DASH, check=mixed),
    tok("cerebras-api-key", "csk-", r"[a-z0-9]{48}" + _LA, check=has_digit),
    tok("tavily-api-key", "tvly-", r"(?:dev-|prod-)?[A-Za-z0-9]{32}" + _LA, check=mixed),
    tok("firecrawl-api-key", "fc-", r"[a-f0-9]{32}" + _LA, _B_WORD_DASH, check=_hexy),
    tok("e2b-api-key", "e2b_", r"[a-f0-9]{40}" + _LA),
    tok("anyscale-api-key", "esecret_", r"[A-Za-z0-9]{26,}" + _LA, check=mixed),
    tok("voyage-api-key", "pa-", r"[A-Za-z0-9_\-]{43}" + _LA_DASH, _B_WORD_DASH, check=lambda s: mixed(s[3:]) and has_digit(s)),
    tok("together-api-key", "tgp_v1_", r"[A-Za-z0-9_\-]{40,}"),
    tok("resend-api-key", "re_", r"[A-Za-z0-9]{8}_[A-Za-z0-9]{24}" + _LA, check=lambda s: mixed(s[3:]) and has_digit(s)),
    tok("mailersend-token", "mlsn.", r"[A-Za-z0-9]{64}" + _LA, check=mixed),
    tok("posthog-personal-key", "phx_", r"[A-Za-z0-9_]{43,48}" + _LA, check=mixed),
    tok("onesignal-api-key", "os_v2_", r"(?:app|org)_[a-z0-9]{40,}" + _LA, check=has_digit),
    tok("pinterest-token", "pina_", r"[A-Za-z0-9]{32,}" + _LA, check=mixed),
    tok("xata-api-key", "xau_", r"[A-Za-z0-9]{32,}" + _LA, check=mixed),
    *_toks("fauna-secret", ("fnA", "fnE"), r"[A-Za-z0-9_\-]{37}" + _LA_DASH, check=lambda s: mixed(s) and has_digit(s)),
    tok("akamai-token", "akab-", r"[a-z0-9]{16}-[a-z0-9]{16}" + _LA_DASH, check=has_digit),
    tok("infisical-token", "st.", UUID + r"\.[a-f0-9]{32}\.[a-f0-9]{32}" + _LA),
    *_toks("woocommerce-key", ("ck_", "cs_"), r"[a-f0-9]{40}" + _LA, check=_hexy),
    # Neptune.ai API tokens: base64 of {"api_address": ..., "api_url": ..., "api_key": ...}.
    tok("neptune-api-token", "eyJhcGlfYWRkcmVzcyI6", r"[A-Za-z0-9+/]{40,}={0,2}"),
    # Azure DevOps PATs in the identifiable format: 84 characters with "AZDO" at 77-80.
    Rule("azure-devops-token", _LazyRe(r"(?<![A-Za-z0-9])[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4}(?![A-Za-z0-9])"), ("AZDO",)),
    # --- memvault and general formats
    tok("memvault-token", "mvt_", r"[A-Za-z0-9_\-]{43}" + _LA_DASH, _B_WORD_DASH),  # server/http/tokens.py
    # "-----BEGIN " in base64, the rest of the block with it (the private-key kind: it is one, encoded).
    tok("private-key", "LS0tLS1CRUdJTi", r"[A-Za-z0-9+/]{40,}={0,2}", check=_b64_private_pem),
    tok("age-secret-key", "AGE-SECRET-KEY-1", r"[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}" + _LA),
    # Okta API tokens in Okta's own header: "Authorization: SSWS 00...".
    Rule("okta-token", _LazyRe(r"(?i:ssws)[ \t]+(00[A-Za-z0-9_\-]{40})" + _LA_DASH), ("ssws",), before=_WORD, group=1,
         check=mixed, ci=True),
    # Always matches a whole dotted run (so a failed candidate is never rescanned);
    # the shape and the JSON header are checked in Python.
    tok("jwt", "eyJ", r"[A-Za-z0-9_\-]*(?:\.[A-Za-z0-9_\-]*){0,2}", _B_WORD_DASH, check=jwt_ok),
    # Case-insensitive: matched at each occurrence of the anchor in text.lower().
    Rule("bearer-token", _LazyRe(r"(?i:bearer)[ \t]+([A-Za-z0-9\-._~+/]{12,}=*)"), ("bearer",), before=_WORD, group=1,
         check=lambda s: mixed(s) and not re.fullmatch(r"(?:[A-Za-z_]+\.)+[A-Za-z_]+", s), rank=5, ci=True),
    Rule("basic-auth", _LazyRe(r"(?i:basic)[ \t]+([A-Za-z0-9+/]{6,}=*)"), ("basic",), before=_WORD, group=1,
         check=basic_auth_ok, rank=5, ci=True),
)


# ------------------------------------------------------------------ keyword-anchored values


class KeywordRule:
    """``value`` (a regex for the secret alone) within a short gap after one of ``keywords``.

    The gap may hold a key name, a separator and quotes (``twilio_auth_token = "``,
    ``TWILIO AUTH TOKEN:``), nothing else, and must name a credential (key, token,
    secret, ...): "Deployed datadog release <commit hash>" is not a Datadog key.
    """

    __slots__ = ("kind", "keywords", "regex", "check", "named")

    def __init__(self, kind: str, keywords: tuple[str, ...], value: str,
                 check: Callable[[str], bool] | None = None, named: bool = False) -> None:
        # named: the keyword itself names the credential (sonar.login, Jenkins-Crumb), so the gap
        # after it need not hold a key word.
        self.kind, self.keywords, self.check, self.named = kind, keywords, check, named
        self.regex = _LazyRe(r"[A-Za-z0-9_.\- \t\r\n\"'`:=>(\[\],{]{0,40}?(?<![A-Za-z0-9])(" + value + r")(?![A-Za-z0-9])")


# ("client id", "access id": gitleaks counts a provider's client and access ids too.)
GAP_NEEDS = _LazyRe(r"(?i:key|token|secret|auth|pass|pwd|pat\b|credential|sid|dsn|license|api|(?:client|access)[_.\- ]?id)")
_HEX32 = r"[a-f0-9]{32}"
_HEX40 = r"[a-f0-9]{40}"
KEYWORD_RULES: tuple[KeywordRule, ...] = (
    KeywordRule("aws-secret-access-key", ("aws", "secret_access_key", "secretaccesskey"), r"[A-Za-z0-9/+]{40}",
                check=lambda s: mixed(s) and has_digit(s)),
    KeywordRule("aws-session-token", ("aws_session_token", "aws-session-token", "x-amz-security-token"),
                r"[A-Za-z0-9/+=]{100,}"),
    KeywordRule("gcp-private-key-id", ("private_key_id",), _HEX40, check=_hexy),
    KeywordRule("ibm-cloud-api-key", ("ibm", "iam", "bluemix", "cloudant"), r"[A-Za-z0-9_\-]{44}", check=mixed),
    KeywordRule("ibm-cos-hmac-secret", ("secret_access_key", "cos_hmac", "hmac"), r"[a-f0-9]{48}", check=_hexy),
    KeywordRule("softlayer-api-key", ("softlayer", "sl_api", "sl-api", "slapi"), r"[a-z0-9]{64}", check=has_digit),
    KeywordRule("cloudflare-api-token", ("cloudflare", "cf_api", "cf-api", "cf_token"), r"[A-Za-z0-9_\-]{40}",
                check=mixed),
    KeywordRule("cloudflare-api-key", ("cloudflare", "cf_api", "cf-api", "x-auth-key"), r"[a-f0-9]{37}", check=_hexy),
    KeywordRule("fastly-token", ("fastly",), r"[A-Za-z0-9_\-]{32}", check=mixed),
    KeywordRule("linode-token", ("linode",), r"[a-f0-9]{64}", check=_hexy),
    KeywordRule("vultr-api-key", ("vultr",), r"[A-Z0-9]{36}", check=has_digit),
    KeywordRule("heroku-api-key", ("heroku",), UUID),
    KeywordRule("alibaba-secret", ("alibaba", "aliyun", "accesskeysecret", "access_key_secret"), r"[A-Za-z0-9]{30}",
                check=mixed),
    KeywordRule("azure-devops-token", ("azure_devops", "azure-devops", "azuredevops", "ado_pat", "ado-pat", "vsts"),
                r"[a-z2-7]{52}", check=has_digit),
    KeywordRule("azure-key", ("azure",), r"[A-Za-z0-9]{32}", check=mixed),
    KeywordRule("snyk-token", ("snyk",), UUID),
    KeywordRule("sourcegraph-token", ("sourcegraph", "src_access_token"), _HEX40, check=_hexy),
    KeywordRule("circleci-token", ("circleci", "circle_token", "circle-token"), _HEX40, check=_hexy),
    KeywordRule("travis-token", ("travis",), r"[A-Za-z0-9]{22}", check=mixed),
    KeywordRule("codecov-token", ("codecov",), UUID),
    KeywordRule("drone-token", ("drone",), r"[A-Za-z0-9]{32}", check=mixed),
    KeywordRule("netlify-token", ("netlify",), r"[A-Za-z0-9_\-]{40,46}", check=mixed),
    KeywordRule("vercel-token", ("vercel", "zeit"), r"[A-Za-z0-9]{24}", check=mixed),
    KeywordRule("jfrog-token", ("jfrog", "artifactory"), r"[A-Za-z0-9]{64,73}", check=mixed),
    KeywordRule("jenkins-token", ("jenkins",), r"[a-f0-9]{32,34}", check=_hexy),
    KeywordRule("cohere-api-key", ("cohere", "co_api_key"), r"[A-Za-z0-9]{40}", check=mixed),
    KeywordRule("mistral-api-key", ("mistral",), r"[A-Za-z0-9]{32}", check=mixed),
    KeywordRule("wandb-api-key", ("wandb", "weights_and_biases"), _HEX40, check=_hexy),
    KeywordRule("pinecone-api-key", ("pinecone",), UUID),
    KeywordRule("assemblyai-key", ("assemblyai", "assembly_ai"), _HEX32, check=_hexy),
    KeywordRule("twilio-auth-token", ("twilio",), _HEX32, check=_hexy),
    KeywordRule("mailgun-key", ("mailgun",), r"[a-f0-9]{32}-[a-f0-9]{8}-[a-f0-9]{8}", check=_hexy),
    KeywordRule("mailjet-key", ("mailjet", "mj_apikey", "mj_secret"), _HEX32, check=_hexy),
    KeywordRule("postmark-token", ("postmark",), UUID),
    KeywordRule("sendbird-token", ("sendbird",), _HEX40 + "|" + UUID, check=_hexy),
    KeywordRule("datadog-api-key", ("datadog", "dd_api_key", "dd-api-key", "dd_app_key", "dd-application-key"),
                r"[a-f0-9]{32}(?:[a-f0-9]{8})?", check=_hexy),
    KeywordRule("rollbar-token", ("rollbar",), _HEX32, check=_hexy),
    KeywordRule("bugsnag-key", ("bugsnag",), _HEX32, check=_hexy),
    KeywordRule("honeycomb-key", ("honeycomb",), r"[A-Za-z0-9]{22}|[a-f0-9]{32}", check=mixed),
    KeywordRule("splunk-hec-token", ("splunk",), UUID),
    KeywordRule("opsgenie-key", ("opsgenie",), UUID),
    KeywordRule("pagerduty-key", ("pagerduty",), r"[A-Za-z0-9_+\-]{20}", check=mixed),
    KeywordRule("sumologic-key", ("sumo",), r"su[A-Za-z0-9]{12}|[A-Za-z0-9]{64}", check=mixed),
    KeywordRule("algolia-key", ("algolia",), _HEX32, check=_hexy),
    KeywordRule("launchdarkly-key", ("launchdarkly", "ld_sdk", "ld-sdk"), r"(?:api|sdk)-" + UUID),
    KeywordRule("okta-token", ("okta",), r"00[A-Za-z0-9_\-]{40}", check=mixed),
    KeywordRule("auth0-secret", ("auth0",), r"[A-Za-z0-9_\-]{64}", check=mixed),
    KeywordRule("zendesk-token", ("zendesk",), r"[A-Za-z0-9]{40}", check=mixed),
    KeywordRule("intercom-token", ("intercom",), r"[A-Za-z0-9_=\-]{59,60}", check=mixed),
    KeywordRule("hubspot-key", ("hubspot", "hapikey"), UUID),
    KeywordRule("asana-token", ("asana",), r"[0-9]{1,2}/[0-9]{16}(?:/[0-9]{16})?:[a-f0-9]{32}"),
    KeywordRule("asana-client-id", ("asana",), r"[0-9]{16}"),
    KeywordRule("trello-token", ("trello",), r"[a-f0-9]{64}|[a-f0-9]{32}", check=_hexy),
    KeywordRule("airtable-key", ("airtable",), r"key[A-Za-z0-9]{14}", check=mixed),
    KeywordRule("dropbox-token", ("dropbox",), r"[A-Za-z0-9]{11}AAAAAAAAAA[A-Za-z0-9_\-]{43}"),
    KeywordRule("box-token", ("box_",), r"[A-Za-z0-9]{32}", check=mixed),
    KeywordRule("twitter-secret", ("twitter", "consumer_secret", "consumer_key"), r"[A-Za-z0-9]{25}|[A-Za-z0-9]{50}",
                check=mixed),
    KeywordRule("facebook-secret", ("facebook", "fb_app_secret", "fb_secret"), _HEX32, check=_hexy),
    KeywordRule("linkedin-secret", ("linkedin", "linked_in", "linked-in"), r"[A-Za-z0-9]{16}|[A-Za-z0-9]{14}", check=mixed),
    KeywordRule("gocardless-token", ("gocardless",), r"live_[A-Za-z0-9_=\-]{40}"),
    KeywordRule("coinbase-key", ("coinbase",), r"[A-Za-z0-9]{64}", check=mixed),
    KeywordRule("binance-key", ("binance",), r"[A-Za-z0-9]{64}", check=mixed),
    KeywordRule("razorpay-secret", ("razorpay",), r"[A-Za-z0-9]{24}", check=mixed),
    KeywordRule("confluent-secret", ("confluent", "ccloud"), r"[A-Za-z0-9+/]{64}", check=mixed),
    KeywordRule("ngrok-token", ("ngrok",), r"[0-9A-Za-z]{20,30}_[0-9A-Za-z]{17,24}"),
    KeywordRule("mongodb-atlas-key", ("atlas", "mongodb"), UUID),
    KeywordRule("lob-key", ("lob_",), r"(?:live|test)_[a-f0-9]{35}|(?:live|test)_pub_[a-f0-9]{31}"),
    KeywordRule("beamer-key", ("beamer",), r"b_[A-Za-z0-9=_\-]{44}"),
    KeywordRule("adafruit-key", ("adafruit", "aio_key", "aio-key"), r"aio_[A-Za-z0-9]{28}|[A-Za-z0-9_\-]{32}", check=mixed),
    KeywordRule("segment-key", ("segment",), r"[A-Za-z0-9]{32}", check=mixed),
    KeywordRule("mixpanel-secret", ("mixpanel",), _HEX32, check=_hexy),
    KeywordRule("amplitude-key", ("amplitude",), _HEX32, check=_hexy),
    KeywordRule("contentstack-token", ("contentstack",), r"cs[a-f0-9]{32}"),
    KeywordRule("zoom-secret", ("zoom",), r"[A-Za-z0-9]{32}", check=mixed),
    KeywordRule("adyen-client-key", ("adyen",), r"(?:test|live)_[A-Za-z0-9]{30,40}"),
    KeywordRule("chargebee-token", ("chargebee",), r"(?:test|live)_[A-Za-z0-9]{32,34}"),
    KeywordRule("looker-client-secret", ("looker",), r"[A-Za-z0-9]{24}|[A-Za-z0-9]{20}", check=mixed),
    KeywordRule("bittrex-key", ("bittrex",), r"[A-Za-z0-9]{32}", check=mixed),
    KeywordRule("etsy-key", ("etsy",), r"[A-Za-z0-9]{24}", check=mixed),
    KeywordRule("finicity-key", ("finicity",), r"[a-f0-9]{32}|[A-Za-z0-9]{20}", check=mixed),
    KeywordRule("finnhub-key", ("finnhub",), r"[A-Za-z0-9]{20}", check=mixed),
    KeywordRule("flickr-key", ("flickr",), r"[A-Za-z0-9]{32}", check=mixed),
    KeywordRule("freshbooks-token", ("freshbooks",), r"[A-Za-z0-9]{64}", check=mixed),
    KeywordRule("gitter-token", ("gitter",), r"[A-Za-z0-9_\-]{40}", check=mixed),
    KeywordRule("kraken-key", ("kraken",), r"[A-Za-z0-9/=_+\-]{80,90}", check=mixed),
    KeywordRule("kucoin-key", ("kucoin",), r"[a-f0-9]{24}|" + UUID, check=mixed),
    KeywordRule("mattermost-token", ("mattermost",), r"[A-Za-z0-9]{26}", check=mixed),
    KeywordRule("messagebird-key", ("messagebird", "message_bird", "message-bird"), r"[A-Za-z0-9]{25}|" + UUID,
                check=mixed),
    KeywordRule("nytimes-key", ("nytimes", "new_york_times", "new-york-times"), r"[A-Za-z0-9=_\-]{32}", check=mixed),
    KeywordRule("rapidapi-key", ("rapidapi", "x-rapidapi-key"), r"[A-Za-z0-9_\-]{50}", check=mixed),
    KeywordRule("squarespace-key", ("squarespace",), UUID),
    KeywordRule("twitch-token", ("twitch",), r"[a-z0-9]{30}", check=mixed),
    KeywordRule("plaid-secret", ("plaid",), r"[A-Za-z0-9]{30}|[A-Za-z0-9]{24}", check=mixed),
    KeywordRule("adobe-client-id", ("adobe",), _HEX32, check=_hexy),
    KeywordRule("discord-client-secret", ("discord",), r"[A-Za-z0-9_\-]{32}", check=mixed),
    KeywordRule("discord-client-id", ("discord",), r"[0-9]{17,19}"),
    KeywordRule("newrelic-key", ("newrelic", "new_relic", "new-relic"), r"[A-Za-z0-9]{64}", check=mixed),
    KeywordRule("bitbucket-client-secret", ("bitbucket",), r"[A-Za-z0-9=_\-]{64}|[A-Za-z0-9]{32}", check=mixed),
    KeywordRule("cloudant-password", ("cloudant",), r"[a-f0-9]{64}", check=_hexy),
    # Code Climate's test reporter id is the credential its uploads authenticate with.
    KeywordRule("codeclimate-reporter-token", ("cc_test_reporter_id",), r"[a-f0-9]{64}", check=_hexy),
    # SonarQube's scanner takes its token as sonar.login (sonar.token since 10.0).
    KeywordRule("sonar-token", ("sonar.login", "sonar.token", "sonar_login", "sonar_token"), _HEX40, check=_hexy,
                named=True),
    KeywordRule("jenkins-crumb", ("jenkins-crumb",), r"[a-f0-9]{32,64}", check=_hexy, named=True),
    KeywordRule("hetzner-token", ("hcloud", "hetzner"), r"[A-Za-z0-9]{64}", check=mixed),
    KeywordRule("deepgram-api-key", ("deepgram",), _HEX40, check=_hexy),
    KeywordRule("gitea-token", ("gitea", "gogs"), _HEX40, check=_hexy),
    KeywordRule("loggly-token", ("loggly",), UUID),
    KeywordRule("github-oauth-secret", ("github_client_secret", "github-client-secret", "github_secret"), _HEX40,
                check=_hexy),
)
