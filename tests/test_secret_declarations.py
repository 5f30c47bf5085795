"""Connection strings, credential-taking calls and secret-named declarations with a default.

Written from the formats' documentation (ADO.NET / ODBC / libpq connection strings, PowerShell's
ConvertTo-SecureString, requests' ``auth=`` pair and smtplib/ftplib ``login``, Terraform variables and
CloudFormation parameters); the values are made up here, not copied from any scanner's corpus.
"""

from __future__ import annotations

import pytest

from server.guard.redact import redact
from tests.linear import assert_linear

PW = "Tq7vR2mXz9"


@pytest.mark.parametrize("text", [
    f"Server=db01;Database=app;User Id=sa;Password={PW};",
    f"Data Source=10.0.0.5,1433;Initial Catalog=Sales;User ID=report;Password={PW};Encrypt=True",
    f"Provider=SQLOLEDB;Server=db;Database=d;Uid=u;Pwd={PW};",
    f"Driver={{ODBC Driver 18 for SQL Server}};Server=tcp:db,1433;UID=u;PWD={{{PW}}};",
    f"DATABASE=sample;HOSTNAME=db2.example.com;PORT=50000;PROTOCOL=TCPIP;UID=db2inst1;PWD={PW};",
    f'<add name="Main" connectionString="Server=db;Database=d;User Id=u;Password={PW};" />',
    f"psql 'host=db port=5432 user=app password={PW} dbname=app'",
    f"Server=db;Database=d;User Id=u;Password=#{PW};",  # a literal starting with '#', not Ruby's #{...}
])
def test_a_connection_strings_password_is_redacted(text: str) -> None:
    assert PW not in redact(text).text


def test_a_connection_strings_sample_password_is_redacted_as_a_urls_is() -> None:
    assert redact("Server=s;Database=d;User Id=u;Password=myPassword;").text == \
        "Server=s;Database=d;User Id=u;Password=[REDACTED:password];"


@pytest.mark.parametrize("text", [
    "Server=s;Database=d;User Id=u;Password=<password>;",
    "Server=s;Database=d;User Id=u;Password=${DB_PASS};",
    "Server=s;Database=d;User Id=u;Password=$(DbPassword);",
    "Server=s;Database=d;User Id=u;Password={your_password};",
    "Server=s;Database=d;User Id=u;Password={0};",
    "Password=%DB_PASSWORD%;Server=x",
    "Server=s;Password=*****;",
    "Server=s;Database=d;Trusted_Connection=True;",
    "const host = cfg.host; const password = pwd;",
    "if pass==1; then x=2; fi",
])
def test_a_connection_strings_reference_and_code_stay(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize("text", [
    f'$pw = ConvertTo-SecureString "{PW}" -AsPlainText -Force',
    f"$pw = ConvertTo-SecureString -String '{PW}' -AsPlainText -Force",
    f'New-Object PSCredential("bob", (ConvertTo-SecureString "{PW}" -AsPlainText -Force))',
    f'requests.get(url, auth=("bob", "{PW}"))',
    f"r = httpx.get(url, auth=('bob', '{PW}'))",
    f'requests.get(url, auth=HTTPBasicAuth("bob", "{PW}"))',
    f'server.login(EMAIL, "{PW}")',
    f'smtp.login("me@example.com", "{PW}")',
    f'variable "db_password" {{\n  type      = string\n  sensitive = true\n  default   = "{PW}"\n}}',
    f'variable "api_token" {{ default = "{PW}" }}',
    f"Parameters:\n  DBPassword:\n    NoEcho: true\n    Type: String\n    Default: {PW}\n",
    f'Parameters:\n  MasterUserPassword:\n    Description: Admin password\n    Type: String\n    Default: "{PW}"',
])
def test_a_credential_given_to_a_call_or_a_secret_named_declaration_is_redacted(text: str) -> None:
    assert PW not in redact(text).text


@pytest.mark.parametrize("text", [
    "$pw = ConvertTo-SecureString $plain -AsPlainText -Force",
    '$password = Read-Host "Enter the password" -AsSecureString',
    "$token = Get-Secret -Name github",
    "$secret = Get-AzKeyVaultSecret -VaultName v -Name n",
    "requests.get(url, auth=(user, password))",
    "server.login(user, pw)",
    'client.login("alice", "<password>")',
    'variable "region" {\n  default = "eu-west-1"\n}',
    'variable "db_password" {\n  default = ""\n}',
    'variable "api_token" {\n  default = "${var.fallback}"\n}',
    "Parameters:\n  DBUser:\n    Type: String\n    Default: admin",
    "Parameters:\n  DBPassword:\n    Type: String\n    Default: ''",
    "Parameters:\n  InstanceType:\n    Type: String\n    Default: t3.micro",
])
def test_references_and_ordinary_declarations_stay(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize("text", [
    "Server=a;Password=" * 60_000,
    "host=a port=b password=" * 45_000,
    "Password=" + "x" * 1_000_000,
    "auth=(" * 200_000,
    'auth=("a", "' * 90_000,
    ".login(" * 150_000,
    'variable "db_password" {' * 40_000,
    "  Default: x\n" * 80_000,
    "Default:\n" * 110_000,
    "ConvertTo-SecureString '" * 40_000,
    'api_key = String::from("' * 40_000,
    "password = SecretStr(" * 50_000,
])
def test_the_declaration_rules_stay_linear(text: str) -> None:
    assert_linear(redact, text)


@pytest.mark.parametrize("text", [
    f'let api_key = String::from("{PW}");',
    f'let db_password: SecretString = SecretString::new("{PW}".to_string());',
    f'String password = new String("{PW}");',
    f'api_key = SecretStr("{PW}")',
])
def test_a_secret_named_variable_given_a_wrapped_literal_is_redacted(text: str) -> None:
    assert PW not in redact(text).text


@pytest.mark.parametrize("text", [
    'let api_key = String::from("");',
    f'let name = String::from("{PW}");',  # not named for a secret
    'password = SecretStr("changeme")',
    "let token = String::from(env_token);",
])
def test_a_wrapped_placeholder_or_an_ordinary_name_stays(text: str) -> None:
    assert redact(text).text == text
