"""Secrets given as a key's value, for server.guard.redact: ``password=...``, ``"api_key": "..."``,
``X-API-Key: ...``, ``--token ...``, ``<password>...</password>``, ``password is "..."``.

* **Which keys.** A key counts when its *last* word names a credential
  (``DB_PASSWORD``, ``clientSecret``, ``api_key``, ``signing_key``): any value that is
  not a reference or placeholder is taken. A key that only *mentions* one further in
  (``secret_key_base``, ``AUTH``, ``github_token_v2``) counts when its value is
  high-entropy (random-looking, 16+ characters); keys that end in a non-secret word
  (``password_min_length``, ``token_url``, ``api_key_id``, ``password_hash``) never do.
* **Every common syntax.** env/shell (``KEY=v``, ``export KEY="v"``), YAML/TOML/INI
  (``key: v``, ``key = "v"``), JSON, Python/JS/Go/Kotlin/Swift/C (``:=``, ``: str =``,
  ``char key[] = "v"``, ``@"v"``), PHP/Ruby (``'key' => 'v'``), query and connection
  strings (``;Password=v;``), XML, CLI flags, and ``password "v"`` / ``password is "v"``
  in SQL, ``.netrc`` and prose.
* **Referencing a secret is not a secret.** ``$TOKEN``, ``${TOKEN}``, ``{{ vault }}``,
  ``<your password>``, ``os.environ["X"]``, ``settings.API_KEY``, ``None``, ``********``
  and the bare words ``password``/``secret``/``token`` are left alone; a value merely
  *containing* ``${`` or ``{{`` that is not a template (``m{{h}o)p${e]nob``) is not.
* A ``:`` separator is common in prose, so after ``key:`` a single dictionary-like
  word counts only for password/secret keys and only at the end of a line ("Password:
  hunter" yes, "password: must be 12 chars" no).

Every scan is linear: keys are found from keyword occurrences (each character walked at
most once), values measured with cached searches, bounded windows elsewhere.
"""

from __future__ import annotations

import binascii
import math
from collections import Counter

from server.guard.lazyre import LazyRe as _LazyRe
from server.guard.secret_context import (
    bare_reference, concatenated, default_of_a_call, file_path, filled_at_run_time, interface_text, repeated, self_named,
    set_by_a_call, whole_template)
from server.guard.secret_code import code_value, named_field
from server.guard.secret_keys import HEADER_VALUE, RANDOM_RUN, TOKEN_SHAPED, key_kind

_Cand = tuple[int, int, str, int, int]  # start, end, kind, rank, match start
_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

# ---------------------------------------------------------------------- placeholders

_PLACEHOLDER_WORDS = frozenset(
    """
    none null nil undefined true false yes no empty blank na n/a tbd todo include omit same-origin
    password passwd pass pwd passphrase secret secrets token tokens apikey api_key
    api-key key auth credentials redacted hidden masked omitted removed elided
    str string bytes int integer number bool boolean any object optional required float double list dict tuple
    secretstr text value env os example sample dummy placeholder fake test
    """.split()
)
_MASK_CHARS = frozenset("*xX.#•-_?")
_DISCLAIMS = _LazyRe(r"\bnot (?:an? |the |my )?(?:real|valid|actual|used|secret|password|key|token)\b|\binvalid\b"
                     r"|\b(?:fake|sample|example|placeholder|dummy)\b")
# settings.API_KEY, self.password (no digits: ya29.a0Af.. is a token)
REFERENCE = _LazyRe(r"(?:[A-Za-z_][A-Za-z0-9_]*\.)+[A-Za-z_]+\Z")
# getpass(), os.environ[...], env::var(, base64.b64encode(, base64decode( (digits only in a dotted or all
# lower-case name: "MW1pxM(" is a salt)
# (a "[" opens a subscript when one closes or the value was cut there: "DFSFSFHFGFGF[DSFSF..." is a literal)
_CALL = _LazyRe(r"(?:[A-Za-z_][A-Za-z_.:]*|(?:[A-Za-z_][A-Za-z0-9_]*\.)+[A-Za-z_][A-Za-z0-9_]*|[a-z_][a-z0-9_]*)"
                r"(?:\(|\[(?=[^\]]*\]|[\w.\"']*\Z))")
