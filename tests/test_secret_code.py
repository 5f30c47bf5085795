"""Code after a credential-named key is not a credential (server/guard/secret_code.py and the rules beside it):
found by running the detectors over the installed packages' own source. Every line here was redacted before."""

from __future__ import annotations

import pytest

from server.guard.redact import redact


@pytest.mark.parametrize("text", [
    "        self._signing_key = key[:16]",
    "    statetokens = tokendefs[statestack[-1]]",
    "    fd, token = probes.descriptors[-1]",
    "        self.embed_tokens = TextScaledWordEmbedding(",
    "    positions = {token: -index for index, token in enumerate(tokens)}",
    "    def format_scan_result(self, secret: PotentialSecret) -> str:",
    "        private_key: PKCS7PrivateKeyTypes,",
    "    def __init__(self, secret_value: SecretType) -> None:",
    "    password: SecretBytes",
    "            token = Punctuation",
    "    eos_token = 102",
    '    "bos_token": "bos_token_id",',
    '    IMAGE_TOKEN = "<|image_pad|>"',
    "    route.fulfill({ body: JSON.stringify({ token: 'mock-token' }) });",
    '    "tokenizers": "tokenizers>=0.23.1,<0.24.0",',
    "    valid_kwargs_to_pass = function_",
    "Tip: to see a more detailed error message, either pass `debug=True` to the call",
    "remaining in their original positions--pass `strict=False`. To produce a",
    "def f(\n    token: str = None,\n    password: TokenOpt = None,\n):",
    "            pad_token=pad_token,\n            unk_token=unk_token,",
    "    var txtFieldPassword: UITextField! = nil",
    "client_secret: grafana-client-secret",
    'client_credentials="not a valid password"',
    "GOOGLE_APPLICATION_CREDENTIALS=/home/me/keys/service-account.json",
    'regexReplaceAll \\"-----BEGIN RSA PRIVATE KEY-----\\" \\"\\"',
    "fetch(url, {credentials: 'include'})",
    "max_community=10,",
    '"authorization": "oauth2"',
    '{"aws credentials":0.531,"axis":-0.2,"credential":-0.245,"x":1}',
    'print(f"pw:{name} {message}")',
    "        peak_memory_after_forward_pass: float,",
    '    "credentials": "boolean?",',
    "FillMaskOutputElement(score=0.06, token=11098, token_str=' happiness', sequence='x')",
    'self.test(G, [(0, 3)], community="cmty")',
    "    bmax_vopwords = r'\\b(?:append|close)\\b'",
])
def test_code_stays(text):
    assert not redact(text).changed, redact(text).text


@pytest.mark.parametrize("text, value", [
    ('let password: String! = "doNotUse8in9prod"', "doNotUse8in9prod"),
    ('"credential": "c0rr3ct-h0rse"', "c0rr3ct-h0rse"),
    ("CREDENTIALS=2727x", "2727x"),
    ("password_couchbase: VeryStrong857#", "VeryStrong857#"),
    ("passwrd = 'tangerine'", "tangerine"),
    ("community_string: p@ssw0r)", "p@ssw0r"),
    ('"Authorization": "auth456",', "auth456"),
    ('"x-functions-key": "func789abc",', "func789abc"),
    ("token: 123465749798", "123465749798"),
    ('"password": "plain_secret",', "plain_secret"),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAA", "MIIBOgIBAA"),
    ("api_token: YnJvd3Nlcjo=", "YnJvd3Nlcjo="),  # a base64 run ending in "=" is no type annotation
    ("password: Password=secret", "Password=secret"),
])
def test_the_credential_is_still_redacted(text, value):
    assert value not in redact(text).text
