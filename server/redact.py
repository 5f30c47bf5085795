"""Find secrets in a memory's text and replace each with a ``[REDACTED:<kind>]`` marker.

Memories are stored and written to human-readable daily logs, so credentials a
coding assistant pastes into a memory must never reach disk in plain text.
:func:`redact` returns the cleaned text plus where each secret was (offsets in
the *original* text) and what kind it was::

    >>> r = redact("export GITHUB_TOKEN=ghp_" + "a1B2" * 9)
    >>> r.text
    'export GITHUB_TOKEN=[REDACTED:github-token]'
    >>> r.kinds
    ('github-token',)

Design notes
------------
* **Patterns are our own, checked against detect-secrets in the tests.**
  ``import detect_secrets`` pulls in ``requests``/``urllib3`` and costs about
  140 ms, and its regexes give no reliable offsets for the keyword plugin and
  have loose boundaries for a few providers (Twilio's ``AC[a-z0-9]{32}`` would
  fire inside identifiers). detect-secrets is not a runtime dependency of
  memvault either. So this module uses only the standard library and the
  test suite cross-checks that every sample detect-secrets' *pattern* plugins
  flag is also redacted here, and that its pattern plugins find nothing left in
  our output. Entropy plugins are deliberately not used: they flag ordinary
  hashes, UUIDs and base64 test data.
* **Referencing a secret is not a secret.** ``token=$TOKEN``, ``${TOKEN}``,
  ``<your password>``, ``os.environ["X"]``, ``settings.API_KEY``, ``None``,
  ``********`` and the bare words ``password``/``secret``/``token`` (as in
  ``postgres://user:password@localhost``) are left alone.
* **Key/value assignments** (``password=``, ``"api_key": "..."``, ``X-API-Key:``,
  ``--token ...``, ``<password>..</password>``) count only when the *last*
  word of the key is the keyword: ``DB_PASSWORD`` and ``clientSecret`` do,
  ``password_min_length``, ``token_url``, ``max_tokens`` and
  ``AWS_ACCESS_KEY_ID`` do not. A ``:`` separator is common in prose, so after
  ``key:`` a single plain dictionary-like word counts only for password/secret
  keys and only at the end of a line ("Password: hunter" yes, "password: must
  be 12 chars" no). Values with spaces count only when quoted.
* **Stripe publishable keys (``pk_live_``/``pk_test_``) are not redacted**: they
  are designed to be embedded in public web pages. ``sk_``/``rk_`` (secret and
  restricted keys, live or test) and ``whsec_`` webhook secrets are.
* **Idempotent**: markers already in the text are never matched again, and the
  output is re-scanned until nothing new is found (a candidate can become
  visible only once a neighbour is replaced), so
  ``redact(redact(x).text) == redact(x)`` holds by construction (up to 8
  re-scans; in practice one, and only for texts that had a secret).
* **Linear time**: each pattern starts with a literal (the regex engine's fast
  search) and rejects a start glued to a word with a look-behind placed after
  that literal; variable-length bodies are greedy with nothing after them that
  can fail, so a failed candidate is never rescanned; key=value values are
  measured with cached searches; the private-key END is found with
  ``str.find``. 1 MB adversarial inputs take at most a few seconds and scale
  linearly (tested); a typical 2 KB memory costs ~0.1-0.3 ms. Patterns are
  compiled on first use, so ``import`` stays at a few milliseconds.

Limits: secrets with no recognisable prefix and no keyword nearby (a bare
random password in a sentence, an AWS secret key away from its access key id)
are not found (one within 120 characters after its key id, on the same line, is);
an unquoted all-letters value after a spaced ``=`` (``password = hunter``) or
a snake_case/camelCase one (``password=db_pass``) is taken for a variable
unless the key is an upper-case env name; values split across lines are not
joined; fixed-length tokens glued to more word characters are not matched; a
JWT whose header does not decode to JSON is left alone.
"""

from __future__ import annotations

import binascii
import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from server.lazyre import LazyRe as _LazyRe

__all__ = ["KINDS", "Redaction", "RedactionResult", "marker", "redact"]




@dataclass(frozen=True)
class Redaction:
    """One secret: its kind and its ``[start, end)`` offsets in the original text."""

    kind: str
    start: int
    end: int