# ${VAR}, ${VAR:-default}, ${{ secrets.X }}, {{ vault_password }}, %(password)s, %PASSWORD%
_TEMPLATE = _LazyRe(
    r"\$\{\{?\s*[A-Za-z_][\w.\[\]'\"-]*\s*(?:[:?|-][^}]{0,200})?\}\}?|\{\{\s*[\w.\[\]'\"| ()-]{1,200}\}\}"
    r"|%\([A-Za-z_]\w*\)s|%[A-Za-z_]\w*%"
)


# (AWS's documented example keys end in EXAMPLE / EXAMPLEKEY and are still redacted:
# scanners' test suites and tutorials are full of them.)
# (also: a masked tail "####", a value marked [Redacted])
_FAKE = _LazyRe(r"[xX]{4}|#{4}|\.\.\.|\*\*\*|•••|(?i:your[-_ ]|<[a-z_ -]{2,40}>|redacted)|(?:Here|HERE)\Z")


def _entropy(value: str) -> float:
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


def looks_fake(value: str) -> bool:
    """A documentation stand-in: ``sk-xxxx...``, ``ghp_XXXX...``, ``sk_test_...``, ``xoxb-your-token``,
    ``...TokenHere``, or a long run of nearly one character (``AIzaaaaa...``, ``glc_1111...``: under
    1.2 bits per character, where a random token has 3.5+; a scanner's own all-Q sample key, at 1.4,
    still counts)."""
    return _FAKE.search(value) is not None or (len(value) >= 16 and _entropy(value) < 1.2)


def is_placeholder(value: str) -> bool:
    v = value.strip()
    if not v or looks_fake(v):
        return True
    if v[0] in "$<%[(#!@&*" or (v[0] == "{" and not v[:2] == "{{" and ("}" in v or v[1:].replace("_", "").isalnum()
                                                                        or v[-1] == ":")) \
            or _CALL.match(v):
        return True
    # (a %NAME% inside a literal, "TestSource%Password%", does not make the literal a reference)
    if whole_template(v) or ("${" in v or "{{" in v or "%(" in v) and _TEMPLATE.search(v):
        return True
    low = v.lower()
    if low in _PLACEHOLDER_WORDS or low[-1] == "?" and low[:-1] in _PLACEHOLDER_WORDS:  # ("string?": a type)
        return True
    if ("fake" in low or "dummy" in low or "mock" in low) and not any(c.isdigit() for c in v):
        return True  # somefakekey, a-fake-api-key (a random token with these letters has digits too)
    if all(c in _MASK_CHARS for c in v):
        return True
    if repeated(low):
        return True  # asdfasdfasdf...: a unit typed again and again
    if low.startswith(("your", "my_", "my-", "<", "insert", "replace", "change_me_", "changeme", "xxx")):
        return True
    if low.endswith(("_here", "-here", "here>")) or low.startswith(("os.", "process.env")):
        return True
    if " " in v and _DISCLAIMS.search(low):
        return True  # "not a valid password", "an invalid token": words that say the value is none
    return REFERENCE.match(v) is not None


_HOSTNAME = _LazyRe(r"[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,12}")  # sm02915.int.contoso.com


def high_entropy(value: str) -> bool:
    """Random-looking: 16+ characters, letters and digits, ~3+ bits per character, not a path or URL."""
    if not 16 <= len(value) <= 512 or " " in value or "://" in value or value[0] in "/~.":
        return False
    if not (any(c.isdigit() for c in value) and any(c.isalpha() for c in value)):
        return False
    if value.replace(".", "").replace("-", "").isdigit() or _HOSTNAME.fullmatch(value):
        return False
    counts = Counter(value)
    entropy = -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())
    return entropy >= 3.0




_TOKEN_RUN = _LazyRe(r"[A-Za-z0-9_\-]{20,512}")


_KEY_RUN = _LazyRe(r"[A-Za-z0-9_\-][A-Za-z0-9_+/\-]{19,511}={0,2}")
_WORDISH = _LazyRe(r"[A-Za-z][a-z]{2,}|[A-Z]{4,}")
_VOWELS = frozenset("aeiouyAEIOUY")
_CONSONANT_RUN = _LazyRe(r"[b-df-hj-np-tv-xzB-DF-HJ-NP-TV-XZ]{4}")


