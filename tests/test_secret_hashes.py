"""Password hashes are redacted: crackable credential material, never needed in a memory.

Each hash is built here from its format's specification (crypt(5), passlib's and Django's hashers,
RFC 2307), with a random salt and digest, never copied from a scanner's corpus. Ordinary hex digests --
a file's sha256, a git SHA, a checksum -- carry no marker of being a password's hash and stay.
"""

from __future__ import annotations

import base64
import hashlib
import random

import pytest

from server.guard.redact import redact
from tests.linear import assert_linear

CRYPT64 = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def run(n: int, alphabet: str = CRYPT64, seed: int = 0) -> str:
    rng = random.Random(seed * 1000 + n)
    while True:
        s = "".join(rng.choice(alphabet) for _ in range(n))
        if any(c.isdigit() for c in s) and any(c.isalpha() for c in s):
            return s


def hexrun(n: int, seed: int = 0, upper: bool = False) -> str:
    s = run(n, "0123456789abcdef", seed)
    return s.upper() if upper else s


DIGEST = hashlib.pbkdf2_hmac("sha256", b"correct horse", b"salt1234", 1000)

HASHES = {
    "bcrypt": "$2b$12$" + run(53, seed=1),
    "bcrypt 2y (PHP)": "$2y$10$" + run(53, seed=2),
    "MD5-crypt": "$1$" + run(8, seed=3) + "$" + run(22, seed=3),
    "Apache apr1": "$apr1$" + run(8, seed=4) + "$" + run(22, seed=4),
    "SHA-512-crypt": "$6$" + run(16, seed=5) + "$" + run(86, seed=5),
    "SHA-256-crypt with rounds": "$5$rounds=80000$" + run(16, seed=6) + "$" + run(43, seed=6),
    "yescrypt": "$y$j9T$" + run(22, seed=7) + "$" + run(43, seed=7),
    "scrypt $7$": "$7$CU..../....." + run(16, seed=8) + "$" + run(43, seed=8),
    "Cisco type 9": "$9$" + run(14, seed=9) + "$" + run(43, seed=9),
    "phpass": "$P$B" + run(30, seed=10),
    "Drupal 7": "$S$D" + run(51, seed=11),
    "argon2id": "$argon2id$v=19$m=65536,t=3,p=4$" + run(22, B64, 12) + "$" + run(43, B64, 12),
    "passlib pbkdf2-sha256": "$pbkdf2-sha256$29000$" + run(22, seed=13) + "$" + run(43, seed=13),
    "passlib scrypt": "$scrypt$ln=16,r=8,p=1$" + run(22, B64, 14) + "$" + run(43, B64, 14),
    "Django pbkdf2": "pbkdf2_sha256$600000$" + run(22, seed=15) + "$" + base64.b64encode(DIGEST).decode(),
    "Django legacy sha1": "sha1$" + run(5, seed=16) + "$" + hexrun(40, 16),
    "Werkzeug pbkdf2": "pbkdf2:sha256:600000$" + run(16, seed=17) + "$" + DIGEST.hex(),
    "Werkzeug scrypt": "scrypt:32768:8:1$" + run(16, seed=18) + "$" + hexrun(128, 18),
    "GRUB": "grub.pbkdf2.sha512.10000." + hexrun(64, 19, True) + "." + hexrun(128, 19, True),
    "LDAP SSHA": "{SSHA}" + base64.b64encode(hashlib.sha1(b"pw" + b"salt").digest() + b"salt").decode(),
    "LDAP SHA (htpasswd -s)": "{SHA}" + base64.b64encode(hashlib.sha1(b"hunter2").digest()).decode(),
    "LDAP SSHA512": "{SSHA512}" + base64.b64encode(hashlib.sha512(b"x").digest() + b"12345678").decode(),
    "MySQL native": "*" + hashlib.sha1(hashlib.sha1(b"pw").digest()).hexdigest().upper(),
    "PostgreSQL md5": "md5" + hashlib.md5(b"hunter2postgres").hexdigest(),
    "PostgreSQL SCRAM": "SCRAM-SHA-256$4096:" + run(24, B64, 20) + "$" + run(43, B64, 20) + "=:"
                        + run(43, B64, 21) + "=",
}


@pytest.mark.parametrize("value", list(HASHES.values()), ids=list(HASHES))
def test_a_password_hash_is_redacted_bare_and_in_its_usual_places(value: str) -> None:
    for text in (
        value,
        f"admin:{value}",  # .htpasswd, /etc/shadow's first two fields
        f'password_hash = "{value}"',  # our keys treat password_hash as no password: the shape decides
        f"<passwordHash>{value}</passwordHash>",
        f"The stored hash is {value} for the admin user.",
    ):
        out = redact(text)
        assert value not in out.text, text
        assert "password-hash" in out.kinds, text


def test_jenkins_jbcrypt_and_shadow_lines_lose_only_the_hash() -> None:
    bcrypt = "$2a$10$" + run(53, seed=30)
    out = redact(f"<passwordHash>#jbcrypt:{bcrypt}</passwordHash>").text
    assert out == "<passwordHash>#jbcrypt:[REDACTED:password-hash]</passwordHash>"
    sha512 = "$6$" + run(16, seed=31) + "$" + run(86, seed=31)
    assert redact(f"deploy:{sha512}:19700:0:99999:7:::").text == "deploy:[REDACTED:password-hash]:19700:0:99999:7:::"


def test_a_pwdump_line_loses_its_lm_and_nt_hashes() -> None:
    nt = hashlib.new("md5", b"x").hexdigest()  # any 32 hex: the NT hash is MD4, not in every hashlib
    line = f"Administrator:500:aad3b435b51404eeaad3b435b51404ee:{nt}:::"
    assert redact(line).text == "Administrator:500:[REDACTED:password-hash]:::"


@pytest.mark.parametrize("text", [
    "sha256sum: " + hashlib.sha256(b"release.tar.gz").hexdigest() + "  release.tar.gz",
    "commit " + hashlib.sha1(b"tree").hexdigest(),
    "md5: " + hashlib.md5(b"file").hexdigest(),
    "SHA1 " + hashlib.sha1(b"file").hexdigest().upper(),
    "integrity sha512-" + base64.b64encode(hashlib.sha512(b"pkg").digest()).decode(),
    "echo $1$2$3 and $5$HOME",
    "The format is $1$salt$hash, the hash being 22 characters of ./0-9A-Za-z.",
    "Use bcrypt ($2b$) with a cost of 12; argon2id ($argon2id$) is better.",
    "Django stores <algorithm>$<iterations>$<salt>$<hash> in auth_user.password.",
    "the {SSHA} scheme salts a SHA-1 digest",
    "bold *not a hash* here",
    "x = 9f86d081884c7d659a2feaa0c55ad015 # md5 of the fixture",
])
def test_ordinary_digests_and_talk_about_hash_formats_stay(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize("text", [
    "$2b$12$" * 150_000,
    "$1$" * 330_000,
    "$1$aaaaaaaaaaaaaaaa$" * 55_000,
    "$argon2id$v=19$m=1,t=1,p=1$" * 35_000,
    "pbkdf2_sha256$1$" * 60_000,
    "{SSHA}" * 160_000,
    "*" * 1_000_000,
    "md5" * 330_000,
    "0" * 32 + ":" + "0" * 32 + "::" + ":" * 900_000,
    "a" * 40 + ":::" * 300_000,
])
def test_the_hash_rules_stay_linear(text: str) -> None:
    assert_linear(redact, text)