@dataclass(frozen=True)
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

# Characters that glue a neighbour to a token. For case-insensitive rules the character
# before a match is checked in Python; other rules use a look-behind placed after their
# literal prefix (see _tok): a look-behind at the very start would stop the regex
# engine's fast literal search and cost ~100 us per 2 KB per pattern.
_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_WORD = _ALNUM | {"_"}
_LA = r"(?![A-Za-z0-9_])"  # end boundary
_LA_DASH = r"(?![A-Za-z0-9_\-])"

# --------------------------------------------------------------------------- helpers


def _has_digit(s: str) -> bool:
    return any(c.isdigit() for c in s)


def _mixed(s: str) -> bool:
    """At least two of: digit, lowercase, uppercase -- random tokens, not words."""
    d = l = u = False
    for c in s:
        if c.isdigit():
            d = True
        elif c.islower():
            l = True
        elif c.isupper():
            u = True
    return d + l + u >= 2


def _random_looking(s: str) -> bool:
    """A token body that is not a word or a kebab/snake identifier."""
    core = s.replace("-", "").replace("_", "")
    return _has_digit(core) and any(c.isalpha() for c in core)


def _b64url_json(part: str) -> bool:
    std = part.replace("-", "+").replace("_", "/")
    try:
        raw = binascii.a2b_base64(std + "=" * (-len(std) % 4))
    except (binascii.Error, ValueError):
        return False
    return raw[:1] == b"{"


def _jwt_ok(token: str) -> bool:
    parts = token.split(".")
    return (
        len(parts) == 3
        and len(parts[0]) >= 9
        and len(parts[1]) >= 4
        and len(parts[2]) >= 16
        and _b64url_json(parts[0])
    )


def _basic_auth_ok(value: str) -> bool:
    body = value.rstrip("=")
    if len(body) < 6 or len(value) - len(body) > 2:
        return False
    try:
        raw = binascii.a2b_base64(body + "=" * (-len(body) % 4))
        decoded = raw.decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return False
    return ":" in decoded and decoded.isprintable()


_PLACEHOLDER_WORDS = frozenset(
    """
    none null nil undefined true false yes no empty blank na n/a tbd todo
    password passwd pass pwd passphrase secret secrets token tokens apikey api_key
    api-key key auth credentials redacted hidden masked omitted removed elided
    str string bytes int integer number bool boolean any object optional required
    secretstr text value env os example sample dummy placeholder fake test
    """.split()
)
_MASK_CHARS = frozenset("*xX.#•-_?")
_REFERENCE = _LazyRe(
    r"(?:[A-Za-z_]+\.)+[A-Za-z_]+\Z"  # settings.API_KEY, self.password (no digits: ya29.a0Af.. is a token)
)


_CALL = _LazyRe(r"[A-Za-z_][A-Za-z_.]*[(\[]")  # getpass(), os.environ[...]


def _is_placeholder(value: str) -> bool:
    v = value.strip()
    if not v:
        return True
    if v[0] in "$<{%[(#!@&*" or "${" in v or "{{" in v or _CALL.match(v):
        return True
    low = v.lower()
    if low in _PLACEHOLDER_WORDS:
        return True
    if all(c in _MASK_CHARS for c in v):
        return True
    if low.startswith(("your", "my_", "my-", "<", "insert", "replace", "change_me_")):
        return True
    if low.endswith(("_here", "-here", "here>")) or low.startswith(("os.", "process.env")):
        return True
    if _REFERENCE.match(v):
        return True
    return False


# --------------------------------------------------------------- key classification

_CAMEL = _LazyRe(r"(?<=[a-z0-9])(?=[A-Z])")
_SEG_SPLIT = _LazyRe(r"[^A-Za-z0-9]+")
_KEY_QUALIFIERS = frozenset(
    """api secret access private signing sign encryption enc master auth client app
    service account db database license licence webhook admin consumer subscription
    storage hmac jwt session deploy ssh gpg pgp crypto cipher aes root shared aws""".split()
)