def counts_under(kind: tuple[str, bool | str], value: str) -> bool:
    """Whether ``value`` counts as the credential a key of this ``kind`` (key_kind's answer) holds: under a password
    key a plain word counts too ("root"), under a token or key only what ``value_ok`` accepts."""
    return (kind[0] == "password" and not kind[1]) or value_ok(kind[1] or True, value)


def value_ok(needs: bool | str, value: str) -> bool:
    """Whether ``value`` is random enough for a key that needs it (key_kind's second item)."""
    if not needs:
        return True
    if needs == HEADER_VALUE:
        digits = sum(c.isdigit() for c in value)  # ("oauth2", "http2": a word and a version, a scheme's name)
        return len(value) >= 6 and any(c.isalpha() for c in value) and (digits >= 2 or 0 < digits and not value[-1].isdigit())
    if needs == TOKEN_SHAPED and not _TOKEN_RUN.fullmatch(value):
        return False
    if needs == RANDOM_RUN and not _KEY_RUN.fullmatch(value):
        return False
    if b64_prose(value):
        return False
    if needs == RANDOM_RUN:
        words = sum(len(w) for w in _WORDISH.findall(value) if set(w) & _VOWELS and not _CONSONANT_RUN.search(w))
        if words * 2 >= len(value):
            return False
    return high_entropy(value)




# ------------------------------------------------------------------------ the patterns

KEY_CHARS = _ALNUM | set("_.-")
_ASSIGN = _LazyRe(
    r"(?P<key>[^\W\d][\w.\-]{0,80})(?:\[\])?(?P<kq>[\"']?)\]?[ \t]*"
    r"(?P<sep>:=|::?:=|=>|\?=|<-|\.=|=(?!=)|==(?!=)|:(?![:/])(?:[ \t]*(?:str|string|String|SecretStr)[ \t]*=(?!=)"
    # (any type, spaced or marked: `let password: String! = "v"`, `x: UITextField! = nil`; not `key: YnJvd3Nlcjo=`)
    r"|[ \t]*[A-Z][A-Za-z0-9_]{0,40}(?:[!?][ \t]*|[ \t]+)=(?!=))?"
    # Go's `var key string = "v"`; a call's `("KEY", "v")` (setProperty, getenv with a default)
    r"|(?<=[ \t])(?:string|String|str|&str|\[\]byte)[ \t]*=(?!=)|(?<=[\"']),(?=[ \t]*[\"'])"
    r"|(?<=[ \t])(?=[@rRbBuUfF]{0,2}[\"'`]))"
    r"(?P<sp>[ \t]*)(?:[@rRbBuUfF]{1,2}(?=[\"'`]))?"
    r"(?:\\\"(?P<eq>[^\"\r\n\\]{1,1024})\\\"|\"(?P<dq>[^\"\r\n]{1,1024})\"|'(?P<sq>[^'\r\n]{1,1024})'|`(?P<bq>[^`\r\n]{1,1024})`)?"
)
# An unquoted value runs to the next of these (found with a cached search, so many
# keys sharing one long run cost linear time, not run-length each).
_VAL_STOP = _LazyRe(r"[\s\"'`)}\]]")
_FLAG_STOP = _LazyRe(r"[\s\"'`\[(),;]")
_MAX_VALUE = 4096
# An unquoted value ends at , ; & when what follows is a space, a line's or the text's end, or another key=
# (query strings, connection strings, CSV); inside a value those characters are kept.
# It also ends at an escaped newline or tab ("\n") inside a JSON or C string.
_VALUE_CUT = _LazyRe(r"[,;&](?=[ \t]|\r?\n|\Z|[A-Za-z_][A-Za-z0-9_.\-]{0,40}=)|\\[nrt]")
KEYWORDS = ("pass", "pwd", "pw", "secret", "token", "key", "cred", "auth", "contrase", "bearer", "signature", "login",
            "community")
# CLI flags: --password hunter2 / --api-key=...
_FLAG = _LazyRe(
    r"--(?<![A-Za-z0-9_\-]--)(?P<key>(?:[A-Za-z0-9]+-){0,3}[A-Za-z]{0,12}(?i:password|passwd|token|secret|api-key|apikey))"
    r"(?:[ \t]+|=)(?P<q>[\"']?)"
)
# <password>hunter2</password>, < password > hunter2 </password>, <x name="password">hunter2</x>
_XML = _LazyRe(r"<[ \t]{0,20}(?P<tag>[A-Za-z_][A-Za-z0-9_.:\-]{0,60})(?P<attrs>[ \t\r\n][^<>]{0,512})?>"
               r"\s{0,200}(?P<val>[^<\s]{3,1024})\s{0,200}<[ \t]{0,20}/[ \t]{0,20}(?P=tag)[ \t]{0,20}>")
