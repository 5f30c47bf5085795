"""A credential key followed by a word that only says which one -- an environment, the store it opens, a version
(server/guard/secret_key_qualifiers.py): ``DB_PASSWORD_PROD``, ``DB_PASS_BD`` (KICS' Kubernetes env test), ``password_old``.
Values here are our own; the must-not-fire side holds the keys about a credential and the words left off the list.
"""

from __future__ import annotations

import pytest

from server.guard.redact import redact
from server.guard.secret_key_qualifiers import qualified_base
from server.guard.secret_keys import key_kind


@pytest.mark.parametrize("text, value", [
    ("DB_PASSWORD_PROD=hunter2go", "hunter2go"),
    ('ADMIN_PASSWORD_DEV: "Chang3d!"', "Chang3d!"),
    ('password_old = "letmein99"', "letmein99"),
    ("PASSWORD_DB=pwdb1234", "pwdb1234"),
    ('- name: DB_PASS_BD\n  value: "passq"', "passq"),
    ('- name: DB_PASS_BD_2\n  value: "passq"', "passq"),
    ("export SMTP_PASSWORD_STAGING='mailpw77'", "mailpw77"),
])
def test_a_qualified_password_key_holds_a_password(text, value):
    assert value not in redact(text).text


@pytest.mark.parametrize("key, kind", [
    ("DB_PASSWORD_PROD", ("password", False)),
    ("db_pass_bd_2", ("password", False)),
    ("API_KEY_STAGING", ("api-key", False)),
    ("SECRET_KEY_DEV", ("secret", False)),
])
def test_the_key_is_judged_by_the_words_before_its_qualifier(key, kind):
    assert key_kind(key) == kind


@pytest.mark.parametrize("key", ["password_length_prod", "token_url_dev", "password_hash_old", "PASSWORD_USER",
                                 "build_prod", "test", "prod_db"])
def test_keys_about_a_credential_or_none_stay_as_they_were(key):
    # the qualifier only strips: what is left is judged as before, so a key about a credential stays none
    assert key_kind(key) is None


def test_digits_alone_are_no_qualifier():
    assert qualified_base(["token", "2"]) is None
    assert qualified_base(["db", "pass", "bd", "2"]) == ["db", "pass"]
    assert qualified_base(["prod"]) is None


@pytest.mark.parametrize("text", [
    "password_length_prod = 12",
    'TOKEN_URL_DEV = "https://auth.example.test/token"',
    "PASSWORD_PROD=${PASSWORD_PROD}",
    'DB_PASSWORD_PROD = os.environ["DB_PASSWORD_PROD"]',
])
def test_must_not_fire(text):
    assert redact(text).text == text
