"""The labelled secret set for bench/secrets_fp.py and tests/test_redact.py, written by the team
from the providers' documented token formats (not from any scanner's rule tests).

* ``positives()``: (kind, text, secret) -- a fake, format-valid secret of each kind placed in
  prose, code, shell history and config files (env, YAML, TOML, INI, JSON). Provider-named
  formats (a Twilio auth token is just 32 hex digits) are placed next to the provider's name,
  as they appear in real configs.
* ``negatives()``: ordinary technical texts plus look-alikes -- commit hashes, UUIDs (also
  next to provider names: an app id is not a key), base64 test data, digests, ids of cloud
  resources, placeholders such as ``sk-xxxx``, ``<your-token>``, ``AKIAXXXXXXXXXXXXXXXX``, and
  references (``$TOKEN``, ``${{ secrets.X }}``, ``os.environ[...]``).

The formats, contexts and texts are data: bench/data/secret_samples.json. Secrets are
assembled from them at run time with a fixed seed, so no file contains a string a secret
scanner would flag, and every run builds the same set. A format is text with fields:
``{40}`` 40 random letters and digits, ``{40:HEX}`` from a named alphabet (``B64+=``: that
alphabet and '='), ``{uuid}``, ``{digits:13}``, ``{int:1-21}``, ``{choice:MNO}``, ``{jwt}``;
``|`` only splits a prefix so that the data file never holds it whole (as ``J`` does here).
What lives inside a structure (private keys, URLs, command lines) is built in ``_structured``.
"""

from __future__ import annotations

import base64
import itertools
import json
import random
import re
import uuid
from collections.abc import Callable
from pathlib import Path

_DATA = json.loads((Path(__file__).resolve().parent / "data" / "secret_samples.json").read_text(encoding="utf-8"))

SEED = 20240601
ALPHABETS: dict[str, str] = _DATA["alphabets"]
ALNUM = ALPHABETS["ALNUM"]
HEX = ALPHABETS["HEX"]
UPPER_DIGITS = ALPHABETS["UPPER_DIGITS"]
LOWER_DIGITS = ALPHABETS["LOWER_DIGITS"]
B64 = ALPHABETS["B64"]
URLSAFE = ALPHABETS["URLSAFE"]


