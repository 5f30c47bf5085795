"""Secrets of providers with no prefix of their own, and shapes the token formats can't express, for
server.guard.redact. (Split from secret_formats.py, which holds the prefixed token formats.)

* **A provider's name, then a bare random value** (``ai21 = <uuid>``, ``CLAY_KEY: <20 hex>``,
  ``cielo_merchant_key = ...``): the big scanners carry hundreds of providers whose keys are only
  random characters. Instead of one rule per provider with its exact length, one rule for all of
  ``PROVIDERS``: the provider's name starts the key, the rest of the key names a credential
  (key, token, secret, ...) or is empty (the name is the whole key: ``asana: '...'``), and the value
  is a random run of 16+ characters (letters *and* digits, not words, not a version or a path).
* **BIP-39 mnemonics**: 12 to 24 words, every one from the BIP-39 English list
  (bip39_english.txt, MIT, from trezor/python-mnemonic), after a word that names one (mnemonic,
  seed, phrase, ...). A wallet's seed phrase is its private key.
* **Atlassian (Confluence, Jira, Bitbucket Data Center) personal access tokens**: 44 base64
  characters that decode to a 12-digit id, ``:``, and 20 random bytes -- the decoding is the check.
* **Azure SAS signatures** (Logic Apps, Blob, Service Bus URLs): a ``sig=`` in a URL that also
  carries SAS parameters (``sv=``, ``sp=``, ``se=``, ...), at any length.
* **Any provider's prefixed token** (``ajkey_01kpe3...``, ``CCIPRJ_...``, ``key_<64 hex>``): most
  providers now issue keys as a short name, ``_`` or ``-``, and a long random body, so a new provider's
  key is caught without a rule of its own. The body must look random (letters and digits, 3.4+ bits
  per character, not mostly words, not a UUID or a hash named by its prefix); see _prefixed_tokens.
* **Microsoft's identifiable keys** (Azure AI services, Container Registry, DevOps PATs, Service Bus,
  Storage, Cosmos DB, ...): a base64 run that carries the service's fixed signature (``JQQJ9``,
  ``+ACR``, ``AzSe``, ``+ASb``, ``AZDO``, ...) at its documented place, at any length the keys have.
* A few prefixed tokens that had no rule (``apify_api_``, Browserbase ``bb_live_``, Cloudflare's
  ``cfut_`` / ``cfat_`` / ``cfk_``, Databricks ``dose``, DataStax ``AstraCS:``, Docker Swarm's
  ``SWMKEY-1-``, GCP's ``AQ.Ab8R``, Salesforce's ``3MVG9``, Segment's ``sgp_``, a JWT base64-encoded once more, ...), Dropbox's
  long-lived tokens (ten ``A``s at a fixed place), and two Vault values named by their word (an unseal
  key after "unseal", an AppRole ``secret_id`` UUID).

Every scan is linear: each provider name's occurrences try one bounded window once, and the
other scans are single regex passes whose matches are bounded.
"""

from __future__ import annotations

import binascii
import math
import re as _re
import zlib
from collections import Counter
from functools import lru_cache
from pathlib import Path

from server.guard.lazyre import LazyRe as _LazyRe
from server.guard.secret_assignments import find_all, looks_fake
from server.guard.secret_formats import TOKEN_RULES, UUID, Rule, has_digit, mixed, random_looking, tok
from server.guard.secret_hashes import HASH_RULES
from server.guard.secret_services import SERVICE_RULES

_Cand = tuple[int, int, str, int, int]  # start, end, kind, rank, match start
_LA = r"(?![A-Za-z0-9_])"  # end boundary
_LA_DASH = r"(?![A-Za-z0-9_\-])"


def _digits_and_cases(s: str) -> bool:
    """Two digits or more, upper and lower case: random, not "doseResponseCurve"."""
    return sum(c.isdigit() for c in s) >= 2 and any(c.islower() for c in s) and any(c.isupper() for c in s)


_HEX8 = _LazyRe(r"[0-9a-f]{8}")


def _cloudflare_ok(token: str) -> bool:
    body = token.split("_", 1)[1]
    if not (mixed(body) and has_digit(body)):
        return False
    if len(body) == 48 and _HEX8.fullmatch(body, 40):
        return f"{zlib.crc32(body[:40].encode()):08x}" == body[40:]
    return True


_ANTHROPIC = _re.compile(r"sk-ant-([a-z]{2,8})[0-9]{2,3}-")