# One tag's attributes, walked one by one: <x name="password" value="..."/>, <password value="..."/>
_TAG_OPEN = _LazyRe(r"<[ \t]{0,20}(?P<tag>[A-Za-z_][A-Za-z0-9_.:\-]{0,60})(?=[\s/>])")
_ATTR = _LazyRe(r"\s+(?P<name>[A-Za-z_][A-Za-z0-9_.:\-]{0,60})\s*=\s*(?:\\?\"(?P<dq>[^\"\r\n\\]{0,1024})\\?\"|'(?P<sq>[^'\r\n]{0,1024})')")
_NAME_ATTRS = frozenset(("name", "key", "id", "property", "param", "field", "setting"))
_VALUE_ATTRS = frozenset(("value", "val", "content", "default", "defaultvalue"))
_MAX_ATTRS = 32
# .NET config: <add key="DbPassword" value="..." />; Dockerfile: ENV DB_PASSWORD hunter2
_XML_PAIR = _LazyRe(r"key=\\?\"(?P<key>[A-Za-z_][A-Za-z0-9_.:\-]{0,60})\\?\"\s+value=\\?\"(?P<val>(?:[^\"\r\n\\]|\\(?!\")){3,1024})\\?\"")
_ENV_LINE = _LazyRe(r"(?m:^[ \t]*ENV[ \t]+(?P<key>[A-Za-z_][A-Za-z0-9_]{0,60})[ \t]+(?P<val>[^\s=\"'][^\s\"']{2,1023})[ \t]*$)")
# password "x" (SQL, configs), password is 'x', .netrc's "password x" (only on a line with machine/login)
_SPOKEN = _LazyRe(
    r"(?i:\b(?:password|passwd|passphrase|pwd|secret|api[ _-]?key|token))"
    # "the password for user 'postgres' is 'admin'"
    r"(?:[ \t]+(?i:for)[ \t]+(?:(?i:the)[ \t]+)?(?i:user(?:name)?|account|login)[ \t]+[\"'`]?[^\s\"'`]{1,64}[\"'`]?)?"
    r"(?:[ \t]+(?i:is|was|of))?[ \t]+"
    r"(?:[\"'`](?P<q>[^\"'`\r\n]{3,256})[\"'`]|(?P<u>[^\s\"'`]{6,256}))"
)
_EOL_FOLLOW = frozenset("\r\n,;})")
_VARIABLE = _LazyRe(r"[a-z]+(?:_[a-z]+)+|[a-z]+(?:[A-Z][a-z]+)+")  # db_pass, accessToken
_AWS_SECRET = _LazyRe(r"[A-Za-z0-9/+]{40}")


def _value_at_eol(text: str, end: int) -> bool:
    n = len(text)
    i = end
    while i < n and text[i] in " \t":
        i += 1
    # (a comment after a space ends the value too: `password: root  # prod`)
    return i >= n or text[i] in _EOL_FOLLOW or (i > end and text[i] == "#")


def find_all(hay: str, needle: str):
    i = hay.find(needle)
    while i != -1:
        yield i
        i = hay.find(needle, i + 1)


class RunEnd:
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
    hits = sorted({i for kw in KEYWORDS for i in find_all(low, kw)})
    starts: list[int] = []
    prev_i, prev_j = -1, -1
    for i in hits:
        j = i
        while j > 0 and j - 1 > prev_i and text[j - 1] in KEY_CHARS:
            j -= 1
        if j - 1 == prev_i and prev_i >= 0 and j > 0 and text[j - 1] in KEY_CHARS:
            j = prev_j  # same run as the previous occurrence
        prev_i, prev_j = i, j
        if j >= 1 and text[j - 1] == "\\" and text[j] in "nrt" and i > j:
            j += 1  # "\napi_key=..." inside an escaped string: the key starts after \n
        if i - j <= 81 and (not starts or starts[-1] != j):
            starts.append(j)
    return starts


