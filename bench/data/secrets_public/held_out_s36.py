"""Build held_out_s36.json: four more sources of secret-scanner and linter test material, held out (session 36).

    python bench/data/secrets_public/held_out_s36.py

Typed from the files (repository, commit and path per file below) and committed before any detector here ran
on them. None of the five was read here before:

* Checkmarx/kics (Apache-2.0): the tests of its "Passwords And Secrets" query
  (``assets/queries/common/passwords_and_secrets/test/``): ``positiveN.*`` files hold what the query must report
  (the lines their ``# positive`` marks or header comments name), ``negativeN.*`` files what it must not
  (variables, CloudFormation ``!Ref`` / ``!GetAtt``, Ansible ``{{ ... }}`` lookups, empty strings). IaC text:
  Kubernetes, CloudFormation, Ansible, Terraform, Dockerfiles, docker-compose, OpenAPI, CI files.
* securego/gosec (Apache-2.0): ``testutils/g101_samples.go``, the Go programs its G101 rule (hard-coded
  credentials) must report (issue count 1) and must not (count 0).
* PyCQA/bandit (Apache-2.0): ``examples/hardcoded-passwords.py``, the Python its B105/B106/B107 checks report
  (each finding named in a comment above it) and the lines around them.
* nickdeis/eslint-plugin-no-secrets (MIT): ``tests/lib/rules/no-secrets.ts``, the JavaScript its rule must
  report (invalid) and must accept (valid with default options).
* ZupIT/horusec (Apache-2.0): ``internal/services/engines/leaks/samples.go``, the vulnerable and safe sample of
  each of its leak rules (HS-LEAKS-1..28).

One case per line (a nested YAML item keeps its parent key line; a Kubernetes env entry is its name and value;
a JSON environment entry is its object). Labels as the source says, with the exceptions listed in ``SKIPPED``.
``secret`` is set per case (the value of the assignment, the password of a URL, the token in a header).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
KICS, GOSEC, BANDIT, ESL, HORUSEC = ("Checkmarx/kics", "securego/gosec", "PyCQA/bandit",
                                     "nickdeis/eslint-plugin-no-secrets", "ZupIT/horusec")
LICENSES = {KICS: "Apache-2.0", GOSEC: "Apache-2.0", BANDIT: "Apache-2.0", ESL: "MIT", HORUSEC: "Apache-2.0"}
OTHER_CORPORA = ("gitleaks.json", "detect_secrets.json", "noseyparker.json", "kingfisher.json", "held_out.json",
                 "kingfisher_3.json", "kingfisher_4.json", "kingfisher_5.json", "held_out_secretlint_trivy.json",
                 "held_out_s34.json", "held_out_s35.json")
K = "assets/queries/common/passwords_and_secrets/test/"
GOSEC_C, GOSEC_P = "29a042eca11db9ff0b3985146c5dd3ac46bbd24e", "testutils/g101_samples.go"
BANDIT_C, BANDIT_P = "027a8cb6144fa8c6fdaa92a5f843f3d54d1f6414", "examples/hardcoded-passwords.py"
ESL_C, ESL_P = "4fd279c26827716fbc001fa6fd7d5e60bd35c751", "tests/lib/rules/no-secrets.ts"
HOR_C, HOR_P = "8c1c387122de10c6770071393ad804e0bb4b0339", "internal/services/engines/leaks/samples.go"
HEX40 = "f62e5bcda4fae4f82370da0c6f20697b8f8447ef"
KJ = "KjasdlkjapoIKLlka98098sdf012U/rL2sLdBqOHQUlt5Z6kCgKGDyCFA=="
ZW = "ZWVTjPQSdhwRgl204Hc51YCsritMIzn8B=/p9UyeX7xu6KkAGqfm3FJ+oObLDNEva"
GHP = "ghp_iR54dhCYg9Tfmoywi9xLmmKZrrnAw438BYh3"
TEAMS = ("https://team_name.webhook.office.com/webhookb2/7aa49aa6-7840-443d-806c-08ebe8f59966@c662313f-14fc-43a2-9a7a-"
         "d2e27f4f3478/IncomingWebhook/8592f62b50cf41b9b93ba0c0a00a0b88/eff4cd58-1bb8-4899-94de-795f656b4a18")
SQ_OAUTH = "sq0csp-0p9h7g6f4s3s3s3-4a3ardgwa6ADRDJDDKUFYDYDYDY"
HOR_KEY = ("-----BEGIN PRIVATE KEY-----MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQDBj08sp5++4anGcmQxJjAkBgNVBAoT"
           "HVByb2dyZXNzIFNvZnR3YXJlIENvcnBvcmF0aW9uMSAwHgYDVQQDDBcqLmF3cy10ZXN0LnByb2dyZXNzLmNvbTCCASIwDQYJKoZIhvcNAQEB"
           "BQAD...bml6YXRpb252YWxzaGEyZzIuY3JsMIGgBggrBgEFBQcBAQSBkzCBkDBNBggrBgEFBQcwAoZBaHR0cDovL3NlY3VyZS5nbG9iYWxz"
           "aWduLmNvbS9jYWNlcnQvZ3Nvcmdhz3P668YfhUbKdRF6S42Cg6zn-----END PRIVATE KEY-----")

OPENSSH_KEY = """-----BEGIN OPENSSH PRIVATE KEY-----
b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAaAAAABNlY2RzYS
1zaGEyLW5pc3RwMjU2AAAACG5pc3RwMjU2AAAAQQTTD+Q+10oNWDzXxx9x2bOobcXAA4rd
jGaQoqJjcXRWR2TS1ioKvML1fI5KLP4kuF3TlyPTLgJxlfrJtYYEfGHwAAAA0FjbkWRY25
FkAAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBNMP5D7XSg1YPNfH
H3HZs6htxcADit2MZpCiomNxdFZHZNLWKgq8wvV8jkos/iS4XdOXI9MuAnGV+sm1hgR8Yf
AAAAAgHI23o+KRbewZJJxFExEGwiOPwM7gonjATdzLP+YT/6sAAAA0cm9nZXJpb3AtbWFj
Ym9va0BSb2dlcmlvUC1NYWNCb29rcy1NYWNCb29rLVByby5sb2NhbAECAwQ=
-----END OPENSSH PRIVATE KEY-----"""
PUTTY_KEY = '"' + """PuTTY-User-Key-File-2: ssh-rsa
Encryption: none
Comment: rsa-key-20200108
Public-Lines: 6
AAAAB3NzaC1yc2EAAAABJQAAAQEAqAqCgv1dG+bcrnuqj39WYgCCGT8lYNe31Ak1
nIyZ38Nocz4YRQ6dRizmr4SSO7J1+py1aOLttCI50gZjtqXl2ZhItkihETdWW4Sw
8WirLI1s8RdycWu4pwidUabiOEiOfP5Bh+1kwWXrC/BX0Fxjl0RNSKTTT4jJZLDy
io5INi8NXmrTTc3rzy90uQrip3nVBSwuQtCJSAr8yrXSf5hJ9plKUt2iC5TCKXdS
1nnF4DddNM5wjTX24NXsF1JFsI1qpXYoGSF7mHDzreNS70Vn75sOk3HwQ7MtZWyy
+kR2ZewwtUaODj4xLNGawERjpwbOtdaJdHtmh0sP6MCdopd3RQ==
Private-Lines: 14
AAABAGz/5fQZ9zSxbIzamCW6YYutTXgo9aaZw1kauv3C/AbD8Ll0YsUCj4d3Eiyp
BOhzwiYEyLK8tdyglDU0k7S+ou4B6fmykf1UU7D8H78vIux3aUJwEuHJVS4TbPax
cCSCFzxR5VFACgDoKcKOD3JlcQgsTc5BZnjHbeByxtZqIQCMK5KGq+dHP/oYLWwr
mtxU3GiMr/qiLUwh9C7Lgo+ZmsbYxxGUf4wx2W26sPsNW9AVZT7hGSW/KxpzufZW
lcF5b+WOt1LtnJKKqj1HiSTxPFIED1iEpppo4+HW6ikiZcEsGNU0pPK8T4C/l045
8Ff7cAzSuEoWdQ9zxHS6SM8ngK0AAACBANvnhGzvvVkpSdz2hRGGPVuZAXexIU7P
R8E7Fdut3x5Slly1mwxcZ1lp/92ZSXStJyPjEerSj/1Hhs4qSDbLKiBpfA1CY2Jo
FaePO7J8dxySMwurE8dMzoZjFNsmAkYLONuWY7yarmBzE5hvdcrOyljQmAih0YrC
SZp2wzDpxmd9AAAAgQDDn6wdWYK6rwBRu8KXuDmloFHR70qJ+LmNx3uNiaxdBsoQ
DNL7tws5i6JPD3u4/O89O3bUSx9B0IdfO+89Wx1oZL4VjDpyeRrbAC6tBIUOXvcV
6pGoHi2dBiyEKi0o0OSu1jGofVgrfev5DYqbpe4pJs76CxyR99mmk148eXQpaQAA
AIEAld+qxTyO3unJrAg8JOnFLoLZ7wk0lyN0UyzuRp7c6HYPqrrdOWktGAVHPXVP
olYDB4PYZoNtjJgLvZhVIFtUEVk5y6swaRA6jde+363UXZZEKS5ZIi7Acgownv4Z
7nPANzK0ZdsZELEVR9kSB/Z690LV2IKovh9bAbmhveEcMLQ=
Private-MAC: 8d9cbf92b0e8f23309a9ebea525aae27d4fdbbdd""" + '"'  # the heredoc quotes the key file


def hor(key: str, value: str) -> tuple[str, str]:
    """A horusec vulnerable sample: one docker-compose environment entry."""
    return f"{key}: '{value}'", value


# (repo, commit, path, group, label, [line or (line, secret)]); every secret line names its secret
FILES: list[tuple[str, str, str, str, str, list]] = [
    # ------------------------------------------------------------------ KICS: positives
    (KICS, "9781f5ef7815e6da7c95462d4fd225469817fc68", K + "positive1.yaml", "kics k8s secret password", "secret", [
        ('stringData:\n  password: "root"', "root"),
    ]),
    (KICS, "9781f5ef7815e6da7c95462d4fd225469817fc68", K + "positive1.yaml", "kics k8s secret password", "benign", [
        "type: kubernetes.io/basic-auth",
        "metadata:\n  name: secret-basic-auth",
    ]),
    (KICS, "4c4d48112e794816fd19f318dcd68b41a22e4479", K + "positive2.yaml", "kics cloudformation password", "secret", [
        ("MasterUserPassword: root", "root"),
    ]),
    (KICS, "4c4d48112e794816fd19f318dcd68b41a22e4479", K + "positive2.yaml", "kics cloudformation password", "benign", [
        'Type: "AWS::RDS::DBCluster"',
        "DBClusterIdentifier: my-serverless-cluster",
        "EngineVersion: 5.6.10a",
    ]),
    (KICS, "578c73974bb359847d1847aacfcc31bdbe4dc757", K + "positive11.yaml", "kics password in url", "secret", [
        ("- url: http://bob:sekret@example.invalid/some/path  #1", "sekret"),
    ]),
    (KICS, "578c73974bb359847d1847aacfcc31bdbe4dc757", K + "positive11.yaml", "kics msteams webhook", "secret", [
        (f"- url: {TEAMS} #3", TEAMS),
    ]),
    (KICS, "578c73974bb359847d1847aacfcc31bdbe4dc757", K + "positive11.yaml", "kics openapi", "benign", [
        "description: My API Server 1",
        "title: Simple API Overview",
    ]),
    (KICS, "4f253e452c847b869da1e76f8304ab156296fb03", K + "positive11.dockerfile", "kics password in url", "secret", [
        ('ARG url="http://bob:sekret@example.invalid/some/path"', "sekret"),
    ]),
    (KICS, "4f253e452c847b869da1e76f8304ab156296fb03", K + "positive11.dockerfile", "kics msteams webhook", "secret", [
        (f'ARG url3="{TEAMS}"', TEAMS),
    ]),
    (KICS, "712f56583945bcfabe0d4f3527fbf0ad15b1daea", K + "positive16.yaml", "kics k8s env password", "secret", [
        ('- name: DB_PASS_BD\n  value: "passx"          # positive1', "passx"),
        ('- name: DB_PASS_BD_2\n  value: "passx"          # positive2', "passx"),
    ]),
    (KICS, "712f56583945bcfabe0d4f3527fbf0ad15b1daea", K + "positive16.yaml", "kics k8s env password", "benign", [
        '- name: PORT\n  value: "1234"',
        '- name: DB_HOST\n  value: "127.0.0.1"',
        '- name: DB_PORT_BD\n  value: "5432"',
        '- name: DB_NAME_BD\n  value: "dbx"',
        '- name: DB_USER_BD\n  value: "userx"',
        "- containerPort: 5432",
    ]),
    (KICS, "1a6458afa25d5d2445470e12f361b83bcc499fe5", K + "positive26.yaml", "kics generic private key", "secret", [
        ("PrivateKey: b@d0@u7H70K3n # positive1", "b@d0@u7H70K3n"),
    ]),
    (KICS, "5f41db042120bd703e661a1688f935df42f65878", K + "positive27.yaml", "kics commented token", "secret", [
        ("#   AuthToken: b@d0@u7H70K3n", "b@d0@u7H70K3n"),
        ("#    TokenKey: b@d0@u7H70K3n", "b@d0@u7H70K3n"),
    ]),
    (KICS, "5f41db042120bd703e661a1688f935df42f65878", K + "positive27.yaml", "kics cloudformation", "benign", [
        "CacheNodeType: cache.m5.large",
        "CacheSubnetGroupName: subnet-foobar",
        "ApplicationId: !Ref PinpointApp",
        "TransitEncryptionEnabled: True",
    ]),
    (KICS, "13bf3ae3cc5350e4d0b2cd682f76cea664c4514d", K + "positive28.yaml", "kics generic token", "secret", [
        ('token_key: "DFSFSFHFGFGF[DSFSFAADAFASD%3D"  # positive1', "DFSFSFHFGFGF[DSFSFAADAFASD%3D"),
    ]),
    (KICS, "13bf3ae3cc5350e4d0b2cd682f76cea664c4514d", K + "positive28.yaml", "kics ansible", "benign", [
        '- name: Start a workflow in the Itential Automation Platform',
        'workflow_name: "RouterUpgradeWorkflow"',
        'variables: {"deviceName":"ASR9K"}',
    ]),
    (KICS, "13bf3ae3cc5350e4d0b2cd682f76cea664c4514d", K + "positive31.yaml", "kics twilio key", "secret", [
        ("twilio_api_key: SKa7CF7acdcaf92Be4CCC52F4a2923BBB3  #1 & #2", "SKa7CF7acdcaf92Be4CCC52F4a2923BBB3"),
    ]),
    (KICS, "9781f5ef7815e6da7c95462d4fd225469817fc68", K + "positive32.yaml", "kics paypal token", "secret", [
        ("paypal_access_token: access_token$production$1s2d3f4g5h6j7k8k$1b2b3c4a3a1b2b3c4a3a1b2b3c4a3a1b",
         "access_token$production$1s2d3f4g5h6j7k8k$1b2b3c4a3a1b2b3c4a3a1b2b3c4a3a1b"),
    ]),
    (KICS, "9781f5ef7815e6da7c95462d4fd225469817fc68", K + "positive32.yaml", "kics ansible", "benign", [
        "- hosts: all\n  remote_user: root",
    ]),
    (KICS, "9781f5ef7815e6da7c95462d4fd225469817fc68", K + "positive33.yaml", "kics facebook token", "secret", [
        ('- name: FACEBOOK_TOKEN\n  value: "EAACEdEose0cBA1bad3afsf2aew"', "EAACEdEose0cBA1bad3afsf2aew"),
    ]),
    (KICS, "9781f5ef7815e6da7c95462d4fd225469817fc68", K + "positive33.yaml", "kics k8s pod", "benign", [
        "image: gcr.io/google-samples/node-hello:1.0",
        "purpose: demonstrate-envars",
    ]),
    (KICS, "712f56583945bcfabe0d4f3527fbf0ad15b1daea", K + "positive34.yaml", "kics square oauth secret", "secret", [
        (f'- name: Square_OAuth_Secret\n  value: "{SQ_OAUTH}"  #1', SQ_OAUTH),
        (f'secret: "{SQ_OAUTH}" #2', SQ_OAUTH),
    ]),
    (KICS, "578c73974bb359847d1847aacfcc31bdbe4dc757", K + "positive35.yaml", "kics google oauth token", "secret", [
        ("access-token: ya29.Radftwefewuifdebkw2_23232427t42wdbjsvdjavdajvdadkd # positive1",
         "ya29.Radftwefewuifdebkw2_23232427t42wdbjsvdjavdajvdadkd"),
    ]),
    (KICS, "578c73974bb359847d1847aacfcc31bdbe4dc757", K + "positive35.yaml", "kics kubeconfig", "benign", [
        "cmd-args: config config-helper --format=json",
        "cmd-path: /Users/dave/google-cloud-sdk/bin/gcloud",
        "expiry: 2021-10-28T15:12:03.000Z",
        "expiry-key: '{.credential.token_expiry}'",
        "token-key: '{.credential.access_token}'",
        "- name: google-oauth-access-token",
    ]),
    (KICS, "578c73974bb359847d1847aacfcc31bdbe4dc757", K + "positive38.yaml", "kics cloudformation lookup", "benign", [
        "MasterUserPassword: !Sub '{{resolve:secretsmanager:${MyAmpAppSecretManagerRotater}::password}}' #2",
        "GenerateStringKey: 'password'",
        "PasswordLength: 16",
        "Description: 'This is my amp app instance secret'",
        "Type: AWS::SecretsManager::Secret",
    ]),
    (KICS, "47cc7efd8b8051a44678342642d6adf7ca168977", K + "positive46.yaml", "kics compose env password", "secret", [
        ("- POSTGRES_PASSWORD=postgres", "postgres"),
    ]),
    (KICS, "47cc7efd8b8051a44678342642d6adf7ca168977", K + "positive46.yaml", "kics compose", "benign", [
        "build: ./services/postgresql",
        '- "5432:5432"',
    ]),
    (KICS, "914f135647a7d21a9f5a7962a4e2f2c1811dc77f", K + "positive50.yaml", "kics openapi property password",
     "secret", [
        ("mock-proxy-password:\n  value: testpwd", "testpwd"),
        ("dev-proxy-password:\n  value: testpwd", "testpwd"),
    ]),
    (KICS, "914f135647a7d21a9f5a7962a4e2f2c1811dc77f", K + "positive50.yaml", "kics openapi", "benign", [
        "mock-proxy-user:\n  value: mzpamt66",
        "mock-target-url:\n  value: https://api.insee.fr/entreprises/sirene/V3",
        "preprod-target-url:\n  value: REPLACE_PREPROD_URL",
        "description: The user name and password provided by PSA Group.",
        "description: The client ID provided by PSA Group when you register your application.",
        "name: X-IBM-Client-Id",
        "x-ibm-authentication-registry: ldap",
        "description: Jeton d'accès manquant ou invalide",
        "x-auth-type: Application & Application User",
    ]),
    (KICS, "bfb904a148ed9c1a3107f7735d77be434c3f9d0a", K + "positive57.yaml", "kics encryption key", "secret", [
        ("encryption_key: aes256_my_super_secret_key_value", "aes256_my_super_secret_key_value"),
        ("encryption_key: Ab3f8G2kL9mN4pQ7", "Ab3f8G2kL9mN4pQ7"),
        ("encryptionkey: 0123456789abcdef", "0123456789abcdef"),
    ]),
    (KICS, "2bf8de135856ef6f7af5440f66e9b64bbcbc5b98", K + "positive4.tf", "kics terraform password", "secret", [
        ('password = "root"', "root"),
    ]),
    (KICS, "2bf8de135856ef6f7af5440f66e9b64bbcbc5b98", K + "positive4.tf", "kics terraform", "benign", [
        'username = ""',
        'name               = "marcellus-wallace"',
        "issue_client_certificate = true",
    ]),
    (KICS, "90f0a3d86c39c532baa9f54036cbfa8583d29521", K + "positive5.tf", "kics terraform generic secret", "secret", [
        ('secret = "3gzcGokilvtw2HmCLuPx" # positive1', "3gzcGokilvtw2HmCLuPx"),
    ]),
    (KICS, "90f0a3d86c39c532baa9f54036cbfa8583d29521", K + "positive5.tf", "kics terraform", "benign", [
        'secret_data = "secret-data"',
        'resource "google_secret_manager_secret_version" "secret-version-basic2" {',
    ]),
    (KICS, "390dc34df8a403fdbb98490f3d3023dd83016eee", K + "positive15.tf", "kics aws secret in user data",
     "secret", [
        ("export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMAAAKEY",
         "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMAAAKEY"),
    ]),
    (KICS, "390dc34df8a403fdbb98490f3d3023dd83016eee", K + "positive15.tf", "kics terraform", "benign", [
        "export AWS_DEFAULT_REGION=us-west-2",
        "ami           = var.ami",
        'echo "<h1>Deployed via Terraform</h1>" | sudo tee /var/www/html/index.html',
        'git_last_modified_by = "email@email.com"',
        'Name = "${local.resource_prefix.value}-ec2"',
        "vpc_id      = aws_vpc.web_vpc.id",
        'cidr_block              = "172.16.10.0/24"',
        'private_ips = ["172.16.10.100"]',
        "#encrypted         = false  # Setting this causes the volume to be recreated on apply",
    ]),
    (KICS, "1a6458afa25d5d2445470e12f361b83bcc499fe5", K + "positive17.tf", "kics terraform password", "secret", [
        ('administrator_login_password = "Aa12345678" # positive1', "Aa12345678"),
    ]),
    (KICS, "1a6458afa25d5d2445470e12f361b83bcc499fe5", K + "positive17.tf", "kics terraform", "benign", [
        'administrator_login          = "ariel"',
        "environment = var.environment",
        "resource_group_name          = azurerm_resource_group.example.name",
    ]),
    (KICS, "13bf3ae3cc5350e4d0b2cd682f76cea664c4514d", K + "positive21.tf", "kics google api key", "secret", [
        ('{\n  "name": "GOOGLE_MAPS_API_KEY",\n  "value": "AIzaSyD4BPAvDHL4CiRcFORdoUCpqwVuVz1F9r8"\n}',
         "AIzaSyD4BPAvDHL4CiRcFORdoUCpqwVuVz1F9r8"),
    ]),
    (KICS, "13bf3ae3cc5350e4d0b2cd682f76cea664c4514d", K + "positive21.tf", "kics terraform interpolation", "benign", [
        '{\n  "name": "RDS_PASSWORD",\n  "value": "${aws_db_instance.tomato.password}"\n}',
        '{\n  "name": "SECRET_KEY",\n  "value": "${var.secret_key}"\n}',
        '{\n  "name": "RDS_USER",\n  "value": "${aws_db_instance.tomato.username}"\n}',
        '"image": "${aws_ecr_repository.tomato.repository_url}:latest",',
        '"python3 manage.py initialize && uwsgi --ini /code/uwsgi.ini"',
        '"awslogs-group": "${aws_cloudwatch_log_group.tomato_webapp.name}",',
    ]),
    (KICS, "1a6458afa25d5d2445470e12f361b83bcc499fe5", K + "positive22.tf", "kics heroku api key", "secret", [
        ('api_key = "C71AAAAE-1D1D-1D1D-1D1D-1D1D1D1D1D1D"  # positive1', "C71AAAAE-1D1D-1D1D-1D1D-1D1D1D1D1D1D"),
    ]),
    (KICS, "1a6458afa25d5d2445470e12f361b83bcc499fe5", K + "positive22.tf", "kics terraform", "benign", [
        'email   = "ops@company.com"',
    ]),
    (KICS, "13bf3ae3cc5350e4d0b2cd682f76cea664c4514d", K + "positive25.dockerfile", "kics dockerfile provider tokens",
     "secret", [
        ("ARG token=sq0atp-812erere3wewew45678901", "sq0atp-812erere3wewew45678901"),
        ("ARG picaticKey=sk_live_123as6789o1234567890123a123a5678", "sk_live_123as6789o1234567890123a123a5678"),
        ("ARG amazonToken=amzn.mws.643a5678-8f9f-1a2b-5c3b-e3ea43f3f4b4",
         "amzn.mws.643a5678-8f9f-1a2b-5c3b-e3ea43f3f4b4"),
        ("ARG mailChimp=f4f56af5a54a3eaeb3c3beb3cc2ccccc-us36", "f4f56af5a54a3eaeb3c3beb3cc2ccccc-us36"),
        ("ARG sgApiK=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",
         "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"),
    ]),
    (KICS, "430c4440f49c159d82441e4d8e6ef2f34a40cae8", K + "positive51.dockerfile", "kics dockerfile env password",
     "secret", [
        ("ENV ARTEMIS_PASSWORD artemis", "artemis"),
    ]),
    (KICS, "a0ea7c795e854d73a324093d5188e97cccc772e3", K + "positive52.dockerfile", "kics dockerfile env password",
     "secret", [
        ("ENV ARTEMIS_PASSWORD=artemis", "artemis"),
    ]),
    (KICS, "54347f11e14b2a4728a56fc132a706b72d7716c0", K + "positive6.dockerfile", "kics dockerfile arg password",
     "secret", [
        ("ARG password=pass!1213Fs", "pass!1213Fs"),
    ]),
    (KICS, "c0851e44ab941c782206282a0edbb161354c8ec3", K + "positive6.json", "kics json password", "secret", [
        ('"service-1": {\n    "password": "abcdefg"\n  }', "abcdefg"),
    ]),
    (KICS, "4175abaaf32535520bb14e5542b8e868a94f6c3b", K + "positive49.yml", "kics ci variable private key", "secret", [
        ('variables:\n  GIT_PRIVATE_KEY: "heythisisaprivatekey!"', "heythisisaprivatekey!"),
    ]),
    (KICS, "4175abaaf32535520bb14e5542b8e868a94f6c3b", K + "positive49.yml", "kics ci", "benign", [
        '- if [[ -z "${GIT_PRIVATE_KEY:-}" ]]; then\n    echo "Missing GIT_PRIVATE_KEY variable!"\n    exit 1\n  fi',
        '- echo "Private key is set."',
        "- uses: actions/checkout@v4",
    ]),
    (KICS, "0debdd0a84ff399d9c779735b44de6b517342ea3", K + "positive7.tf", "kics terraform password", "secret", [
        ('password = "pwd_jsuwauJk212"  # positive1', "pwd_jsuwauJk212"),
    ]),
    (KICS, "90f0a3d86c39c532baa9f54036cbfa8583d29521", K + "positive9.tf", "kics terraform password", "secret", [
        ('password = "abcd    s"  # positive1', "abcd    s"),
    ]),
    (KICS, "5259efa1b01c1633342ea1c38fd15faefa891197", K + "positive14.tf", "kics aws secret in user data", "secret", [
        ("export AWS_SECRET_ACCESS_KEY=ZH6HDV/EolIbS2UTxbLplGpukOdaGmlq9MtAg1Xv",
         "ZH6HDV/EolIbS2UTxbLplGpukOdaGmlq9MtAg1Xv"),
    ]),
    (KICS, "5259efa1b01c1633342ea1c38fd15faefa891197", K + "positive14.tf", "kics terraform", "benign", [
        "apt-get install -y awscli",
        'ami           = "ami-005e54dee72cc1d00" # us-west-2',
        'cpu_credits = "unlimited"',
    ]),
    (KICS, "90f0a3d86c39c532baa9f54036cbfa8583d29521", K + "positive13.tf", "kics openssh private key", "secret", [
        ("body      = <<EOT\n" + OPENSSH_KEY + "\nEOT", OPENSSH_KEY),
    ]),
    (KICS, "90f0a3d86c39c532baa9f54036cbfa8583d29521", K + "positive13.tf", "kics terraform", "benign", [
        "server_id = aws_transfer_server.example.id",
        "user_name = aws_transfer_user.example.user_name",
    ]),
    (KICS, "2bf8de135856ef6f7af5440f66e9b64bbcbc5b98", K + "positive36.tf", "kics putty private key", "secret", [
        ("body      = <<EOF\n" + PUTTY_KEY + "\nEOF", PUTTY_KEY.split("Private-Lines: 14\n")[1].split("\n")[0]),
    ]),
    (KICS, "0debdd0a84ff399d9c779735b44de6b517342ea3", K + "positive47.tf", "kics oauth client secret", "secret", [
        ('client_secret = "F-oS9Su%}<>[];#"                                                   #2', "F-oS9Su%}<>[];#"),
    ]),
    (KICS, "0debdd0a84ff399d9c779735b44de6b517342ea3", K + "positive47.tf", "kics terraform", "benign", [
        'allowed_audiences = [ "example.com", "api.example.com" ]',
        'scopes = [ "email", "profile", "gmail", "youtube" ]',
        'strategy = "google-oauth2"',
        'set_user_root_attributes = "on_each_login"',
        'name = "Google-OAuth2-Connection"',
    ]),
    (KICS, "13bf3ae3cc5350e4d0b2cd682f76cea664c4514d", K + "positive19.tf", "kics slack token", "secret", [
        ('provider "slack" {\n  token = "xoxp-121314151623-121314151623-121314151623-12131423121314151623121314151623"\n}',
         "xoxp-121314151623-121314151623-121314151623-12131423121314151623121314151623"),
    ]),
    (KICS, "a0ea7c795e854d73a324093d5188e97cccc772e3", K + "positive20.tf", "kics stripe key", "secret", [
        ('provider "stripe" {\n  api_key = "sk_live_aSaDsEaSaDsEaSaDs29SaDsE"\n}', "sk_live_aSaDsEaSaDsEaSaDs29SaDsE"),
    ]),
    (KICS, "13bf3ae3cc5350e4d0b2cd682f76cea664c4514d", K + "positive30.tf", "kics stripe restricted key", "secret", [
        ('provider "stripe" {\n  api_key = "rk_live_aSaDsEaSaDsEaSaDs29SaDsE"\n}', "rk_live_aSaDsEaSaDsEaSaDs29SaDsE"),
    ]),
    (KICS, "a0ea7c795e854d73a324093d5188e97cccc772e3", K + "positive23.tf", "kics generic token", "secret", [
        ('provider "github" {\n   token = "we2323232g3hg2h3g2h3g2h3g2h3uh2h3ghg32h3"\n}',
         "we2323232g3hg2h3g2h3g2h3g2h3uh2h3ghg32h3"),
    ]),
    (KICS, "9781f5ef7815e6da7c95462d4fd225469817fc68", K + "positive24.tf", "kics cloudflare api key", "secret", [
        ('api_key = "1d2d2dewerdcxeee34c323c3223c223232c32"', "1d2d2dewerdcxeee34c323c3223c223232c32"),
    ]),
    (KICS, "9781f5ef7815e6da7c95462d4fd225469817fc68", K + "positive24.tf", "kics variable reference", "benign", [
        'email   = "${var.cloudflare_email}"',
        'version = "~> 2.0"',
    ]),
    (KICS, "1a6458afa25d5d2445470e12f361b83bcc499fe5", K + "positive29.tf", "kics mailgun key", "secret", [
        ('provider "mailgun" {\n  api_key = "key-987ad62adwf1w2w2563adf2ef5323123"\n}', "key-987ad62adwf1w2w2563adf2ef5323123"),
    ]),
    (KICS, "2bf8de135856ef6f7af5440f66e9b64bbcbc5b98", K + "positive37.tf", "kics lambda env secret", "secret", [
        ('variables = {\n  secret_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"\n}',
         "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ]),
    (KICS, "2bf8de135856ef6f7af5440f66e9b64bbcbc5b98", K + "positive37.tf", "kics terraform", "benign", [
        'handler       = "exports.test"',
        'source_code_hash = "${filebase64sha256("resources/lambda_function_payload.zip")}"',
        'runtime = "nodejs12.x"',
        "# lambda have plain text secrets in environment variables",
        'role          = "${aws_iam_role.iam_for_lambda.arn}"',
    ]),
    (KICS, "90f0a3d86c39c532baa9f54036cbfa8583d29521", K + "positive39.tf", "kics generic secret", "secret", [
        ('secrets = {\n  clientSecret = "C98D9F6O-1273-4E8A-B8D9-551F7F3OC41"\n}', "C98D9F6O-1273-4E8A-B8D9-551F7F3OC41"),
    ]),
    (KICS, "13bf3ae3cc5350e4d0b2cd682f76cea664c4514d", K + "positive42.tf", "kics generic access key", "secret", [
        ('access_key           = "sdsaljasbdasddsadsa"  # positive1', "sdsaljasbdasddsadsa"),
    ]),
    (KICS, "13bf3ae3cc5350e4d0b2cd682f76cea664c4514d", K + "positive42.tf", "kics terraform", "benign", [
        'key                  = "infrastructure.tfstate"',
        'storage_account_name = "asdsadas"',
        "workspace = terraform.workspace",
        'container_name       = "dp-prasdasdase-001"',
    ]),
    (KICS, "039224446d506e755d4636d7a02337e7537e3659", K + "positive48.tf", "kics terraform password", "secret", [
        ('password = "varexample"', "varexample"),
    ]),
    (KICS, "039224446d506e755d4636d7a02337e7537e3659", K + "positive48.tf", "kics variable reference", "benign", [
        "password = var.example",
    ]),
    (KICS, "13bf3ae3cc5350e4d0b2cd682f76cea664c4514d", K + "positive54.tf", "kics terraform default password",
     "secret", [
        ('admin_password        = try(each.value.admin_password, "exposed_password", null)  # positive2',
         "exposed_password"),
    ]),
    (KICS, "90f0a3d86c39c532baa9f54036cbfa8583d29521", K + "positive12.json", "kics json password", "secret", [
        ('"password": "Masu121m2d12d1",', "Masu121m2d12d1"),
    ]),
    (KICS, "90f0a3d86c39c532baa9f54036cbfa8583d29521", K + "positive12.json", "kics password in url", "secret", [
        ('"url": "http://bob:sekret@example.invalid/some/path",', "sekret"),
    ]),
    (KICS, "90f0a3d86c39c532baa9f54036cbfa8583d29521", K + "positive12.json", "kics openapi", "benign", [
        '"metadata2": "\'Password in URL\'  - c4d3b58a-e6d4-450f-9340-04f1e702eaae  positive-test (line 15)",',
        '"metadata4": "\'MSTeams Webhook\'  - d6214dca-a31b-425f-bcf7-f4faa772a1c0  positive-test (line 23)",',
    ]),
    (KICS, "5259efa1b01c1633342ea1c38fd15faefa891197", K + "positive10.json", "kics password in url", "secret", [
        ('"TemplateURL": "http://bob:sekret@example.invalid/some/path",', "sekret"),
    ]),
    (KICS, "5259efa1b01c1633342ea1c38fd15faefa891197", K + "positive10.json", "kics msteams webhook", "secret", [
        (f'"TemplateURL": "{TEAMS}",', TEAMS),
    ]),
    (KICS, "5259efa1b01c1633342ea1c38fd15faefa891197", K + "positive10.json", "kics cloudformation", "benign", [
        '"KeyName": "mykey"',
        '"InstanceType": "t1.micro",',
        '"Type": "AWS::CloudFormation::Stack",',
        '"AWSTemplateFormatVersion": "2010-09-09",',
    ]),
    (KICS, "26a8f3012dad1347b4f91cbcf372989a418652ce", K + "positive53.json", "kics connection string password",
     "secret", [
        ('"value": "[concat(\'Database=\', variables(\'databaseName\'), \';Data Source=\', reference(resourceId('
         '\'Microsoft.DBforMySQL/servers\', variables(\'serverName\'))).fullyQualifiedDomainName, \';User Id=\', '
         'parameters(\'administratorLogin\'), \'@\', variables(\'serverName\'), \';Password=HardCodedP@ssw0rd!\')]",',
         "HardCodedP@ssw0rd!"),
    ]),
    (KICS, "26a8f3012dad1347b4f91cbcf372989a418652ce", K + "positive53.json", "kics arm template", "benign", [
        '"defaultValue": "[resourceGroup().location]"',
        '"databaseName": "[concat(parameters(\'siteName\'), \'db\')]",',
        '"serverFarmId": "[variables(\'hostingPlanName\')]"',
        '"$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",',
    ]),
    (KICS, "54347f11e14b2a4728a56fc132a706b72d7716c0", K + "positive55.json", "kics json generic secret", "secret", [
        ('"service-3": {\n  "secretValue": "secretVaule1"\n}', "secretVaule1"),
    ]),
    (KICS, "5259efa1b01c1633342ea1c38fd15faefa891197", K + "positive3.yaml", "kics ansible password", "secret", [
        ("master_auth:\n  password: root  # positive1", "root"),
    ]),
    (KICS, "4f253e452c847b869da1e76f8304ab156296fb03", K + "positive7.yaml", "kics k8s env password", "secret", [
        ('- name: DB_PASS_BD\n  value: "passx"', "passx"),
    ]),
    (KICS, "c0851e44ab941c782206282a0edbb161354c8ec3", K + "positive11.tf", "kics terraform tags", "benign", [
        'git_commit           = "d68d2897add9bc2203a5ed0632a5cdd8ff8cefb0"',
        'git_commit           = "6e62522d2ab8f63740e53752b84a6e99cd65696a"',
        'yor_trace            = "347af3cd-4f70-4632-aca3-4d5e30ffc0b6"',
        'git_last_modified_at = "2020-06-16 14:46:24"',
        'git_file             = "terraform/aws/ec2.tf"',
        'git_last_modified_by = "nimrodkor@gmail.com"',
        'subnet_id = "${aws_subnet.web_subnet.id}"',
    ]),
    (KICS, "1a6458afa25d5d2445470e12f361b83bcc499fe5", K + "negative57.bicep", "kics bicep lookup", "benign", [
        "apiClientSecret: kvTest.getSecret('secret-sample')  // negative1",
        "resource kvTest 'Microsoft.KeyVault/vaults@2023-07-01' existing = {\n  name: 'kv-test-sample'\n  "
        "scope: resourceGroup('rg-test-sample')\n}",
        "@description('Nome do sistema')\nparam systemName string",
    ]),
    (KICS, "26a8f3012dad1347b4f91cbcf372989a418652ce", K + "negative53.json", "kics arm template", "benign", [
        '"administratorLoginPassword": {\n  "type": "securestring"\n}',
        '"secretSuffix": {\n  "type": "string",\n  "defaultValue": "word"\n}',
        '"passKey": "[concat(\'Pass\', parameters(\'secretSuffix\'))]"',
    ]),
    # ------------------------------------------------------------------ KICS: negatives
    (KICS, "8d591c04ce59677f9f6659301d3891f403f352b3", K + "positive53.yml", "kics ci", "benign", [
        "#id-token: simulated_wrong_text_here",
        "actions: write # for createWorkflowDispatch",
        "if: toJSON(steps.semantic.outputs) == '{}'",
    ]),
    (KICS, "c01414bdcb3f0e57b360937a178bd5f30aa10f89", K + "negative44.yml", "kics variable reference", "benign", [
        "variables:\n  GIT_PRIVATE_KEY: $GIT_PRIVATE_KEY",
    ]),
    (KICS, "0923bdf3ebfcc148b1d61c87135bda3c919cac5c", K + "negative10.tf", "kics variable reference", "benign", [
        "password                = var.password  # negative1",
        'ignore_changes = ["password"]',
        'username                = "admin"',
        'identifier              = "rds-${local.resource_prefix.value}"',
        "# Ignore password changes from tf plan diff",
    ]),
    (KICS, "578c73974bb359847d1847aacfcc31bdbe4dc757", K + "negative2.yaml", "kics cloudformation lookup", "benign", [
        "MasterUserPassword: !Ref PasswordMaster  # negative1",
    ]),
    (KICS, "13bf3ae3cc5350e4d0b2cd682f76cea664c4514d", K + "negative26.yaml", "kics kubeconfig", "benign", [
        "access-token: '{.credential.oauth_access_token_}' # negative1",
    ]),
    (KICS, "a0ea7c795e854d73a324093d5188e97cccc772e3", K + "negative3.yaml", "kics ansible", "benign", [
        'service_account_file: "/tmp/auth.pem"',
        "auth_kind: serviceaccount",
        "machine_type: n1-standard-4",
    ]),
    (KICS, "4f253e452c847b869da1e76f8304ab156296fb03", K + "negative11.yaml", "kics k8s", "benign", [
        "privateKeySecretRef:\n  name: cx-prod-site",
        "server: https://check-v02.api.cx.org/directory",
    ]),
    (KICS, "4c4d48112e794816fd19f318dcd68b41a22e4479", K + "negative4.tf", "kics variable reference", "benign", [
        "secret = var.my_google_secret",
    ]),
    (KICS, "13bf3ae3cc5350e4d0b2cd682f76cea664c4514d", K + "negative7.tf", "kics empty password", "benign", [
        'password = ""   # negative1',
        'username = "1234567890qwertyuiopasdfghjklçzxcvbnm"',
    ]),
    (KICS, "19eae21647f538a3684f8a31ce32bfbc95433e9d", K + "negative12.tf", "kics variable reference", "benign", [
        'provider "slack" {\n  token = var.slack_token\n}',
    ]),
    (KICS, "c0851e44ab941c782206282a0edbb161354c8ec3", K + "negative6.json", "kics openapi", "benign", [
        '"url": "https://my.api.server.com/",',
    ]),
    (KICS, "13bf3ae3cc5350e4d0b2cd682f76cea664c4514d", K + "negative35.dockerfile", "kics dockerfile", "benign", [
        'RUN apk add --no-cache git \\\n    && git config \\\n    --global \\\n    '
        'url."https://${GIT_USER}:${GIT_TOKEN}@github.com".insteadOf \\\n    "https://github.com"',
        '# Generic Negative Test - arbitrary git "token" references (dockerfile)',
    ]),
    (KICS, "a0ea7c795e854d73a324093d5188e97cccc772e3", K + "negative50.dockerfile", "kics dockerfile", "benign", [
        "ENV ARTEMIS_USER=artemis",
    ]),
    (KICS, "777e9eae0324f594b779c724e3112f4fb69d5efc", K + "negative18.yaml", "kics cloudformation lookup", "benign", [
        "PrivateKey: !GetAtt PrivateKey1 # negative1",
        "Parameters:\n  PrivateKey1:\n    Type: String",
    ]),
    (KICS, "1a6458afa25d5d2445470e12f361b83bcc499fe5", K + "negative23.yaml", "kics ansible lookup", "benign", [
        "twilio_api_key: '{{ TWILIO_API_KEY }}'",
    ]),
    (KICS, "19eae21647f538a3684f8a31ce32bfbc95433e9d", K + "negative31.yaml", "kics ansible lookup", "benign", [
        "aws_access_key: '{{ aws_access_key }}'",
        "aws_secret_key: '{{ aws_secret_key }}'",
        "security_token: '{{ security_token | default(omit) }}'",
        "encryption_key: 'arn:aws:kms:{{ aws_region }}:{{ aws_account_id }}:alias/aws/s3'",
        'service_role: "{{ codebuild_iam_role.iam_role.arn }}"',
        "image: 'aws/codebuild/docker:17.09.0'",
        "- { name: 'FOO_ENV', value: 'other' }",
    ]),
    # ------------------------------------------------------------------ gosec G101: issue count 1
    (GOSEC, GOSEC_C, GOSEC_P, "gosec go password", "secret", [
        (f'password := "{HEX40}"', HEX40),
        (f'var password = "{HEX40}"', HEX40),
        (f'const password = "{HEX40}"', HEX40),
        (f'password = "{HEX40}"', HEX40),
        (f'Password: "{HEX40}",', HEX40),
        (f'_ = struct{{ Password string }}{{\n\tPassword: "{HEX40}",\n}}', HEX40),
        (f'"password": "{HEX40}",', HEX40),
        (f'"apiKey": "{HEX40}",', HEX40),
        (f'const (\n\tusername = "user"\n\tpassword = "{HEX40}"\n)', HEX40),
        (f'_ = &DBConfig{{\n\tPassword: "{HEX40}",\n}}', HEX40),
    ]),
    (GOSEC, GOSEC_C, GOSEC_P, "gosec go token constant", "secret", [
        (f'ATNStateTokenStart = "{HEX40}"', HEX40),
    ]),
    (GOSEC, GOSEC_C, GOSEC_P, "gosec go password comparison", "secret", [
        (f'if password == "{HEX40}" {{', HEX40),
        (f'if "{HEX40}" == password {{', HEX40),
        (f'if password != "{HEX40}" {{', HEX40),
        (f'if "{HEX40}" != password {{', HEX40),
    ]),
    (GOSEC, GOSEC_C, GOSEC_P, "gosec go base64 credential", "secret", [
        (f'pw = "{KJ}"', KJ),
        (f'cred = "{KJ}"', KJ),
    ]),
    (GOSEC, GOSEC_C, GOSEC_P, "gosec go api key", "secret", [
        ('apiKey = "KjasdlkjapoIKLlka98098sdf012U"', "KjasdlkjapoIKLlka98098sdf012U"),
    ]),
    (GOSEC, GOSEC_C, GOSEC_P, "gosec go bearer", "secret", [
        ('bearer = "Bearer: 2lkjdfoiuwer092834kjdwf09"', "2lkjdfoiuwer092834kjdwf09"),
    ]),
    (GOSEC, GOSEC_C, GOSEC_P, "gosec go url password", "secret", [
        ('url := "https://username:abcdef0123456789abcdef0123456789abcdef01@contoso.com/"',
         "abcdef0123456789abcdef0123456789abcdef01"),
    ]),
    (GOSEC, GOSEC_C, GOSEC_P, "gosec go github token", "secret", [
        (f'githubToken := "{GHP}"', GHP),
        (f'"github_token": "{GHP}",', GHP),
    ]),
    (GOSEC, GOSEC_C, GOSEC_P, "gosec go google api key", "secret", [
        ('if compareGoogleAPI == "AIzajtGS_aJGkoiAmSbXzu9I-1eytAi9Lrlh-vT" {', "AIzajtGS_aJGkoiAmSbXzu9I-1eytAi9Lrlh-vT"),
    ]),
    # ------------------------------------------------------------------ gosec G101: issue count 0
    (GOSEC, GOSEC_C, GOSEC_P, "gosec go no credential", "benign", [
        'username := "admin"',
        'fmt.Println("Doing something with: ", username, password)',
        "var password string",
        "ATNStateSomethingElse = 1",
        "ATNStateTokenStart = 42",
        "println(ATNStateTokenStart)",
        'fmt.Println("password equality")',
        'ConfigLearnerTokenAuth string = "learner_auth_token_config" // #nosec G101',
        'ConfigLearnerTokenAuth string = "learner_auth_token_config"',
        'fmt.Printf("%s\\n", ConfigLearnerTokenAuth)',
        "type DBConfig struct {\n\tPassword string\n}",
        "type Config struct {\n\tUsername string\n\tPassword string\n}",
        'Username: "admin",',
        'customerNameEnvKey := "FOO_CUSTOMER_NAME"',
        'txnID := "3637cfcc1eec55a50f78a7c435914583ccbc75a21dec9a0e94dfa077647146d7"',
        '// #nosec G101 -- example connection strings in help text are not real credentials',
        'cfgPath := os.Getenv("CFG")',
        "raw, err := os.ReadFile(cfgPath) // #nosec G304 -- operator-supplied path",
        'u, _ := url.Parse(os.Getenv("DB_URL"))',
        'u.User = url.UserPassword(u.User.Username(), "x")',
        'return fmt.Errorf("read: %w", err)',
    ]),
    # ------------------------------------------------------------------ bandit B105/B106/B107
    (BANDIT, BANDIT_C, BANDIT_P, "bandit python password", "secret", [
        ('def someFunction(user, password="Admin"):', "Admin"),
        ('if password == "root":', "root"),
        ('if password == "ajklawejrkl42348swfgkg":', "ajklawejrkl42348swfgkg"),
        ('def doLogin(password="blerg"):', "blerg"),
        ('doLogin(password="blerg")', "blerg"),
        ('password = "blerg"', "blerg"),
        ('d["password"] = "blerg"', "blerg"),
        ('EMAIL_PASSWORD = "secret"', "secret"),
        ("email_pwd = 'emails_secret'", "emails_secret"),
        ("my_secret_password_for_email = 'd6s$f9g!j8mg7hw?n&2'", "d6s$f9g!j8mg7hw?n&2"),
        ("passphrase='1234'", "1234"),
    ]),
    (BANDIT, BANDIT_C, BANDIT_P, "bandit python no password", "benign", [
        "def someFunction2(password):",
        'print("Hi " + user)',
        'print("OK, logged in")',
        "def noMatch(password):",
        'print("No password!")',
        'print("Nice password!")',
        "def NoMatch3(a, b):",
        "# Severity: Low   Confidence: Medium",
    ]),
    # ------------------------------------------------------------------ eslint-plugin-no-secrets
    (ESL, ESL_C, ESL_P, "eslint js high-entropy string", "secret", [
        (f'const A_SECRET = "{ZW}";', ZW),
        ('const A_LOWERCASE_SECRET = "zwvtjpqsdhwrgl204hc51ycsritmizn8b=/p9uyex7xu6kkagqfm3fj+oobldneva";',
         "zwvtjpqsdhwrgl204hc51ycsritmizn8b=/p9uyex7xu6kkagqfm3fj+oobldneva"),
        (f'// const password = "{ZW}";', ZW),
    ]),
    (ESL, ESL_C, ESL_P, "eslint js bearer token", "secret", [
        ('const A_BEARER_TOKEN = "AAAAAAAAAAAAAAAAAAAAAMLheAAAAAAA0%2BuSeid%2BULvsea4JtiGRiSDSJSI%3DEUifiRBkKG5E2XzMDj'
         'Rfl76ZC9Ub0wnz4XsNiRVBChTYbJcE3F";',
         "AAAAAAAAAAAAAAAAAAAAAMLheAAAAAAA0%2BuSeid%2BULvsea4JtiGRiSDSJSI%3DEUifiRBkKG5E2XzMDjRfl76ZC9Ub0wnz4XsNiRVBCh"
         "TYbJcE3F"),
        ('const VAULT = {\n  token:"baaaaaaaaaaaaaaaaaaaamlheaaaaaaa0%2buseid%2bulvsea4jtigrisdsjsi%3deuifirbkkg5e2xzmdj'
         'rfl76zc9ub0wnz4xsnirvbchtybjce3f"\n}',
         "baaaaaaaaaaaaaaaaaaaamlheaaaaaaa0%2buseid%2bulvsea4jtigrisdsjsi%3deuifirbkkg5e2xzmdjrfl76zc9ub0wnz4xsnirvbch"
         "tybjce3f"),
    ]),
    (ESL, ESL_C, ESL_P, "eslint js basic auth header", "secret", [
        ('const BASIC_AUTH_HEADER =  "Authorization: Basic QWxhZGRpbjpPcGVuU2VzYW1l"', "QWxhZGRpbjpPcGVuU2VzYW1l"),
    ]),
    (ESL, ESL_C, ESL_P, "eslint js no secret", "benign", [
        "const NOT_A_SECRET = \"I'm not a secret, I think\";",
        "const NOT_A_SECRET = `A template that isn't a secret. ${1+1} = 2`",
        "const webpackFriendlyConsole = require('./config/webpack/webpackFriendlyConsole')",
        'const CSS_CLASSNAME = "hey-it-s-a-css-class-not-a-secret and-neither-this-one";',
        'const BASE64_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=";',
        "const NAMESPACE_CLASSNAME = 'Validation.JSONSchemaValidationUtilsImplFactory';",
        'const password = "";',
    ]),
    # ------------------------------------------------------------------ horusec HS-LEAKS: vulnerable samples
    (HORUSEC, HOR_C, HOR_P, "horusec aws secret key", "secret", [hor("AWS_SECRET_KEY", "doc5eRXFpsWllGC5yKJV/Ymm5KwF+IRZo95EudOm")]),
    (HORUSEC, HOR_C, HOR_P, "horusec amazon mws key", "secret", [hor("AWS_WMS_KEY", "amzn.mws.986478f0-9775-eabc-2af4-e499a8496828")]),
    (HORUSEC, HOR_C, HOR_P, "horusec facebook secret", "secret", [hor("FB_SECRET_KEY", "cb6f53505911332d30867f44a1c1b9b5")]),
    (HORUSEC, HOR_C, HOR_P, "horusec twitter secret", "secret", [hor("TWITTER_SECRET_KEY", "ej64cqk9k8px9ae3e47ip89l7if58tqhpxi1r")]),
    (HORUSEC, HOR_C, HOR_P, "horusec github secret", "secret", [hor("GITHUB_SECRET_KEY", "edzvPbU3SYUc7pFc9le20lzIRErTOaxCABQ1")]),
    (HORUSEC, HOR_C, HOR_P, "horusec linkedin secret", "secret", [hor("LINKEDIN_SECRET_KEY", "0d16kcnjyfzmcmjp")]),
    (HORUSEC, HOR_C, HOR_P, "horusec slack webhook", "secret", [
        hor("SLACK_WEBHOOK", "https://hooks.slack.com/services/TNeqvYPeO/BncTJ74Hf/NlvFFKKAKPkd6h7FlQCz1Blu")]),
    (HORUSEC, HOR_C, HOR_P, "horusec private key", "secret", [hor("SSH_PRIVATE_KEY", HOR_KEY)]),
    (HORUSEC, HOR_C, HOR_P, "horusec gcp api key", "secret", [hor("GCP_API_KEY", "AIzaMPZHYiu1RdzE1nG2SaVyOoz244TuacQIR6m")]),
    (HORUSEC, HOR_C, HOR_P, "horusec heroku api key", "secret", [hor("HEROKU_API_KEY", "3623f8e9-2d05-c9bb-2209082d6b5c")]),
    (HORUSEC, HOR_C, HOR_P, "horusec mailchimp key", "secret", [hor("MAILCHIMP_API_KEY", "f7e9c13c10d0b19c3bb003a9f635d488-us72")]),
    (HORUSEC, HOR_C, HOR_P, "horusec mailgun key", "secret", [hor("MAILGUN_API_KEY", "key-xke9nbc2i5po5cjw3ngyxiz450zxpapu")]),
    (HORUSEC, HOR_C, HOR_P, "horusec paypal token", "secret", [
        hor("PAY_PAL_ACCESS_TOKEN", "access_token$production$mk0sech2v7qqsol3$db651af2221c22b4ca2f0f583798135e")]),
    (HORUSEC, HOR_C, HOR_P, "horusec picatic key", "secret", [hor("PICATIC_API_KEY", "sk_live_voy1p9k7r9g9j8ezmif488nk2p8310nl")]),
    (HORUSEC, HOR_C, HOR_P, "horusec sendgrid key", "secret", [
        hor("SEND_GRID_API_KEY", "SG.44b7kq3FurdH0bSHBGjPSWhE8vJ.1evu4Un0TXFIb1_6zW4YOdjTMeE")]),
    (HORUSEC, HOR_C, HOR_P, "horusec stripe key", "secret", [hor("STRIPE_API_KEY", "rk_live_8qSZpoI9t0BOGkOLVzvesc6K")]),
    (HORUSEC, HOR_C, HOR_P, "horusec square token", "secret", [hor("SQUARE_ACCESS_TOKEN", "sq0atp-clYRBSht6oefa7w_2R56ra")]),
    (HORUSEC, HOR_C, HOR_P, "horusec square secret", "secret", [
        hor("SQUARE_SECRET", "sq0csp-LsEBYQNja]OgT3hRxjJV5cWX^XjpT12n3QkRY_vep2z")]),
    (HORUSEC, HOR_C, HOR_P, "horusec twilio key", "secret", [
        ("TWILIO_API_KEY: '^SK9ae6bd84ccd091eb6bfad8e2a474af95'", "SK9ae6bd84ccd091eb6bfad8e2a474af95")]),
    (HORUSEC, HOR_C, HOR_P, "horusec compose password", "secret", [hor("POSTGRES_DBPASSWD", "Ch@ng3m3")]),
    (HORUSEC, HOR_C, HOR_P, "horusec go password", "secret", [('DB_PASSWORD="gorm"', "gorm")]),
    (HORUSEC, HOR_C, HOR_P, "horusec php password", "secret", [("define('DB_PASSWORD', 'wen0221!');", "wen0221!")]),
    # ------------------------------------------------------------------ horusec HS-LEAKS: safe samples
    (HORUSEC, HOR_C, HOR_P, "horusec environment reference", "benign", [
        "ACCESS_KEY: ${SECRET_KEY}",
        "SECRET_KEY: ${SECRET_KEY}",
        "WMS_KEY: ${SECRET_KEY}",
        "FB_SECRET_KEY: ${SECRET_KEY}",
        "FB_CLIENT_ID: ${SECRET_KEY}",
        "TWITTER_SECRET_KEY: ${SECRET_KEY}",
        "TWITTER_CLIENT_ID: ${SECRET_KEY}",
        "GITHUB_SECRET_KEY: ${SECRET_KEY}",
        "LINKEDIN_CLIENT_ID: ${SECRET_KEY}",
        "LINKEDIN_SECRET_KEY: ${SECRET_KEY}",
        "SLACK_WEBHOOK: ${SECRET_KEY}",
        "SSH_PRIVATE_KEY: ${SECRET_KEY}",
        "GCP_API_KEY: ${SECRET_KEY}",
        "GCP_SERVICE_ACCOUNT: ${SECRET_KEY}",
        "HEROKU_API_KEY: ${SECRET_KEY}",
        "MAILCHIMP_API_KEY: ${SECRET_KEY}",
        "MAILGUN_API_KEY: ${SECRET_KEY}",
        "PAY_PAL_ACCESS_TOKEN: ${SECRET_KEY}",
        "PICATIC_API_KEY: ${SECRET_KEY}",
        "SEND_GRID_API_KEY: ${SECRET_KEY}",
        "STRIPE_API_KEY: ${SECRET_KEY}",
        "SQUARE_ACCESS_TOKEN: ${SECRET_KEY}",
        "SQUARE_SECRET: ${SECRET_KEY}",
        "TWILIO_API_KEY: ${SECRET_KEY}",
        "POSTGRES_DBPASSWD: ${SECRET_KEY}",
    ]),
    (HORUSEC, HOR_C, HOR_P, "horusec code lookup", "benign", [
        'DB_PASSWORD=os.Getenv("DB_PASSWORD")',
        'dsn := os.Getenv("DB_QUERY_STRING")',
        'define(\'AUTH_KEY\', getenv("AUTH_KEY"));',
        'dsn := fmt.Sprintf("user=%s password=%s dbname=%s port=%s sslmode=disable TimeZone=Asia/Shanghai", '
        "DB_USER, DB_PASSWORD, DB_NAME, DB_PORT)",
        "db, err := gorm.Open(postgres.Open(dsn), &gorm.Config{})",
        "image: image/my-backend:latest",
        "\"doc\": json.loads(r.content)['doc']",
    ]),
]

SKIPPED = {
    "ids_not_secrets": [
        "AWS access key ids (gosec's AKIAI44QH8DHBEXAMPLE / ASIA..., horusec HS-LEAKS-1, KICS positive15's "
        "AWS_ACCESS_KEY_ID): an id, not a credential, as in the earlier parts",
        "horusec's client ids (FB_CLIENT_ID, TWITTER_CLIENT_ID, LINKEDIN_CLIENT_ID, GCP_SERVICE_ACCOUNT's "
        "...apps.googleusercontent.com OAuth client id)",
    ],
    "a_true_positive_value_under_a_generic_key": [
        "gosec negatives that hold a positive's very value under a name without a credential word "
        "(var p compared with the 40-hex password, Username: <it>, an unkeyed []string{<it>}), and eslint's valid "
        "cases that pass only with an option (ignoreIdentifiers NOT_A_SECRET = <its secret>, ignoreModules "
        "import from <it>): anyone reading them holds the credential",
    ],
    "label_contradicts_another_source": [
        "gosec's low-entropy negatives (password := \"secret\", Password: \"secret\", \"password\": \"secret\"): "
        "gosec skips them for entropy only, while bandit (and KICS' 'Generic Password') report the same shape",
        "KICS positive43.yaml (AuthToken: '{{resolve:secretsmanager:...}}', a lookup) and positive38.yaml's "
        "SecretStringTemplate '{\"username\":\"admin\"}' (no secret): positives of KICS' query for other reasons",
        "KICS positive45.tf (password = ... ? var.rds_postgres_password : \"null\"), positive54.tf's "
        "admin_password = \"optional(sensitive(string))\" (a type string), positive39.yaml (no marked value), "
        "positive18.tf's client_secret (not marked; its client_id, an OAuth client id, is), positive40/41.tf "
        "(ACCA.../ASCA... AWS ids)",
        "KICS positive44.yaml (a parameter's description naming secret prefixes): no value in it",
    ],
    "placeholder_secret": [
        "horusec HS-LEAKS-28's define('AUTH_KEY', 'put your unique phrase here'): WordPress' shipped placeholder, "
        "which horusec reports; neither a secret nor a line to count as a false positive",
        "KICS' Slack webhook https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX "
        "(positive11.yaml, positive11.dockerfile): an all-zero, all-X placeholder the query reports",
    ],
    "secret_not_measurable": [
        "horusec HS-LEAKS-27 (postgresql://gorm:gorm@127.0.0.1:5432/gorm): the password is also the user and "
        "database name, so the word stays in any redacted text (its HS-LEAKS-26 line DB_PASSWORD=\"gorm\" is kept)",
        "KICS positive51.tf (admin_password = optional(string, \"password\")): the default 'password' is also in "
        "the key's name",
    ],
    "not_transcribed": [
        "KICS: the remaining ~60 positive/negative files (bicep, Azure ARM json, more Terraform and CloudFormation, "
        "positive_expected_result.json) for lack of time; payloads/ and temp_tests/ folders",
        "positive8.json (the same service-1 password object as positive6.json, nested one level deeper)",
        "eslint-plugin-no-secrets: the regex-source tests (its own patterns as strings)",
        "horusec HS-PRIVACY samples (personal data, not credentials)",
    ],
    "structure_lines": "braces, package/import lines, section headers and comments holding no value",
}


_VALUE = re.compile(r"[A-Za-z0-9_+/.~-]{16,}")
_KEY_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")  # a setting's name, not a value


def _distinct_values(text: str) -> list[str]:
    """The text's long random-looking runs (a digit and at least five different characters): what identifies a value."""
    return [t for t in _VALUE.findall(text) if any(ch.isdigit() for ch in t) and len(set(t)) >= 5
            and not _KEY_NAME.fullmatch(t)]


