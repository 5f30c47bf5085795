"""Values after a credential-named key that are code, not a literal, for server.guard.secret_assignments.

Found by running the detectors over the installed packages' own source (ordinary Python, docs and configs that hold
no secret): the key-value rules read these as credentials, and a memory that quotes such code would lose it.

* **An expression**: an index, slice or call (``key[:16]``, ``tokendefs[stack[-1]]``, ``Embedding(``), a negation
  (``-index``), a word ending in ``:`` (``token: str:`` in a docstring's parameter list), a decimal number (a
  weight table's ``"credentials": 0.531``).
* **A type annotation**: ``secret: PotentialSecret)``, ``private_key: PKCS7PrivateKeyTypes,``, ``password:
  SecretBytes`` -- a CamelCase name followed by ``)``, ``,``, ``=`` or ``]``, or ending in a type's word.
* **A name**: ``token = Punctuation`` (a capitalised word after a spaced ``=``), a token id (``eos_token = 102``:
  a short number set under a *token* key), a field's name (``"bos_token": "bos_token_id"``: lower-case words naming
  a credential's id, name or type), an ML tokenizer's special-token marker (``"<|endoftext|>"``, ``"[CLS]"``).
"""

from __future__ import annotations

from server.guard.lazyre import LazyRe as _LazyRe

_EXPRESSION = _LazyRe(r"-?[A-Za-z_][\w.]{0,80}[\[(]")
_NEGATION = _LazyRe(r"-[A-Za-z_]\w{0,40}\Z")
_HUMP = _LazyRe(r"[A-Z][a-z]*|[0-9]+|_")
_FLOAT = _LazyRe(r"-?\d+\.\d+(?:[eE]-?\d+)?\Z")
_TYPE_END = ("Type", "Types", "Str", "Bytes", "Secret", "Key", "Token", "Dict", "Model", "Config", "Settings")
_FIELD_NAME = _LazyRe(r"[a-z][a-z0-9]*(?:[_\-.][a-z][a-z0-9]*)+\Z")
_CREDENTIAL_WORDS = ("token", "secret", "password", "passwd", "key", "credential", "auth")
_FIELD_ENDS = ("_id", "_ids", "_name", "_type", "_field", "_path", "_file", "_index")


def _type_name(value: str) -> bool:
    """CamelCase made of words (``SecretBytes``, ``PKCS7PrivateKeyTypes``, ``UITextField``), not a random run with
    capitals in it (``Zx9Yw8Vu7Ts6``: its "words" are one lower-case letter long)."""
    if not (value[:1].isupper() and value.isascii() and value.replace("_", "").isalnum()):
        return False
    worded = [h for h in _HUMP.findall(value) if len(h) > 1 and h[1:].islower()]
    return len(worded) >= 2 and all(len(h) >= 3 for h in _HUMP.findall(value) if h[1:].islower() and len(h) > 1)


def code_value(kind: str, value: str, after: str, spaced: bool, sep: str) -> bool:
    """Whether an unquoted ``value`` (followed by the character ``after``, '' at the end) is code (module docstring)."""
    if _EXPRESSION.match(value) or _NEGATION.match(value) or value.endswith(":") or _FLOAT.match(value.rstrip(",;")):
        return True
    if sep[:1] == ":" and _type_name(value) and (after in "),=]" and after or value.endswith(_TYPE_END)):
        return True  # a type annotation
    if spaced and value.isalpha() and value.istitle() and sep[:1] == "=":
        return True  # token = Punctuation: a class or a constant
    return kind == "token" and value.isdigit() and len(value) <= 6 and sep == "="  # eos_token = 102: a tokenizer's id


def named_field(kind: str, value: str) -> bool:
    """Whether a quoted value names a field or marks a tokenizer's special token instead of holding a credential."""
    if _FIELD_NAME.match(value) and value.endswith(_FIELD_ENDS) and any(w in value for w in _CREDENTIAL_WORDS):
        return True  # "bos_token": "bos_token_id" ("plain_secret" is a stand-in scanners count: it stays)
    return kind == "token" and not any(c.isdigit() for c in value) and sum(value.count(c) for c in "<>[]|") >= 2