def _assigned(key: str, kind: str, start: int, value: str, anchor: int) -> _Cand | None:
    if "aws" in key.lower() and _AWS_SECRET.fullmatch(value) and any(c.isupper() for c in value) \
            and any(c.islower() for c in value):
        return (start, start + len(value), "aws-secret-access-key", 0, anchor)
    if kind in ("secret", "api-key") and _aws_wrong_length(key, value) or file_path(value):
        return None  # (GOOGLE_APPLICATION_CREDENTIALS=/home/me/key.json: where the key is kept)
    return (start, start + len(value), kind, 10, anchor)


_AWS_RUN = _LazyRe(r"[A-Za-z0-9/+]{16,}")
_AWS_OTHER = ("session", "token", "id", "arn", "region", "role", "bucket", "profile")


def _aws_wrong_length(key: str, value: str) -> bool:
    """An AWS secret key is exactly 40 characters: ``AWS_SECRET_ACCESS_KEY=<42 hex>`` or ``"AWS_key":<64>``
    is the format near-missed (scanners list such lines as must-not-fire), not some other credential.
    (Session tokens, ids, ARNs and the like are other keys, judged as before.) A random mixed-case value a
    little short of 40 (leaky-repo's 38) is a key cut short when copied: still most of a key, still redacted."""
    low = key.lower()
    return ("aws" in low and len(value) != 40 and _AWS_RUN.fullmatch(value) is not None
            and not any(w in low for w in _AWS_OTHER)
            and not (32 <= len(value) < 40 and value != value.lower() and high_entropy(value)))


_B64_VALUE = _LazyRe(r"[A-Za-z0-9+/]{16,}={0,2}")
_PROSE = _LazyRe(r"[a-z]+(?: [a-z]+){2,}")


def b64_prose(value: str) -> bool:
    """Base64 of plain lower-case words ("dummy text data data"): a sample, not a random key. A
    credential encoded in base64 decodes to random bytes or a random string, never to a sentence."""
    if _B64_VALUE.fullmatch(value) is None:
        return False
    try:
        raw = binascii.a2b_base64(value + "=" * (-len(value) % 4)).decode("ascii")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return False
    return _PROSE.fullmatch(raw.strip()) is not None


