"""Shapes that catch providers with no rule of their own (server/guard/secret_providers.py and
secret_assignments.py): a provider's prefixed token, Microsoft's identifiable keys, and a key named
``*_key`` holding a long random run. Each is checked against the look-alikes it must leave alone.

Examples are templates filled with deterministic random characters (tests/test_secret_coverage.py's
``fill``), so this file holds no string a secret scanner would flag.
"""

from __future__ import annotations

import pytest
from test_secret_coverage import fill

from server.guard.redact import redact

# A provider's key: a short name, "_" or "-", and a long random body -- providers this project has
# no rule for (the names are made up, as a new provider's would be).
PREFIXED = [
    "pasted zqkey_{a26} into the form",
    "the cursor one was key_{h64} I think",
    "export ACME=acmeprj_{A22}_{h40}",
    "use qwx-live-{A32} for the webhook",
    "config.set('vendor', 'mpk_{A40}')",
    "ck_staging_{A30}",  # an environment after the prefix
    'init("key_test_{A32}");',
]


@pytest.mark.parametrize("template", PREFIXED)
def test_an_unknown_providers_prefixed_token_is_redacted(template):
    text = fill(template, template)
    r = redact(text)
    body = text.split("_")[-1].split("-")[-1].rstrip("')\" ").split(" ")[0]
    assert body not in r.text, r.text


# Prefixed runs that are names, ids or digests, not keys.
PREFIXED_LOOKALIKES = [
    "kubectl logs payments-service-deployment-7d9f8b6c4-x2k8p",
    "test_parse_2024_quarterly_report_with_missing_fields",
    "integrity: sha512-{b64}",
    "commit_{h40}",
    "request id req-{uuid}",
    "the stripe publishable key pk_live_{A24}",
    "see https://example.com/files/report_{A24}",
    "sandbox_{a8}_{a16}",
    "MINIDUMP_SYSMEMINFO1_PERF_CCTOTALDIRTYPAGES_CCDIRTYPAGETHRESHOLD",  # a constant's name
    'SN_id_Gost28147_89_None_KeyMeshing = "id-Gost28147-89-None-KeyMeshing"',  # words for segments
]


@pytest.mark.parametrize("template", PREFIXED_LOOKALIKES)
def test_prefixed_names_ids_and_digests_are_left_alone(template):
    text = fill(template, template)
    assert redact(text).text == text


def test_a_token_whose_prefix_a_format_rule_owns_is_judged_by_that_rule():
    # "sgp_" is Sourcegraph's: its rule refuses a body of the wrong shape, and the generic shape
    # must not overrule it
    text = fill("sgp_local_{A40}", "sgp")
    assert redact(text).text == text


# Microsoft's identifiable keys: the service signature at its documented place.
MICROSOFT = [
    "{A52}JQQJ99{A26}",  # Azure AI services / Cognitive Services, 84 characters
    "{A52}JQQJ9D{A20}AZDO{A2}",  # Azure DevOps PAT
    "{A42}+ACR{A6}",  # Container Registry password, 52 characters
    "{b33}+ASb{A6}=",  # Service Bus, 44 characters
]


@pytest.mark.parametrize("template", MICROSOFT)
def test_microsofts_identifiable_keys_are_redacted_without_a_keyword(template):
    key = fill(template, template)
    r = redact(f"value: {key}")
    assert key not in r.text and r.kinds == ("azure-key",)


def test_a_signature_inside_a_longer_base64_run_is_not_a_key():
    blob = fill("{A60}JQQJ99{A200}", "blob")
    assert redact(f"data: {blob}").text == f"data: {blob}"


@pytest.mark.parametrize("key", ["DD_APPLICATION_KEY", "LINEAR_KEY", "key", "zonka_feedback_key"])
def test_a_key_named_key_holding_a_random_run_is_redacted(key):
    value = fill("{A40}", key)
    assert value not in redact(f"{key}={value}").text


def test_a_key_named_key_holding_base64_is_redacted():
    value = fill("{A40}/+==", "b64")
    assert value not in redact(f"AZURE_FUNCTION_KEY={value}").text


