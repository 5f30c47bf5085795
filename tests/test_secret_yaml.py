"""YAML values on the line after their key (block scalars, continued plain scalars) and in flow collections
(server/guard/secret_yaml.py). Values are our own."""

from __future__ import annotations

import pytest

from server.guard.redact import redact


@pytest.mark.parametrize("text, value", [
    ("api_key: |\n\t\t\tq7Zk2mWp9xL4vR8tY3nB6cJ1", "q7Zk2mWp9xL4vR8tY3nB6cJ1"),
    ("password: >-\n  Tr0ub4dor3", "Tr0ub4dor3"),
    ("db:\n  password:\n    Tr0ub4dor3\n  host: db", "Tr0ub4dor3"),
    ("list_api_key: [q7Zk2mWp9xL4vR8tY3nB6cJ1, w7Zk2mWp9xL4vR8tY3nB6cJ2]", "w7Zk2mWp9xL4vR8tY3nB6cJ2"),
    ("dict_app_key: {one: q7Zk2mWp9xL4vR8tY3nB6cJ1, two: w7Zk2mWp9xL4vR8tY3nB6cJ2}", "q7Zk2mWp9xL4vR8tY3nB6cJ1"),
    ("community_strings: ['s3cr3t1', 'pub2lic']", "pub2lic"),
])
def test_the_value_is_redacted(text, value):
    assert value not in redact(text).text


@pytest.mark.parametrize("text", [
    "password:\nhost: db",
    "password:\n  - a\n  - b",
    "token:\n  ${TOKEN}",
    "password: |\n  {{ .Values.password }}",
    "description: |\n  Some text here",
    "tokens: [read, write]",
    "password_policy: {min: 8, max: 64}",
    "secrets: [db-password, api-key]",
    "secret_key: [SECRET_KEY_1, SECRET_KEY_2]",
    "def f(password):\n    return hash(password)",
])
def test_not_a_value_stays(text):
    assert not redact(text).changed, redact(text).text