class _Gen:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def rand(self, n: int, alphabet: str = ALNUM) -> str:
        """n characters; for mixed alphabets always with a digit and a letter (as real keys have)."""
        while True:
            s = "".join(self.rng.choice(alphabet) for _ in range(n))
            needs = any(c.isdigit() for c in alphabet) and any(c.isalpha() for c in alphabet)
            if not needs or n < 4 or (any(c.isdigit() for c in s) and any(c.isalpha() for c in s)):
                return s

    def uuid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128)))

    def b64url_json(self, obj: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")


def J(*parts: str) -> str:
    """Join pieces: keeps whole prefixes out of this file's text."""
    return "".join(parts)


# ------------------------------------------------------------------------------ positives

def _digits(g: _Gen, n: int) -> str:
    return str(g.rng.randint(10 ** (n - 1), 10**n - 1))


_FIELD = re.compile(r"\{([^{}]*)\}")


def _field(g: _Gen, spec: str) -> str:
    """One ``{...}`` of a format, drawn from g's generator (see the module's docstring)."""
    head, _, arg = spec.partition(":")
    if head == "uuid":
        return g.uuid()
    if head == "digits":
        return _digits(g, int(arg))
    if head == "int":
        low, high = arg.split("-")
        return str(g.rng.randint(int(low), int(high)))
    if head == "choice":
        return g.rng.choice(arg)
    if head == "jwt":
        return g.b64url_json({"alg": "HS256", "typ": "JWT"}) + "." + g.b64url_json(
            {"sub": g.rand(8), "iat": g.rng.randint(10**9, 2 * 10**9)}) + "." + g.rand(43, URLSAFE)
    name, _, extra = arg.partition("+")
    return g.rand(int(head), ALPHABETS[name] + extra if name else ALNUM)


def _generator(g: _Gen, fmt: str) -> Callable[[], str]:
    """A format as a function that draws a fresh secret each call, fields left to right."""
    parts = _FIELD.split(fmt.replace("|", ""))  # literal, field, literal, field, ...

    def draw() -> str:
        return "".join(_field(g, p) if i % 2 else p for i, p in enumerate(parts))

    return draw


def prefixed(g: _Gen) -> dict[str, list[Callable[[], str]]]:
    """kind -> generators of secrets that carry their own format (no keyword needed)."""
    return {kind: [_generator(g, f) for f in formats] for kind, formats in _DATA["prefixed"].items()}


def keyed(g: _Gen) -> dict[str, tuple[tuple[str, ...], Callable[[], str]]]:
    """kind -> (provider names as written in configs, generator): values with no format of their own."""
    return {kind: (tuple(k["names"]), _generator(g, k["format"])) for kind, k in _DATA["keyed"].items()}


PLAIN_CONTEXTS: dict[str, list[str]] = _DATA["plain_contexts"]
KEYED_CONTEXTS: dict[str, list[str]] = _DATA["keyed_contexts"]


def _pem(g: _Gen, kind: str) -> str:
    body = "\n".join(g.rand(64, B64) for _ in range(4)) + "\n" + g.rand(20, B64) + "=="
    return J("-----BEGIN ", kind, "PRIVATE", " KEY-----\n") + body + J("\n-----END ", kind, "PRIVATE", " KEY-----")


def _structured(g: _Gen) -> list[tuple[str, str, str]]:
    """(kind, text, secret) for formats that live inside a structure: keys, URLs, headers, command lines."""
    r = g.rand
    out: list[tuple[str, str, str]] = []
    for kind in ("RSA ", "EC ", "OPENSSH ", "", "ENCRYPTED "):
        key = _pem(g, kind)
        out.append(("private-key", f"deploy key below\n{key}\n", key))
    pgp = J("-----BEGIN PGP PRIVATE", " KEY BLOCK-----\n\n") + "\n".join(r(64, B64) for _ in range(3)) + \
        J("\n-----END PGP PRIVATE", " KEY BLOCK-----")
    out.append(("private-key", pgp, pgp))
    putty = J("PuTTY-User-Key-File-", "2: ssh-rsa\nEncryption: none\nComment: ci\nPublic-Lines: 2\n") + r(64, B64) + "\n" + \
        r(40, B64) + "\nPrivate-Lines: 2\n" + r(64, B64) + "\n" + r(30, B64) + "\nPrivate-MAC: " + r(40, HEX)
    out.append(("private-key", putty, putty))
    for name in ("BUNDLE_GEMS__CONTRIBSYS__COM", "BUNDLE_ENTERPRISE__CONTRIBSYS__COM"):
        cred = r(8, HEX) + ":" + r(8, HEX)
        out.append(("sidekiq-secret", f"export {name}={cred}", cred))
    vault = "\n".join(r(80, HEX) for _ in range(3))
    out.append(("ansible-vault", J("$ANSIBLE", "_VAULT;1.1;AES256\n") + vault, vault))
    session = r(24)
    out.append(("claude-code-session-url", f"resume at https://claude.ai/code/session_{session} later", session))
    shir = r(43, B64) + "="
    out.append(("datafactory-shir-key", J("I", "R@") + g.uuid() + "@adf-prod-002@we@" + shir, shir))
    cookie = r(32, LOWER_DIGITS)
    out.append(("gitlab-session-cookie", J("Cookie: _gitlab", "_session=") + cookie, cookie))
    sa = _pem(g, "").replace("\n", "\\n")
    out.append(("private-key", '{"type": "service_account", "private_key": "' + sa + '", "client_email": "ci@p.iam"}', sa))
    for _ in range(3):
        out.append(("azure-storage-key", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" + (k := r(86, B64) + "==")
                    + ";EndpointSuffix=core.windows.net", k))
    out.append(("azure-sas-key", "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey="
                + (k := r(43, B64) + "="), k))
    out.append(("azure-sas-token", "https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&sp=r&se=2026-01-01&sig="
                + (k := r(43, ALNUM) + "%3D"), k))
    for _ in range(3):
        pw = r(14, ALNUM + "!#^")
        url_pw = pw.replace("#", "%23")  # a URL carries '#' percent-encoded
        out += [
            ("url-password", f"postgres://svc:{url_pw}@db.internal:5432/app", url_pw),
            ("url-password", f"mongodb+srv://app:{url_pw}@cluster0.example.mongodb.net/prod", url_pw),
            ("url-password", f"git remote add origin https://deploy:{url_pw}@git.example.com/org/repo.git", url_pw),
            ("url-password", f"amqp://guest:{url_pw}@mq.internal:5672/", url_pw),
            ("url-password", f"REDIS_URL=redis://:{url_pw}@cache:6379/0", url_pw),
        ]
        dsn = r(32, HEX)
        out.append(("url-credential", f"SENTRY_DSN=https://{dsn}@o{_digits(g, 6)}.ingest.sentry.io/{_digits(g, 7)}", dsn))
        out += [
            ("password", f"curl -u admin:{pw} https://ci.example.com/api/json", pw),
            ("password", f"$ mysql -h db -u root -p{pw} app < dump.sql", pw),
            ("password", f"sshpass -p '{pw}' ssh deploy@10.0.0.5", pw),
            ("password", f"docker login -u ci -p {pw} registry.example.com", pw),
            ("password", f"redis-cli -h cache -a {pw} ping", pw),
            ("password", f"CREATE USER app IDENTIFIED BY '{pw}';", pw),
            ("password", f"ALTER ROLE app WITH PASSWORD '{pw}';", pw),
            ("password", f"machine api.example.com login ci password {pw}", pw),
            ("password", f"keytool -importkeystore -srckeystore a.p12 -storepass {pw}", pw),
            ("password", f"DB_PASSWORD={pw}", pw),
            ("password", f'{{"user": "svc", "password": "{pw}"}}', pw),
            ("password", f"password: {pw}\n", pw),
            ("password", f'password = "{pw}"  # settings.toml', pw),
            ("password", f'$password = "{pw}";', pw),
            ("password", f'NSString *password = @"{pw}";', pw),
            ("password", f'char password[] = "{pw}";', pw),
            ("password", f'password := "{pw}"', pw),
            ("password", f"Server=db;User Id=sa;Password={pw};", pw),
            ("password", f"the staging password is '{pw}'", pw),
            ("secret", f"client_secret = '{pw}'", pw),
            ("secret", f"SECRET_KEY_BASE={r(64, HEX)}", None),
            ("secret", f"auth: {r(40, URLSAFE)}", None),
            ("api-key", f"X-API-Key: {pw}", pw),
            ("api-key", f'"apiKey": "{pw}"', pw),
            ("token", f"export AUTH_TOKEN={pw}", pw),
            ("token", f"access_token: {pw}", pw),
            ("bearer-token", f"curl -H 'Authorization: Bearer {(b := r(40, ALNUM + '-._~'))}' https://api.example.com", b),
            ("basic-auth", "Authorization: Basic " + (b := base64.b64encode(J("deploy:", r(16)).encode()).decode()), b),
        ]
    # (session 32, drawn last so the samples above stay as they were)
    for _ in range(3):
        fn_key = r(54, URLSAFE) + "=="
        out.append(("azure-function-key", f"curl 'https://orders-fn.azurewebsites.net/api/Ingest?code={fn_key}'", fn_key))
        aiven = J("AV", "NS_") + r(19, URLSAFE)
        out.append(("aiven-token", f"avn user login --token {aiven}", aiven))
        az = r(86, B64) + "=="
        out.append(("azure-storage-key", f"Azure storage account key for the backups:\n  {az}", az))
    # (session 32, second round: drawn after everything above, so those samples stay as they were)
    for _ in range(3):
        jina = J("ji", "na_") + r(60)
        out.append(("jina-api-key", f"Embeddings use {jina} for now.", jina))
        boot = r(6, LOWER_DIGITS) + "." + r(16, LOWER_DIGITS)
        out.append(("kubernetes-bootstrap-token", f"kubeadm join 10.0.0.1:6443 --token {boot} "
                    f"--discovery-token-ca-cert-hash sha256:{r(64, HEX)}", boot))
        reporter = r(64, HEX)
        out.append(("codeclimate-reporter-token", f"env:\n  CC_TEST_REPORTER_ID: {reporter}", reporter))
        dtrack = J("od", "t_") + r(32)
        out.append(("dependency-track-key", f"the upload job authenticates with {dtrack} (Dependency-Track)", dtrack))
        crumb = r(32, HEX)
        out.append(("jenkins-crumb", f"curl -X POST https://ci.example.com/job/deploy/build -H 'Jenkins-Crumb:{crumb}'", crumb))
        nas = r(64)
        out.append(("truenas-api-key", '{"msg": "method", "method": "auth.login_with_api_key", "params": ["'
                    + str(g.rng.randint(1, 99)) + "-" + nas + '"]}', nas))
        device = r(20)
        out.append(("thingsboard-token", f"curl -X POST http://tb.example.com:8080/api/v1/{device}/telemetry -d @t.json",
                    device))
    # (then the providers added from the big scanners' rule lists, each from its documented format;
    # the prefixes are split so that this file is not itself a finding)
    more = [
        ("openrouter-api-key", "sk-or|-v1-{64:HEX}"), ("langfuse-secret-key", "sk-lf|-{uuid}"),
        ("helicone-api-key", "sk-helicone|-{7:LOWER_DIGITS}-{7:LOWER_DIGITS}-{7:LOWER_DIGITS}-{7:LOWER_DIGITS}"),
        ("elevenlabs-api-key", "sk|_{48:HEX}"), ("nvidia-api-key", "nvapi|-{64:URLSAFE}"),
        ("cerebras-api-key", "csk|-{48:LOWER_DIGITS}"), ("tavily-api-key", "tvly|-dev-{32}"),
        ("firecrawl-api-key", "fc|-{32:HEX}"), ("e2b-api-key", "e2b|_{40:HEX}"), ("anyscale-api-key", "esecret|_{26}"),
        ("voyage-api-key", "pa|-{43}"), ("together-api-key", "tgp|_v1_{43:URLSAFE}"), ("resend-api-key", "re|_{8}_{24}"),
        ("mailersend-token", "mlsn|.{64}"), ("posthog-personal-key", "phx|_{43}"),
        ("onesignal-api-key", "os|_v2_app_{100:LOWER_DIGITS}"), ("pinterest-token", "pina|_{96}"), ("xata-api-key", "xau|_{40}"),
        ("fauna-secret", "fn|A{37}"), ("akamai-token", "akab|-{16:LOWER_DIGITS}-{16:LOWER_DIGITS}"),
        ("infisical-token", "st|.{uuid}.{32:HEX}.{32:HEX}"), ("woocommerce-key", "cs|_{40:HEX}"),
        ("neptune-api-token", "eyJhcGlf|YWRkcmVzcyI6{120:B64}"), ("azure-devops-token", "{76}AZ|DO{4}"),
    ]
    for kind, fmt in more:
        draw = _generator(g, fmt)
        for template in ("Rotate {s} before Friday.", 'client = Client(key="{s}")', "$ export CRED={s}"):
            secret = draw()
            out.append((kind, template.format(s=secret), secret))
    keyed_more = [("hetzner-token", "HCLOUD_TOKEN", "{64}"), ("deepgram-api-key", "DEEPGRAM_API_KEY", "{40:HEX}"),
                  ("gitea-token", "GITEA_TOKEN", "{40:HEX}"), ("loggly-token", "LOGGLY_TOKEN", "{uuid}")]
    for kind, name, fmt in keyed_more:
        draw = _generator(g, fmt)
        for template in ("{n}={s}", '{l}: "{s}"', "export {n}='{s}'"):
            secret = draw()
            out.append((kind, template.format(s=secret, n=name, l=name.lower()), secret))
    # Session 32's third round: prefixes from the big scanners' lists, an Atlassian personal access token
    # (base64 of a 12-digit id, ":" and 20 random bytes) and a BIP-39 seed phrase after the word naming it.
    third = [("apify-token", "apify|_api_{36}"), ("browserbase-key", "bb|_live_{27}"),
             ("ory-token", "ory|_pat_{32}"),
             ("zuplo-key", "zp|ka_{32:HEX}_{8:HEX}"), ("runpod-key", "rp|a_{40:UPPER_DIGITS}")]
    for kind, fmt in third:
        draw = _generator(g, fmt)
        for template in ("Rotate {s} before Friday.", 'client = Client(key="{s}")', "$ export CRED={s}"):
            secret = draw()
            out.append((kind, template.format(s=secret), secret))
    for template in ("Rotate {s} before Friday.", 'client = Client(key="{s}")', "$ export CRED={s}"):
        secret = J("Astra", "CS:") + g.rand(24, ALNUM[:52]) + ":" + g.rand(64, HEX)
        out.append(("astra-db-token", template.format(s=secret), secret))
    words = sorted(_bip39())
    for template in ("WALLET_MNEMONIC={s}", 'seed phrase: "{s}"', "recovery phrase = {s}"):
        secret = " ".join(g.rng.choice(words) for _ in range(12))
        out.append(("mnemonic", template.format(s=secret), secret))
    for template in ("JIRA_PAT={s}", 'confluence_token: "{s}"', "Authorization: Bearer {s}"):
        secret = base64.b64encode(_digits(g, 12).encode() + b":" + g.rng.randbytes(20)).decode()
        out.append(("atlassian-pat", template.format(s=secret), secret))
    # Session 33: Microsoft's identifiable keys (a service signature at its documented place, no keyword),
    # ConfigCat SDK keys, and providers with no rule of their own (a short prefix and a random body).
    for template, fmt in (("Rotate {s} before Friday.", "{52}JQQJ99{26}"),
                          ('client = Client(key="{s}")', "{42}+ACR{6}"),
                          ("$ export CRED={s}", "{33}+ASb{6}=")):
        secret = _generator(g, fmt)()
        out.append(("azure-key", template.format(s=secret), secret))
    for template in ("Rotate {s} before Friday.", 'client = Client(sdk="{s}")', "$ export CC={s}"):
        secret = J("configcat-", "sdk-1/") + g.rand(22) + "/" + g.rand(22)
        out.append(("configcat-sdk-key", template.format(s=secret), secret))
    for template, fmt in (("Rotate {s} before Friday.", "zq|key_{26:LOWER_DIGITS}"),
                          ('client = Client(vendor="{s}")', "acmeprj|_{22}_{40:HEX}"),
                          ("$ export VENDOR={s}", "qwx-|live-{32}")):
        secret = _generator(g, fmt)()
        out.append(("api-key", template.format(s=secret), secret))
    # Session 33, Kingfisher's fourth part: Docker Swarm unlock keys, Mapbox public tokens, Dropbox
    # long-lived tokens (11 characters, ten "A"s, 43 more).
    fourth = [("docker-swarm-key", "SWM|KEY-1-{43}"), ("mapbox-token", "pk|.eyJ{60}.{22}"),
              ("dropbox-token", "{11:LOWER_DIGITS}AAAAA|AAAAA{43:LOWER_DIGITS}")]
    for kind, fmt in fourth:
        draw = _generator(g, fmt)
        for template in ("Rotate {s} before Friday.", 'client = Client(key="{s}")', "$ export CRED={s}"):
            secret = draw()
            out.append((kind, template.format(s=secret), secret))
    # ...and its later batches: Salesforce connected-app consumer keys, Segment tokens, Vault unseal keys and AppRole secret ids
    # (these two only after the word that names them).
    for kind, fmt in (("salesforce-consumer-key", "3MV|G9{60}"), ("segment-token", "sg|p_{64}")):
        draw = _generator(g, fmt)
        for template in ("Rotate {s} before Friday.", 'client = Client(key="{s}")', "$ export CRED={s}"):
            secret = draw()
            out.append((kind, template.format(s=secret), secret))
    for template in ("Unseal Key 1: {s}", "$ vault operator unseal {s}", "vault unseal {s} && vault status"):
        secret = g.rand(42, B64[:62]) + "+/"
        out.append(("vault-unseal-key", template.format(s=secret), secret))
    for template in ("secret_id: {s}", 'SECRET_ID="{s}"', "vault write auth/approle/login role_id=x secret_id={s}"):
        secret = "-".join(g.rand(n, HEX) for n in (8, 4, 4, 4, 12))
        out.append(("vault-secret-id", template.format(s=secret), secret))
    # Session 34: a Kubernetes pull secret's docker config, base64 under .dockerconfigjson / .dockercfg.
    for template in ("data:\n  .dockerconfigjson: {s}", '{{"data": {{".dockercfg": "{s}"}}}}',
                     "kubectl patch secret regcred -p '.dockerconfigjson: {s}'"):
        auth = base64.b64encode(("u" + g.rand(8) + ":" + g.rand(24)).encode()).decode()
        secret = base64.b64encode(('{"auths":{"ghcr.io":{"auth":"' + auth + '"}}}').encode()).decode()
        out.append(("docker-config", template.format(s=secret), secret))
    # ...and Kingfisher's fifth part: PostHog OAuth and secure keys, Razorpay key ids (their own prefixes),
    # an Infura key in its URL or after the word, a Mattermost webhook's id.
    for kind, fmt in (("posthog-token", "ph|a_{43}"), ("razorpay-key", "rzp|_live_{14}")):
        draw = _generator(g, fmt)
        for template in ("Rotate {s} before Friday.", 'client = Client(key="{s}")', "$ export CRED={s}"):
            secret = draw()
            out.append((kind, template.format(s=secret), secret))
    for template in ("RPC=https://mainnet.infura.io/v3/{s}", 'INFURA_PROJECT_ID="{s}"', "infura key: {s}"):
        secret = g.rand(32, HEX)
        out.append(("infura-key", template.format(s=secret), secret))
    for template in ("Post to https://chat.example.org/hooks/{s} on deploy.", 'url = "https://mm.corp.io/hooks/{s}"',
                     "$ curl -d @msg.json https://mattermost.acme.dev:8065/hooks/{s}"):
        secret = g.rand(26, HEX[:10] + "abcdefghijklmnopqrstuvwxyz")
        out.append(("mattermost-webhook", template.format(s=secret), secret))
    for template in ("OLLAMA_API_KEY={s}", 'ollama: {{"key": "{s}"}}', "the ollama key is {s} for now"):
        secret = g.rand(32, HEX) + "." + g.rand(24, ALNUM + "_-")
        out.append(("ollama-api-key", template.format(s=secret), secret))
    # Session 35: password hashes (bcrypt as Jenkins and PHP store it, Apache's apr1 in .htpasswd, SHA-512-crypt
    # in /etc/shadow, argon2id, Django's pbkdf2, an LDAP {SSHA} value), redacted by their shape.
    crypt64 = "./" + ALNUM
    for i, template in enumerate(("<passwordHash>#jbcrypt:{s}</passwordHash>", "admin:{s}",
                                  "deploy:{s}:19700:0:99999:7:::")):
        secret = ("$2a$10$" + g.rand(53, crypt64), "$apr1$" + g.rand(8, crypt64) + "$" + g.rand(22, crypt64),
                  "$6$" + g.rand(16, crypt64) + "$" + g.rand(86, crypt64))[i]
        out.append(("password-hash", template.format(s=secret), secret))
    for i, template in enumerate(('password_hash = "{s}"', "userPassword: {s}", "UPDATE auth_user SET password='{s}';")):
        secret = ("$argon2id$v=19$m=65536,t=3,p=4$" + g.rand(22, B64[:64]) + "$" + g.rand(43, B64[:64]),
                  "{SSHA}" + g.rand(32, B64[:64]),
                  "pbkdf2_sha256$600000$" + g.rand(22) + "$" + g.rand(43, B64[:64]) + "=")[i]
        out.append(("password-hash", template.format(s=secret), secret))
    return [(k, t, s if s is not None else t.split("=", 1)[-1].split(": ", 1)[-1]) for k, t, s in out]


def _bip39() -> frozenset[str]:
    from server.guard.secret_providers import bip39_words  # the server's copy of the list (bench-only import)

    return bip39_words()


def positives() -> list[tuple[str, str, str, str]]:
    """(kind, context, text, secret) for every planted secret."""
    g = _Gen(SEED)
    out: list[tuple[str, str, str, str]] = []
    for n, (kind, gens) in enumerate(prefixed(g).items()):
        for i in range(3):
            secret = gens[i % len(gens)]()
            context = list(PLAIN_CONTEXTS)[(n + i) % 4]
            template = g.rng.choice(PLAIN_CONTEXTS[context])
            out.append((kind, context, template.format(s=secret), secret))
    for n, (kind, (names, gen)) in enumerate(keyed(g).items()):
        for i in range(3):
            secret = gen()  # type: ignore[operator]
            name = names[i % len(names)]
            context = list(KEYED_CONTEXTS)[(n + i) % 4]
            template = g.rng.choice(KEYED_CONTEXTS[context])
            out.append((kind, context, template.format(s=secret, p=name.lower(), P=name.upper()), secret))
    out += [(kind, "structured", text, secret) for kind, text, secret in _structured(g)]
    return out


def _ordinary(g: _Gen) -> list[str]:
    """Ordinary technical texts (the corpus the 0-false-positive figure was first measured on)."""
    w = _DATA["ordinary"]
    out: list[str] = []
    # commit messages with full and short hashes
    for v, t in itertools.product(w["verbs"], w["topics"]):
        sha = g.rand(40, HEX)
        short = sha[: g.rng.choice([7, 8, 10, 12])]
        out.append(f"{v} {t} ({short}); follows {sha}.")
    # UUIDs, versions, paths
    for f, ver in itertools.product(w["files"], w["versions"]):
        out.append(f"Memory {uuid.UUID(int=g.rng.getrandbits(128))} notes {f} changed in {ver}.")
    # base64 test data and digests
    for _ in range(40):
        blob = base64.b64encode(bytes(g.rng.getrandbits(8) for _ in range(g.rng.randint(12, 48)))).decode()
        out.append(f"The fixture decodes the base64 blob {blob} into bytes for the parser test.")
        out.append(f"sha256:{g.rand(64, HEX)} is the pinned image digest.")
    # URLs without credentials
    for h, scheme in itertools.product(w["hosts"], ["https", "http"]):
        out.append(f"See {scheme}://{h} for details.")
    out += w["remotes"]
    # code identifiers and config without secrets
    for fn in w["funcs"]:
        out.append(f"`{fn}()` raises ValueError when the input is empty.")
        out.append(f"def {fn.split('.')[-1].lower()}(token: str, password: str | None = None) -> bool: ...")
    for k, r in itertools.product(w["keys"], w["refs"]):
        out.append(f"{k}{g.rng.choice(w['seps'])}{r}")
    # harmless key=value config
    out += w["configs"]
    # prose with the words
    for p, suffix in itertools.product(w["prose"], ["", " (noted 2024-05-01)", " See ADR-0007."]):
        out.append(p + suffix)
    # certificates and public keys are not private keys
    out.append("-----BEGIN CERTIFICATE-----\n" + g.rand(64, ALNUM + "+/") + "\n-----END CERTIFICATE-----")
    out.append("-----BEGIN PUBLIC KEY-----\n" + g.rand(64, ALNUM + "+/") + "\n-----END PUBLIC KEY-----")
    return out


# ------------------------------------------------------------------------------ negatives

PROVIDERS: list[str] = _DATA["providers"]


def _lookalikes(g: _Gen) -> list[str]:
    """Strings that look like secrets and are not: hashes, ids, digests, placeholders, references."""
    r = g.rand
    out: list[str] = []
    for p in PROVIDERS:  # ids next to provider names are not keys
        out += [
            f"The {p} app id is {g.uuid()}; see the dashboard.",
            f"{p} org {g.uuid()} owns the billing project.",
            f"{p.upper()}_PROJECT_ID={g.uuid()}",
            f"Deployed {p} release {r(40, HEX)} to staging.",
            f"{p} request id {r(24, HEX)} failed with 502.",
            f"Rotate the {p} API key every 90 days (runbook in the wiki).",
            f"{p.upper()}_API_KEY=${{{p.upper()}_API_KEY}}",
            f'{p}_token = os.environ["{p.upper()}_TOKEN"]',
            f"{p}: api_key: {{{{ vault_{p}_key }}}}",
            f"The {p} webhook URL lives in 1Password, not in the repo.",
        ]
    for _ in range(60):  # commit hashes, short and long, in many sentences
        sha = r(40, HEX)
        out += [f"Fixed in {sha[:7]}; see {sha}.", f"git revert {sha[:12]}", f"Merge commit {sha} into release/2.3"]
    for _ in range(40):  # UUIDs, ULIDs, object ids
        out += [f"trace_id={g.uuid()}", f"Object {g.uuid()} was archived.",
                f"ULID {r(26, '0123456789ABCDEFGHJKMNPQRSTVWXYZ')} sorts by time.",
                f"mongo _id: {r(24, HEX)}", f"idempotency-key: {g.uuid()}"]
    for _ in range(40):  # base64 test data, digests, integrity strings
        blob = base64.b64encode(bytes(g.rng.getrandbits(8) for _ in range(g.rng.randint(24, 60)))).decode()
        out += [f'fixture = base64.b64decode("{blob}")', f"sha256sum: {r(64, HEX)}  dist/app.tar.gz",
                f'"integrity": "sha512-{r(86, B64)}=="', f"ETag: \"{r(32, HEX)}\"", f"docker pull app@sha256:{r(64, HEX)}",
                f"go.sum: example.com/mod v1.2.3 h1:{r(43, B64)}="]
    for _ in range(30):  # cloud resource ids and build artefacts
        out += [f"instance i-0{r(16, HEX)} in subnet-0{r(16, HEX)}", f"arn:aws:iam::{_digits(g, 12)}:role/deploy",
                f"bundle main.{r(8, HEX)}.js and vendor.{r(20, HEX)}.css", f"pod web-{r(10, LOWER_DIGITS)}-{r(5, LOWER_DIGITS)}",
                f"Drive file https://drive.google.com/file/d/{r(33, URLSAFE)}/view", f"youtube.com/watch?v={r(11, URLSAFE)}",
                f"Slack channel C{r(10, UPPER_DIGITS)} and user U{r(10, UPPER_DIGITS)}"]
    # a placeholder in pieces is one whose prefix the data file does not hold whole
    placeholders = [J(*ph) if isinstance(ph, list) else ph for ph in _DATA["placeholders"]]
    for ph in placeholders:
        out += [f"API_KEY={ph}", f'token: "{ph}"', f"Set OPENAI_API_KEY to {ph} in your .env.",
                f"curl -H 'Authorization: Bearer {ph}' https://api.example.com"]
    out += _DATA["lookalikes"]
    return out


def negatives() -> list[str]:
    g = _Gen(SEED + 1)
    return _ordinary(g) + _lookalikes(g)