@pytest.mark.parametrize("text", [
    'cache_key = "user_profile_cache_v2_settings"',
    'primary_key = "{a24}"',
    'sort_key = "{a24}"',
    'idempotency_key = "{uuid}"',
    "key = 42",
    "key: value",
])
def test_keys_that_name_an_index_or_hold_a_name_are_left_alone(text):
    text = fill(text, text)
    assert redact(text).text == text


@pytest.mark.parametrize("template", [
    "ATCTT3xFfGN0{w40}={H8}",  # Atlassian scoped API token
    "BBDC-{b44}",  # Bitbucket Data Center HTTP access token
    "AGE-SECRET-KEY-PQ-1{c60}",  # age post-quantum identity
])
def test_newer_atlassian_and_age_formats_are_redacted(template):
    token = fill(template, template)
    assert token not in redact(f"it was {token} yesterday").text


@pytest.mark.parametrize("line, secret", [
    ("enable secret 5 $1$abc$hashvaluehere", "$1$abc$hashvaluehere"),
    ("hostname r1\nenable password cisco\nline vty 0 4", "cisco"),
    ("snmp-server community pr1vate RW", "pr1vate"),
    ("snmp-server community S3cretCommunity RW 99", "S3cretCommunity"),
    ("pac key 7 045802150C2E", "045802150C2E"),
    ("username admin privilege 15 secret 0 Cisco123!", "Cisco123!"),
    ("tacacs-server host 10.0.0.1 key T4cacsK3y", "T4cacsK3y"),
])
def test_network_device_configuration_secrets_are_redacted(line, secret):
    assert secret not in redact(line).text


@pytest.mark.parametrize("text", [
    "enable password protection for users",  # prose: the line goes on
    "snmp-server community public RO",  # the documented default
    "Enable password reset emails",
])
def test_prose_about_device_passwords_is_left_alone(text):
    assert redact(text).text == text


def test_configcat_sdk_keys_are_redacted():
    key = fill("configcat-sdk-1/{w22}/{w22}", "cc")
    assert key.split("/", 1)[1] not in redact(f"sdk: {key}").text


@pytest.mark.parametrize("template", [
    "SWMKEY-1-{b43}",  # Docker Swarm unlock key
    "pk" ".eyJ{w40}.{w22}",  # Mapbox public access token
    "ZXlK" "aGJHY2lPaU{b80}",  # a JWT base64-encoded once more ({"alg": ...)
    "ZXlK" "MGVYQWlPaU{b80}",  # ...and with its {"typ": header first
    "{a11}" "AAAAAAAAAA" "{a43}",  # Dropbox long-lived access token
])
def test_formats_from_the_fourth_kingfisher_part_are_redacted(template):
    token = fill(template, template)
    assert token not in redact(f"token: {token}").text
    assert token not in redact(f"it was {token} yesterday").text


@pytest.mark.parametrize("text", [
    # ten "A"s inside a longer base64 run are zero bytes, not a Dropbox token
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    "mapbox pk.eyJ.x is the public token's prefix",  # too short to be a token
])
def test_look_alikes_of_those_formats_are_left_alone(text):
    assert redact(text).text == text


@pytest.mark.parametrize("template, secret_slot", [
    ("AQ.Ab8R{w46}", None),  # GCP express-mode API key
    ("ghs_12345_eyJ{w20}.eyJ{w40}.{w43}", None),  # GitHub stateless installation token
    ("3MV" "G9{A60}", None),  # Salesforce connected-app consumer key
    ("sg" "p_{A64}", None),  # Segment public API token
    ("$ vault operator unseal {b44}", "{b44}"),  # Vault unseal key after the word naming it
    ("Unseal Key 2: {b44}", "{b44}"),
    ("secret_id: {uuid}", "{uuid}"),  # Vault AppRole secret id
])
def test_formats_from_the_second_kingfisher_4_batch_are_redacted(template, secret_slot):
    text = fill(template, template)
    secret = text if secret_slot is None else fill(secret_slot, template)
    assert secret in text
    assert secret not in redact(text).text


@pytest.mark.parametrize("text", [
    "role_id: 87654321-4321-4321-4321-210987654321",  # the AppRole's role id is not its secret
    "to unseal the vault, run vault operator unseal three times",  # prose, no key
])
def test_vault_ids_and_prose_are_left_alone(text):
    assert redact(text).text == text
