"""Build held_out_s34.json: four more secret scanners' own test fixtures, held out (session 34).

    python bench/data/secrets_public/held_out_s34.py

Typed from the fixture files (repository, commit and path per file below) and committed before any
detector here ran on them. None of these four scanners' fixtures was read here before:

* sirwart/ripsecrets (MIT): ``test/one_per_line/*`` (every line one secret the scanner must report,
  its own test counts them) and ``test/none`` (every line one it must not).
* Skyscanner/whispers (Apache-2.0): ``tests/fixtures/*``, each fixture split by its own markers
  into a ``compliant`` part (benign) and a ``noncompliant`` part (secrets).
* thoughtworks/talisman (MIT): ``detector/pattern/pattern_detector_test.go``, the inputs of
  ``shouldPassDetectionOfSecretPattern`` (secrets) and ``shouldFailDetectionOfSecretPattern`` (benign).
* bridgecrewio/checkov (Apache-2.0): ``tests/secrets/sanity/secrets/true_positive.json`` and
  ``tests/secrets/sanity/non_secrets/true_negative.json``.

One case per fixture line holding a value (a nested YAML item keeps its parent key line, a shell
command continued with ``\\`` keeps its continuation lines). Labels are the scanners'. ``secret`` is
set by this script: a URL's password, else the last token holding one of whispers' markers of a
planted value (``hardcod``, ``fake``; the value follows its key, and some keys say "hardcoded" too), else the longest token holding a digit, else the longest token;
with the exceptions in BY_HAND and the values talisman's test writes next to the keyword.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
RS, WH, TA, CK = "sirwart/ripsecrets", "Skyscanner/whispers", "thoughtworks/talisman", "bridgecrewio/checkov"
LICENSES = {RS: "MIT", WH: "Apache-2.0", TA: "MIT", CK: "Apache-2.0"}
OTHER_CORPORA = ("gitleaks.json", "detect_secrets.json", "noseyparker.json", "kingfisher.json", "held_out.json",
                 "kingfisher_3.json", "kingfisher_4.json", "held_out_secretlint_trivy.json")
WF = "tests/fixtures/"
W1 = "31f2572fb8838a162830f009aafa69f468522166"  # the commit most whispers fixtures are stored at
KEY_BODY = "QyNTUxOQAAACCtrF27B/zd9DEpd38IbVBy93wSeYXKU0AGXMyO8ePu2QAAAKBSzpYEUs6W"  # whispers' private keys' body

# (repo, commit, path, group, label, [line or (line, secret)])
FILES: list[tuple[str, str, str, str, str, list]] = [
    # ---------------------------------------------------------------- ripsecrets: one secret per line
    (RS, "26409a2384c0b4d171f7165f0354872a1826ea2e", "test/one_per_line/random", "ripsecrets random", "secret", [
        'APP_KEY = "iftkeq2y4qj0nbt"',
        'clientSecretKey := "2Tm6cdsRVBTL9hRCmR6MRDTpMLFS4I"',
        '"key": "2Tm6cdsRVBTL9hRCmR6MRDTpMLFS4I"',
        "'key': \"2Tm6cdsRVBTL9hRCmR6MRDTpMLFS4I\"",
        "['dict_key'] = \"2Tm6cdsRVBTL9hRCmR6MRDTpMLFS4I\"",
    ]),
    (RS, "638c4341820ef95eebac741f9a8c2f6ab1ca9634", "test/one_per_line/aws", "ripsecrets aws", "secret", [
        "secret_access_key = '1W0T1eqNpAk3imtH8mJtkSf2AQ3eNMrPqe3u3Tf6'",
        'secretAccessKey = "wrmDCcpolP3yg9l7o9dJragXbj2wFFzWgiN5FBZN"',
        "SECRET_ACCESS_KEY: 2OYzBCp/+N9pUJ3a8JA5lOLYL/iKBFYVlif3pIHl",
    ]),
    (RS, "638ceab0ade0b687ba9e8d46172a1cf57b4aae27", "test/one_per_line/azure", "ripsecrets azure", "secret", [
        "AccountKey=lJzRc1YdHaAA2KCNJJ1tkYwF/+mKK6Ygw0NGe170Xu592euJv2wYUtBlV8z+qnlcNQSnIYVTkLWntUO1F8j8rQ==",
        "client_secret = GN.7Q~4AkLZBNEbz4Jxlm~O5G6SsyFxYg6zNR",
        "api_key = 2N87Q~4m2Bkq.tjC7pDkGksXPutGkChIGNqYc",
    ]),
    (RS, "638ceab0ade0b687ba9e8d46172a1cf57b4aae27", "test/one_per_line/gcp", "ripsecrets gcp", "secret", [
        "key=AIzaSyCw8XmxlGXVRySZxKiuZhFCALuXbLqqHBI",
        "AIzaSyBYvIR5fRdK_ZUw4baMjUanLRTA7iopW-I",
        "AIzaSyBsk5f14YtkTQr-hIbMjMOMSXIV2KdZlrU",
    ]),
    (RS, "f910532928704eae540f892cb83611edab5edfda", "test/one_per_line/github", "ripsecrets github", "secret", [
        "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",
        "github_pat_wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx",
    ]),
    (RS, "cba144e474490358e8b2e3134d16e00abd10e0e4", "test/one_per_line/gitlab", "ripsecrets gitlab", "secret", [
        "glpat-z_sxgtrfAxKr8q1TPY8Y",
    ]),
    (RS, "967a71b23596102c0589bbedb97c82123e9dc826", "test/one_per_line/intra42", "ripsecrets intra42", "secret", [
        "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",
        "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",
    ]),
    (RS, "638ceab0ade0b687ba9e8d46172a1cf57b4aae27", "test/one_per_line/jwt", "ripsecrets jwt", "secret", [
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ",
    ]),
    (RS, "638ceab0ade0b687ba9e8d46172a1cf57b4aae27", "test/one_per_line/mailchimp", "ripsecrets mailchimp", "secret", [
        "343ea45721923ed956e2b38c31db76aa-us30",
    ]),
    (RS, "92417dd115db267fd4962af9e25fa6650506c6fb", "test/one_per_line/maven", "ripsecrets maven", "secret", [
        "<password>jjGY0Zn8kPrX2aP3PmHpcqKtJBNT4N0Ta1AOUQcxSKkzgwAL9D6zJRqx9bUCcJCH</password>",
        "<master>{vki9JTFmEYlTlCZixjz0jr5QxEXlZfWga65QZhsA9yV0uRfo2iNyfgZDnWpuYqNi\\}</master>",
    ]),
    (RS, "623d42e8ba5a6ca6409e0fe929b4cf57d83dc23b", "test/one_per_line/npm", "ripsecrets npm", "secret", [
        ("//registry.npmjs.org/:_authToken=xxxxxxxxxxxxxxxxxxxx", "xxxxxxxxxxxxxxxxxxxx"),
        "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",
    ]),
    (RS, "638ceab0ade0b687ba9e8d46172a1cf57b4aae27", "test/one_per_line/sendgrid", "ripsecrets sendgrid", "secret", [
        "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",
    ]),
    (RS, "638ceab0ade0b687ba9e8d46172a1cf57b4aae27", "test/one_per_line/slack", "ripsecrets slack", "secret", [
        "xoxp-523423-234243-234233-e039d02840a0b9379c",
        # a webhook URL: its last path segment is the secret part
        ("https://hooks.slack.com/services/Txxxxxxxx/Bxxxxxxxx/xxxxxxxxxxxxxxxxxxxxxxxx", "xxxxxxxxxxxxxxxxxxxxxxxx"),
    ]),
    (RS, "638ceab0ade0b687ba9e8d46172a1cf57b4aae27", "test/one_per_line/square", "ripsecrets square", "secret", [
        "sq0csp-ABCDEFGHIJK_LMNOPQRSTUVWXYZ-0123456789\\\\abcd",
    ]),
    (RS, "638ceab0ade0b687ba9e8d46172a1cf57b4aae27", "test/one_per_line/stripe", "ripsecrets stripe", "secret", [
        "sk_live_ReTllpYQYfIZu2Jnf2lAPFjD",
        "rk_live_5TcWfjKmJgpql9hjpRnwRXbT",
    ]),
    (RS, "ac2aeb05a067877c675191b6c3760e8b0df783de", "test/one_per_line/url", "ripsecrets url", "secret", [
        "mysql://USERNAME:PASSWORD@example.com",
    ]),
    (RS, "4cc18ed9cbfdd89dedad0bf88da62a524284507e", "test/one_per_line/age", "ripsecrets age", "secret", [
        "AGE-SECRET-KEY-1Y5JDPF0K03KJV5ZPVMGESWF8JQZR8AU7ZWPMRQMM2D9Y8G0QRNZSZVU0ZN",
        "AGE-SECRET-KEY-13JCDF682MCF4V7LPYVCE85VTSNC60TPX5ZYSSNK599PGTFX9L3TQVW5JTH",
    ]),
    # ---------------------------------------------------------------- ripsecrets: must not report
    (RS, "1c4d191969e02b419b4d47bf10d1b37dbb65cb63", "test/none", "ripsecrets none", "benign", [
        "sk_live_ReTllpYQYfIZu2Jnf2lAPFjD // pragma: allowlist secret",
        'secret = "asdfasdfasdfasdfasdfasdfasdfasdfasdfasdfasdfasdf"',
        "-----BEGIN PRIVATE KEY-----this is not a private key-----END PRIVATE KEY-----",
        "CLIENT_SECRET = settings.GITHUB_API_SECRET",
        "ACCESS_TOKEN_URL = ASANA_TOKEN_EXCHANGE_URL",
        "return keyJob.start() # can look like a JWT due to containing eyJ",
        "WITH (PAD_INDEX = OFF, STATISTICS_NORECOMPUTE = OFF, IGNORE_DUP_KEY = OFF, ALLOW_ROW_LOCKS = ON, ALLOW_PAGE_LOCKS = ON)",
        'req.POST = {"head_long": "v999", "url": "http://example.com", "user": "wrong@example.com"}',
        "http://public:secret@example.com/1",
        "project_key = PROJECT_NAME_ALIAS",
        "postgresql://user:user@no_connection/no_db",
        "postgresql://user:ReTllpYQYfIZu2Jnf2lAPFjD@no_connection/no_db // secret is in .secretsignore",
    ]),
    # ---------------------------------------------------------------- whispers
    (WH, W1, WF + "apikeys.yml", "whispers apikeys", "benign", [
        "key: test",
        "api_endpoint: /apikey/",
        "NonKeyAttributes:\n  - Booking-ID",
        "Resource:\n  - CredstashKeyID: !ImportValue CredstashKeyID",
        "Resource:\n  - CredstashKey: !ImportValue CredstashKey",
    ]),
    (WH, W1, WF + "apikeys.yml", "whispers apikeys", "secret", [
        "apikey: YXNkZmZmZmZm_HARDcoded",
        "TRAVEL_API_KEY: YXNkZmZmZmZm_HARDcoded",
        "PRIVATE_API_TOKEN: YXNkZmZmZmZm_HARDcoded",
        "SKYSCANNER_API_SECRET: YXNkZmZmZmZm_HARDcoded",
        "slackKey: YXNkZmZmZmZm_HARDcoded",
        "GITLAB_KEY: YXNkZmZmZmZm_HARDcoded",
        "Google_token: YXNkZmZmZmZm_HARDcoded",
        "environment:\n  - GITHUBKEY=YXNkZmZmZmZm_HARDcoded",
        "environment:\n  - license_key: YXNkZmZmZmZm_HARDcoded",
        "NUMERIC_APIKEY: 1925483168813050783076",
    ]),
    (WH, W1, WF + "placeholders.yml", "whispers placeholders", "benign", [
        "password: password",
        "environment:\n  - DB_PASSWORD=DB_PASSWORD",
        "MasterUserPassword: <% PASSWORD_HERE %>",
        "TRAVEL_API_KEY: TRAVEL_API_KEY",
    ]),
    (WH, W1, WF + "falsepositive.yml", "whispers falsepositive", "benign", [
        'passenger: "ok1"',
        'passwordForPassenger: "ok2"',
        'passthrough: "ok3"',
        'passwordPassthrough: "ok4"',
        'secretary: "ok5"',
        'secretSecretary: "ok6"',
        'PasswordResetUrl: "ok7"',
        'publicKey: "ok8"',
        "bucket_key: s3://{{ s3().master_bucket }}/{{ macros.s3().raw_prefix}}/sessions",
        "write_key: 's3://{bucket}/deduped_events/schema_type={schema}/dt={date}'",
        "webhookApiSecret: ZENDESK_WEBHOOK_API_SECRET",
        'S3_ARCHIVE_ACCESS_KEY: "Get this from elsewhere"',
        'UserData: \n  - "gpgkey=https://artifacts.elastic.co/GPG-KEY-elasticsearch\\n"',
        "PolicyName: SandboxConfigurationS3BucketAccessPolicy",
    ]),
    (WH, W1, WF + "falsepositive.yml", "whispers falsepositive", "secret", [
        'secretarySecret: "hardcoded1"',
        'resetUrlPassword: "hardcoded2"',
        "FAIL3_PSQL_PASSWORD: hardcoded3",
        "secretKey: 'lmaoisdizareel0ne?hardcoded4'",
    ]),
    (WH, W1, WF + "aws.yml", "whispers aws", "benign", [
        'aws_id: "{{ AWS ID }}"',
        'aws_key: "${AWS_KEY}"',
        "commit_id: 912ec803b2ce49e4a541068d495ab57000000000",
        "role: arn:aws:iam::123456789000:role/role-name",
    ]),
    (WH, W1, WF + "aws.yml", "whispers aws", "secret", [
        "aws_key: PA3XsxZ8d8cPQLmnZzFAKEdzC6ND2a8vhbyXU/Dw",
        "aws_token: FakeYXdzELv//////////wEldj3948yOJRO84jgpoip239232hEOHhfkjhefkwue97jorhfiuh+XjFC9Je/YG7JCqKjrspab2lB+7/Fb1NJFjgwur47Dbhs/L7nh+/VGnwLoAo8CIqoPBLRmXItaoiuuofZnr+ktihZk1Yi55sYZ12hfRMPVbDmhf9Ke683+e9bJirhUEghw9424JOhgwrgqq99MvzCEFe4eXPOSgAcQcD2xqnnKO738tjhoh23HFqjflhefibWegfqefgqUF12hvgfwegqf",
    ]),
    (WH, W1, WF + ".aws/credentials", "whispers aws-credentials", "benign", [
        "[compliant]\naws_access_key_id = ",
        "[compliant]\naws_secret_access_key = {{ SECRET_ACCESS_KEY }}",
        '[compliant]\naws_session_token = ""',
    ]),
    (WH, W1, WF + ".aws/credentials", "whispers aws-credentials", "secret", [
        "aws_secret_access_key = hardcodeda8MjmIX/oHM7qnED/iwijE3kbtcGE1h",
        "aws_session_token = hardcodedvk399haHXDrazhhf076bw2xtn+n6iwEiEzQbIfx96xxAHAmPGuNLBWyvtJKX/9+ER+RBF+nJ7f2LGgaMidHhe/MYATw59a0oNnd/ATV6svFzKRBqdX9YZnj3lIxGUq8OjNemEiq5Jhtp75Rwf7qXvfhV0oONnm8DPaEPPUEPzr8KteeJMK6VFwdl6Thuq4sblCYILjh3tOdLwSx1xlK4kxeFvEAua3xEKldlCZ8r7DNBiPC2ZQK/UJ+2G6M4L77+a3lbrhd5UomnHPAzyWJLDOj3OUGYOdOIskKpWJ8tl1dXHy18lRj6khmU7mYmkrsBH3fenP5NHpKYY6r+YGS86k2HFVoeRPqliSXZF+MoA6dhU3KLLTYTyoxmAhENYYRkS4WJ6PSaqRTCztDNDO5196yBmCWrUKFik+Gw8=",
    ]),
    (WH, "1588a0f70b03206ea427bd851e2999c8770cf9d1", WF + "gitkeys.yml", "whispers gitkeys", "benign", [
        "name: GHP_THISISASTRINGTHATHASTHESAMELENASTOKE",
    ]),
    (WH, "1588a0f70b03206ea427bd851e2999c8770cf9d1", WF + "gitkeys.yml", "whispers gitkeys", "secret", [
        "personal: ghp_fK8UXjzPM1Lzf356hwgGym4JAfnHARDcoded",
        "oauth: gho_fK8UXjzPM1Lzf356hwgGym4JAfnHARDcoded",
        "user: ghu_fK8UXjzPM1Lzf356hwgGym4JAfnHARDcoded",
        "server: ghs_fK8UXjzPM1Lzf356hwgGym4JAfnHARDcoded",
        "refresh: ghr_1B4a2e77838347a7E420ce178F2E7c6912E169246c34E1ccbF66C46812d16D5B1A9HARDcoded",
    ]),
    (WH, "76b2eb7b08745659b2fed6341698f64cbb68eb16", WF + "grafanatokens.yml", "whispers grafanatokens", "secret", [
        "grafana_api_key: eyJrIjoiR0ZXZmt1UFc0OEpIOGN5RWdUalBJTllUTk83VlhtVGwiLCJuIjoiYXBpa2V5Y3VybCIsIhardcoded==",
        "grafana_service_account_token: glsa_Q0tTx59W5f7LXgxiM4MjJs7hardcoded_e5c6b96d",
        "grafana_cloud_api_key: eyJrIjoiZjJlZThiNDMwZGQ0ZDhjNjJhYmQwZWY3NDgxYzhjNjRiNzZkNjYyMiIsIm4iOiJ0ZXN0LWtleSIsImlkIjhardcoded=",
        "grafana_cloud_api_token: glc_eyJrIjoiZjI0YzZkNGEwZDBmZmZjMmUzNTU2ODcxMmY0ZWZlNTQ1NTljMDFjOCIsIm4iOiJteXRva2VuIiwhardcoded",
    ]),
    (WH, W1, WF + "hardcoded.yml", "whispers hardcoded", "benign", [
        "01_variable_password: $password",
        "02_variable_password: $$password",
        "03_variable_password: ${password}",
        "04_variable_password: ${{password}}",
        '05_variable_password: "{{ password }}"',
        '06_variable_password: "{{ THIS_IS_A_VERY_LONG_A_PLACEHOLDER_FOR_PASSWORD }}"',
        '07_variable_password: "{password}"',
        '08_variable_password: "{ password }"',
    ]),
    (WH, W1, WF + "hardcoded.yml", "whispers hardcoded", "secret", [
        "01_hardcoded_password: hardcoded0",
        '02_hardcoded_passwords:\n  - "Hardcoded1"',
        '02_hardcoded_passwords:\n  - "hardCoded2"',
        '02_hardcoded_passwords:\n  - "haRdcOded3"',
        "credentials:\n  login: admin\n  password: hardcodEd",
    ]),
    (WH, W1, WF + "passwords.yml", "whispers passwords", "benign", [
        "username: hardcoded",
        "environment:\n  - DB_USER=hardcoded",
        "MasterUserPassword: !Ref 'MasterUserPassword'",
        'db_password: "null"',
    ]),
    (WH, W1, WF + "passwords.yml", "whispers passwords", "secret", [
        "pwd: hardcoded1",
        "passwd: hardcoded2",
        "password: hardcoded3",
        "inlist:\n  - DB_PASSWORD=hardcoded4",
    ]),
    (WH, W1, WF + "uri.yml", "whispers uri", "benign", [
        '- "s3://bucket"',
        '- "https://this-is-not-a-password.com"',
        '- "gpgkey=https://artifacts.elastic.co/GPG-KEY-elasticsearch\\n"',
        '- "jdbc:mysql://localhost/authority?user=admin&userpass="',
        '- "https://localhost:8000/admin"',
    ]),
    (WH, W1, WF + "uri.yml", "whispers uri", "secret", [
        '- "jdbc:mysql://localhost/authority?user=admin&userpass=hardcoded"',
        '- "https://admin:hardcoded@localhost:8000/admin"',
    ]),
    (WH, "24e4e7f9bd8d786c0a94446c1d3a1825612d87a1", WF + "webhooks.yml", "whispers webhooks", "benign", [
        "slack-webhook: https://hooks.slack.com/services/",
    ]),
    (WH, "24e4e7f9bd8d786c0a94446c1d3a1825612d87a1", WF + "webhooks.yml", "whispers webhooks", "secret", [
        ("slack-webhook: https://hooks.slack.com/services/HARDC0D3D/HARDC0D3D/hardcodedWebhook01", "hardcodedWebhook01"),
    ]),
    (WH, W1, WF + "privatekeys.yml", "whispers privatekeys", "benign", [
        'public: "-----BEGIN PUBLIC KEY-----\\nQyNTUxOQAAACCtrF27B/zd9DEpd38IbVBy93wSeYXKU0AGXMyO8ePu2QAAAKBSzpYEUs6W\\n-----END PUBLIC KEY-----"',
    ]),
    (WH, W1, WF + "privatekeys.yml", "whispers privatekeys", "secret", [
        ('access: "-----BEGIN PRIVATE KEY-----\\nQyNTUxOQAAACCtrF27B/zd9DEpd38IbVBy93wSeYXKU0AGXMyO8ePu2QAAAKBSzpYEUs6W\\n-----END PRIVATE KEY-----"', KEY_BODY),
        ('key: "\\\n  -----BEGIN RSA KEY----- \\\n  QyNTUxOQAAACCtrF27B/zd9DEpd38IbVBy93wSeYXKU0AGXMyO8ePu2QAAAKBSzpYEUs6W \\\n  -----END RSA KEY-----\\ \n  "', KEY_BODY),
        ('rsa: "-----BEGIN RSA PRIVATE KEY-----\\nQyNTUxOQAAACCtrF27B/zd9DEpd38IbVBy93wSeYXKU0AGXMyO8ePu2QAAAKBSzpYEUs6W\\n-----END RSA PRIVATE KEY-----"', KEY_BODY),
        ('dsa: "-----BEGIN DSA PRIVATE KEY-----\\nQyNTUxOQAAACCtrF27B/zd9DEpd38IbVBy93wSeYXKU0AGXMyO8ePu2QAAAKBSzpYEUs6W\\n-----END DSA PRIVATE KEY-----"', KEY_BODY),
        ('ec: "-----BEGIN EC PRIVATE KEY-----\\nQyNTUxOQAAACCtrF27B/zd9DEpd38IbVBy93wSeYXKU0AGXMyO8ePu2QAAAKBSzpYEUs6W\\n-----END EC PRIVATE KEY-----"', KEY_BODY),
        ('openssh: "-----BEGIN OPENSSH PRIVATE KEY-----\\nQyNTUxOQAAACCtrF27B/zd9DEpd38IbVBy93wSeYXKU0AGXMyO8ePu2QAAAKBSzpYEUs6W\\n-----END OPENSSH PRIVATE KEY-----"', KEY_BODY),
    ]),
    (WH, W1, WF + ".npmrc", "whispers npmrc", "benign", [
        "//registry.npmjs.org/:_authToken=$NPM_TOKEN",
        "//registry.npmjs.org/:_authToken=${NPM_TOKEN}",
        "//registry.npmjs.org/:_authToken={NPM_TOKEN}",
        "//registry.npmjs.org/:_authToken={}",
        "//registry.npmjs.org/:_authToken=",
    ]),
    (WH, W1, WF + ".npmrc", "whispers npmrc", "secret", [
        "//registry.npmjs.org/:_authToken=6c141bb5-5b6d-1311-98dc-hardcoded",
        "//localhost:4873/:_authToken=U2t5c2Nhbm5lciB3MDAwhardcoded",
        "//artifactory.jfrog.com/artifactory/api/npm/npm/:_authToken=eyFake1.eyJFake2.Fake3.hardcoded",
    ]),
    (WH, W1, WF + ".pypirc", "whispers pypirc", "secret", [
        "[custom]\nrepository: https://pypi.example.com\nusername: username\npassword: hardcoded",
    ]),
    (WH, W1, WF + "pip.conf", "whispers pip.conf", "benign", [
        "index = https://pypi.example.com/pypi",
        "index-url = https://username:@pypi.example.com/simple",
    ]),
    (WH, W1, WF + "pip.conf", "whispers pip.conf", "secret", [
        "index = https://username:hardcoded1@pypi.example.com/pypi",
        "index-url = https://username:hardcoded2@pypi.example.com/simple",
    ]),
    (WH, "04b39e98292cb2040b5a06ef5af31d59640e7c5a", WF + ".dockercfg", "whispers dockercfg", "benign", [
        '"https://index.docker.io/v1/compliant1": {\n    "auth": "{{ AUTH_BASE64 }}",\n    "email": "whispers@localhost.localdomain"\n},',
        '"https://index.docker.io/v1/compliant2": {\n    "auth": "",\n    "email": "whispers@localhost.localdomain"\n},',
        '"https://index.docker.io/v1/compliant4": {\n    "auth": "zq212MzhardcodedDoesNotDecodeToAscii",\n    "email": "whispers@localhost.localdomain"\n},',
        '"https://index.docker.io/v1/compliant5": {\n    "auth": "123",\n    "email": "whispers@localhost.localdomain"\n},',
    ]),
    (WH, "04b39e98292cb2040b5a06ef5af31d59640e7c5a", WF + ".dockercfg", "whispers dockercfg", "secret", [
        ('"https://index.docker.io/v1/noncompliant": {\n    "auth": "QVdTOmhhcmRjb2RlZAo=",\n    "email": "whispers@localhost.localdomain"\n}',
         "QVdTOmhhcmRjb2RlZAo="),
    ]),
    (WH, W1, WF + ".htpasswd", "whispers htpasswd", "benign", ["compliant1", "compliant2:    "]),
    (WH, W1, WF + ".htpasswd", "whispers htpasswd", "secret", [
        ("noncompliant1:$apr1$l0cpzs5a$vQK3lmgMGvcXcRP8bhardcoded", "$apr1$l0cpzs5a$vQK3lmgMGvcXcRP8bhardcoded"),
        "noncompliant2:Sc0ZiCkjrTRbLgphardcoded",
    ]),
    (WH, W1, WF + "jenkins.xml", "whispers jenkins", "benign", [
        "<compliantApiToken>{token}</compliantApiToken>",
        "<compliantPasswordHash>{{ passwordHash }}</compliantPasswordHash>",
    ]),
    (WH, W1, WF + "jenkins.xml", "whispers jenkins", "secret", [
        "<noncompliantApiToken>{fakeMqduWo2FzpsjF8C5eYb5fah6jeo7K2rF8t4d0mH5xw4Usaz63GZiUpNwzGZsqT3ZoT/iU2/WFfL8kmKjg72fqhjYipyTyqTSKHzr8rvdcT0/MkErfKklCw4Wx3f7ypmlAW3ruZVY}</noncompliantApiToken>",
        "<noncompliantPasswordHash>#jbcrypt:$2a$10$fakefn2U3jfdByqbHc.fake9ejqu//fake9p8P222cdfwjdnMFdxS</noncompliantPasswordHash>",
    ]),
    (WH, W1, WF + "jdbc.xml", "whispers jdbc", "benign", [
        'connectionURL="jdbc:mysql://localhost/authority?user=dbuser&amp;password="',
        'connectionURL="jdbc:mysql://localhost/authority?user=dbuser&amp;password=$password"',
        'connectionURL="jdbc:mysql://localhost/authority?user=dbuser&amp;password={{pwd}}"',
    ]),
    (WH, W1, WF + "jdbc.xml", "whispers jdbc", "secret", [
        'connectionURL="jdbc:mysql://localhost/authority?user=dbuser&amp;password=hardcoded1"',
        'connectionURL="jdbc:mysql://localhost/authority?user=dbuser&amp;userpass=hardcoded2"',
        'connectionURL="jdbc:mysql://localhost/authority?user=dbuser&amp;pwd=hardcoded3"',
    ]),
    (WH, W1, WF + "connection.config", "whispers connection.config", "benign", [
        "Database=webstore;Server=localhost;Uid=root;Password=;",
    ]),
    (WH, W1, WF + "connection.config", "whispers connection.config", "secret", [
        ("Database=webstore;Server=localhost;Uid=root;Password=admin;", "admin"),
    ]),
    (WH, W1, WF + "cloudformation.yml", "whispers cloudformation", "benign", [
        "CompliantDBUser:\n  Description: Database username\n  Type: String\n  Default: admin",
        "CompliantDBPassword:\n  Description: Database password\n  Type: String\n  NoEcho: true",
    ]),
    (WH, W1, WF + "cloudformation.yml", "whispers cloudformation", "secret", [
        ("NoncompliantDBPassword:\n  Description: Database password\n  Type: String\n  Default: admin", "admin"),
    ]),
    (WH, W1, WF + "settings.env", "whispers settings", "benign", ["SSHuser=root"]),
    (WH, W1, WF + "settings.env", "whispers settings", "secret", ["SSHpassword=hardcoded"]),
    (WH, W1, WF + "settings.ini", "whispers settings", "benign", ["[SETTINGS]\nSSHuser = root"]),
    (WH, W1, WF + "settings.ini", "whispers settings", "secret", ["[SETTINGS]\nSSHpassword = hardcoded"]),
    (WH, W1, WF + "settings.cfg", "whispers settings", "secret", ['object ApiUser "root" {\n  password = "hardcoded"\n}']),
    (WH, "1ba2ddfca681b9f4278860b7fe1eb1c3f7597043", WF + "java.properties", "whispers java.properties", "benign", [
        "baseDN=LDAP", "username=admin", "password=", "sonar.jdbc.password=", "api.key=",
    ]),
    (WH, "1ba2ddfca681b9f4278860b7fe1eb1c3f7597043", WF + "java.properties", "whispers java.properties", "secret", [
        "password=hardcoded01",
        "sonar.jdbc.password=hardcoded02",
        "api.key=dGhpc2lzYWhhcmRjb2RlZHN0cmluZzpECghardcoded03",
    ]),
    (WH, W1, WF + "plaintext.txt", "whispers plaintext", "benign", [
        "Use JDBC URL jdbc:mysql://localhost/authority?user=admin&userpass=",
        "Connect to https://localhost:8000/admin for full access",
    ]),
    (WH, W1, WF + "plaintext.txt", "whispers plaintext", "secret", [
        "Use JDBC URL jdbc:mysql://localhost/authority?user=admin&userpass=hardcoded",
        "Connect to https://admin:hardcoded@localhost:8000/admin for full access",
    ]),
    (WH, W1, WF + "Dockerfile", "whispers Dockerfile", "benign", [
        'ENV DRONE_TOKEN ""',
        'ENV DRONE_TOKEN "{{ DRONE_TOKEN }}"',
        "ENV DRONE_TOKEN {{ DRONE_TOKEN }}",
        "ENV DRONE_TOKEN {DRONE_TOKEN}",
        "ENV DRONE_TOKEN $DRONE_TOKEN",
        "ENV DRONE_TOKEN=",
        'ENV DRONE_TOKEN="{{ DRONE_TOKEN }}"',
        "ENV DRONE_TOKEN={{ DRONE_TOKEN }}",
        "ENV DRONE_TOKEN={DRONE_TOKEN}",
        "ENV DRONE_TOKEN=$DRONE_TOKEN",
    ]),
    (WH, W1, WF + "Dockerfile", "whispers Dockerfile", "secret", [
        "ENV DRONE_TOKEN YXNkZmZmZmZm_HARDcoded",
        "ENV DRONE_TOKEN=YXNkZmZmZmZm_HARDcoded",
        'ENV DRONE_TOKEN="YXNkZmZmZmZm_HARDcoded"',
    ]),
    (WH, "44220fc1873047c3f0ca755b804bc9416e1e9e90", WF + "language.py", "whispers language.py", "benign", [
        'password = ""',
        'password = secrets["password"]',
        "password = asdf",
        'secrets = get_secrets(\n    CONFIG["secret_key"],\n    API_CONFIG["secret_key"],\n    DB_CONFIG["secret_key"],\n)',
        'os.getenv("PASSWORD")',
        'os.getenv("PASSWORD", "")',
        'getenv("PASSWORD", "")',
        'os.environ.get("pwd", "")',
        'environ.get("pwd", "")',
        'format_password = "prefix_{}".format(dynamic_value1)',
        'format_password = "prefix_{0}".format(dynamic_value2)',
        'format_password = f"prefix_{dynamic_value3}"',
        'login(password="")',
        'data = {"login": login, "password": new_password, "previousPassword": password}',
    ]),
    (WH, "44220fc1873047c3f0ca755b804bc9416e1e9e90", WF + "language.py", "whispers language.py", "secret", [
        'password = "hardcoded0"',
        'if password == f"hardcoded1":\n    auth = True',
        'if "{}".format("hardcoded2") != PASSWORD:\n    auth = False',
        'if user == "admin" and password == "hardcoded3":\n    auth = True',
        'creds = {"user": "admin", "password": "hardcoded4"}',
        'os.getenv("PASSWORD", "hardcoded5")',
        'getenv("PASSWORD", "hardcoded6")',
        'os.environ.get("pwd", "hardcoded7")',
        'environ.get("pwd", "hardcoded8")',
        'format_password = "prefix_{hardcoded9}"',
        'login(password="hardcoded10")',
    ]),
    (WH, "a4382372fbddd9c87949d00f69218f47d4912c2b", WF + "language.js", "whispers language.js", "benign", [
        "variable_password1 = $password;",
        'let variable_password2 = "$password";',
        'var variable_password3 = "${password}";',
        'const variable_password4 = "{{ password }}";',
        'variable_password5 = "{{ THIS_IS_A_VERY_LONG_A_PLACEHOLDER_FOR_PASSWORD }}";',
        'variable_password6 = "{password}";',
        'variable_password7 = "{ password }";',
    ]),
    (WH, "a4382372fbddd9c87949d00f69218f47d4912c2b", WF + "language.js", "whispers language.js", "secret", [
        'static_password01 = "hardcoded0";',
        'let static_password02 = "hardcoded1";',
        'var static_password03 = "hardcoded2";',
        'const static_password04 = "hardcoded3";',
    ]),
    (WH, "2517deddf4c17db3d12b5161bd97c2f8b3ed08ff", WF + "language.go", "whispers language.go", "benign", [
        'var variable_password1, variable_password2 string = password, "$password"',
        'const variable_password3 string = "${password}"',
        'variable_password4 := "{{ password }}"',
        'var variable_password5 = "{{ THIS_IS_A_VERY_LONG_A_PLACEHOLDER_FOR_PASSWORD }}"',
        'var variable_password6 = "{password}"',
        'var variable_password7 = "{ password }"',
        "var variable_password8 = aFunctionCall()",
    ]),
    (WH, "2517deddf4c17db3d12b5161bd97c2f8b3ed08ff", WF + "language.go", "whispers language.go", "secret", [
        ('const static_password01, static_password02 string = "hardcoded0", "hardcoded1"', "hardcoded0"),
        ('const static_password01, static_password02 string = "hardcoded0", "hardcoded1"', "hardcoded1"),
        'var static_password03, dynamic_password01 string = "hardcoded2", "{password}"',
        ('static_password04, static_password05 := "hardcoded3", "hardcoded4"', "hardcoded3"),
        ('static_password04, static_password05 := "hardcoded3", "hardcoded4"', "hardcoded4"),
        'static_password06, dynamic_password02 := "hardcoded5", "{password}"',
        'var static_password07 = "hardcoded6"',
        'const static_password08 = "hardcoded7"',
        'static_password09 := "hardcoded8"',
    ]),
    (WH, "5c73b1da1f8e9949e02ae2104b7d7fd07b7059b0", WF + "language.php", "whispers language.php", "benign", [
        "$variable_password1 = $password;",
        '$variable_password2 = "$password";',
        '$variable_password3 = "${password}";',
        '$variable_password4 = "{{ password }}";',
        '$variable_password5 = "{{ THIS_IS_A_VERY_LONG_A_PLACEHOLDER_FOR_PASSWORD }}";',
        '$variable_password6 = "{password}";',
        '$variable_password7 = "{ password }";',
        "$variable_password8 = aFunctionCall();",
        "$config['db_password'] = '';",
        'define("unset_password", "", true);',
        'define("variable_password", "{placeholder}");',
        'define("dynamic_password", load_password());',
    ]),
    (WH, "5c73b1da1f8e9949e02ae2104b7d7fd07b7059b0", WF + "language.php", "whispers language.php", "secret", [
        '$static_password01 = "hardcoded0";',
        'define("static_password02", "hardcoded1", true);',
        'define("static_password03", "hardcoded2");',
        "$config['db_password'] = 'hardcoded3';",
    ]),
    (WH, "db76878b6935936f51500faaa476697cdaa849a9", WF + "language.java", "whispers language.java", "benign", [
        'static final String COMPLIANT_APITOKEN = "{token}";',
        "String variable_password1 = NONCOMPLIANT_APITOKEN;",
        'final String variable_password2 = "$password";',
        'String variable_password3 = "${password}";',
        'String variable_password4 = "{{ password }}";',
        'String variable_password5 = "{{ THIS_IS_A_VERY_LONG_A_PLACEHOLDER_FOR_PASSWORD }}";',
        'String variable_password6 = "{password}";',
        'String variable_password7 = "{ password }";',
        'String variable_password8 = System.getProperty("password");',
    ]),
    (WH, "db76878b6935936f51500faaa476697cdaa849a9", WF + "language.java", "whispers language.java", "secret", [
        'static final String NONCOMPLIANT_APITOKEN = "YXNkZmZmZmZm_HARDcoded";',
        'String static_password01 = "hardcoded0";',
        'final String static_password02 = "hardcoded1";',
    ]),
    (WH, "425039dde8ab59ee6f9649ca6c217def069f5219", WF + "language.sh", "whispers language.sh", "benign", [
        "export DANGER_GITHUB_API_TOKEN=",
        'export DANGER_GITHUB_API_TOKEN=""',
        "export DANGER_GITHUB_API_TOKEN=<DANGER_GITHUB_API_TOKEN>",
        "export DANGER_GITHUB_API_TOKEN=$token",
        'export DANGER_GITHUB_API_TOKEN="${token}"',
        'export DANGER_GITHUB_API_TOKEN="invalid ending',
        '# export COMMENTED_API_TOKEN="${token}"',
        "# there's no spoon @#$%",
        "docker run -it -e DRONE_TOKEN=<DRONE_TOKEN> -e DRONE_ID=<ID> image",
        "curl -u admin: https://localhost",
        "curl --user admin:      https://localhost",
        "curl --tlspassword https://localhost",
        "wget --user=admin --ask-password https://localhost",
        "wget --user=admin --password= https://localhost",
        'mysqladmin create $DB_NAME --user="$DB_USER" --password="$DB_PASS"',
    ]),
    (WH, "425039dde8ab59ee6f9649ca6c217def069f5219", WF + "language.sh", "whispers language.sh", "secret", [
        "export DANGER_GITHUB_API_TOKEN=YXNkZmZmZmZm_HARDcoded",
        'export DANGER_GITHUB_API_TOKEN="YXNkZmZmZmZm_HARDcoded"',
        '# export COMMENTED_API_TOKEN="YXNkZmZmZmZm_HARDcoded"',
        'docker run -it -e DRONE_TOKEN="YXNkZmZmZmZm_HARDcoded" -e DRONE_ID=1 image',
        "docker run -it \\\n    -e DRONE_TOKEN=YXNkZmZmZmZm_HARDcoded \\\n    -e DRONE_ID=1 \\\n    image",
        "curl --digest -u admin:YXNkZmZmZmZm_HARDcoded https://localhost",
        "curl --user admin:YXNkZmZmZmZm_HARDcoded https://localhost",
        "curl -k -v \\\n    --proxy-user admin:YXNkZmZmZmZm_HARDcoded \\\n    --proxy https://localhost:8080 \\\n    https://localhost",
        "curl --tlspassword YXNkZmZmZmZm_HARDcoded https://localhost",
        "curl --proxy-tlspassword YXNkZmZmZmZm_HARDcoded https://localhost",
        "wget --password=YXNkZmZmZmZm_HARDcoded https://localhost",
        "wget --http-password=YXNkZmZmZmZm_HARDcoded https://localhost",
        "wget --proxy-password=YXNkZmZmZmZm_HARDcoded https://localhost",
        "wget --ftp-password=YXNkZmZmZmZm_HARDcoded https://localhost",
    ]),
    # ---------------------------------------------------------------- talisman's pattern detector test
    (TA, "083730bbfe2855575260b8c87eb1fb174a15b728", "detector/pattern/pattern_detector_test.go", "talisman pattern", "secret", [
        # the test's 8 templates, each rendered with one of its 7 keywords in turn (template j, keyword j mod 7)
        ("PASSWORD:UnsafeString", "UnsafeString"),
        ("secret=UnsafeString", "UnsafeString"),
        (".key=randomStringGoesHere}", "randomStringGoesHere"),
        (":pwd randomStringGoesHere", "randomStringGoesHere"),
        ('"SERVER_PASS" : UnsafeString', "UnsafeString"),
        ("pword2-string : UnsafeString", "UnsafeString"),
        ("<passphrase data=123> randomStringGoesHere </passphrase>", "randomStringGoesHere"),
        ("<admin password> randomStringGoesHere </mypassword>", "randomStringGoesHere"),
        # the test's literal inputs
        ('"pw" : UnsafeString', "UnsafeString"),
        ("Pw=UnsafeString", "UnsafeString"),
        ("<ConsumerKey>alksjdhfkjaklsdhflk12345adskjf</ConsumerKey>", "alksjdhfkjaklsdhflk12345adskjf"),
        ("BEGIN RSA PRIVATE KEY-----\n\taghjdjadslgjagsfjlsgjalsgjaghjldasja\n\t-----END RSA PRIVATE KEY",
         "aghjdjadslgjagsfjlsgjalsgjaghjldasja"),
        ("PWD=appropriate", "appropriate"),
        ("pass=appropriate", "appropriate"),
        ("adminpwd=appropriate", "appropriate"),
    ]),
    (TA, "083730bbfe2855575260b8c87eb1fb174a15b728", "detector/pattern/pattern_detector_test.go", "talisman pattern", "benign", [
        '"pAsSWoRD" :1234567',
        'setPassword("12345678")',
        'setenv(password, "12345678")',
        "random=12345678)",
    ]),
    # ---------------------------------------------------------------- checkov's secrets sanity tests
    (CK, "1d82881472cc44fcd74db4394332130b83f85749", "tests/secrets/sanity/secrets/true_positive.json", "checkov sanity", "secret", [
        '"SA_PASSWORD": "DEV-we-954",',
        '"secret_key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",',
        '"my_new_password": "F322a45xxmwov9bpgRhyuByXj2nxz7khS6yXQmfSaQCmwbTF2jpfgC56az3a",',
        '"test_pass": "z2b7k2cQfzc+yjP2K8cjuQ8uoorHBpEvC+XWhU3Z5+IdrPQYwr991Lj73xfZ+RA2GzC0wTedDTvb1C2NX+3Gpw==",',
        '"pg_pass": "sup1rstr0ngpass2ForTT",',
        '"secret_key": "THISISASECRETKEY1234=="',
    ]),
    (CK, "3285bb0ead56e86b7abb1c9dd7f20c7ac5ac62b5", "tests/secrets/sanity/non_secrets/true_negative.json", "checkov sanity", "benign", [
        '"upload_image_error_general": "Vi beklager, men det skjedde en feil ved opplasting. Sørg for at filen ikke overstiger {0} og at den er i et bildeformat (jpg, png, bmp eller gif).",',
        '"my_profile": "Min profil",',
        '"passwords_not_equal": "Passordene er ikke like.",',
        '"invalid_one_time_code": "Du har ikke tastet en gyldig engangskode. Tast inn 4-sifret kode fra SMS.",',
        '"access_key": "AKIAIOSFODNN7EXAMPLE",',
        '"password_change_information": "For å bekrefte endringen, må vi sende deg kode på sms.",',
        '"repeat_password": "Gjenta passord",',
        '"password_with_length": "Passord (minst 6 tegn)",',
        '"personal_information": "Personopplysninger",',
        '"phone_number": "Telefonnummer",',
        '"one_time_password": "Engangskode:",',
        '"sendOneTimePassword": "Send engangskode",',
        '"invalid_one_time_password": "Ugyldig engangskode",',
        '"password_at_least_6_characters": "Passordet må ha minst 6 tegn.",',
        '"password": "Passord",',
        '"the_value": "QtT8Q~9C-_Ij~RYuHVpD2Tuf3oHWGh.DQ3kcjbAn",',
        '"intro_new_password": "Lag et nytt passord og skriv det inn her. Passordet må ha minst 6 tegn.",',
        '"test_second": "gYf8TjMMrog5PsiyHTyKIn57gpByF8R3AcyXVLz7lli8bSGXIcWTypFsyKHQ6VKbzvHPTB6djpHpzGKHg81UoQ==",',
        '"intro_confirmation": "Ditt nye passord er lagret.",',
        '"password_must_have": "Passordet må ha seks eller flere tegn.",',
        '"wrong_one_time_password": "Du har tastet feil engangspassord",',
        '"an_error_has_occured_please_start_over": "En feil har oppstått, vennligst gå tilbake og start på nytt.",',
        '"choose_password": "Lag et nytt passord på minst 6 tegn.",',
        '"create_password": "Lag nytt passord",',
        '"save_password": "Lagre passord",',
        '"new_password": "Nytt passord",',
        '"new_password_intro": "Skriv inn mobilnummeret ditt og vi sender deg en engangskode på SMS.",',
        '"wrong_username_password": "Mobilnummer eller passord er feil. Vennligst prøv igjen.",',
        '"log_out_confirm": "Er du sikker på at du vil logge ut?",',
        '"newUserMsg": "Vi gir deg komplett oversikt over hele prosessen for din forhåndsbestilte og bestilte bil mens du venter.",',
        '"oneTimePasswordSms": "Engangskode fra sms",',
        '"passwordNotEqual": "Passordene er ikke like",',
        '"createPassword": "Opprett et passord, minst 6 tegn.",',
        '"crazy_line": "hjshnk5ex5u34565AWS654/JKGjhz545d89sjkja",',
        '"admin_login": "Pa$$w0rd"',
    ]),
]

SKIPPED = {
    "ids_not_secrets": [
        "ripsecrets test/one_per_line/twilio (an account SID AC... and an API key SID SK..., identifiers)",
        "ripsecrets test/one_per_file/aws_json (an access key id in an HTTP response)",
        "whispers aws.yml and .aws/credentials noncompliant aws_id / aws_access_key_id (access key ids)",
    ],
    "not_transcribed": [
        "ripsecrets test/one/private_key (a 3,200-character RSA key block) and test/one_per_file/pem_key.crlf",
        "whispers: the .json / .xml twins of the .yml fixtures (the same values in another syntax), "
        "creditcards.yml (card numbers), custom.* / ruleslist.yml / severity.yml (custom-rule configs), "
        "beans.xml, cors.py, source.py, shell.sh (a copy of language.sh), files/* (file-name rules)",
        "talisman: the 'AWS key :' input (a keyword with no value), the other 48 renderings of the "
        "8 templates x 7 keywords (one rendering per template is kept), and the entropy / base64 / hex "
        "detector tests (values built at test time)",
        "checkov: the other tests/secrets fixtures (Terraform, CloudFormation, Dockerfiles whose expected "
        "findings are in test code not read)",
    ],
    "structure_lines": "whispers section markers, comments and lines holding no value (a YAML parent key alone, "
                       "'auth = True' after a secret's if-line is kept with that line)",
}

_TOKEN = re.compile(r"[A-Za-z0-9+/_.~-]+={0,2}")
_URL_PASSWORD = re.compile(r"[a-z+]+://[^\s:/@\"']+:([^\s\"']+)@[^\s@\"']+")
_PLANTED = re.compile(r"hardcod|fake", re.I)


def secret_of(text: str) -> str:
    m = _URL_PASSWORD.search(text)
    if m:
        return m.group(1)
    tokens = _TOKEN.findall(text)
    planted = [t for t in tokens if _PLANTED.search(t)]
    if planted:  # the value comes after its key, and whispers' keys say "hardcoded" too
        return planted[-1]
    digits = [t for t in tokens if any(ch.isdigit() for ch in t)]
    return max(digits or tokens, key=len)


def main() -> None:
    seen_texts: set[str] = set()
    for name in OTHER_CORPORA:
        for c in json.loads((HERE / name).read_text(encoding="utf-8"))["cases"]:
            seen_texts.add(c["text"])
    cases, duplicates, counters, own = [], [], {}, set()
    for repo, commit, path, group, label, lines in FILES:
        for item in lines:
            text, secret = item if isinstance(item, tuple) else (item, None)
            tag = "tp" if label == "secret" else "fp"
            counters[(group, tag)] = n = counters.get((group, tag), 0) + 1
            cid = f"{group}/{tag}{n}"
            key = (text, secret)
            if text in seen_texts or key in own:
                duplicates.append(cid)
                continue
            own.add(key)
            case = {"id": f"held-out-s34/{cid}", "group": group, "label": label, "text": text,
                    "source": f"{repo}@{commit} {path}", "license": LICENSES[repo]}
            if label == "secret":
                case["secret"] = secret or secret_of(text)
            cases.append(case)
    out = {
        "source": {
            "repo": f"{RS}, {WH}, {TA} and {CK}",
            "license": f"MIT ({RS}, {TA}), Apache-2.0 ({WH}, {CK})",
            "paths": {RS: "test/one_per_line/*, test/none", WH: "tests/fixtures/*",
                      TA: "detector/pattern/pattern_detector_test.go",
                      CK: "tests/secrets/sanity/{secrets/true_positive,non_secrets/true_negative}.json"},
            "commits": "per case",
            "split": ("held-out (fresh, session 34; typed and committed before any detector here ran on it; "
                      "none of the four scanners' fixtures was read here before)"),
        },
        "skipped": {**SKIPPED, "already_in_another_corpus_or_repeated": duplicates},
        "cases": cases,
    }
    (HERE / "held_out_s34.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    secrets = [c for c in cases if c["label"] == "secret"]
    print(f"{len(cases)} cases: {len(secrets)} secrets ({len({c['secret'] for c in secrets})} distinct), "
          f"{len(cases) - len(secrets)} benign; {len({c['group'] for c in cases})} groups; "
          f"{len(duplicates)} duplicates skipped: {duplicates}")


if __name__ == "__main__":
    main()
