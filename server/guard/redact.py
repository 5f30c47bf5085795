"""Find secrets in a text and replace each with a ``[REDACTED:<kind>]`` marker.

Memories, messages, prompts, titles, tags, imported archives and captured transcripts
are stored and written to human-readable files, so credentials a coding assistant
pastes into them must never reach disk in plain text. :func:`redact` is the one entry
point: it returns the cleaned text plus where each secret was (offsets in the
*original* text) and what kind it was::

    >>> r = redact("export GITHUB_TOKEN=ghp_" + "a1B2" * 9)
    >>> r.text
    'export GITHUB_TOKEN=[REDACTED:github-token]'
    >>> r.kinds
    ('github-token',)

What is found
-------------
* **Providers' token formats** (server/guard/secret_formats.py): 100+ kinds written from the
  providers' documented formats -- prefixed tokens (``ghp_``, ``glpat-``, ``xoxb-``,
  ``sk-ant-``, ``AKIA``, ``hvs.``, ``sgp_``, ``ntn_``, Discord and Telegram bot tokens,
  ...) and random values anchored by the provider's name nearby (a Twilio auth token,
  a Heroku or Snyk key, an IBM Cloud or SoftLayer key, ...).
* **Providers with no prefix** (server/guard/secret_providers.py): a scanner-listed provider's name
  starting a key whose value is a bare random run (``ai21 = <uuid>``, ``MERAKI_KEY=<40 hex>``),
  BIP-39 seed phrases, Atlassian personal access tokens (by what they decode to), Azure SAS ``sig=``.
* **Keys with values** (server/guard/secret_assignments.py): ``password=``, ``"api_key": ``,
  ``X-API-Key:``, ``--token``, ``<password>``, ``password "..."`` in every common config
  and code syntax; a key that only mentions a credential counts when its value is
  high-entropy.
* **Credentials in URLs** (``scheme://user:password@host``, and a random-looking user
  part alone, as in a Sentry DSN) and **on command lines** (``curl -u user:pw``,
  ``mysql -pPW``, ``sshpass -p``, ``docker login -p``, ``IDENTIFIED BY '...'``, ...).
* **Private key blocks** (PEM, OpenSSH, PGP, PuTTY), whole.
* **Password hashes** (server/guard/secret_hashes.py): bcrypt, crypt's ``$1$``/``$apr1$``/``$6$``, argon2,
  Django/Werkzeug/passlib PBKDF2, LDAP ``{SSHA}``, MySQL and PostgreSQL hashes -- crackable, never needed.

Design notes
------------
* **Our own patterns, cross-checked against detect-secrets in the tests.** Importing
  detect-secrets costs ~140 ms and pulls in requests; its entropy plugins flag ordinary
  sentences. The test suite checks that every sample its *pattern* plugins flag is
  redacted here and that they find nothing left in our output.
* **Referencing a secret is not a secret.** ``$TOKEN``, ``${TOKEN}``, ``<your
  password>``, ``os.environ["X"]``, ``settings.API_KEY`` and ``********`` are left alone.
  In a URL every password is redacted except such a reference (``postgres://user:
  password@localhost`` too: a documentation example costs a marker, a real one never leaks).
* **Stripe publishable keys (``pk_live_``/``pk_test_``) are not redacted**: they are
  designed to be embedded in public web pages.
* **Idempotent**: markers already in the text are never matched again, and the
  output is re-scanned until nothing new is found, so ``redact(redact(x).text) ==
  redact(x)`` holds by construction (up to 8 re-scans; in practice one).
* **Linear time**: each prefixed rule runs only when its literal occurs and starts with
  it (the regex engine's fast search); keyword rules scan merged bounded windows; key
  values are measured with cached searches; the private-key END is found with
  ``str.find``. 1 MB adversarial inputs scale linearly (tested). Patterns are compiled
  on first use, so ``import`` stays at a few milliseconds.

Limits: secrets with no recognisable format and no keyword nearby (a bare random
password in a sentence, an AWS secret key away from its access key id; one within 120
characters after it on its line is found) are not found; an unquoted all-letters
value after a spaced ``=`` (``password = hunter``) is taken for a variable; values split across lines are not joined; fixed-length tokens glued to more word
characters are not matched; a JWT whose header does not decode to JSON is left alone.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections import Counter

from server.frozen import record
from server.guard.lazyre import LazyRe as _LazyRe
from server.guard.secret_assignments import (
    KEYWORDS,
    assignments,
    find_all,
    flags_xml_and_spoken,
    looks_fake,
    random_user,
)
from server.guard.secret_commands import COMMAND_RULES
from server.guard.secret_comparisons import comparisons
from server.guard.secret_fallbacks import fallbacks
from server.guard.secret_setters import setters
from server.guard.secret_connections import connection_strings
from server.guard.secret_declarations import declarations
from server.guard.secret_pairs import pairs
from server.guard.secret_multi import multi_assignments, yaml_lists
from server.guard.secret_formats import GAP_NEEDS, KEYWORD_RULES, TOKEN_RULES
from server.guard.secret_providers import EXTRA_TOKEN_RULES, known_prefix_of, provider_secrets
from server.guard.secret_providers import KINDS as _PROVIDER_KINDS
from server.guard.secret_apps import app_secrets
from server.guard.secret_escaped import escaped_json
from server.guard.secret_flags import flags_and_headers
from server.guard.secret_ini import ini_values
from server.guard.secret_kubernetes import kubernetes_secrets
from server.guard.secret_yaml import yaml_values
from server.guard.secret_quoted import quoted_random
from server.guard.secret_url_users import token_user
from server.guard.secret_pointers import drop_allowlisted, drop_pointed, replacement_token
from server.guard.secret_standins import stand_in

__all__ = ["KINDS", "Redaction", "RedactionResult", "identifier_secrets", "marker", "redact"]


@record
class Redaction:
    """One secret: its kind and its ``[start, end)`` offsets in the original text."""

    kind: str
    start: int
    end: int


@record
class RedactionResult:
    text: str
    redactions: tuple[Redaction, ...]

    @property
    def kinds(self) -> tuple[str, ...]:
        """Sorted unique kinds found."""
        return tuple(sorted({r.kind for r in self.redactions}))

    @property
    def changed(self) -> bool:
        return bool(self.redactions)


def marker(kind: str) -> str:
    return f"[REDACTED:{kind}]"


_MARKER = _LazyRe(r"\[REDACTED:[a-z0-9-]{1,40}\]")
_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_Cand = tuple[int, int, str, int, int]  # start, end, kind, rank, match start

_PLAIN_TRIGGERS = [(t, rule) for rule in TOKEN_RULES + EXTRA_TOKEN_RULES if not rule.ci for t in rule.triggers]
_CI_TRIGGERS = [(t, rule) for rule in TOKEN_RULES + EXTRA_TOKEN_RULES if rule.ci for t in rule.triggers]
_KEYWORD_PAIRS = [(kw, rule) for rule in KEYWORD_RULES for kw in rule.keywords]
_MAX_KEYWORD_SPAN = 8192  # gap + value; far longer than any token, so none is cut short
# A cheap pre-check for rules whose pattern cannot start with a literal.
_PRECHECK = {"discord-bot-token": _LazyRe(r"\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27}")}

# scheme://user:password@host and scheme://credential@host -- found from "://", the
# scheme checked backwards.
_URL_AUTH = _LazyRe(r"://([^\s:/?#\[\]@\"'<>`]{0,256})(?::([^\s/?#\[\]@\"'<>`]{1,256}))?@")
_SCHEME_CHARS = _ALNUM | set("+.-")


def _url_credentials(text: str, out: list[_Cand]) -> None:
    for m in _URL_AUTH.finditer(text):
        i = m.start()
        j = i
        while j > 0 and i - j < 31 and text[j - 1] in _SCHEME_CHARS:
            j -= 1
        if j == i or not text[j].isascii() or not text[j].isalpha():
            continue
        if j > 0 and text[j - 1] in _SCHEME_CHARS:
            continue  # scheme longer than 31 chars, or glued to something
        if m.group(2) is not None:
            s, e = m.span(2)
            value = text[s:e]
            # A reference (${DB_PASS}, {password}, <password>, ***) stays; any literal goes.
            if not _is_reference(value):
                out.append((s, e, "url-password", 5, j))
            if token_user(m.group(1), value):  # https://<token>:x-oauth-basic@github.com
                out.append((*m.span(1), "url-credential", 6, j))
        elif random_user(m.group(1)):  # https://<token>@host, a Sentry DSN's key
            s, e = m.span(1)
            out.append((s, e, "url-credential", 6, j))


# ``-----BEGIN ... PRIVATE KEY-----``; the end is found with str.find (linear). A block copied without its
# first five dashes (``BEGIN RSA PRIVATE KEY-----``) or its END's last five is still the key.
_PK_BEGIN = _LazyRe(r"(?:-----|(?<![A-Za-z0-9_-]))BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PK_END = _LazyRe(r"-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?(?:-----)?")
# For a block whose END is missing: the base64 lines (or long space-separated chunks)
# right after BEGIN, plus PEM headers. Each repetition consumes a separator: linear.
_PK_BODY = _LazyRe(
    r"(?:(?:[ \t]*(?:\r?\n|\\r?\\n)[ \t]*)"
    r"(?:[A-Za-z0-9+/=]+(?=[ \t]*(?:\r?\n|\\n|\Z))|(?:Proc-Type|DEK-Info|Comment):[^\r\n\\]*)"
    r"|[ \t]+[A-Za-z0-9+/=]{16,})*"
)

_PK_PROSE = _LazyRe(r"\s*[A-Za-z]+(?: [A-Za-z]+){2,}[.!]?\s*")  # a sentence where the key would be
_PUTTY = _LazyRe(r"PuTTY-User-Key-File-\d: [^\n]*\n(?:[^\n]*\n){0,60}?Private-MAC: [0-9a-f]{20,}")


def _private_keys(text: str, out: list[_Cand]) -> None:
    pos = 0
    no_end_after = len(text) + 1
    while True:
        m = _PK_BEGIN.search(text, pos)
        if m is None:
            return
        stop = -1
        if m.end() < no_end_after:
            idx = text.find("-----END", m.end())
            while idx != -1:
                e = _PK_END.match(text, idx)
                if e is not None:
                    stop = e.end()
                    if idx - m.end() < 256 and _PK_PROSE.fullmatch(text, m.end(), idx):
                        stop = -2  # "-----BEGIN PRIVATE KEY-----this is not a key-----END...": words, no key
                    break
                idx = text.find("-----END", idx + 8)
            if stop == -1:
                no_end_after = m.end()  # and so none after any later BEGIN either
        if stop == -2:
            pos = m.end()
            continue
        if stop == -1:
            stop = _PK_BODY.match(text, m.end()).end()
            if sum(c.isalnum() for c in text[m.end():min(stop, m.end() + 64)]) < 8:
                pos = m.end()  # a BEGIN line alone, in code or a template ("...regexReplaceAll \"-----BEGIN..."): no key
                continue
        out.append((m.start(), stop, "private-key", -2, m.start()))
        pos = stop


# The provider's name is itself the key: `cloudflare: "<value>"`, `HEROKU = ...`.
_NAME_AS_KEY = _LazyRe(r"[\"'`]?[ \t]*(?::=|=>|[:=])[ \t]*[\"'`]?")


def _keyword_values(text: str, low: str, out: list[_Cand]) -> None:
    """Random values just after a provider's name (KEYWORD_RULES). Linear: each occurrence
    tries a 40-character gap once, and occurrences inside a value already found are skipped."""
    for kw, rule in [(kw, rule) for kw, rule in _KEYWORD_PAIRS if kw in low]:
        skip_to = -1
        for i in find_all(low, kw):
            start = i + len(kw)
            if start <= skip_to:
                continue
            m = rule.regex.match(text, start, min(len(text), start + _MAX_KEYWORD_SPAN))
            if m is None:
                continue
            s, e = m.span(1)
            skip_to = e
            if not rule.named and not GAP_NEEDS.search(text, i, s) and (
                    rule.kind.endswith("-id") or not _NAME_AS_KEY.fullmatch(text, start, s)
                    or (i > 0 and text[i - 1] in _ALNUM)):
                # the provider's name, then a key word ("TWILIO_AUTH_TOKEN=", "heroku api key:"),
                # or the name as the whole key ("cloudflare: ..."); an id is not a secret
                continue
            value = text[s:e]
            if (rule.check is not None and not rule.check(value)) or looks_fake(value):
                continue
            out.append((s, e, rule.kind, 2, i))


def _is_reference(value: str) -> bool:
    """``$PW``, ``${PW}``, ``<password>``, ``{password}``, ``%PW%``, ``***``, ``sk-xxxx``, ``[PASSWORD]``,
    ``yyy``: not a literal secret."""
    return (value[0] in "${<%*[" or "${" in value or set(value) <= set("*xX.") or looks_fake(value)
            or (len(value) >= 3 and len(set(value)) == 1) or _FILL_IN.match(value) is not None)


# REPLACE_WITH_PASSWORD, insert-your-token, ENTER_SECRET: an instruction to the reader, not a value.
_FILL_IN = _LazyRe(r"(?i:(?:replace|insert|enter|put)[_\-]?(?:with|your|the|here)?[_\-]?[a-z_\-]{0,20}"
                   r"(?:pass|pwd|secret|key|token)[a-z_\-]{0,20}\Z)")


def _command_lines(low: str, text: str, out: list[_Cand]) -> None:
    # As in URLs, every literal is redacted (`curl -u user:password` too); only references stay.
    for trigger, regex, kind in COMMAND_RULES:
        if trigger in low:
            for m in regex.finditer(text):
                s, e = m.span(1)
                if _is_reference(text[s:e]) or (text[e - 1] == ">" and "<" in text[m.start():s]):
                    continue  # `-u <user:password>`: the syntax shown, not a credential
                out.append((s, e, kind, 4, m.start()))


def _short_known(text: str, s: int, e: int) -> bool:
    t = known_prefix_of(text, s, e)
    return t is not None and e - s - len(t) < 16


def _lower_same_length(text: str) -> str:
    low = text.lower()
    if len(low) == len(text):  # lower() never shrinks a char, so offsets line up 1:1
        return low
    return "".join(c.lower() if c.isascii() else c for c in text)


# The 40-character secret key written right after its access key id, unlabelled
# ("AKIA… with secret wJalr…"): keys are issued, and pasted, in pairs.
_AWS_PAIR = _LazyRe(r"(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")
_AWS_PAIR_WINDOW = 120


def _aws_pairs(text: str, out: list[_Cand]) -> None:
    for key_id in [c for c in out if c[2] == "aws-access-key-id"]:
        line_end = text.find("\n", key_id[1])
        end = min(key_id[1] + _AWS_PAIR_WINDOW, len(text) if line_end < 0 else line_end)
        m = _AWS_PAIR.search(text, key_id[1], end)
        if m is None:
            continue
        value = m.group()
        if any(c.isupper() for c in value) and any(c.islower() for c in value) and any(
            c.isdigit() or c in "/+" for c in value
        ):
            out.append((m.start(), m.end(), "aws-secret-access-key", 0, m.start()))


# An Azure storage account key is 64 random bytes in base64 (86 characters and "=="); bare, it is
# taken only with "azure" on its line or within two lines of it. (A sha512 digest has the same
# shape: one written as an SRI hash, "sha512-...", is not a key.)
# (After "KEY=" it is a value; after "==" it would be the tail of a longer base64 run.)
_AZURE_KEY = _LazyRe(r"(?<![A-Za-z0-9+/\-])(?<!==)[A-Za-z0-9+/]{86}==(?![A-Za-z0-9+/=])")
_AZURE_WORDS = ("azure", "cosmos", "documentdb")  # a Cosmos DB account key has the same shape
_AZURE_SPAN = 600  # characters searched on each side, at most three lines


def _azure_storage_keys(text: str, low: str, out: list[_Cand]) -> None:
    for m in _AZURE_KEY.finditer(text):
        key = m.group()
        if not (any(c.isdigit() for c in key) and any(c.isupper() for c in key) and any(c.islower() for c in key)):
            continue
        lo, hi = max(0, m.start() - _AZURE_SPAN), min(len(text), m.end() + _AZURE_SPAN)
        start = m.start()
        for _ in range(3):  # back to the start of the line two lines up
            i = text.rfind("\n", lo, start)
            if i < 0:
                start = lo
                break
            start = i
        end = text.find("\n", m.end(), hi)  # the end of the key's line, then two more lines
        for _ in range(2):
            if end < 0:
                break
            end = text.find("\n", end + 1, hi)
        if end < 0:
            end = hi
        if any(w in low[start:m.start()] or w in low[m.end():end] for w in _AZURE_WORDS):
            out.append((m.start(), m.end(), "azure-storage-key", 1, m.start()))


def _candidates(text: str) -> list[_Cand]:
    found = _scan(text)
    escaped = '\\":' in text or '\\" :' in text or '=\\"' in text  # {\"password\":\"...\"}, key=\"...\"
    return found + escaped_json(text, _scan) if escaped else found


def _scan(text: str) -> list[_Cand]:
    out: list[_Cand] = []
    if "PRIVATE KEY" in text:
        _private_keys(text, out)
    if "PuTTY-User-Key-File-" in text:
        out += [(m.start(), m.end(), "private-key", -2, m.start()) for m in _PUTTY.finditer(text)]
    low = _lower_same_length(text)
    # Only the rules whose literal occurs: one C-level substring test each.
    active = [rule for t, rule in _PLAIN_TRIGGERS if t in text] + [rule for t, rule in _CI_TRIGGERS if t in low]
    for rule in active:
        if rule.ci:
            matches = (rule.regex.match(text, i) for t in rule.triggers for i in find_all(low, t))
        else:
            pre = _PRECHECK.get(rule.kind)
            if pre is not None and not pre.search(text):
                continue
            matches = rule.regex.finditer(text)
        for m in matches:
            if m is None:
                continue
            if m.start() > 0 and text[m.start() - 1] in rule.before:
                continue
            s, e = m.span(rule.group)
            if s < 0 or s == e:
                continue
            if rule.maxlen is not None and e - s > rule.maxlen:
                continue
            if rule.check is not None and not rule.check(text[s:e]):
                continue
            if looks_fake(text[s:e]):
                continue  # ghp_XXXX..., AKIAXXXXXXXXXXXXXXXX: a format shown, not a key
            out.append((s, e, rule.kind, rule.rank, m.start()))
    _aws_pairs(text, out)
    _keyword_values(text, low, out)
    if "://" in text:
        _url_credentials(text, out)
    _command_lines(low, text, out)
    provider_secrets(text, low, out)
    app_secrets(text, out)
    if "'" in text or '"' in text:
        quoted_random(text, out)
    if "==" in text and ("azure" in low or "cosmos" in low or "documentdb" in low):  # _AZURE_WORDS
        _azure_storage_keys(text, low, out)
    if "data:" in low and "secret" in low:
        kubernetes_secrets(text, out, _is_reference)
    if ("pass" in low or "pwd" in low) and "=" in text:
        connection_strings(text, low, out)
    if "auth" in text or "Auth(" in text or "-asplaintext" in low or "Default:" in text or ("variable" in text and "default" in text) \
            or ".login(" in text or "String" in text or "Secret" in text or "Zeroizing" in text:
        declarations(text, out)
    if "value" in low or "${" in text:
        pairs(text, low, out)
    if any(k in low for k in KEYWORDS):
        n = len(out)
        assignments(text, low, out)
        for rule in (comparisons, fallbacks, setters, ini_values, yaml_values):
            rule(text, out)
        if "-" in text and ":" in text:
            yaml_lists(text, out)
        if '",' in text or '" ,' in text:
            multi_assignments(text, out)
        flags_xml_and_spoken(text, low, out)
        flags_and_headers(text, low, out)
        # A value that starts with a provider's own prefix and is far too short for any of its formats
        # ("sk-ant-oat01-tooShort") is that format near-missed, whatever the key's name says.
        out[n:] = [c for c in out[n:] if not _short_known(text, c[0], c[1])]
    # A fixture's stand-in body (sk_car_short, sbp_1234567890abcdefghij...) is a format shown, whichever rule
    # matched it; a private key's base64 may hold long runs of one letter, so those are kept. A value that names
    # a secret held elsewhere (an ARN) or marks a deploy tool's slot (__DB_PASSWORD__) holds none.
    out = [c for c in out if c[2] == "private-key"
           or not (stand_in(text[c[0]:c[1]]) or replacement_token(text[c[0]:c[1]]))]
    return drop_allowlisted(text, low, drop_pointed(text, out))


# ------------------------------------------------------------------------ the API

KINDS: tuple[str, ...] = tuple(
    sorted(
        {r.kind for r in TOKEN_RULES}
        | {r.kind for r in KEYWORD_RULES}
        | {kind for _, _, kind in COMMAND_RULES}
        | {"private-key", "url-password", "url-credential", "password", "secret", "token", "api-key"}
        | {"aws-secret-access-key", "azure-storage-key"}
        | _PROVIDER_KINDS
    )
)


def _findings(text: str) -> list[_Cand]:
    """Candidates in ``text`` that do not touch an existing marker, sorted."""
    cands = _candidates(text)
    if cands and "[REDACTED:" in text:
        marks = [m.span() for m in _MARKER.finditer(text)]
        if marks:
            mstarts = [s for s, _ in marks]

            def _hits_marker(c: _Cand) -> bool:
                i = bisect_right(mstarts, c[1] - 1) - 1  # last marker starting before the end
                return i >= 0 and marks[i][1] > min(c[0], c[4])

            cands = [c for c in cands if not _hits_marker(c)]
    cands.sort()
    return cands


def _merge(cands: list[_Cand]) -> list[list]:
    merged: list[list] = []  # [start, end, kind, rank]
    for s, e, kind, rank, _ in sorted(cands):
        if merged and s < merged[-1][1]:
            cur = merged[-1]
            if e > cur[1]:
                cur[1] = e
            if rank < cur[3]:
                cur[2], cur[3] = kind, rank
        else:
            merged.append([s, e, kind, rank])
    return merged


def _render(text: str, spans: list[list]) -> tuple[str, list[tuple[int, int]]]:
    """The redacted text and, for each untouched stretch, (output start, original start)."""
    parts: list[str] = []
    plain: list[tuple[int, int]] = []
    pos = out_len = 0
    for s, e, kind, _ in spans:
        plain.append((out_len, pos))
        parts.append(text[pos:s])
        out_len += s - pos
        m = marker(kind)
        parts.append(m)
        out_len += len(m)
        pos = e
    plain.append((out_len, pos))
    parts.append(text[pos:])
    return "".join(parts), plain


def redact(text: str) -> RedactionResult:
    """Replace every secret found in ``text`` with ``[REDACTED:<kind>]``.

    Overlapping findings are merged into one span whose kind is the most
    specific one (provider patterns beat generic ``key=value`` findings).
    Text outside the spans is returned unchanged.

    The result is a fixed point: the output is scanned again and anything that
    only became visible once a neighbour was replaced (a candidate that was too
    long, or glued to a secret, in the original) is added, so
    ``redact(redact(x).text).text == redact(x).text``.
    """
    if not text:
        return RedactionResult(text, ())
    found = _findings(text)
    if not found:
        return RedactionResult(text, ())
    spans = _merge(found)
    out, plain = _render(text, spans)
    for _ in range(8):
        extra = _findings(out)
        if not extra:
            break
        starts = [o for o, _ in plain]
        for s, e, kind, rank, _a in extra:
            # a finding never overlaps a marker, so it lies inside one untouched stretch
            o, src = plain[bisect_right(starts, s) - 1]
            found.append((src + s - o, src + e - o, kind, rank, src + s - o))
        spans = _merge(found)
        out, plain = _render(text, spans)
    return RedactionResult(out, tuple(Redaction(kind, s, e) for s, e, kind, _ in spans))


# ------------------------------------------------------------------ names and tags

_NAME_PARTS = _LazyRe(r"[.@+:/]")
_WORDISH = _LazyRe(r"[A-Z]?[a-z]{3,}|[A-Z]{4,}")
_VOWELS = frozenset("aeiouyAEIOUY")
_CONSONANT_RUN = _LazyRe(r"[b-df-hj-np-tv-xzB-DF-HJ-NP-TV-XZ]{4}")
_HEX_ONLY = frozenset("0123456789abcdefABCDEF")


def _shannon(s: str) -> float:
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())


def _bare_credential(part: str) -> bool:
    """A random-looking run with no provider format: a token pasted where a name goes.

    Hex of 24+ digits (keys, hashes), a UUID, or 16+ letters and digits that change class
    often (``k3JqZ8xW2mPl0R7t``) and are not mostly words (``S3BucketBackup2024``,
    ``k8s-cluster-prod-eu-west-1`` stay)."""
    core = part.replace("-", "").replace("_", "")
    if len(core) < 16 or not core.isascii() or not core.isalnum():
        return False
    if not any(c.isdigit() for c in core) or core.isdigit():
        return False
    if len(core) >= 24 and set(core) <= _HEX_ONLY:
        return True
    # (words found in the part itself: "-" and "_" end a word)
    words = sum(len(w) for w in _WORDISH.findall(part) if set(w) & _VOWELS and not _CONSONANT_RUN.search(w))
    if words * 2 >= len(core):
        return False
    classes = [0 if c.isdigit() else 1 if c.islower() else 2 for c in core]
    changes = sum(a != b for a, b in zip(classes, classes[1:]))
    entropy = _shannon(core)
    return entropy >= 3.0 and changes >= 3 and (changes * 10 >= len(core) * 3 or entropy >= 3.6)


def identifier_secrets(value: str) -> tuple[str, ...]:
    """Kinds of secret in a short identifier -- a tag, a thread id, a prompt's name -- else ().

    An identifier is shown, logged and used as a key again, so one that holds a secret is
    refused or replaced whole (never lower-cased and kept). Besides everything
    :func:`redact` finds, a bare random token counts here: in a name, unlike in prose, a
    16+ character random run has no innocent reading."""
    found = redact(value).kinds
    if found:
        return found
    parts = [value, *_NAME_PARTS.split(value)] if _NAME_PARTS.search(value) else [value]
    return ("token",) if any(_bare_credential(p) for p in parts) else ()
