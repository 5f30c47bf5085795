"""Secrets told apart by their context: the key, the call or the syntax around a value.

Public scanners' fixtures (whispers, talisman, ripsecrets, checkov) plant one literal under many keys
and syntaxes, and keep look-alikes that must not fire: a variable, a constant named for the secret, a
format string filled in at run time. The values here are written for these tests, not copied.
"""

from __future__ import annotations

import pytest

from server.guard.redact import redact


def gone(text: str, value: str) -> bool:
    return value not in redact(text).text


@pytest.mark.parametrize("text", [
    'var db_password2 = "Qm7tr0ubadour";',
    'const admin_password01 = "Qm7tr0ubadour"',
    'String mailPassword3 = "Qm7tr0ubadour";',
    "old_passwords: Qm7tr0ubadour",
])
def test_a_numbered_or_plural_password_key_names_a_password(text):
    assert gone(text, "Qm7tr0ubadour")


@pytest.mark.parametrize("text", ['"token1": "xoxp-1234567890"', "max_tokens: 4096x"])
def test_a_numbered_or_plural_token_key_is_not_widened(text):
    # a count of tokens, a sample list entry: only password keys take a number or a plural
    assert not redact(text).changed


@pytest.mark.parametrize("flag", ["--tlspassword", "--proxy-tlspassword", "--keypassword"])
def test_a_flag_whose_name_ends_in_password_takes_its_value(flag):
    assert gone(f"curl {flag} Qm7tr0ubadour https://example.org", "Qm7tr0ubadour")


def test_a_password_flag_followed_by_a_url_has_no_value():
    assert not redact("wget --user=me --ask-password https://example.org/file").changed


@pytest.mark.parametrize("text", [
    "String mail_password = MAIL_SERVICE_TOKEN;",  # a constant named for the secret
    "hookSecret: BILLING_HOOK_SECRET",
    'payload = {"user": user, "password": typed_password}',  # code's variable after a quoted key
    'mail_password = f"pre_{suffix_value}"',  # filled in at run time
    'mail_password = "pre_{}".format(suffix_value)',
    'url="jdbc:postgresql://db/app?user=app&password={{db_pw}}"',  # a template
    'secret = "qwerqwerqwerqwerqwerqwer"',  # one unit typed again and again
])
def test_references_templates_and_fillers_under_a_secret_key_stay(text):
    assert not redact(text).changed, redact(text).text


@pytest.mark.parametrize("text, value", [
    ('smtp_password = "MAIL_SERVICE_TOKEN"', "MAIL_SERVICE_TOKEN"),  # quoted, the same word is a literal
    ('"SMTP_PASS" : Qm7tr0ubadour', "Qm7tr0ubadour"),  # not a variable's shape
    ('mail_password = "pre_{x}"', "pre_{x}"),  # not an f-string, no .format: a literal
    ('password = "ab12cd34ab12cd34ab12cd34"', "ab12cd34ab12cd34ab12cd34"),  # a unit of 8 repeated
])
def test_the_look_alikes_literal_twins_are_still_secrets(text, value):
    assert gone(text, value)


@pytest.mark.parametrize("text", [
    'if login == "root" and password == "Qm7tr0ubadour":',
    'if password == f"Qm7tr0ubadour":',
    'db_pw = os.getenv("DB_PASSWORD", "Qm7tr0ubadour")',
    'os.environ.get("pwd", "Qm7tr0ubadour")',
    'define("MAIL_PASSWORD", "Qm7tr0ubadour");',
])
def test_a_password_compared_with_or_given_as_a_default_is_a_secret(text):
    assert gone(text, "Qm7tr0ubadour")


@pytest.mark.parametrize("text", [
    "if password == expected:",  # a variable
    'if auth_token == "bearer":',  # a word compared with
    'labels = ("token", "bucket")',  # a list of words, no call giving a default
    '"new_password": "Choose a new password",',  # an interface's text
    '"reset_password": "Tilbakestill passordet ditt.",',
    '"one_time_password": "Kode:",',
    'ACCESS_KEY: "Ask the team for this"',
])
def test_comparisons_with_names_and_interface_text_under_a_password_key_stay(text):
    assert not redact(text).changed, redact(text).text


def test_a_passphrase_of_lower_case_words_is_still_a_password():
    assert gone('"password": "correct horse battery staple"', "correct horse battery staple")


def test_a_plain_word_as_a_calls_default_stays():
    assert not redact('cfg.get("password", "unset")').changed


def test_each_item_of_a_yaml_list_under_a_password_key_is_a_secret():
    text = 'service:\n  old_passwords:\n    - "Qm7tr0ubadour"\n    - Vx9plumb3rs\n  name: web\n'
    out = redact(text).text
    assert "Qm7tr0ubadour" not in out and "Vx9plumb3rs" not in out and "name: web" in out


