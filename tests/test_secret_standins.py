"""A fixture's stand-in body after a provider's prefix is a format shown, not a key (server/guard/secret_standins.py).

Session 35's spent part (betterleaks' must-not-fire examples) put the word ``short`` or ``example`` or a run of
zeros where a key's random body goes; every rule matched them under its credential-named key.
"""

from __future__ import annotations

import pytest

from server.guard.redact import redact
from server.guard.secret_standins import stand_in


@pytest.mark.parametrize("text", [
    "AUTH0_CLIENT_SECRET=short",
    "BITRISE_TOKEN=too_short",
    'BRAVE_SEARCH_API_KEY="BSAshort"',
    "NGROK_AUTHTOKEN=2short_1short",
    "ASTRA_DB_APPLICATION_TOKEN=AstraCS:short",
    "WORKOS_API_KEY=sk_test_example",
    "CARTESIA_API_KEY=sk_car_00000000000000000000",
    "LANGFUSE_SECRET_KEY=sk-lf-00000000-0000-0000-0000-000000000000",
])
def test_a_stand_in_body_under_a_credential_key_is_left_alone(text):
    assert redact(text).text == text


@pytest.mark.parametrize("text, secret", [
    # AWS's documented example *secret* key stays redacted on purpose (scanners label it a secret)
    ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("aws_access_key_id = AKIAQ3EGRX7ZPB2VNH5K", "AKIAQ3EGRX7ZPB2VNH5K"),  # a key id without the marker
    ("secret = not_9fQ2xL7vR3kP8mW4", "not_9fQ2xL7vR3kP8mW4"),  # a disclaiming word, then a random run
    ("AUTH0_CLIENT_SECRET=shortcut-9fQ2xL7vR3kP8mW4", "shortcut-9fQ2xL7vR3kP8mW4"),  # "short" inside a word
    ("NEON_API_KEY=napi_k3j9x2m8q7w5e4r1t6y0u8i2o3p5a7s9d1f3g5h7j9k2l4z6x8c0v2", None),
    ("token = ghp_000000000000000000000000000000009a8b", "ghp_000000000000000000000000000000009a8b"),  # zeros, then more
])
def test_a_real_looking_value_is_still_redacted(text, secret):
    out = redact(text).text
    assert out != text
    if secret:
        assert secret not in out


def test_the_check_is_on_whole_words_and_trailing_zeros_only():
    assert stand_in("sk_live_short") and stand_in("re_short") and stand_in("sk_test_example")
    assert not stand_in("shortcut") and not stand_in("counterexample") and not stand_in("EXAMPLEKEY")
    assert stand_in("x_" + "0" * 16) and not stand_in("x_" + "0" * 15) and not stand_in("0" * 20 + "a")


@pytest.mark.parametrize("text", [
    # AWS's documentation access key ids: gitleaks, detect-secrets and checkov list them as must-not-fire
    "aws_access_key: AKIAIOSFODNN7EXAMPLE",
    '"access_key": "AKIAIOSFODNN7EXAMPLE",',
    "AWS_ACCESS_KEY_ID=AKIAI44QH8DHBEXAMPLE",
    # plain words that disclaim themselves
    "aws_secret_access_key: not_secret_key",
    'secret = "not-a-real-secret"',
    'SECRET_KEY = "insecure-dev-key"',
])
def test_a_documentation_key_id_or_a_disclaiming_value_is_left_alone(text):
    assert redact(text).text == text


def test_an_example_key_id_next_to_its_secret_key_still_anchors_the_secret():
    out = redact("AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY").text
    assert "wJalrXUtnFEMI" not in out