def assignments(text: str, low: str, out: list[_Cand]) -> None:
    run_end = RunEnd(text, _VAL_STOP)
    cut_at = RunEnd(text, _VALUE_CUT)
    for j in _keyword_starts(text, low):
        if j > 0 and text[j - 1] in KEY_CHARS and not (j >= 2 and text[j - 2] == "\\"):
            continue
        if j >= 2 and text.startswith("${", j - 2):
            continue  # ${DB_PASSWORD:-v} / ${x:?msg}: an expansion (its default is secret_pairs' to judge)
        if text.startswith("-D", j) and text[j + 2:j + 3].isalpha():
            j += 2  # java -Ddb.password=...: a system property set on the command line
        d = _NUMBERED_KEY.match(text, j)
        m = _ASSIGN.match(text, d.end() if d else j)  # (01_db_password: a YAML fixture's numbered key)
        if m is None:
            continue
        if text[max(0, j - 3) : j] == "://":
            continue  # URL user:password -- the url-password rule's job
        key = m.group("key")
        found = key_kind(key)
        if found is None:
            continue
        kind, needs_entropy = found
        if m.group("sep") == ":" and "." in key and key.islower() and not m.group("sp"):
            continue  # io.jsonwebtoken:jjwt-api: a Maven coordinate or a package, not a key
        if m.group("sep") == ",":
            if not m.group("kq"):
                continue
            if not default_of_a_call(text, j) and not set_by_a_call(text, j):
                needs_entropy = needs_entropy or True  # ("token", "bucket") is a list of words: only a random value counts
        # a compared or default value that is one plain word (get("token", "default")) is a word, not a secret
        plain_word_out = m.group("sep") == "==" or (m.group("sep") == "," and not set_by_a_call(text, j))
        if not m.group("sep") and m.group("eq") is None and m.group("dq") is None and m.group("sq") is None \
                and m.group("bq") is None:
            continue  # `private_key "..."` counts (HCL, SQL, prose); an unquoted word after a space does not
        for g in ("eq", "dq", "sq", "bq"):  # eq: \"...\" inside a JSON or C string
            if m.group(g) is not None:
                raw = m.group(g)
                value = raw.strip()
                # with no separator (`token "bucket"` is prose) a plain word does not count
                spaced_word = not m.group("sep") and value.replace(" ", "").replace("-", "").isalpha()
                if g == "bq" and " " in value:
                    break  # KEY=`etcdctl get /x`: a shell command's output, not a literal
                if concatenated(raw) or filled_at_run_time(text, value, text[m.end("sp"):m.start(g)], m.end(g) + 1):
                    break  # f"prefix_{x}", "prefix_{}".format(x): filled in at run time
                if self_named(key, value):
                    break  # secret_data = "secret-data": the key's own name as its stand-in
                if interface_text(value) or (plain_word_out and value.isalpha()) or named_field(kind, value) or (
                        not m.group("sep") and key.lower().replace("-", "_").rsplit("_", 1)[-1] == "pass"):
                    break  # (pass `debug=True`: the verb, in prose)  # "new_password": "Choose a new password.": a form's label, not the password
                if raw[:1].isspace() and kind != "password" and value.isalpha():
                    break  # token_str=' happiness': a word with its leading space, a tokenizer's piece
                if len(value) >= 3 and not spaced_word and not is_placeholder(value) and value_ok(needs_entropy, value):
                    s = m.start(g) + (len(raw) - len(raw.lstrip()))
                    _add(out, _assigned(key, kind, s, value, j))
                break
        else:
            if m.group("sep") == "==":
                continue  # password == expected: a comparison with a variable
            vstart = m.end()
            vend = min(run_end(vstart), cut_at(vstart), vstart + _MAX_VALUE)
            if vend - vstart > 256:
                # Long: not a placeholder unless it starts like one. Not sliced, so
                # "password=password=..." stays linear.
                if not needs_entropy and text[vstart] not in "$<{%[(#!@&*":
                    out.append((vstart, vend, kind, 10, j))
                continue
            value = text[vstart:vend]
            if len(value) < 3 or is_placeholder(value) or self_named(key, value):
                continue  # (access_token=ACCESS_TOKEN: the key's name as its own stand-in)
            if bare_reference(text, value, vend, bool(m.group("kq"))) or code_value(
                    kind, value, text[vend:vend + 1], bool(m.group("sp")), m.group("sep")):
                continue  # = MAIL_API_TOKEN;, {"password": new_password}, password={{pwd}}: filled in elsewhere
            if needs_entropy:
                if value_ok(needs_entropy, value):
                    _add(out, _assigned(key, kind, vstart, value, j))
                continue
            sep = m.group("sep")
            if sep[0] == ":" and sep != ":=":
                # YAML, headers -- and prose. Letters-only values count only for
                # password/secret keys and only at the end of a line.
                if value.isalpha() and not (kind in ("password", "secret") and _value_at_eol(text, vend)):
                    continue
            elif _VARIABLE.fullmatch(value) and not (key.isupper() and not m.group("sp")):
                continue  # `password=db_pass` is a variable unless env-style `DB_PASSWORD=...`
            elif m.group("sp") and value.isalpha() and value.islower():
                continue  # `password = getpass`: a name, not a literal
            if kind == "password" and value.startswith(("/", "~/", "./", "../")):
                continue  # PWD=/home/me
            _add(out, _assigned(key, kind, vstart, value, j))


_NUMBERED_KEY = _LazyRe(r"\d{1,4}_(?=[A-Za-z])")
def _add(out: list[_Cand], cand: _Cand | None) -> None:
    if cand is not None:
        out.append(cand)


