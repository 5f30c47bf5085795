"""Password hashes: crackable credential material, never needed in a memory (decided in session 35).

A stored password hash is as good as the password to anyone with a GPU and a word list, and nothing a
coding assistant remembers needs one, so each full hash *shape* is redacted, written from the formats'
own specifications (crypt(5), passlib's and Django's hashers, RFC 2307's ``{SCHEME}`` values):

* **Modular crypt** (``$id$...``): bcrypt ``$2a$/$2b$/$2y$`` (also after Jenkins' ``#jbcrypt:`` and
  WordPress' ``$wp``), MD5-crypt ``$1$`` and Apache's ``$apr1$`` (``.htpasswd``), SHA-crypt ``$5$`` /
  ``$6$`` (``/etc/shadow``), yescrypt ``$y$``, scrypt ``$7$``, Cisco ``$8$`` / ``$9$``, phpass ``$P$`` /
  ``$H$``, Drupal ``$S$``, argon2 ``$argon2id$...``, passlib's ``$pbkdf2-sha256$`` / ``$scrypt$`` /
  ``$bcrypt-sha256$``, ``$sha1$``.
* **Frameworks**: Django's ``pbkdf2_sha256$<iterations>$<salt>$<hash>`` (and ``sha1$``/``md5$``),
  Werkzeug's ``pbkdf2:sha256:<iterations>$<salt>$<hex>`` and ``scrypt:N:r:p$...``, GRUB's
  ``grub.pbkdf2.sha512.<n>.<salt>.<hash>``.
* **Directories and databases**: LDAP ``{SSHA}``/``{SHA}``/``{SSHA512}``/``{CRYPT}``/``{PBKDF2...}``
  values, MySQL's ``*`` and 40 upper-case hex, PostgreSQL's ``md5`` and 32 hex and
  ``SCRAM-SHA-256$<iterations>:<salt>$<key>:<key>``, a pwdump/secretsdump line's ``LM:NT:::`` pair.

What stays: a bare hex digest (a file's sha256, a git SHA, a checksum) -- everyday text with no marker
of being a password's hash -- and a shape with a short or single-class hash part (``$1$ab$c``, a shell's
``$1$2``). Every pattern starts with its literal and repeats only bounded runs: linear on hostile input.
"""

from __future__ import annotations

from server.guard.lazyre import LazyRe as _LazyRe
from server.guard.secret_formats import Rule, mixed

_C = "[./A-Za-z0-9]"  # crypt's base64 alphabet
_END = r"(?![./A-Za-z0-9+=])"
_NOT_GLUED = r"(?<![A-Za-z0-9_$])"


def _random_tail(s: str) -> bool:
    """The hash part (after the last ``$``, ``:`` or ``}``) holds two classes of character: a random
    run, not a word or a shell's ``$1$2``."""
    tail = s[max(s.rfind("$"), s.rfind("}"), s.rfind(":")) + 1:]
    return len(tail) >= 16 and mixed(tail)


def _hash(regex: str, triggers: tuple[str, ...], check=_random_tail) -> Rule:  # type: ignore[no-untyped-def]
    return Rule("password-hash", _LazyRe(regex), triggers, check=check)


# Every shape that starts with "$" is one rule with one trigger (a substring test per trigger is the costliest
# step of a clean note, so thirty triggers would cost more than the rules themselves).
_MODULAR_CRYPT = "|".join((
    # bcrypt: "$2" + variant, two-digit cost, 22 characters of salt and 31 of hash.
    r"\$2[abxy]?\$[0-9]{2}\$" + _C + "{53}",
    # MD5-crypt, Apache's apr1, SHA-256/512-crypt (optional rounds=), Sun's md5: salt up to 16, hash 22-86.
    r"\$(?:1|apr1|5|6|md5(?:,rounds=[0-9]{1,9})?)\$(?:rounds=[0-9]{1,9}\$)?" + _C + r"{0,16}\$\$?" + _C + "{22,86}",
    r"\$sha1\$[0-9]{1,9}\$" + _C + r"{0,64}\$" + _C + "{28}",
    # yescrypt / gost-yescrypt ($y$params$salt$hash): a 43-character hash.
    r"\$g?y\$" + _C + r"{1,64}\$(?:" + _C + r"{0,86}\$)?" + _C + "{43}",
    # Cisco type 8 (PBKDF2) and 9 (scrypt): 14 of salt, 43 of hash.
    r"\$[89]\$" + _C + r"{14}\$" + _C + "{43}",
    # phpass (WordPress, phpBB): a cost character, 8 of salt, 22 of hash; Drupal 7's $S$: 43 of hash.
    r"\$[PH]\$" + _C + "{31}",
    r"\$S\$" + _C + "{52}",
    # argon2: $argon2id$v=19$m=65536,t=3,p=4$<salt>$<hash> (base64 without padding).
    r"\$argon2(?:id|i|d)\$(?:v=[0-9]{1,3}\$)?m=[0-9]{1,10},t=[0-9]{1,10},p=[0-9]{1,3}"
    r"(?:,[a-z]{1,8}=[^$\s]{0,64})?\$[A-Za-z0-9+/]{8,128}\$[A-Za-z0-9+/]{16,256}",
    # passlib: $pbkdf2-sha256$29000$<salt>$<hash>, $scrypt$ln=16,r=8,p=1$..., $bcrypt-sha256$v=2,t=2b,r=12$...
    r"\$(?:pbkdf2|scrypt|bcrypt-sha256)[-a-z0-9]{0,16}\$[^$\s]{1,64}\$[./A-Za-z0-9+=]{0,128}\$[./A-Za-z0-9+=]{16,512}",
))

