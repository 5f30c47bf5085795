"""Credentials handed to a call or a declaration whose *shape*, not a key next to the value, says what it is.

* **PowerShell**: ``ConvertTo-SecureString "<literal>" -AsPlainText`` turns a plain-text password into a
  credential; the literal is the password.
* **Basic-auth pairs**: ``auth=("user", "<password>")`` (requests, httpx), ``HTTPBasicAuth(user,
  "<password>")``, ``BasicAuth(...)``, and a login call's second argument (``smtp.login(user, "<pw>")``,
  ``ftp.login("u", "<pw>")``): the second string is a password.
* **A secret-named variable given a wrapped literal**: ``let api_key = String::from("<literal>")``,
  ``String password = new String("...")``, ``SecretStr("...")``, ``Secret::new(...)``.
* **A declared variable or parameter named for a secret, with a default**: Terraform's
  ``variable "db_password" { default = "<literal>" }`` and CloudFormation's ``DBPassword:`` parameter with
  ``Default: <literal>`` -- the default is the secret, committed with the template.

The name is judged by server.guard.secret_assignments.key_kind (``password_hash``, ``token_url``,
``api_key_id`` are not secrets); placeholders and references stay (is_placeholder). Each pattern starts with
a literal and repeats only bounded runs, and a declaration's body is searched at most a few hundred
characters on: linear on hostile input.
"""

from __future__ import annotations

from server.guard.lazyre import LazyRe as _LazyRe
from server.guard.secret_assignments import find_all, is_placeholder, key_kind, looks_fake

_Cand = tuple[int, int, str, int, int]

_SECURE_STRING = _LazyRe(
    r"(?i:convertto-securestring[ \t]+(?:-string[ \t]+)?)([\"'])([^\"'\r\n]{1,256})\1[^\r\n|;]{0,60}?(?i:-asplaintext)")
# Matched at each occurrence of its literal (a scan of every position cost more than the rest of the module):
# "auth" = (...) / [...], and BasicAuth( / DigestAuth( / .login( (HTTPBasicAuth ends in BasicAuth).
_PAIR_REST = (r"[ \t]*(?:([\"'])[^\"'\r\n]{0,128}\1|[A-Za-z_][A-Za-z0-9_.\[\]\"']{0,64})[ \t]*,[ \t]*([\"'])([^\"'\r\n]{1,256})\2"
              r"[ \t]*[)\],]")
_AUTH_PAIR = _LazyRe(r"auth[ \t]*=[ \t]*[(\[]" + _PAIR_REST)
_CALL_PAIR = _LazyRe(r"(?:BasicAuth|DigestAuth|\.login)\(" + _PAIR_REST)
# A secret-named variable given a literal wrapped in a constructor: Rust String::from / SecretString::new,
# Java new String / String.valueOf, pydantic SecretStr, secrecy's Secret::new. Found at the wrapper's name,
# the variable then read backwards from it (at most _BEFORE characters).
_WRAPPERS = ("new String(", "String::from(", "String.valueOf(", "SecretStr(", "SecretString(", "SecretString::new(",
             "SecretString::from(", "Secret(", "Secret::new(", "SecretBox::new(", "Zeroizing::new(")
_WRAPPED_ARG = _LazyRe(r"[ \t]*[\"']([^\"'\r\n]{1,256})[\"'][ \t]*(?:\.[a-z_]{1,20}\(\))?[ \t]*\)")
_ASSIGNED_TO = _LazyRe(r"(?<![A-Za-z0-9_])([A-Za-z_][A-Za-z0-9_]{0,80})[ \t]*(?::[ \t]*[A-Za-z_][A-Za-z0-9_<>&:]{0,40}[ \t]*)?"
                       r"=[ \t]*\Z")
_BEFORE = 140
_TF_VARIABLE = _LazyRe(r"variable[ \t]+\"([A-Za-z0-9_\-]{1,80})\"[ \t]*\{")
_TF_DEFAULT = _LazyRe(r"(?m:^[ \t]*|\{[ \t]*)default[ \t]*=[ \t]*\"([^\"\r\n]{1,256})\"")
_CFN_DEFAULT = _LazyRe(r"(?m:^([ \t]+)Default:[ \t]*([\"']?)([^\s\"'#][^\"'\r\n#]{0,255}?)\2[ \t]*\r?$)")
_YAML_KEY = _LazyRe(r"([ \t]*)([A-Za-z0-9_\-]{1,80}):[ \t]*\r?$")
_BODY = 600  # characters of a declaration searched for its default
_UP = 12  # lines walked up from a CloudFormation Default: to its parameter


def _named_for_a_secret(name: str) -> str | None:
    found = key_kind(name)
    return None if found is None or found[1] else found[0]


def _literal(value: str) -> bool:
    v = value.strip()
    return bool(v) and not is_placeholder(v) and not looks_fake(v)


def declarations(text: str, out: list[_Cand]) -> None:
    if "-asplaintext" in text.lower():
        for m in _SECURE_STRING.finditer(text):
            if _literal(m.group(2)):
                out.append((m.start(2), m.end(2), "password", 9, m.start()))
    if "auth" in text or "Auth(" in text or ".login(" in text:  # (HTTPBasicAuth( holds no lower-case "auth")
        for lit, regex in (("auth", _AUTH_PAIR), ("BasicAuth(", _CALL_PAIR), ("DigestAuth(", _CALL_PAIR),
                           (".login(", _CALL_PAIR)):
            for i in find_all(text, lit):
                if lit == "auth" and i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_"):
                    continue
                m = regex.match(text, i)
                if m is not None and _literal(m.group(3)):
                    out.append((m.start(3), m.end(3), "password", 9, m.start()))
    if "String" in text or "Secret" in text or "Zeroizing" in text:
        for lit in _WRAPPERS:
            for i in find_all(text, lit):
                arg = _WRAPPED_ARG.match(text, i + len(lit))
                var = _ASSIGNED_TO.search(text, max(0, i - _BEFORE), i) if arg is not None else None
                if var is None:
                    continue
                kind = _named_for_a_secret(var.group(1))
                if kind is not None and _literal(arg.group(1)):
                    out.append((arg.start(1), arg.end(1), kind, 9, var.start()))
    if "variable" in text and "default" in text:
        for m in _TF_VARIABLE.finditer(text):
            kind = _named_for_a_secret(m.group(1))
            if kind is None:
                continue
            close = text.find("\n}", m.end(), m.end() + _BODY)
            d = _TF_DEFAULT.search(text, m.end() - 1, close if close >= 0 else min(len(text), m.end() + _BODY))
            if d is not None and _literal(d.group(1)):
                out.append((d.start(1), d.end(1), kind, 9, m.start()))
    if "Default:" in text:
        _cloudformation_defaults(text, out)


def _cloudformation_defaults(text: str, out: list[_Cand]) -> None:
    for d in _CFN_DEFAULT.finditer(text):
        indent = len(d.group(1).expandtabs())
        pos = d.start()
        for _ in range(_UP):  # up to the parameter's own line: the first line above indented less
            if pos <= 0:
                break
            start = text.rfind("\n", max(0, pos - 1 - _BODY), pos - 1) + 1
            line = text[start:pos - 1]
            body = line.lstrip(" \t")
            if body.strip() and not body.startswith("#") and len(line[:len(line) - len(body)].expandtabs()) < indent:
                key = _YAML_KEY.fullmatch(line)
                kind = _named_for_a_secret(key.group(2)) if key is not None else None
                if kind is not None and _literal(d.group(3)):
                    out.append((d.start(3), d.end(3), kind, 9, start))
                break
            pos = start
