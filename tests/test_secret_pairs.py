"""A secret named in one field and given in its sibling ``value`` field, or as a variable's fallback;
Java system properties on a command line. Written from the formats (Kubernetes/Compose env lists, ECS
and ARM name/value objects, CloudFormation ParameterKey/ParameterValue, Hadoop XML, POSIX parameter
expansion, Spring's ``${key:default}``); values made up here.
"""

from __future__ import annotations

import pytest

from server.guard.redact import redact
from tests.linear import assert_linear

PW, TOKEN = "Tq7vR2mXz9", "Xk9mP2vLq7wRt4zA8c"


@pytest.mark.parametrize("text", [
    f"env:\n  - name: DB_PASSWORD\n    value: {PW}\n  - name: LOG_LEVEL\n    value: debug",
    f'env:\n  - name: API_TOKEN\n    value: "{TOKEN}"',
    f'"environment": [{{"name": "DB_PASSWORD", "value": "{PW}"}}]',
    f'{{\n  "name": "ClientSecret",\n  "value": "{TOKEN}"\n}}',
    f'[{{"ParameterKey": "DBPassword", "ParameterValue": "{PW}"}}]',
    f"<property>\n  <name>fs.s3a.secret.key</name>\n  <value>{TOKEN}</value>\n</property>",
    f"POSTGRES_PASSWORD: ${{POSTGRES_PASSWORD:-{PW}}}",
    f"export DB_PASSWORD=${{DB_PASSWORD-{PW}}}",
    f'@Value("${{db.password:{PW}}}")',
    f"java -Ddb.password={PW} -jar app.jar",
    f"mvn deploy -Dgpg.passphrase={PW}",
])
def test_a_secret_named_by_a_sibling_field_or_given_as_a_fallback_is_redacted(text: str) -> None:
    assert PW not in redact(text).text and TOKEN not in redact(text).text


@pytest.mark.parametrize("text", [
    "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db\n      key: password",
    "- name: DB_PASSWORD\n  value: $(DB_PASS)",
    "- name: DB_USER\n  value: admin",
    "- name: SECRET_NAME\n  value: prod-db-secret",
    '{"name": "password_min_length", "value": "12"}',
    '{"key": "token", "value": "true"}',
    "${DB_PASSWORD:?must be set}",
    "${DB_PASSWORD:-}",
    "${A_TOKEN:-${B_TOKEN}}",
    "${LOG_LEVEL:-debug}",
    "java -Dpassword.length=12 -Dtoken.ttl=3600 -jar app.jar",
])
def test_references_and_ordinary_pairs_stay(text: str) -> None:
    assert redact(text).text == text


def test_only_the_fallback_is_redacted_not_the_expansion() -> None:
    assert redact(f"DB_PASSWORD=${{DB_PASSWORD:-{PW}}}").text == "DB_PASSWORD=${DB_PASSWORD:-[REDACTED:password]}"


@pytest.mark.parametrize("text", [
    "- name: DB_PASSWORD\n" * 50_000,
    '{"name": "x", ' * 70_000,
    "name: a value: " * 60_000,
    "<name>db.password</name>" * 40_000,
    "${DB_PASSWORD:-" * 60_000,
    "-D" * 400_000,
])
def test_the_pair_rules_stay_linear(text: str) -> None:
    assert_linear(redact, text)