def _anthropic_ok(token: str) -> bool:
    """An API or admin key's secret is 93 characters and "AA"; one of another length or ending is the
    format near-missed (scanners keep such lines as must-not-fire), not a key. OAuth tokens (oat01,
    ort01) vary in length."""
    m = _ANTHROPIC.match(token)
    if m is None:
        return False
    body = token[m.end():]
    if m.group(1) in ("api", "admin"):
        return len(body) == 95 and body.endswith("AA") and random_looking(body)
    return len(body) >= 20 and random_looking(body)


_OPENAI_TYPES = ("proj-", "svcacct-", "admin-", "None-")
_HEX32_RUN = _re.compile(r"[a-f0-9]{32}")


def _openai_ok(token: str) -> bool:
    """OpenAI keys carry the watermark "T3BlbkFJ" (base64 of "OpenAI") with 20+ random characters on
    each side, after an optional project / service-account / admin segment. A plain "sk-" run without
    it is OpenAI-compatible providers' shape only as 32 hex (DeepSeek, DashScope). A project,
    service-account or admin key ("sk-proj-") is OpenAI's by its prefix, so a long random one counts
    without the watermark, unless it holds a damaged one ("T4BlbkFJ": a near miss)."""
    body = token[3:]
    if body.startswith(("ant-", "or-", "lf-", "helicone-")) or not random_looking(body):
        return False
    i = body.find("T3BlbkFJ")
    if i >= 0:
        return i >= 20 and len(body) - i - 8 >= 20
    if "BlbkFJ" in body:
        return False
    if body.startswith(_OPENAI_TYPES):
        return len(body.split("-", 1)[1]) >= 40
    return _HEX32_RUN.fullmatch(body) is not None


