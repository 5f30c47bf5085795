"""Near misses of a provider's format are not secrets; the format itself still is.

Public scanners keep must-not-fire lines beside their examples: a key one character too long, glued
to a word, with a prefix in the wrong case, a checksum that does not add up, a watermark damaged.
Each test here builds the real format and its near miss from the provider's documented shape (the
values are generated, not copied from any corpus) and checks that only the format is redacted.
"""

from __future__ import annotations

import base64
import random
import string
import zlib

import pytest

from server.guard.redact import redact

ALNUM = string.ascii_letters + string.digits


def rand(n: int, alphabet: str = ALNUM, seed: int = 0) -> str:
    rng = random.Random(seed)
    while True:
        s = "".join(rng.choice(alphabet) for _ in range(n))
        if any(c.isdigit() for c in s) and any(c.islower() for c in s) and any(c.isupper() for c in s):
            return s


def pick(n: int, alphabet: str, seed: int) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(n))


def cloudflare(prefix: str, seed: int = 1) -> str:
    body = rand(40, seed=seed)
    return prefix + body + f"{zlib.crc32(body.encode()):08x}"


CF = cloudflare("cf" + "at_")
ANTHROPIC = "sk" + "-ant-api03-" + rand(93, ALNUM + "_-", seed=2) + "AA"
OPENAI = "sk" + "-" + rand(20, seed=3) + "T3Blbk" + "FJ" + rand(20, seed=4)
NOTION = "nt" + "n_" + "1" + pick(10, string.digits, seed=5) + rand(35, seed=6)
GROQ = "gs" + "k_" + rand(52, seed=7)


def _changed(text: str) -> bool:
    return redact(text).changed


@pytest.mark.parametrize("token", [CF, cloudflare("cf" + "ut_", 8), cloudflare("cf" + "k_", 9), ANTHROPIC, OPENAI,
                                   NOTION, GROQ])
def test_the_documented_format_is_redacted(token):
    r = redact(f"KEY={token}")
    assert token not in r.text, r.text


def test_a_cloudflare_token_is_40_random_characters_and_their_crc32():
    assert not _changed(CF + "Z")  # one character too long
    assert not _changed(CF[:-8] + "0" * 8)  # the checksum does not add up


@pytest.mark.parametrize("near", [
    "x" + CF,  # glued to a letter
    "word" + GROQ,
    "x" + NOTION,
    NOTION.upper()[:4] + NOTION[4:],  # the prefix in the wrong case
    "cf" + CF[4:],  # the prefix cut short ("cf_" for "cfat_")
    "gXX_" + rand(36, seed=11),  # a placeholder prefix
    "sk" + "_" + rand(52, seed=12),  # "sk_" that is neither Stripe's nor any other sk_ format
])
def test_a_known_prefix_near_missed_is_not_an_unknown_providers_key(near):
    assert not _changed(near), redact(near).text


def test_an_anthropic_key_is_93_characters_and_AA():
    assert not _changed(ANTHROPIC[:-2] + "BB")
    assert not _changed(ANTHROPIC[:-10] + "AA")
    # a value under a key name that is a known prefix and far too short is the format near-missed
    assert not _changed('anthropic_token = "' + "sk" + '-ant-oat01-tooShort"')


def test_an_openai_key_carries_its_watermark_with_20_characters_on_each_side():
    assert not _changed("sk" + "-" + rand(20, seed=13) + rand(8, seed=14) + rand(20, seed=15))  # no watermark
    assert not _changed("sk" + "-short" + "T3Blbk" + "FJ" + "short1")  # too short around it
    assert not _changed("sk" + "-proj-" + rand(20, seed=16) + "T4Blbk" + "FJ" + rand(20, seed=17))  # damaged
    proj = "sk" + "-service-account1-" + rand(20, seed=18) + "T3Blbk" + "FJ" + rand(20, seed=19)
    assert proj not in redact(proj).text
    deepseek = "sk" + "-" + pick(32, "0123456789abcdef", seed=21)
    assert deepseek not in redact(deepseek).text


def test_an_aws_secret_key_of_the_wrong_length_is_not_one():
    assert not _changed("export AWS_SECRET_ACCESS_KEY=" + pick(42, "0123456789abcdef", seed=22))
    right = rand(40, ALNUM + "/+", seed=23)
    assert right not in redact("export AWS_SECRET_ACCESS_KEY=" + right).text


def test_base64_of_plain_words_is_a_sample_not_a_key():
    sample = base64.b64encode(b"sample text data for the docs").decode()
    assert not _changed("ANY_KEY = " + sample)


def test_a_fill_in_instruction_in_a_url_is_not_a_password():
    assert not _changed("mysql://admin:REPLACE_WITH_PASSWORD@db.example.com:3306/app")
    assert _changed("mysql://admin:" + rand(12, seed=24) + "@db.example.com:3306/app")


def test_a_docker_config_in_a_pull_secret_is_redacted():
    r = redact("data:\n  .dockerconfigjson: eyJhdXRoc" + rand(30, seed=25))
    assert r.kinds == ("docker-config",)


def test_a_sendgrid_key_counts_glued_to_a_word():
    key = "S" + "G." + rand(22, seed=26) + "." + rand(43, seed=27)
    assert key not in redact("som" + key + "where").text
    assert key not in redact("use " + key + ". Then rotate it.").text  # at a sentence's end


def test_a_gitlab_pat_of_20_letters_counts():
    pat = "gl" + "pat-" + pick(20, string.ascii_letters, seed=29)
    assert pat not in redact(pat).text


def test_a_bare_api_key_label_then_a_32_hex_key_on_the_next_line_is_redacted():
    key = pick(32, "0123456789abcdef", seed=30)
    assert redact("API Key\n" + key).kinds == ("api-key",)
    assert not _changed("API Key\n" + pick(40, "0123456789abcdef", seed=31))  # 40 hex: a commit, not this key


def test_service_formats_by_prefix_host_and_label():
    ph = "ph" + "r_" + rand(43, seed=32)
    rzp = "rz" + "p_live_" + rand(14, seed=33)
    hook = pick(26, "0123456789abcdefghijklmnopqrstuvwxyz", seed=34)
    hec = "D6BD1AD4-CB62-4D80-A637-" + pick(12, "0123456789ABCDEF", seed=35)
    assert redact(ph).kinds == ("posthog-token",)
    assert redact(rzp).kinds == ("razorpay-key",)
    assert not _changed("x" + rzp)  # glued to a word
    assert redact("https://chat.example.org/hooks/" + hook).kinds == ("mattermost-webhook",)
    assert redact("splunk.hec=" + hec).kinds == ("splunk-hec-token",)
    assert redact("https://mainnet.infura.io/v3/" + pick(32, "0123456789abcdef", seed=36)).kinds == ("infura-key",)


def test_a_services_auth_setting_is_its_password():
    pw = rand(14, seed=37)
    assert pw not in redact(f"config.redis.auth = '{pw}'").text
    assert not _changed("auth = 'basic'")  # any other "auth" setting names a scheme, not a password


def test_an_ollama_key_after_its_name_and_a_token_after_the_oauth_scheme():
    key = pick(32, "0123456789abcdef", seed=38) + "." + rand(24, ALNUM + "_-", seed=39)
    assert redact("ollama key = " + key).kinds == ("ollama-api-key",)
    assert not _changed("see ollama docs: " + pick(32, "0123456789abcdef", seed=40))  # hex alone is no key
    token = pick(64, "0123456789abcdef", seed=41)
    assert token not in redact("Authorization: OAuth " + token).text
    assert not _changed("OAuth 2.0 authorization_code flow")