HASH_RULES: tuple[Rule, ...] = (
    _hash("(?:" + _MODULAR_CRYPT + ")" + _END, ("$",)),
    # scrypt ($7$, 11 characters of parameters, the salt, "$", 43 of hash): the parameters are mostly
    # dots ("CU..../....", which reads as a placeholder), so the salt and hash are the span.
    Rule("password-hash", _LazyRe(r"\$7\$" + _C + r"{11}(" + _C + r"{0,64}\$" + _C + "{43})" + _END), ("$7$",),
         group=1, check=_random_tail),
    # Django: <algorithm>$<iterations>$<salt>$<base64 hash>; Werkzeug: pbkdf2:sha256:600000$<salt>$<hex>.
    _hash(_NOT_GLUED + r"pbkdf2(?:_sha(?:1|256|512)\$[0-9]{1,9}\$[A-Za-z0-9./+]{1,128}\$[A-Za-z0-9+/]{16,128}={0,2}"
          r"|:sha(?:1|256|512)(?::[0-9]{1,9})?\$[A-Za-z0-9./+]{1,64}\$[0-9a-f]{32,256})" + _END, ("pbkdf2",)),
    # Django's legacy sha1$/md5$<salt>$<hex>; Werkzeug's scrypt:32768:8:1$<salt>$<hex>.
    _hash(_NOT_GLUED + r"(?:sha1|md5)\$[A-Za-z0-9]{1,64}\$[0-9a-f]{32,40}" + _END, ("sha1$", "md5$")),
    _hash(_NOT_GLUED + r"scrypt:[0-9]{1,9}:[0-9]{1,3}:[0-9]{1,3}\$[A-Za-z0-9./+]{1,64}\$[0-9a-f]{32,256}" + _END, ("scrypt:",)),
    _hash(r"grub\.pbkdf2\.sha512\.[0-9]{1,9}\.[0-9A-F]{16,256}\.[0-9A-F]{16,256}" + _END, ("grub.pbkdf2.",),
          check=lambda s: True),
    # RFC 2307 / LDAP userPassword: {SCHEME} and the base64 (or crypt) value.
    _hash(r"\{(?:S?SHA(?:1|256|384|512)?|S?MD5|CRYPT|BCRYPT|ARGON2|PBKDF2(?:[-_][A-Z0-9]{1,12})?)\}"
          r"[A-Za-z0-9+/$.,=:\-]{16,512}" + _END, ("{",)),
    # MySQL's mysql_native_password: "*" and SHA1(SHA1(password)) in upper-case hex.
    _hash(r"(?<![A-Za-z0-9*])\*[0-9A-F]{40}(?![A-Za-z0-9])", ("*",), check=lambda s: mixed(s[1:])),
    # PostgreSQL: "md5" + md5(password + user), and SCRAM-SHA-256's stored key and server key.
    _hash(_NOT_GLUED + r"md5[0-9a-f]{32}(?![A-Za-z0-9_])", ("md5",), check=lambda s: mixed(s[3:])),
    _hash(r"SCRAM-SHA-256\$[0-9]{1,9}:[A-Za-z0-9+/=]{8,128}\$[A-Za-z0-9+/=]{16,128}:[A-Za-z0-9+/=]{16,128}",
          ("SCRAM-SHA-256$",)),
    # pwdump / secretsdump: user:rid:<LM hash>:<NT hash>::: -- the two 32-hex hashes.
    _hash(r"(?<![0-9A-Fa-f])[0-9A-Fa-f]{32}:[0-9A-Fa-f]{32}(?=:::)", (":::",), check=lambda s: True),
)