def flags_xml_and_spoken(text: str, low: str, out: list[_Cand]) -> None:
    if "--" in text:
        run_end = RunEnd(text, _FLAG_STOP)
        for m in _FLAG.finditer(text):
            found = key_kind(m.group("key"))
            vs = m.end()
            ve = run_end(vs)
            q = m.group("q")
            if q and not text.startswith(q, ve):
                continue
            v = text[vs:ve]
            # (a word after --token is a mode or a file name; after --*-password a long one is the password)
            # (--ask-password https://host: a flag with no value, then the URL)
            if found and 3 <= len(v) <= 1024 and not is_placeholder(v) and "://" not in v and (
                    not v.isalpha() or (found[0] == "password" and len(v) >= 8)):
                out.append((vs, ve, found[0], 10, m.start()))
    for pattern, gate in ((_XML_PAIR, "value="), (_ENV_LINE, "ENV")):
        if gate in text:
            for m in pattern.finditer(text):
                found = key_kind(m.group("key"))
                v = m.group("val")
                if found and not is_placeholder(v) and value_ok(found[1], v):
                    out.append((m.start("val"), m.end("val"), found[0], 10, m.start()))
    if "</" in text:
        for m in _XML.finditer(text):
            found = key_kind(m.group("tag"))
            if not found and m.group("attrs"):
                found = _named_key(m.group("attrs"))  # <setting name="db_password">...</setting>
            v = m.group("val")
            if found and not is_placeholder(v) and value_ok(found[1], v):
                out.append((m.start("val"), m.end("val"), found[0], 10, m.start()))
    if "<" in text and "=" in text:
        _xml_attributes(text, out)
    for m in _SPOKEN.finditer(text):
        word = m.group(0).split(None, 1)[0].lower()
        kind = "password" if word.startswith(("pass", "pwd")) else "api-key" if word.startswith("api") else \
            "token" if word == "token" else "secret"
        if m.group("q") is not None:
            v, vs = m.group("q"), m.start("q")
            if is_placeholder(v) or (kind != "password" and (" " in v.strip() or v.isalpha())):
                continue  # `the token "bucket"`: a word, not a token
        else:
            v, vs = m.group("u"), m.start("u")
            if v[0] in "}])>":
                continue  # `token={{ .Values.token }}&x=1`: the template's close, not a value
            # .netrc: "machine host login me password x" -- bounded look back on the same line
            lo = max(0, m.start() - 200)
            before = low[low.rfind("\n", lo, m.start()) + 1 or lo : m.start()]
            netrc = kind == "password" and ("machine " in before or "login " in before)
            # unquoted: only a random-looking value (a word with digits), or .netrc's password field
            if is_placeholder(v) or not (netrc or (any(c.isdigit() for c in v) and any(c.isalpha() for c in v)
                                                  and not v.replace(".", "").isdigit() and v[-1] not in ".,;:")):
                continue
        out.append((vs, vs + len(v), kind, 10, m.start()))


def _named_key(attrs: str) -> tuple[str, bool | str] | None:
    """The credential a tag's name/key attribute names (``name="the_password"``), else None."""
    pos, n = 0, 0
    while n < _MAX_ATTRS:
        a = _ATTR.match(attrs, pos)
        if a is None:
            return None
        pos, n = a.end(), n + 1
        if a.group("name").lower() in _NAME_ATTRS:
            v = a.group("dq") if a.group("dq") is not None else a.group("sq")
            if v and len(v) <= 80:
                found = key_kind(v)
                if found:
                    return found
    return None


def _xml_attributes(text: str, out: list[_Cand]) -> None:
    """A credential in a tag's attributes, in either order and with spaces around ``=``:
    ``<add name="DbPassword" value="..."/>``, ``<x value="..." key='api_key'/>``,
    ``<password value="..."/>``. Each tag's attributes are walked once (at most 32 of them);
    a tag starting inside the previous one's attributes is skipped, so the walk is linear."""
    scanned_to = -1
    for t in _TAG_OPEN.finditer(text):
        if t.start() < scanned_to:
            continue
        tag_kind = key_kind(t.group("tag"))
        named, values = None, []
        pos, n = t.end(), 0
        while n < _MAX_ATTRS:
            a = _ATTR.match(text, pos)
            if a is None:
                break
            pos, n = a.end(), n + 1
            g = "dq" if a.group("dq") is not None else "sq"
            name, v = a.group("name").lower(), a.group(g)
            if name in _NAME_ATTRS and len(v) <= 80:
                named = named or key_kind(v)
            elif name in _VALUE_ATTRS:
                values.append((a.start(g), v))
        scanned_to = pos
        found = named or tag_kind
        if not found:
            continue
        for vs, v in values:
            stripped = v.strip()
            if len(stripped) >= 3 and not is_placeholder(stripped) and value_ok(found[1], stripped):
                s = vs + (len(v) - len(v.lstrip()))
                out.append((s, s + len(stripped), found[0], 10, t.start()))


def random_user(value: str) -> bool:
    """A URL's user part that is itself a credential (``https://<token>@host``, a Sentry DSN key)."""
    return len(value) >= 20 and "." not in value and high_entropy(value)