EXTRA_TOKEN_RULES: tuple[Rule, ...] = (
    # Anthropic: "sk-ant-", the key's type and version (api03, admin01, oat01, ...), "-", the secret.
    # Both match a whole run, checked in Python (_anthropic_ok, _openai_ok): linear on "sk-sk-sk-...".
    tok("anthropic-api-key", "sk-ant-", r"[A-Za-z0-9_\-]+", r"[A-Za-z0-9_\-]", maxlen=300, rank=-1, check=_anthropic_ok),
    tok("openai-api-key", "sk-", r"[A-Za-z0-9_\-]+", r"[A-Za-z0-9_\-]", maxlen=300, check=_openai_ok),
    tok("apify-token", "apify_api_", r"[A-Za-z0-9]{36}" + _LA, check=mixed),
    tok("browserbase-key", "bb_live_", r"[A-Za-z0-9_\-]{20,64}" + _LA, check=lambda s: mixed(s) and has_digit(s)),
    # Cloudflare's scannable tokens: user (cfut_) and account (cfat_) API tokens, API keys (cfk_): 40
    # random characters and their CRC32 in 8 hex digits. A longer run, or a checksum that does not
    # add up, is the format near-missed.
    tok("cloudflare-api-token", "cfut_", r"[A-Za-z0-9_\-]{32,48}" + _LA_DASH, check=_cloudflare_ok),
    tok("cloudflare-api-token", "cfat_", r"[A-Za-z0-9_\-]{32,48}" + _LA_DASH, check=_cloudflare_ok),
    tok("cloudflare-api-key", "cfk_", r"[A-Za-z0-9_\-]{32,48}" + _LA_DASH, check=_cloudflare_ok),
    # A Kubernetes pull secret's docker config (`.dockerconfigjson:` / `.dockercfg:`): base64 of the
    # registries' auths, a credential whatever its length.
    *[Rule("docker-config", _LazyRe(_re.escape(t) + r"[\"']?[ \t]*[:=][ \t]*[\"']?([A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])"),
           (t,), group=1, check=has_digit) for t in (".dockerconfigjson", ".dockercfg")],
    # Databricks OAuth client secrets: "dose" and 32 characters.
    tok("databricks-token", "dose", r"[A-Za-z0-9._\-]{32}" + r"(?![A-Za-z0-9._\-])", check=_digits_and_cases),
    tok("astra-db-token", "AstraCS:", r"[A-Za-z]{24}:[a-f0-9]{64}" + _LA, None),
    tok("mongodb-atlas-key", "mdb_sa_sk_", r"[A-Za-z0-9_\-]{40,64}" + _LA, check=has_digit),
    tok("ory-token", "ory_", r"(?:pat|at|rt|ac|st)_[A-Za-z0-9]{32}" + _LA, check=has_digit),
    tok("zuplo-key", "zpka_", r"[a-f0-9]{32}_[a-f0-9]{8}" + _LA),
    tok("langsmith-key", "ls__", r"[a-f0-9]{32}" + _LA, check=lambda s: any(c.isalpha() for c in s)),
    tok("postman-key", "PMAT-", r"[A-Z0-9]{26}" + _LA, check=has_digit),
    tok("runpod-key", "rpa_", r"[A-Z0-9]{40,48}" + _LA, check=has_digit),
    # Atlassian's scoped API tokens (ATCTT3xFfGN0, like ATATT3xFfGF0): a body and "=" + an 8-hex checksum.
    tok("atlassian-api-token", "ATCTT3", r"[A-Za-z0-9_=\-]{20,}", check=has_digit),
    # Bitbucket Data Center HTTP access tokens: BBDC- and 44 base64 characters (an id, ":", random bytes).
    tok("atlassian-pat", "BBDC-", r"[A-Za-z0-9+/]{40,48}={0,2}" + _LA, check=has_digit),
    # ConfigCat SDK keys: "configcat-sdk-1/" and two 22-character parts.
    tok("configcat-sdk-key", "configcat-sdk-1/", r"[A-Za-z0-9_\-]{22}/[A-Za-z0-9_\-]{22}" + _LA),
    # age's post-quantum identities: AGE-SECRET-KEY-PQ-1 and Bech32 characters.
    tok("age-secret-key", "AGE-SECRET-KEY-PQ-1", r"[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{40,}" + _LA),
    # Docker Swarm's unlock key (`docker swarm unlock-key`): SWMKEY-1- and base64 (the join token,
    # SWMTKN-1-, is caught as a prefixed token).
    tok("docker-swarm-key", "SWMKEY-1-", r"[A-Za-z0-9+/]{40,50}" + _LA, check=has_digit),
    # Mapbox's public access tokens, the same shape as its secret (sk.) ones: an account's token.
    tok("mapbox-token", "pk.eyJ", r"[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]{20,}"),
    # A JWT base64-encoded once more: {"alg": / {"typ": headers ("eyJhbGciOi" -> "ZXlKaGJHY2lPaU").
    tok("jwt", "ZXlKaGJHY2lPaU", r"[A-Za-z0-9+/_\-]{40,}={0,2}", check=has_digit),
    tok("jwt", "ZXlKMGVYQWlPaU", r"[A-Za-z0-9+/_\-]{40,}={0,2}", check=has_digit),
    # Dropbox long-lived access tokens: 11 characters, ten "A"s, 43 more (lower case, digits, - _ =),
    # whole: inside a longer base64 run the ten "A"s are only zero bytes.
    Rule("dropbox-token", _LazyRe(r"(?<![A-Za-z0-9+/_\-])[a-z0-9]{11}AAAAAAAAAA[a-z0-9_\-=]{43}(?![A-Za-z0-9+/_\-=])"),
         ("AAAAAAAAAA",), check=has_digit),
    # GCP express-mode API keys (Vertex AI, Gemini): "AQ.Ab8R" and 46 characters.
    tok("google-api-key", "AQ.Ab8R", r"[A-Za-z0-9_\-]{46}(?![A-Za-z0-9_\-])", check=has_digit),
    # Segment's public API tokens: "sgp_" and 60-70 characters.
    tok("segment-token", "sgp_", r"[A-Za-z0-9_\-]{60,70}(?![A-Za-z0-9_\-])", check=lambda s: mixed(s) and has_digit(s)),
    # GitHub's stateless installation tokens: ghs_, the app id, "_", and a JWT.
    tok("github-token", "ghs_", r"[0-9]{1,20}_eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{16,}"),
    # Salesforce connected-app consumer keys: "3MVG9" and a long random run.
    tok("salesforce-consumer-key", "3MVG9", r"[A-Za-z0-9._~\-]{20,180}(?![A-Za-z0-9._~\-])", check=_digits_and_cases),
    # A Vault unseal key: 44 base64 characters just after the word "unseal" (`vault operator unseal <key>`,
    # "Unseal Key 2: <key>").
    Rule("vault-unseal-key", _LazyRe(r"(?i:unseal)\b[^\n]{1,10}?([A-Za-z0-9+/]{44})(?![A-Za-z0-9+/=])"),
         ("unseal",), group=1, check=lambda s: mixed(s) and has_digit(s), ci=True),
    # A Vault AppRole secret_id: a UUID (ids named *_id are otherwise not secrets).
    Rule("vault-secret-id",
         _LazyRe(r"(?i:secret[_\-]?id)[\"']?\s{0,4}[:=]\s{0,4}[\"']?(" + UUID + r")(?![A-Za-z0-9\-])"),
         ("secret_id", "secret-id", "secretid"), group=1, ci=True),
    *SERVICE_RULES,
    *HASH_RULES,
)