@lru_cache(maxsize=2048)
def _key_kind(key: str) -> str | None:
    """'password' | 'secret' | 'token' | 'api-key' when the key names a credential."""
    segs = [s for s in _SEG_SPLIT.split(_CAMEL.sub("_", key).lower()) if s]
    if not segs:
        return None
    last = segs[-1]
    prev = segs[-2] if len(segs) > 1 else ""
    if last.endswith(("password", "passwd")) or last in ("pwd", "pass", "pw", "passphrase", "passcode"):
        return "password"
    if last.endswith("secret"):
        return "secret"
    if last.endswith("token"):
        return "token"
    if last == "apikey" or (last == "key" and prev == "api"):
        return "api-key"
    if last in ("secretkey", "accesskey", "privatekey", "appkey", "masterkey", "signingkey"):
        return "secret"
    if last == "key" and prev in _KEY_QUALIFIERS:
        return "secret"
    if last in ("credential", "credentials", "creds") and prev not in ("", "use", "with"):
        return "secret"
    return None


# ------------------------------------------------------------------- the rule table


class _Rule:
    """One pattern. (A plain class: a third dataclass would add ~1 ms to import.)

    Case-sensitive rules start with a literal, so finditer is fast (a few us per 2 KB);
    with gate=True the rule runs only if a trigger occurs in the text. Case-insensitive
    rules (ci=True): triggers are lowercase anchors found in text.lower() and the regex
    is matched at each. ``before``: characters that may not precede a ci match;
    ``group``: the group holding the secret; ``check``: a validator on the secret;
    ``rank``: lower wins when merged spans disagree on the kind; ``maxlen``: longer
    runs are not this kind of token.
    """

    __slots__ = ("kind", "regex", "triggers", "before", "group", "check", "rank", "ci", "gate", "maxlen")

    def __init__(
        self,
        kind: str,
        regex: _LazyRe,
        triggers: tuple[str, ...],
        before: frozenset[str] = _WORD,
        group: int = 0,
        check: Callable[[str], bool] | None = None,
        rank: int = 0,
        ci: bool = False,
        gate: bool = False,
        maxlen: int | None = None,
    ) -> None:
        self.kind, self.regex, self.triggers, self.before = kind, regex, triggers, before
        self.group, self.check, self.rank = group, check, rank
        self.ci, self.gate, self.maxlen = ci, gate, maxlen


# Boundary classes for the look-behind placed right after a rule's literal prefix:
# ``gh(?<![...]gh)`` keeps the regex starting with a literal (fast search) and rejects a
# start glued to a word without consuming anything, so no later start is skipped.
_B_WORD = r"[A-Za-z0-9_]"
_B_WORD_DASH = r"[A-Za-z0-9_\-]"


def _tok(
    kind: str, prefix: str, rest: str, before: str | None = _B_WORD, **kw: object
) -> _Rule:
    lit = re.escape(prefix)
    # ...but a JSON/C escape like "\\nghp_..." does not glue the token to the "n".
    guard = f"(?:(?<!{before}{lit})|(?<=\\\\[nrt]{lit}))" if before else ""
    return _Rule(kind, _LazyRe(lit + guard + rest), (prefix,), before=frozenset(), **kw)  # type: ignore[arg-type]


