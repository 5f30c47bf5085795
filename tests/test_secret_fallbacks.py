"""A literal given as a credential's fallback is that credential (server/guard/secret_fallbacks.py): operators
after an environment lookup, a lookup's default, a Rails fetch block, Terraform's try()/coalesce() (KICS' Terraform
test). Values here are our own; the must-not-fire side holds roles, labels, placeholders and non-credential names.
"""

from __future__ import annotations

import pytest

from server.guard.redact import redact


@pytest.mark.parametrize("text, value", [
    ("'password' => env('DB_PASSWORD', 'lrvl9pw1'),", "lrvl9pw1"),
    ("DB_PASSWORD = env('DB_PASSWORD', default='dj7pw234')", "dj7pw234"),
    ("password = config('DB_PASSWORD', default='dcpw9234')", "dcpw9234"),
    ("password: ENV.fetch('DB_PASSWORD', 'rls8pw12')", "rls8pw12"),
    ('password: ENV.fetch("DB_PASSWORD") { "rls8pw12" }', "rls8pw12"),
    ("password: ENV['DB_PASSWORD'] || 'rls8pw12'", "rls8pw12"),
    ("password: process.env.DB_PASSWORD || 'nd6pw12'", "nd6pw12"),
    ("const password = process.env.DB_PASSWORD ?? 'nd6pw12';", "nd6pw12"),
    ('$password = getenv("DB_PASSWORD") ?: "ph5pw1234";', "ph5pw1234"),
    ("$password = $_ENV['DB_PASSWORD'] ?? 'ph5pw1234';", "ph5pw1234"),
    ("db_password = os.environ.get('DB_PASSWORD') or 'py4pw1234'", "py4pw1234"),
    ('String password = System.getenv().getOrDefault("DB_PASSWORD", "jv3pw12");', "jv3pw12"),
    ('var pw = Environment.GetEnvironmentVariable("DB_PASSWORD") ?? "cs2pw1234";', "cs2pw1234"),
    ('admin_password = try(each.value.admin_password, "leaked_pw", null)', "leaked_pw"),
    ('admin_password = coalesce(var.pw, "Sup3rS3cret!")', "Sup3rS3cret!"),
    ("api_token = os.environ.get('API_TOKEN') or 'q7Zk2mWp9xL4vR8tY3nB6cJ1'", "q7Zk2mWp9xL4vR8tY3nB6cJ1"),
])
def test_the_fallback_is_redacted(text, value):
    assert value not in redact(text).text


@pytest.mark.parametrize("text", [
    "const token = localStorage.getItem('token') || 'guest';",  # a token's fallback must look random
    "password_label = t('password') || 'Password'",  # not a credential's name on the left
    "placeholder: props.placeholder || 'Enter your password'",
    "password: ENV.fetch('DB_PASSWORD', nil)",
    "token_type = data.get('token_type') or 'bearer'",
    "auth_method = config('AUTH_METHOD', default='basic')",
    'password = lookup(var.creds, "db", null)',  # lookup()'s second argument is a key, not a fallback
    "api_key = os.environ.get('API_KEY') or 'changeme'",
    "password: process.env.DB_PASSWORD || 'your-password-here'",
    'secret_name = try(var.secret_name, "app-secret")',
    "auth = req.headers.authorization || 'none'",
])
def test_must_not_fire(text):
    assert redact(text).text == text