def main() -> None:
    seen_texts: set[str] = set()
    for name in OTHER_CORPORA:
        for c in json.loads((HERE / name).read_text(encoding="utf-8"))["cases"]:
            seen_texts.add(c["text"])
    seen_blob = "\n".join(seen_texts)
    cases, duplicates, value_seen, counters, own_texts = [], [], [], {}, set()
    for repo, commit, path, group, label, lines in FILES:
        for item in lines:
            text, secret = item if isinstance(item, tuple) else (item, None)
            tag = "tp" if label == "secret" else "fp"
            counters[(group, tag)] = n = counters.get((group, tag), 0) + 1
            cid = f"{group}/{tag}{n}"
            if text in seen_texts or text in own_texts:
                duplicates.append(cid)
                continue
            values = [secret] if secret is not None and len(secret) >= 12 else _distinct_values(text)
            if any(v in seen_blob for v in values):
                value_seen.append(cid)
                continue
            if (label == "secret") != (secret is not None):
                raise SystemExit(f"{cid}: a secret line names its secret, a benign line does not")
            if secret is not None and secret not in text:
                raise SystemExit(f"{cid}: the secret is not in the text")
            own_texts.add(text)
            case = {"id": f"held-out-s36/{cid}", "group": group, "label": label, "text": text,
                    "source": f"{repo}@{commit} {path}", "license": LICENSES[repo]}
            if label == "secret":
                case["secret"] = secret
            cases.append(case)
    out = {
        "source": {
            "repo": f"{KICS}, {GOSEC}, {BANDIT}, {ESL} and {HORUSEC}",
            "license": f"Apache-2.0 ({KICS}; {GOSEC}; {BANDIT}; {HORUSEC}), MIT ({ESL})",
            "paths": {KICS: "assets/queries/common/passwords_and_secrets/test/positive*.*, negative*.*",
                      GOSEC: GOSEC_P, BANDIT: BANDIT_P, ESL: ESL_P, HORUSEC: HOR_P},
            "commits": "per case",
            "split": ("held-out (fresh, session 36; typed and committed before any detector here ran on it; "
                      "none of the five sources was read here before)"),
        },
        "skipped": {**SKIPPED, "already_in_another_corpus_or_repeated": duplicates,
                    "value_already_in_another_corpus": value_seen},
        "cases": cases,
    }
    (HERE / "held_out_s36.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    secrets = [c for c in cases if c["label"] == "secret"]
    print(f"{len(cases)} cases: {len(secrets)} secrets ({len({c['secret'] for c in secrets})} distinct), "
          f"{len(cases) - len(secrets)} benign; {len({c['group'] for c in secrets})} secret groups; "
          f"{len(duplicates)} duplicates skipped: {duplicates}; {len(value_seen)} with a value seen elsewhere: {value_seen}")


if __name__ == "__main__":
    main()
