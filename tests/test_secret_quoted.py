"""Random quoted runs in code and JSON (server/guard/secret_quoted.py) and a URL's token user with a throwaway
password (server/guard/redact.py): repo-supervisor's fixtures and 2ms' authenticated-URL rule, tuning-s37."""

from __future__ import annotations

import pytest

from server.guard.redact import redact


@pytest.mark.parametrize("text, secret", [
    ('  "FOO_BAR": "q28Wt3nAmLt_3NGpqi2qz-jQ7",', "q28Wt3nAmLt_3NGpqi2qz-jQ7"),
    ("const FOO_BAR_SECRET_LOOKS_LIKE_KEY_ID = 'zJd-55qmsY6LD53CRTqnCr_g-';", "zJd-55qmsY6LD53CRTqnCr_g-"),
    ("  getSecret: () => 'gm5yb-hJWRoS7ZJTi_YUj_tbU',", "gm5yb-hJWRoS7ZJTi_YUj_tbU"),
    ("    KEY_IDENTIFIER: 'GxC56B6x67anequGYNPsW_-TL',", "GxC56B6x67anequGYNPsW_-TL"),
    ('  "d7kyociU24P9hJ_sYVkqzo-kE": "foobar",', "d7kyociU24P9hJ_sYVkqzo-kE"),  # the key itself
])
def test_a_quoted_random_base64url_run_as_a_value_or_key_is_redacted(text, secret):
    r = redact(text)
    assert secret not in r.text and r.changed


@pytest.mark.parametrize("text", [
    'print("q28Wt3nAmLt_3NGpqi2qz-jQ7")',  # an argument, not a key's value
    '"integrity": "d41d8cd98f00b204e9800998ecf8427e"',  # hex digest: no - or _
    '"id": "550e8400-e29b-41d4-a716-446655440000"',  # a UUID
    'className: "navbar-brand_logo-container-wide"',  # words
    'const name = "getUserAccountSettings_v2Handler"',  # camelCase words
    '"videoId": "dQw4w9WgXcQ"',  # too short
    # generated ids share base64url's shape (a nanoid, a Firebase push id): a key that names a record keeps them
    '{"id": "V1StGXR8_Z5jdHi6B-myT", "name": "x"}',
    '{"userId": "V1StGXR8_Z5jdHi6B-myT"}',
    'const user_id = "V1StGXR8_Z5jdHi6B-myT"',
    "{'uuid': 'q28Wt3nAmLt_3NGpqi2qz-jQ7'}",
])
def test_ids_words_and_digests_in_quotes_are_left_alone(text):
    assert not redact(text).changed


def test_a_token_user_before_a_throwaway_password_is_redacted():
    r = redact("https://token12345abcdef:unused@hooks.slack.com/services/T000/B000/XXXX")
    assert "token12345abcdef" not in r.text
    r = redact("git clone https://ghp1a2b3c4d5e6f7g8h9:x-oauth-basic@github.com/o/r.git")
    assert "ghp1a2b3c4d5e6f7g8h9" not in r.text
    # a plain user name stays; only its password goes
    assert redact("https://deploy:s3cr3tPw@example.com/").text == "https://deploy:[REDACTED:url-password]@example.com/"



@pytest.mark.parametrize("text, secret", [
    (r'{\"password\":\"hunter2abc\"}', "hunter2abc"),  # JSON inside a string literal or a log line
    (r'"\"awsSecretKey\":\"3lyTWqHMt5UySny2drdPYheRTEzrNux8Cn5JWFHL\",\" +', "3lyTWqHMt5UySny2drdPYheRTEzrNux8Cn5JWFHL"),
    (r'curl -d "{\"api_key\": \"Zq8xK2mP9vL4wR7tY3nB6cJ1\"}"', "Zq8xK2mP9vL4wR7tY3nB6cJ1"),
])
def test_escaped_json_is_read_like_json_and_its_backslashes_stay(text, secret):
    r = redact(text)
    assert secret not in r.text and r.text.count("\\") == text.count("\\")


def test_escaped_json_without_a_credential_is_left_alone():
    assert not redact(r'log("{\"user\":\"bob\",\"token_url\":\"https://x\"}")').changed