# ------------------------------------------------------------- a provider's name, then its value

# Providers from the big scanners' rule lists (trufflehog's detectors, Kingfisher's rules) whose keys
# have no prefix of their own. Names that are everyday words ("box", "clay", "close") count only as
# the start of a key whose next word names a credential; see _provider_values.
PROVIDERS: tuple[str, ...] = tuple(
    """
    ai21 abstractapi airbrake airship alchemy amadeus anypoint apifonica apiflash apilayer appcues
    appfollow appointedd appveyor apollo asana autodesk autoklose aviationstack ayrshare besnappy
    bitly bitmex blitapp browserstack buildkite bulksms calendly campayn cielo circleci clay clearbit
    clickup clockify cloudconvert cloudsmith coinapi coinlayer coinmarketcap codacy coveralls
    contentful convertkit copper courier crowdin currencylayer currencyscoop deepl delighted
    dotdigital dwolla easypost elevenlabs eventbrite exchangerate exchangeratesapi fixer flutterwave
    formbucket freshdesk freshservice frontapp fullstory geocodio getresponse gorgias groq gumroad
    harvest helpscout hunter imagekit imgur ipdata ipgeolocation ipinfo ipstack jotform keen
    klaviyo kucoin lokalise mailchimp mailerlite mailgun marketstack mediastack meraki miro
    moonclerk mux nylas omdb onesignal openweather openweathermap opencage pandadoc paystack
    pipedrive pivotaltracker positionstack pushbullet pusher rebrandly recurly salesforce scrapingbee
    scraperapi sendinblue serpapi shodan shortcut smartsheet sparkpost statuspage storyblok
    stytch surveymonkey teamwork telnyx todoist toggl tomtom typeform unsplash uptimerobot
    vonage nexmo webflow weatherstack wistia workable wrike yandex youneedabudget zapier zenrows
    zerobounce zeplin zoho zipcodeapi paddle mollie braintree checkout paymongo
    railway upstash turso hasura convex clerk sanity strapi prismic datocms meilisearch typesense
    bonsai logdna logzio papertrail coralogix honeybadger raygun instana lightstep checkly cronitor
    statuscake pingdom runscope lemonsqueezy chargify bitpay nowpayments plivo sinch textmagic
    clicksend telesign infobip mandrill customerio iterable braze moosend omnisend anthropic
    replicate deepseek perplexity fireworks speechmatics resemble voiceflow weaviate qdrant zilliz
    portkey openrouter novita baseten clarifai cohere chartmogul amplitude airbrake delighted atlassian
    """.split()
)
# A provider word of everyday English: never the whole key alone ("harvest: ..." is prose).
_COMMON_WORDS = frozenset("clay keen copper courier fixer harvest hunter shortcut teamwork checkout paddle".split())

_PROVIDER_TAIL = _LazyRe(
    r"(?P<name>[A-Za-z0-9_.\- \t]{0,40}?)[\"'`]?[ \t]*(?P<sep>:=|=>|[:=]|[ \t])[ \t]*[\"'`]?"
    r"(?P<val>[A-Za-z0-9][A-Za-z0-9_+/\-]{15,199}={0,2})\Z"
)
_NAME_WORDS = _LazyRe(r"[a-z0-9]+")
_CAMEL = _LazyRe(r"(?<=[a-z0-9])(?=[A-Z])")
_SECRET_WORDS = frozenset(
    "key keys api apikey token tokens secret secrets pat pass password passwd pwd auth credential credentials".split()
)
_NOT_SECRET = frozenset(
    """id ids url uri host hostname endpoint name user username email region version project org account
    workspace domain path file dir env type mode public publishable""".split()
)
_WORDISH = _LazyRe(r"[A-Z]?[a-z]{3,}|[A-Z]{4,}")
_VOWELS = frozenset("aeiouyAEIOUY")
_CONSONANT_RUN = _LazyRe(r"[b-df-hj-np-tv-xzB-DF-HJ-NP-TV-XZ]{4}")  # "pphgm": not a word
_HEX = frozenset("0123456789abcdefABCDEF-")


def _entropy(s: str) -> float:
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())


def random_value(value: str) -> bool:
    """A random key, not a word, an identifier, a version or a path: letters and digits, 3+ bits per
    character (2.5 for hex, whose alphabet is 16), and not mostly pronounceable words."""
    if not has_digit(value) or not any(c.isalpha() for c in value) or looks_fake(value):
        return False
    if set(value) <= _HEX:
        return _entropy(value.replace("-", "")) >= 2.5
    if _entropy(value) < 3.0:
        return False
    words = sum(len(w) for w in _WORDISH.findall(value) if set(w) & _VOWELS and not _CONSONANT_RUN.search(w))
    return words * 2 < len(value)


