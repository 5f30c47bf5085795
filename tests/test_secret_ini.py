"""Values of INI-style files (server/guard/secret_ini.py): after a [section] header a spaced, unquoted plain word
under a password key is the password (my.cnf, odbc.ini, supervisord.conf); in code it stays a variable. Also the
passphrase keys and a Kubernetes Secret's stringData placeholders (server/guard/secret_kubernetes.py). Values are
our own."""

from __future__ import annotations

import pytest

from server.guard.redact import redact


@pytest.mark.parametrize("text, value", [
    ("[client]\nuser = root\npassword = bluefalcon\nhost = db.internal", "bluefalcon"),
    ("[ODBC Data Source]\nDriver = PostgreSQL\nPassword = tangerine", "tangerine"),
    ("[inet_http_server]\nport = 127.0.0.1:9001\nusername = admin\npassword = juniper ; set at install", "juniper"),
    ("[default]\naccess_key = AK12EXAMPLE\nsecret_key = q7Zk2mWp9xL4vR8tY3nB6cJ1aB3dE5fG", "q7Zk2mWp9xL4vR8tY3nB6cJ1aB3dE5fG"),
    ("[databases]\nauth_user = app\nauth_password = marmalade", "marmalade"),
    ("SSHPASSPHRASE: Kettle9Drum", "Kettle9Drum"),
])
def test_the_value_is_redacted(text, value):
    assert value not in redact(text).text


@pytest.mark.parametrize("text", [
    "password = getpass",  # code: a variable
    "def login():\n    password = user_input\n",
    "[security]\nrequire_password = true",
    "[db]\npassword = %(db_pass)s",
    "[db]\npassword = ${DB_PASSWORD}",
    "[db]\npassword_file = /run/secrets/db",
    "[db]\npassword = changeme",
    "[db]\npassword = password",
    "[db]\ntoken = noentropy",  # a token must look random
    "[db]\npassword =",
    "[auth]\npassword_min_length = 12",
    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\nstringData:\n  password: changeme\n  token: none\n",
])
def test_not_a_value_stays(text):
    assert not redact(text).changed, redact(text).text


def test_a_kubernetes_secret_literal_is_still_redacted():
    text = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\nstringData:\n  password: bluefalcon\n"
    assert "bluefalcon" not in redact(text).text