@pytest.mark.parametrize("text", [
    "old_passwords:\n  - name: first\n  - name: second\n",  # a list of mappings
    "passwords:\n  - changeme\n  - ${MAIL_PASSWORD}\n",  # a placeholder, a reference
    "steps:\n  - a1b2c3d4e5\n",  # not a credential key
])
def test_yaml_lists_of_mappings_placeholders_or_under_other_keys_stay(text):
    assert not redact(text).changed, redact(text).text


@pytest.mark.parametrize("text", ["01_db_password: Qm7tr0ubadour", "adminpwd=Qm7tr0ubadour"])
def test_a_numbered_yaml_key_and_a_glued_admin_pwd_name_a_password(text):
    assert gone(text, "Qm7tr0ubadour")


def test_a_sentence_where_a_private_keys_body_would_be_is_not_a_key():
    assert not redact("-----BEGIN PRIVATE KEY-----not a real key here-----END PRIVATE KEY-----").changed
    body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7" * 3
    assert body not in redact(f"-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----").text


@pytest.mark.parametrize("text", [
    'const mail_password, smtp_password string = "Qm7tr0ubadour", "Vx9plumb3rs"',
    'mail_password, smtp_password := "Qm7tr0ubadour", "Vx9plumb3rs"',
])
def test_each_password_of_a_go_multiple_assignment_is_a_secret(text):
    out = redact(text).text
    assert "Qm7tr0ubadour" not in out and "Vx9plumb3rs" not in out


def test_a_multiple_assignment_keeps_other_names_values_and_references():
    text = 'host, mail_password := "db.example.org", "{password}"'
    assert not redact(text).changed


@pytest.mark.parametrize("text", [
    '"password": "Passwort",',  # the word itself, German, as "password": "password" is in English
    '"login.password": "Wachtwoord"',
    '"password_label": "Пароль"',
    '"wrong_password": "Benutzername oder Passwort falsch. Bitte erneut versuchen."',  # two sentences
    '"reset_password": "Das Passwort ist abgelaufen. Wählen Sie ein neues."',
])
def test_the_word_password_in_another_language_and_several_sentences_are_interface_text(text):
    assert not redact(text).changed


def test_a_password_that_only_resembles_a_word_is_still_redacted():
    assert "Passw0rt9x" not in redact('"password": "Passw0rt9x"').text


@pytest.mark.parametrize("text", [
    'conn = "Server=" + host + ";User Id=" + user + ";Password=" + pw + ";"',  # code between two literals
    'sb.append("password: " . $pw . ",");',
    'let password = env::var("DB_PASSWORD").expect("set DB_PASSWORD");',  # a Rust path call
    "password: '{{ lookup(\"env\", \"DB_PASS\") }}'",  # one template expression, quotes inside
    'password: "<%= ENV.fetch(\'DB_PASSWORD\') %>"',
    "${SECRET_KEY:?SECRET_KEY is required}",
])
def test_concatenation_path_calls_and_whole_templates_are_not_values(text):
    assert redact(text).text == text


def test_a_literal_shaped_like_a_template_is_still_a_value():
    out = redact('apikey = "{{h}o)p${e]nob(ody[finds>-_$#thisone}}"').text
    assert "thisone" not in out


@pytest.mark.parametrize("text, value", [
    # a setter's value is the value set, a plain word too (leaky-repo's wp-config.php: `define( 'DB_PASSWORD', 'admin' )`)
    ("define( 'DB_PASSWORD', 'admin' );", "admin"),
    ('props.put("password", "tiger");', "tiger"),
    ('System.setProperty("javax.net.ssl.trustStorePassword", "changeit");', "changeit"),
])
def test_a_setters_value_is_a_secret_even_a_plain_word(text, value):
    assert gone(text, value)


@pytest.mark.parametrize("text", [
    'os.getenv("DB_PASSWORD", "default")',  # a lookup's default word is not
    'fields = ("token", "bucket")',
])
def test_a_lookups_default_word_or_a_list_of_words_is_left_alone(text):
    assert redact(text).text == text


@pytest.mark.parametrize("text", [
    # a key block copied without its first five dashes, or its END's last five (talisman's fixture shape)
    "BEGIN RSA PRIVATE KEY-----\n\tMIIEpAIBAAKCAQEAq8Vx2LmN4rTzWp7Kc9B1dE3fG5hJ6kL8\n\t-----END RSA PRIVATE KEY",
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY",
])
def test_a_private_key_block_missing_some_dashes_is_redacted_whole(text):
    assert redact(text).text == "[REDACTED:private-key]"


def test_the_words_begin_private_key_in_prose_are_left_alone():
    text = "The file should start with BEGIN RSA PRIVATE KEY and end with its END line."
    assert redact(text).text == text