_RULES: tuple[_Rule, ...] = (
    _tok("aws-access-key-id", "A", r"(?:KIA|SIA|BIA|CCA|3T[A-Z0-9])[A-Z0-9]{16}" + _LA),
    _tok("github-token", "gh", r"[pousr]_[A-Za-z0-9]{36,}", maxlen=255),
    _tok("github-token", "github_pat_", r"[A-Za-z0-9_]{22,}", maxlen=255),
    _tok(
        "gitlab-token",
        "gl",
        r"(?:pat|dt|ft|soat|rt|cbt|ptt|imt|oas|agent)-[A-Za-z0-9_\-]{20,}",
        maxlen=1100,
        check=lambda s: _random_looking(s.split("-", 1)[1]),
    ),
    _tok("anthropic-api-key", "sk-ant-", r"[A-Za-z0-9_\-]{20,}", _B_WORD_DASH, maxlen=300, rank=-1),
    _tok(
        "openai-api-key",
        "sk-",
        r"(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_\-]{20,}|[A-Za-z0-9]{20,})",
        _B_WORD_DASH,
        check=lambda s: not s.startswith("sk-ant-") and _random_looking(s[3:]),
    ),
    _tok(
        "slack-token",
        "xox",
        r"[abposre]-[A-Za-z0-9\-]{10,}",
        maxlen=300,
        check=lambda s: _has_digit(s[5:]),
    ),
    _tok("slack-token", "xapp-", r"\d-[A-Za-z0-9\-]{10,}", maxlen=300),
    _tok(
        "slack-webhook",
        "https://hooks.slack.com/",
        r"(?:services|workflows|triggers)/[A-Za-z0-9_/\-]{8,}",
        None,
    ),
    _tok("stripe-key", "sk_", r"(?:live|test)_[A-Za-z0-9]{16,}", maxlen=255),
    _tok("stripe-key", "rk_", r"(?:live|test)_[A-Za-z0-9]{16,}", maxlen=255),
    _tok("stripe-key", "whsec_", r"[A-Za-z0-9+/=]{24,}"),
    _tok("google-api-key", "AIza", r"[0-9A-Za-z_\-]{35}" + _LA_DASH, _B_WORD_DASH),
    _tok("google-oauth-secret", "GOCSPX-", r"[0-9A-Za-z_\-]{28}" + _LA_DASH, _B_WORD_DASH),
    # Always matches a whole dotted run (so a failed candidate is never rescanned);
    # the shape and the JSON header are checked in Python.
    _tok("jwt", "eyJ", r"[A-Za-z0-9_\-]*(?:\.[A-Za-z0-9_\-]*){0,2}", _B_WORD_DASH, check=_jwt_ok),
    _tok("npm-token", "npm_", r"[A-Za-z0-9]{36}" + _LA),
    _tok(
        "npm-token",
        "_auth",
        r"(?:Token)?[ \t]*=[ \t]*[\"']?([^\s\"'\[]{8,})",
        group=1,
        maxlen=1024,
        check=lambda s: not _is_placeholder(s),
    ),
    _tok("pypi-token", "pypi-AgE", r"[A-Za-z0-9_\-]{50,}"),
    # memvault's own bearer tokens (server/tokens.py: "mvt_" + 43 base64url characters).
    _tok("memvault-token", "mvt_", r"[A-Za-z0-9_\-]{43}" + _LA_DASH, _B_WORD_DASH),
    _tok("huggingface-token", "hf_", r"[A-Za-z0-9]{34,}", check=_mixed, maxlen=43),
    _tok("sendgrid-key", "SG.", r"[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}" + _LA_DASH),
    # Twilio API key SIDs; AC... account SIDs are identifiers, not secrets.
    _tok("twilio-key", "SK", r"[0-9a-f]{32}" + _LA),
    _tok("digitalocean-token", "do", r"[opr]_v1_[a-f0-9]{64}" + _LA),
    _tok("azure-storage-key", "AccountKey=", r"([A-Za-z0-9+/]{86}==)", None, group=1),
    _Rule(
        "telegram-bot-token",
        _LazyRe(r"(?<![A-Za-z0-9_])[0-9]{8,10}:AA[0-9A-Za-z_\-]{33}" + _LA_DASH),
        (":AA",),
        before=frozenset(),
        gate=True,  # starts with a digit class: slow to scan, so only when ":AA" occurs
    ),
    _tok("age-secret-key", "AGE-SECRET-KEY-1", r"[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}" + _LA),
    _tok("databricks-token", "dapi", r"[a-f0-9]{32}(?:-\d)?" + _LA),
    _tok("shopify-token", "shp", r"(?:at|ca|pa|ss)_[a-fA-F0-9]{32}" + _LA),
    # Case-insensitive: matched at each occurrence of the anchor in text.lower().
    _Rule(
        "bearer-token",
        _LazyRe(r"(?i:bearer)[ \t]+([A-Za-z0-9\-._~+/]{12,}=*)"),
        ("bearer",),
        group=1,
        check=lambda s: _mixed(s) and not _REFERENCE.match(s),
        rank=5,
        ci=True,
    ),
    _Rule(
        "basic-auth",
        _LazyRe(r"(?i:basic)[ \t]+([A-Za-z0-9+/]{6,}=*)"),
        ("basic",),
        group=1,
        check=_basic_auth_ok,
        rank=5,
        ci=True,
    ),
)