# Values are found first -- runs of 16+ token characters are rare in ordinary text -- and only then is
# the stretch before each searched for a provider's name: one regex pass instead of one substring search
# per provider, which cost more than the rest of redact() on a 2 KB note.
_BY_HEAD: dict[str, tuple[str, ...]] = {}
for _w in PROVIDERS:
    _BY_HEAD[_w[:3]] = (*_BY_HEAD.get(_w[:3], ()), _w)
_WORD_START = _LazyRe(r"(?<![A-Za-z0-9])[A-Za-z0-9]|(?<=[a-z0-9])[A-Z]")
_RUN = _LazyRe(r"[A-Za-z0-9_+/\-]{16,}={0,2}")
_DIGIT = _LazyRe(r"[0-9]")
_LOOKBACK = 64  # the provider's name, the rest of the key, separator and quotes


def _token_runs(text: str) -> list[tuple[int, int]]:
    runs = []
    for m in _RUN.finditer(text):
        s, e = m.span()
        while s < e and not text[s].isalnum():
            s += 1
        if 16 <= e - s <= 200:
            runs.append((s, e))
    return runs


def _provider_values(text: str, low: str, runs: list[tuple[int, int]], out: list[_Cand]) -> None:
    for s, e in runs:
        if (e < len(text) and text[e] == ".") or _DIGIT.search(text, s, e) is None:
            continue  # a version or a host name ends at the dot; a random key has a digit
        # each word start in the stretch before the value (a camelCase hump too), looked up by its first
        # three letters: a few dict probes per value, not a search per provider; the value's randomness
        # (the costlier test) only when a provider's name starts its key
        for w in _WORD_START.finditer(text, max(0, s - _LOOKBACK), s):
            i = w.start()
            if any(low.startswith(word, i) and _provider_key(text, low, i, word, s, e)
                   for word in _BY_HEAD.get(low[i:i + 3], ())):
                if random_value(text[s:e].rstrip("=")):
                    out.append((s, e, "api-key", 3, s))
                break


def _provider_key(text: str, low: str, i: int, word: str, s: int, e: int) -> bool:
    """Whether the provider's name at i starts the key whose value is text[s:e]."""
    end = i + len(word)
    if end < len(text) and text[end].islower() and not (text[end - 1].islower() and text[end].isupper()):
        return False  # "clayton", "hunters": a longer word (codacySECRET is still codacy + SECRET)
    m = _PROVIDER_TAIL.match(text, end, e)
    if m is None or m.span("val") != (s, e):
        return False
    words = _NAME_WORDS.findall(_CAMEL.sub("_", m.group("name")).lower())
    if words:
        # ASANA_WORKSPACE_ID, meraki org id: not a credential
        return words[-1] in _SECRET_WORDS and not any(w in _NOT_SECRET for w in words)
    # "ai21 = <key>" yes; "harvest: ...", "my_ai21: ..." no
    return m.group("sep") not in (" ", "\t") and word not in _COMMON_WORDS and not (i > 0 and low[i - 1] in "_.-")


# ------------------------------------------------------------------------------ BIP-39 mnemonics

_MNEMONIC_WORDS = ("mnemonic", "seed", "phrase", "bip39", "bip-39", "recovery")
_MNEMONIC = _LazyRe(r"(?<![A-Za-z])[a-z]{3,8}(?:[ \t]+[a-z]{3,8}){11,23}(?![A-Za-z])")
_MNEMONIC_GAP = 48  # the key, separator and quotes between the word naming it and the first word


@lru_cache(maxsize=1)
def bip39_words() -> frozenset[str]:
    """The 2,048 words of the BIP-39 English list (read once, on first need)."""
    return frozenset(Path(__file__).with_name("bip39_english.txt").read_text(encoding="ascii").split())


def _mnemonics(text: str, low: str, out: list[_Cand]) -> None:
    scanned_to = -1
    for anchor in _MNEMONIC_WORDS:
        if anchor not in low:
            continue
        for i in find_all(low, anchor):
            start = i + len(anchor)
            if start < scanned_to:
                continue
            stop = min(len(text), start + _MNEMONIC_GAP + 24 * 9)
            m = _MNEMONIC.search(text, start, stop)
            scanned_to = stop
            if m is None or m.start() - start > _MNEMONIC_GAP or "\n" in text[start:m.start()]:
                continue
            words = m.group().split()
            known = bip39_words()
            n = next((n for n in (24, 21, 18, 15, 12) if n <= len(words) and all(w in known for w in words[:n])), 0)
            if n:
                end = m.start()
                for _ in range(n):  # the span of the first n words
                    while text[end] in " \t":
                        end += 1
                    while end < len(text) and text[end].isalpha():
                        end += 1
                out.append((m.start(), end, "mnemonic", 1, i))


