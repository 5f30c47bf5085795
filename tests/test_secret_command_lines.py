"""Passwords handed to more commands on their command line (session 35), written from the tools' own
usage text (oc/az/argocd/cf login, docker/podman --password-stdin, chpasswd, gh secret set, net user,
htpasswd -b, zip -P, 7z -p, xfreerdp /p:, ssh-keygen -N); values made up here. References stay.
"""

from __future__ import annotations

import pytest

from server.guard.redact import redact
from tests.linear import assert_linear

PW = "Tq7vR2mXz9"


@pytest.mark.parametrize("text", [
    f"oc login https://api.cluster:6443 -u admin -p {PW}",
    f"az login -u me@example.com -p {PW}",
    f"argocd login cd.example.io --username admin --password {PW}",
    f'cf login -a api.example.com -u me -p "{PW}"',
    f"echo {PW} | docker login -u me --password-stdin",
    f'printf "{PW}" | podman login quay.io -u me --password-stdin',
    f'echo "deploy:{PW}" | sudo chpasswd',
    f"gh secret set API_TOKEN --body {PW}",
    f"net user backup {PW} /add",
    f"htpasswd -bc /etc/nginx/.htpasswd admin {PW}",
    f"zip -P {PW} backup.zip notes.txt",
    f"7z a -p{PW} backup.7z dir",
    f"xfreerdp /v:host /u:admin /p:{PW}",
    f'ssh-keygen -t ed25519 -N "{PW}" -f id_deploy',
])
def test_a_password_on_these_command_lines_is_redacted(text: str) -> None:
    assert PW not in redact(text).text


@pytest.mark.parametrize("text", [
    "echo $CR_PAT | docker login ghcr.io -u me --password-stdin",
    "docker login -u me --password-stdin < token.txt",
    "oc login -u admin -p $OC_PASS",
    "az login --service-principal -u $APP_ID -p $SECRET --tenant $TENANT",
    'ssh-keygen -t ed25519 -N "" -f key',
    "net user backup * /add",
    "gh secret set API_TOKEN < token.txt",
    "zip -r out.zip dir",
    "htpasswd -c .htpasswd admin",
    "7z x archive.7z -o/tmp",
    "the login page has a -p flag",
])
def test_references_and_prompts_stay(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize("text", [
    "login -u a " * 100_000,
    "echo " + "a" * 999_970 + " | --password-stdin",
    "echo a | " * 110_000,
    "net user a b " * 80_000,
    "htpasswd -b " * 80_000,
    "zip " * 250_000,
    "7z -p" * 200_000,
    "secret set " * 90_000,
    "a:b@tcp(" * 120_000,
    "a:" * 400_000 + "@tcp(",
    "set password " * 75_000,
    "rabbitmqctl add_user " * 45_000,
])
def test_the_command_rules_stay_linear(text: str) -> None:
    assert_linear(redact, text)


@pytest.mark.parametrize("text", [
    f'dsn := "root:{PW}@tcp(localhost:3306)/app?parseTime=true"',
    f'db, err := sql.Open("mysql", "app:{PW}@unix(/var/run/mysqld/mysqld.sock)/app")',
    f"rabbitmqctl add_user admin {PW}",
    f"rabbitmqctl change_password admin '{PW}'",
    f"SET PASSWORD FOR 'bob'@'%' = PASSWORD('{PW}');",
    f"SET PASSWORD = '{PW}';",
])
def test_dsn_broker_and_sql_passwords_are_redacted(text: str) -> None:
    assert PW not in redact(text).text


@pytest.mark.parametrize("text", [
    'fmt.Sprintf("%s:%s@tcp(%s)/%s", user, pass, host, db)',
    'dsn := "root:@tcp(localhost:3306)/db"',
    "rabbitmqctl add_user admin",
    "SET PASSWORD = PASSWORD(@pw);",
])
def test_dsn_and_sql_templates_stay(text: str) -> None:
    assert redact(text).text == text