# scheme://user:password@host -- found from "://", the scheme checked backwards.
_URL_AUTH = _LazyRe(r"://[^\s:/?#\[\]@\"'<>`]{0,256}:([^\s/?#\[\]@\"'<>`]{1,256})@")
_SCHEME_CHARS = _ALNUM | set("+.-")

# ``-----BEGIN ... PRIVATE KEY-----``; the end is found with str.find (linear).
_PK_BEGIN = _LazyRe(r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PK_END = _LazyRe(r"-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----")
# For a block whose END is missing: the base64 lines (or long space-separated chunks)
# right after BEGIN, plus PEM headers. Each repetition consumes a separator: linear.
_PK_BODY = _LazyRe(
    r"(?:(?:[ \t]*(?:\r?\n|\\r?\\n)[ \t]*)"
    r"(?:[A-Za-z0-9+/=]+(?=[ \t]*(?:\r?\n|\\n|\Z))|(?:Proc-Type|DEK-Info|Comment):[^\r\n\\]*)"
    r"|[ \t]+[A-Za-z0-9+/=]{16,})*"
)

# key <sep> value, matched at the start of an identifier that contains a keyword.
_KEY_CHARS = _ALNUM | set("_.-")
_KEY_BEFORE = _KEY_CHARS
_ASSIGN = _LazyRe(
    r"(?P<key>[A-Za-z_][A-Za-z0-9_.\-]{0,80})(?P<kq>[\"']?)\]?[ \t]*"
    r"(?P<sep>:=|=>|\?=|=(?!=)|:(?![:/])(?:[ \t]*(?:str|string|String|SecretStr)[ \t]*=(?!=))?)"
    r"(?P<sp>[ \t]*)"
    r"(?:\"(?P<dq>[^\"\r\n]{1,1024})\"|'(?P<sq>[^'\r\n]{1,1024})'|`(?P<bq>[^`\r\n]{1,1024})`)?"
)
# An unquoted value runs to the next of these (found with a cached search, so many
# keys sharing one long run cost linear time, not run-length each).
_VAL_STOP = _LazyRe(r"[\s\"'`)}\]]")
_FLAG_STOP = _LazyRe(r"[\s\"'`\[(),;]")
_MAX_VALUE = 4096
# An unquoted value ends at , ; & when what follows is a space, the end, or another key=
# (query strings, connection strings, CSV); inside a value those characters are kept.
# It also ends at an escaped newline or tab ("\n") inside a JSON or C string.
_VALUE_CUT = _LazyRe(r"[,;&](?=[ \t]|\Z|[A-Za-z_][A-Za-z0-9_.\-]{0,40}=)|\\[nrt]")
_KEYWORDS = ("pass", "pwd", "pw", "secret", "token", "key", "cred")
# CLI flags: --password hunter2 / --api-key=...
_FLAG = _LazyRe(
    r"--(?<![A-Za-z0-9_\-]--)(?P<key>(?:[A-Za-z0-9]+-){0,3}(?i:password|passwd|token|secret|api-key|apikey))"
    r"(?:[ \t]+|=)(?P<q>[\"']?)"
)
# <password>hunter2</password>
_XML = _LazyRe(r"<(?P<tag>[A-Za-z_][A-Za-z0-9_.\-]{0,40})>(?P<val>[^<\s]{3,1024})</(?P=tag)>")

_EOL_FOLLOW = frozenset("\r\n,;})")
_VARIABLE = _LazyRe(r"[a-z]+(?:_[a-z]+)+|[a-z]+(?:[A-Z][a-z]+)+")  # db_pass, accessToken

_Cand = tuple[int, int, str, int, int]  # start, end, kind, rank, match start


def _value_at_eol(text: str, end: int) -> bool:
    n = len(text)
    i = end
    while i < n and text[i] in " \t":
        i += 1
    return i >= n or text[i] in _EOL_FOLLOW


def _lower_same_length(text: str) -> str:
    low = text.lower()
    if len(low) == len(text):  # lower() never shrinks a char, so offsets line up 1:1
        return low
    return "".join(c.lower() if c.isascii() else c for c in text)


def _find_all(hay: str, needle: str):
    i = hay.find(needle)
    while i != -1:
        yield i
        i = hay.find(needle, i + 1)


class _RunEnd:
    """End of the run of non-stop characters starting at ``pos``, with a cache."""

    __slots__ = ("text", "stop", "lo", "hi")

    def __init__(self, text: str, stop: _LazyRe) -> None:
        self.text, self.stop, self.lo, self.hi = text, stop, -1, -1

    def __call__(self, pos: int) -> int:
        if not (self.lo <= pos <= self.hi):
            m = self.stop.search(self.text, pos)
            self.lo, self.hi = pos, (m.start() if m else len(self.text))
        return self.hi


def _keyword_starts(text: str, low: str) -> list[int]:
    """Start of the identifier run around each keyword occurrence, in order.

    Each character is scanned at most once (a run shared by several occurrences is
    walked back only to the previous occurrence), so this is linear even for
    "tokentokentoken...". Runs longer than a key can be are dropped.
    """
    hits = sorted({i for kw in _KEYWORDS for i in _find_all(low, kw)})
    starts: list[int] = []
    prev_i, prev_j = -1, -1
    for i in hits:
        j = i
        while j > 0 and j - 1 > prev_i and text[j - 1] in _KEY_CHARS:
            j -= 1
        if j - 1 == prev_i and prev_i >= 0 and j > 0 and text[j - 1] in _KEY_CHARS:
            j = prev_j  # same run as the previous occurrence
        prev_i, prev_j = i, j
        if j >= 1 and text[j - 1] == "\\" and text[j] in "nrt" and i > j:
            j += 1  # "\napi_key=..." inside an escaped string: the key starts after \n
        if i - j <= 81 and (not starts or starts[-1] != j):
            starts.append(j)
    return starts


def _assignments(text: str, low: str, out: list[_Cand]) -> None:
    run_end = _RunEnd(text, _VAL_STOP)
    cut_at = _RunEnd(text, _VALUE_CUT)
    for j in _keyword_starts(text, low):
        if j > 0 and text[j - 1] in _KEY_BEFORE and not (j >= 2 and text[j - 2] == "\\"):
            continue
        m = _ASSIGN.match(text, j)
        if m is None:
            continue
        if text[max(0, j - 3) : j] == "://":
            continue  # URL user:password -- the url-password rule's job
        key = m.group("key")
        kind = _key_kind(key)
        if kind is None:
            continue
        for g in ("dq", "sq", "bq"):
            if m.group(g) is not None:
                raw = m.group(g)
                value = raw.strip()
                if len(value) >= 3 and not _is_placeholder(value):
                    s = m.start(g) + (len(raw) - len(raw.lstrip()))
                    out.append(_assigned(key, kind, s, value, j))
                break
        else:
            vstart = m.end()
            vend = min(run_end(vstart), cut_at(vstart), vstart + _MAX_VALUE)
            if vend - vstart > 256:
                # Long: not a placeholder unless it starts like one. Not sliced, so
                # "password=password=..." stays linear.
                head = text[vstart : vstart + 8]
                if head[0] not in "$<{%[(#!@&*":
                    out.append((vstart, vend, kind, 10, j))
                continue
            value = text[vstart:vend]
            if len(value) < 3 or _is_placeholder(value):
                continue
            sep = m.group("sep")
            if sep[0] == ":" and sep != ":=":
                # YAML, headers -- and prose. Letters-only values count only for
                # password/secret keys and only at the end of a line.
                if value.isalpha() and not (
                    kind in ("password", "secret") and _value_at_eol(text, vend)
                ):
                    continue
            elif _VARIABLE.fullmatch(value) and not (key.isupper() and not m.group("sp")):
                continue  # `password=db_pass` is a variable unless env-style `DB_PASSWORD=...`
            elif m.group("sp") and value.isalpha() and value.islower():
                continue  # `password = getpass`: a name, not a literal
            if kind == "password" and value.startswith(("/", "~/", "./", "../")):
                continue  # PWD=/home/me
            out.append(_assigned(key, kind, vstart, value, j))


_AWS_SECRET = _LazyRe(r"[A-Za-z0-9/+]{40}")


# The 40-character secret key written right after its access key id, unlabelled
# ("AKIA… with secret wJalr…"): keys are issued, and pasted, in pairs.
_AWS_PAIR = _LazyRe(r"(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")
_AWS_PAIR_WINDOW = 120


def _aws_pair(text: str, after: int, out: list[_Cand]) -> None:
    line_end = text.find("\n", after)
    end = min(after + _AWS_PAIR_WINDOW, len(text) if line_end < 0 else line_end)
    m = _AWS_PAIR.search(text, after, end)
    if m is None:
        return
    value = m.group()
    if any(c.isupper() for c in value) and any(c.islower() for c in value) and any(c.isdigit() or c in "/+" for c in value):
        out.append((m.start(), m.end(), "aws-secret-access-key", 0, m.start()))


def _assigned(key: str, kind: str, start: int, value: str, anchor: int) -> _Cand:
    if (
        "aws" in key.lower()
        and _AWS_SECRET.fullmatch(value)
        and any(c.isupper() for c in value)
        and any(c.islower() for c in value)
    ):
        return (start, start + len(value), "aws-secret-access-key", 0, anchor)
    return (start, start + len(value), kind, 10, anchor)


def _flags_and_xml(text: str, out: list[_Cand]) -> None:
    if "--" in text:
        run_end = _RunEnd(text, _FLAG_STOP)
        for m in _FLAG.finditer(text):
            kind = _key_kind(m.group("key"))
            vs = m.end()
            ve = run_end(vs)
            q = m.group("q")
            if q and not text.startswith(q, ve):
                continue
            v = text[vs:ve]
            if kind and 3 <= len(v) <= 1024 and not _is_placeholder(v) and not v.isalpha():
                out.append((vs, ve, kind, 10, m.start()))
    if "</" in text:
        for m in _XML.finditer(text):
            kind = _key_kind(m.group("tag"))
            v = m.group("val")
            if kind and not _is_placeholder(v):
                out.append((m.start("val"), m.end("val"), kind, 10, m.start()))


def _url_passwords(text: str, out: list[_Cand]) -> None:
    for m in _URL_AUTH.finditer(text):
        i = m.start()
        j = i
        while j > 0 and i - j < 31 and text[j - 1] in _SCHEME_CHARS:
            j -= 1
        if j == i or not text[j].isascii() or not text[j].isalpha():
            continue
        if j > 0 and text[j - 1] in _SCHEME_CHARS:
            continue  # scheme longer than 31 chars, or glued to something
        s, e = m.span(1)
        if not _is_placeholder(text[s:e]):
            out.append((s, e, "url-password", 5, j))


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
                    break
                idx = text.find("-----END", idx + 8)
            if stop == -1:
                no_end_after = m.end()  # and so none after any later BEGIN either
        if stop == -1:
            stop = _PK_BODY.match(text, m.end()).end()
        out.append((m.start(), stop, "private-key", -2, m.start()))
        pos = stop


def _candidates(text: str) -> list[_Cand]:
    out: list[_Cand] = []
    if "PRIVATE KEY" in text:
        _private_keys(text, out)
    low: str | None = None
    for rule in _RULES:
        if rule.ci:
            if low is None:
                low = _lower_same_length(text)
            matches = (rule.regex.match(text, i) for t in rule.triggers for i in _find_all(low, t))
        else:
            if rule.gate and not any(t in text for t in rule.triggers):
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
            out.append((s, e, rule.kind, rule.rank, m.start()))
    for c in [c for c in out if c[2] == "aws-access-key-id"]:
        _aws_pair(text, c[1], out)
    if "://" in text:
        _url_passwords(text, out)
    if low is None:
        low = _lower_same_length(text)
    if any(k in low for k in _KEYWORDS):
        _assignments(text, low, out)
        _flags_and_xml(text, out)
    return out


# ------------------------------------------------------------------------ the API

KINDS: tuple[str, ...] = tuple(
    sorted(
        {r.kind for r in _RULES}
        | {"private-key", "url-password", "password", "secret", "token", "api-key"}
        | {"aws-secret-access-key"}
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