# ------------------------------------------------------------------ Atlassian personal access tokens

def _atlassian_pat_ok(value: str) -> bool:
    try:
        raw = binascii.a2b_base64(value)
    except (binascii.Error, ValueError):
        return False
    return len(raw) == 33 and raw[:12].isdigit() and raw[12:13] == b":"


def _atlassian_pats(text: str, runs: list[tuple[int, int]], out: list[_Cand]) -> None:
    for s, e in runs:
        if e - s == 44 and text[s] in "MNO" and _atlassian_pat_ok(text[s:e]):
            out.append((s, e, "atlassian-pat", 1, s))


# ----------------------------------------------------------------------------- Azure SAS signatures

_SAS_SIG = _LazyRe(r"[?&]sig=([A-Za-z0-9%_+/\-]{16,256}(?:%3D|=){0,2})(?![A-Za-z0-9%_+/=\-])")
_SAS_PARAM = _LazyRe(r"[?&](?:sv|sp|se|sr|spr|st|ss|srt|skoid)=")
_URL_STOP = frozenset(" \t\r\n\"'<>`")


def _sas_signatures(text: str, out: list[_Cand]) -> None:
    for m in _SAS_SIG.finditer(text):
        lo = m.start()
        while lo > 0 and m.start() - lo < 2048 and text[lo - 1] not in _URL_STOP:
            lo -= 1
        hi = m.end()
        while hi < len(text) and hi - m.end() < 512 and text[hi] not in _URL_STOP:
            hi += 1
        value = m.group(1)
        if _SAS_PARAM.search(text, lo, hi) and has_digit(value) and any(c.isalpha() for c in value):
            out.append((m.start(1), m.end(1), "azure-sas-token", 1, m.start()))


# ------------------------------------------------------------------ any provider's prefixed token

