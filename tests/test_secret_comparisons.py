"""Classes read from session 36's spent part (KICS, gosec G101, bandit, eslint-plugin-no-secrets, horusec fixtures),
each written here with values of our own: a literal compared with a password variable in either order, a key
named ``<credential>_for_<use>``, ``cred``, a YAML ``value:`` child under a password-named key, a trailing
comment after a plain-word password, a Teams webhook on a tenant subdomain with ``_``; and on the must-not-fire
side a key named for what it is not and a value that is its key's own name.
"""

from __future__ import annotations

import pytest

from server.guard.redact import redact
from server.guard.secret_keys import key_kind


@pytest.mark.parametrize("text, value", [
    ('if "9c1e7f0b2a4d6e8f1a3c5e7b9d0f2a4c6e8b1d3f" == password {', "9c1e7f0b2a4d6e8f1a3c5e7b9d0f2a4c6e8b1d3f"),
    ('if password != "9c1e7f0b2a4d6e8f1a3c5e7b9d0f2a4c6e8b1d3f" {', "9c1e7f0b2a4d6e8f1a3c5e7b9d0f2a4c6e8b1d3f"),
    ('if user.password === "Tr0ub4dor"', "Tr0ub4dor"),
    ('if password == "letmein":', "letmein"),  # a plain word compared with a password is the password
    ("my_db_password_for_reports = 'k7$Qz!2mWp9#xL4vR'", "k7$Qz!2mWp9#xL4vR"),
    ('cred = "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdo"', "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdo"),
    ("staging-proxy-password:\n  value: hunter7x", "hunter7x"),
    ("db:\n  password: letmein  # staging", "letmein"),
    ("- url: https://contoso_eu.webhook.office.com/webhookb2/0f8fad5b-d9cb-469f-a165-70867728950e@"
     "c3f5a2b1-8d7e-4f6a-9b0c-1d2e3f4a5b6c/IncomingWebhook/3f7b2c1a9e8d4f6b0a1c2e3d4f5a6b7c/"
     "9f2b7c3e-1d4a-4e8b-a6c5-3f0d2e1b7a9c", "IncomingWebhook/3f7b2c1a9e8d4f6b0a1c2e3d4f5a6b7c"),
])
def test_the_credential_is_redacted(text, value):
    assert value not in redact(text).text


@pytest.mark.parametrize("text", [
    'if token == "Bearer":',  # a token compared with a scheme's name
    'if key != "name":',
    'if password == "":',
    "if (password !== confirmPassword)",
    'passwordForPassenger: "ok2"',  # a short word under a <credential>_for_<x> key (whispers' must-not-fire line)
    'const NOT_A_SECRET = "I\'m not a secret, I think";',
    'secret_data = "secret-data"',
    "description:\n  value: hello",
    "api_key: Optional[str] = None",
])
def test_a_look_alike_is_left_alone(text):
    assert redact(text).text == text


def test_key_kind_reads_for_and_negation():
    assert key_kind("my_secret_password_for_email") == ("password", True)
    assert key_kind("NOT_A_SECRET") is None and key_kind("no_password") is None
    assert key_kind("nonce_secret") == ("secret", False)  # "nonce" is not "non"
    assert key_kind("cred") == ("secret", True)
