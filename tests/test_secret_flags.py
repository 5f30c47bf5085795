"""A credential given to any flag named for one, or a short token after an Authorization scheme
(server/guard/secret_flags.py), and the flag values that stay: paths, key files, references, names, modes.
Values are our own (the class was found by bench/secrets_contexts.py re-embedding the scanners' values)."""

from __future__ import annotations

import pytest

from server.guard.redact import redact


@pytest.mark.parametrize("text, value", [
    ("mytool deploy --secret-key Xk9mP2qL7vR4nT8wZ3", "Xk9mP2qL7vR4nT8wZ3"),
    ("az storage blob list --account-key q7Zk2mWp9xL4vR8tY3nB6cJ1+aB/cD==", "q7Zk2mWp9xL4vR8tY3nB6cJ1+aB/cD=="),
    ("backup --accountkey=q7Zk2mWp9xL4vR8tY3nB6cJ1", "q7Zk2mWp9xL4vR8tY3nB6cJ1"),
    ("vault-tool --encryption-key 'aes256_my_key_4711'", "aes256_my_key_4711"),
    ("minio-client --secret-access-key wJz8Qm2Lr5Tx9Vb3Nc7Kp1Yd", "wJz8Qm2Lr5Tx9Vb3Nc7Kp1Yd"),
    ("New-AzStorageContext -StorageAccountName acct -StorageAccountKey q7Zk2mWp9xL4vR8tY3nB6cJ1==", "q7Zk2mWp9xL4vR8tY3nB6cJ1=="),
    ("java -jar app.jar -privateKey 5uC5Y4Mcvdl5rB56rBmxnvB4", "5uC5Y4Mcvdl5rB56rBmxnvB4"),
    ('curl -H "Authorization: Bearer Sk94HG7f6KB" https://api.example.com', "Sk94HG7f6KB"),
    ("Authorization: Token tok3n42x", "tok3n42x"),
])
def test_the_credential_is_redacted(text, value):
    assert value not in redact(text).text


@pytest.mark.parametrize("text", [
    "ssh-add --ssh-key ~/.ssh/id_rsa",
    "terraform apply --private-key key.pem",
    "tool --private-key ./secrets/deploy.pem",
    "tool --encryption-key /etc/app/keys/master",
    "tool --secret-key $SECRET_KEY",
    'tool --secret-key "${SECRET_KEY}"',
    "tool --secret-key <your-secret-key>",
    "tool --secret-name my-secret-1",
    "tool --auth-type basic",
    "tool --key-file keys.json",
    "tool --secret-key-file /run/secrets/key",
    "tool --access-key-id AKIA1234",
    "tool --api-key-header X-Api-Key",
    "tool --sort-key created_at2",
    "tool --secret-key changeme",
    "Get-Secret -SecretKey $key",
    "Authorization: Bearer token",
    "Authorization: Bearer $TOKEN",
    "Authorization: Bearer <token>",
    "Authorization: Bearer {token}",
])
def test_not_a_credential_stays(text):
    assert not redact(text).changed, redact(text).text


def test_a_template_in_a_url_query_is_not_a_value():
    # `token={{ .Values.token }}&limit=10`: the spoken rule read the template's close as the token
    for text in ("https://api.example.com/items?token={{ .Values.token }}&limit=10",
                 "https://api.example.com/items?api_key=${{ secrets.API_KEY }}&page=2"):
        assert not redact(text).changed, redact(text).text
