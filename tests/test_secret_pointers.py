"""A value that names a secret held elsewhere, or marks a deploy tool's slot, holds none (server/guard/secret_pointers.py).

Must-not-fire lines of several scanners (Nosey Parker's IAM policy ARN under a password-named key, checkov's role
ARN) and the way IaC is written: an ARN or a CloudFormation dynamic reference points at the secret store.
"""

from __future__ import annotations

import pytest

from server.guard.redact import redact
from server.guard.secret_pointers import replacement_token


@pytest.mark.parametrize("text", [
    'IAMUserChangePassword = "arn:aws:iam::aws:policy/IAMUserChangePassword"',
    "SecretId: arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-password-a1B2c3",
    'db_password_secret = "arn:aws-us-gov:secretsmanager:us-gov-west-1:123456789012:secret:MySecret-Ab12Cd"',
    "secret: !Sub '{{resolve:secretsmanager:MySecret:SecretString:password}}'",
    "MasterUserPassword: '{{resolve:ssm-secure:/prod/db/password:1}}'",
    'password = "__DB_PASSWORD__"',
    "token: @@API_TOKEN@@",
    # a secret manager's reference is looked up, not a value
    "DB_PASSWORD=op://prod/db/password",
    "password: ref+vault://secret/db#/password",
    "password: vault:secret/data/db#password",
    'password: "sm://projects/p/secrets/db"',
])
def test_a_pointer_or_a_slot_under_a_credential_key_is_left_alone(text):
    assert redact(text).text == text


@pytest.mark.parametrize("text, secret", [
    # a literal next to an ARN is still a literal
    ('role = "arn:aws:iam::123456789012:role/app"\npassword = "q8Vx2LmN4rTz"', "q8Vx2LmN4rTz"),
    # a value that merely has underscores around it is no slot when it is random
    ('password = "__9fQ2xL7vR3kP8mW4"', "9fQ2xL7vR3kP8mW4"),
    ("ghp_" + "aB3dE6gH9jK2mN5qR8tV1xY4zC7fG0iLaB3d", "ghp_"),
    ("PASSWORD=op://user:q8Vx2LmN4rTz@host", "q8Vx2LmN4rTz"),  # a URL's password in a reference-shaped value
])
def test_a_literal_beside_or_shaped_unlike_a_pointer_is_still_redacted(text, secret):
    assert secret not in redact(text).text


def test_the_slot_shape_is_whole_value_only():
    assert replacement_token("__DB_PASSWORD__") and replacement_token("@@TOKEN@@")
    assert not replacement_token("__init__x") and not replacement_token("a__B__") and not replacement_token("__x")


@pytest.mark.parametrize("text", [
    "sk_live_ReTllpYQYfIZu2Jnf2lAPFjD // pragma: allowlist secret",  # ripsecrets' must-not-fire line
    'password = "q8Vx2LmN4rTz"  # nosec B105',
    'api_key = "q8Vx2LmN4rTzWp7Kc9B1"  # gitleaks:allow',
    'TOKEN = "ghp_aB3dE6gH9jK2mN5qR8tV1xY4zC7fG0iLaB3d"  # ggignore',
])
def test_a_line_with_a_scanners_allowlist_comment_is_left_alone(text):
    assert redact(text).text == text


def test_the_allowlist_comment_covers_its_own_line_only_and_only_as_a_word():
    out = redact('password = "q8Vx2LmN4rTz"  # nosec\ntoken = "Zr5Kc9B1dE3fG5hJ6"').text
    assert "q8Vx2LmN4rTz" in out and "Zr5Kc9B1dE3fG5hJ6" not in out
    assert "q8Vx2LmN4rTz" not in redact('flags = "nosecrets"; password="q8Vx2LmN4rTz"').text


@pytest.mark.parametrize("text", [
    "password: \"{{ lookup('hashi_vault', 'secret=secret/db:password') }}\"",
    "password = base64decode(var.pw_b64)",  # a call whose lower-case name holds digits
])
def test_a_key_value_inside_a_template_expression_or_a_call_is_code(text):
    assert redact(text).text == text


def test_a_provider_token_inside_a_template_expression_is_still_redacted():
    token = "ghp_" + "aB3dE6gH9jK2mN5qR8tV1xY4zC7fG0iLaB3d"
    assert token not in redact("token: \"{{ '" + token + "' | b64encode }}\"").text