# A run of token characters that may be "<prefix>_<body>" or "<prefix>-<body>"; split in Python.
_PREFIXED_RUN = _LazyRe(r"[A-Za-z0-9_\-]{22,260}")
_SEP = _LazyRe(r"[_\-]")
_PREFIX_SEG = _LazyRe(r"[A-Za-z][A-Za-z0-9]{0,11}\Z")
_UUID_BODY = _LazyRe(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\Z")
# Prefixes that name a digest, an id or a build, not a credential: sha256-<base64> is a package
# lock's integrity hash, commit_<hex> a revision, req_/evt_ objects' ids are not secret either way.
_NOT_KEY_PREFIX = frozenset(
    """sha sha1 sha224 sha256 sha384 sha512 md5 blake2b blake2s blake3 crc crc32 xxh xxhash xxh64 murmur
    hash digest checksum integrity commit rev revision build run job trace span request req id uid uuid
    guid ulid nonce etag version ver tag branch image container pod node spec fixture sample
    sandbox production prod dev staging pk public publishable""".split()
)
_BODY_WORDISH = _LazyRe(r"[A-Za-z][a-z]{4,}")  # (shorter and all-capital chunks turn up in random text)
_FIRST_SEG = _LazyRe(r"[A-Za-z0-9]+")


def _random_body(body: str) -> bool:
    """A provider key's random part: letters and digits, 3.4+ bits per character, not words."""
    core = body.replace("_", "").replace("-", "")
    if len(core) < 20 or not any(c.isalpha() for c in core) or looks_fake(core):
        return False
    if sum(c.isdigit() for c in core) < max(3, len(core) // 16):
        return False  # MINIDUMP_SYSMEMINFO1_PERF_...: a constant's name, not a key
    if _UUID_BODY.match(body):
        return False  # an object's id far more often than a key
    hexy = set(core) <= _HEX
    if hexy and len(core) < 32:
        return False
    if _entropy(core) < (3.2 if hexy else 3.4):
        return False
    words = sum(len(w) for w in _BODY_WORDISH.findall(body) if set(w) & _VOWELS and not _CONSONANT_RUN.search(w))
    if words * 2 >= len(core):
        return False
    # the body starts random: "deployment-7d9f8b6c4" (a pod's name) and "test_..." (an environment in
    # the prefix, split one segment too early) start with a word
    segs = _FIRST_SEG.findall(body)
    if not segs or len(segs[0]) < 8 or not has_digit(segs[0]):
        return False
    # and stays random: "Gost28147_89_None_KeyMeshing" has words for segments
    return not any(len(g) >= 4 and g.isalpha() for g in segs[1:])


@lru_cache(maxsize=1)
def _known_prefixes() -> dict[str, tuple[str, ...]]:
    """Prefixes a format rule owns (``sgp_``, ``sk_``, ``xoxb-``), by first two characters: such a
    token is judged by its provider's format, which may refuse it, not by the generic shape."""
    by_head: dict[str, tuple[str, ...]] = {}
    for rule in (*TOKEN_RULES, *EXTRA_TOKEN_RULES):
        for t in rule.triggers:
            if len(t) >= 4 and not rule.ci:  # (ck_, sk_, pk_ are shared by many providers)
                by_head[t[:2]] = (*by_head.get(t[:2], ()), t)
    return by_head


def known_prefix_of(text: str, s: int, e: int) -> str | None:
    """The format rule's prefix ``text[s:e]`` starts with (``sk-ant-``, ``ghp_``), if any."""
    for t in _known_prefixes().get(text[s:s + 2], ()):
        if e - s > len(t) and text.startswith(t, s) and t[-1] in "_-":
            return t
    return None


# Short prefixes whose providers' formats are all written as rules (OpenAI's watermark, DeepSeek's hex,
# Stripe's live/test): an "sk-"/"sk_" run those refuse is a near miss, not an unknown provider's key.
_OWNED_SHORT = ("sk-", "sk_")


@lru_cache(maxsize=1)
def _known_lower() -> tuple[dict[str, tuple[str, ...]], frozenset[str]]:
    """The known prefixes by lower-cased first two characters, and each one's name part (``cfat``,
    ``ntn``, ``gsk``) for the glued and truncated forms."""
    by_head: dict[str, tuple[str, ...]] = {}
    names = set()
    for ts in _known_prefixes().values():
        for t in ts:
            by_head[t[:2].lower()] = (*by_head.get(t[:2].lower(), ()), t.lower())
            if t[-1] in "_-" and t[:-1].isalnum():
                names.add(t[:-1].lower())
    # (words many keys' prefixes end with are no provider's mark: "shpat_", "MY_API_", "x_secret_")
    return by_head, frozenset(names - _GENERIC_NAMES)


_GENERIC_NAMES = frozenset("access api key pat secret pubkey ico".split())


def near_known_prefix(prefix: str) -> bool:
    """A token's prefix that misses a known format's by case (``NTN_`` for ``ntn_``), by letters glued
    before it (``xcfat_``, ``wordgsk_``), by truncation (``cf_`` for ``cfat_``) or by a placeholder
    (``gXX_``): scanners list these as must-not-fire, and the provider's own rule has refused them."""
    low = prefix.lower()
    by_head, names = _known_lower()
    if any(t.startswith(low) and t[len(low):len(low) + 1] not in ("", "_", "-") for t in by_head.get(low[:2], ())):
        return True  # a truncation: "cf" of "cfat_"
    if low in names and prefix not in names:
        return True  # the right letters in the wrong case
    if any(low.endswith(nm) and len(low) > len(nm) and len(nm) >= 3 for nm in names):
        return True  # glued: "xcfat", "wordgsk"
    return "XX" in prefix.upper() and "XX" in prefix


def _prefixed_tokens(text: str, out: list[_Cand]) -> None:
    n = len(text)
    known = _known_prefixes()
    for m in _PREFIXED_RUN.finditer(text):
        s, e = m.span()
        if s > 0 and text[s - 1] in "./+%\\@#$~":
            continue  # part of a path, host, base64 run, URL-encoding or reference
        if e < n and (text[e] in "/+=@" or (text[e] == "." and e + 1 < n and text[e + 1].isalnum())):
            continue  # a host name, a path, a longer base64 value
        if not text[s].isalpha() or (e - s) > 260:
            continue
        run = text[s:e]
        if any(run.startswith(t) for t in known.get(run[:2], ())) or run.startswith(_OWNED_SHORT):
            continue
        # the prefix: one to three short segments before a separator
        cut = 0
        for k, sep in enumerate(_SEP.finditer(run)):
            if k == 3:
                break
            seg = run[cut:sep.start()]
            if not _PREFIX_SEG.match(seg):
                break
            prefix = run[:sep.start()]
            body = run[sep.end():]
            if prefix.lower() in _NOT_KEY_PREFIX or (k == 0 and seg.lower() in _NOT_KEY_PREFIX):
                break  # (a later segment may be an environment: key_test_, ck_staging_)
            if k == 0 and near_known_prefix(seg):
                break
            if len(prefix) >= 2 and sum(c.isdigit() for c in prefix) <= 2 and _random_body(body):
                out.append((s, e, "api-key", 4, s))
                break
            cut = sep.end()


# ------------------------------------------------------------------ Microsoft's identifiable keys

_MS_SIGNATURE = _LazyRe(r"JQQJ|\+ACR|AzSe|AzFu|\+ASb|\+AEh|\+ARm|AIoT|\+ASt|ACDb|AzCa|APIM|AZDO|\+AMC")
_MS_KEY = _LazyRe(r"[A-Za-z0-9+/]{40,100}={0,2}")
_MS_LENGTHS = frozenset((44, 52, 56, 84, 85, 86, 87, 88))
_B64_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")


def _microsoft_keys(text: str, out: list[_Cand]) -> None:
    n = len(text)
    done = -1
    for m in _MS_SIGNATURE.finditer(text):
        if m.start() < done:
            continue
        # the key's start: back over base64 characters (at most 100), then its whole run
        lo = m.start()
        while lo > 0 and m.start() - lo < 100 and text[lo - 1] in _B64_CHARS and text[lo - 1] != "=":
            lo -= 1
        k = _MS_KEY.match(text, lo)
        if k is None:
            continue
        e = k.end()
        done = e
        if (lo > 0 and text[lo - 1] in _B64_CHARS and text[lo - 1] != "=") or (e < n and text[e] in _B64_CHARS):
            continue  # part of a longer base64 run
        key = text[lo:e]
        pos = m.start() - lo
        if len(key) in _MS_LENGTHS and pos >= 30 and has_digit(key) and _entropy(key) >= 3.0:
            out.append((lo, e, "azure-key", 2, lo))


# ------------------------------------------------------------ network devices' configuration

# Cisco IOS / NX-OS style lines: the secret is the word after the command (and its type digit).
_NETCONF = _LazyRe(
    r"(?m:^[ \t]*(?:enable[ \t]+(?:password|secret)(?:[ \t]+level[ \t]+\d{1,2})?"
    r"|username[ \t]+\S{1,64}(?:[ \t]+privilege[ \t]+\d{1,2})?[ \t]+(?:password|secret)"
    r"|snmp-server[ \t]+community|pac[ \t]+key|key-string"
    r"|(?:tacacs-server|radius-server)(?:[ \t]+host[ \t]+\S{1,64})?[ \t]+key"
    r"|ip[ \t]+ospf[ \t]+authentication-key|ip[ \t]+ospf[ \t]+message-digest-key[ \t]+\d{1,3}[ \t]+md5"
    r"|wpa-psk[ \t]+ascii)"
    r"(?:[ \t]+[0-9])?[ \t]+(\S{4,128})"
    # a configuration line ends there (an SNMP community's access and ACL may follow), prose goes on
    r"(?:[ \t]+(?:RW|RO|rw|ro)(?:[ \t]+\S{1,32})?)?[ \t]*\r?$)"
)
_NETCONF_GATE = ("enable ", "username ", "snmp-server", "pac key", "key-string", "-server", "ospf", "wpa-psk")
_NETCONF_NOT = frozenset(("public", "password", "secret", "level", "privilege", "<password>", "<secret>"))


def _network_configs(text: str, out: list[_Cand]) -> None:
    for m in _NETCONF.finditer(text):
        v = m.group(1)
        if v.lower() in _NETCONF_NOT or looks_fake(v) or v[0] in "<{[" or v.startswith("${"):
            continue
        out.append((m.start(1), m.end(1), "password", 5, m.start()))


def provider_secrets(text: str, low: str, out: list[_Cand]) -> None:
    """Append every finding of this module's scans to ``out``."""
    runs = _token_runs(text)
    if runs:
        _provider_values(text, low, runs, out)
        _atlassian_pats(text, runs, out)
        if "_" in text or "-" in text:
            _prefixed_tokens(text, out)
        if _MS_SIGNATURE.search(text) is not None:
            _microsoft_keys(text, out)
    if "seed" in low or "phrase" in low or "mnemonic" in low or "bip" in low or "recovery" in low:
        _mnemonics(text, low, out)  # (_MNEMONIC_WORDS, tested without a generator: every note pays it)
    if "sig=" in text:
        _sas_signatures(text, out)
    if any(g in low for g in _NETCONF_GATE):
        _network_configs(text, out)


KINDS = frozenset({r.kind for r in EXTRA_TOKEN_RULES}
                  | {"api-key", "mnemonic", "atlassian-pat", "azure-sas-token", "azure-key"})
