"""One application's own file shapes (server/guard/secret_apps.py) and AWS keys cut short: session 35's
spent part (leaky-repo's planted wp-config.php, logins.json, .aws/credentials; betterleaks' Devin key)."""

from __future__ import annotations

import pytest

from server.guard.redact import redact

_WP = "Q$:B]zZjN-AdT<>h7V1.vm+k^|}2wVZf]Xw#QEZ[-pSohv+Kj0W-Z|:|g$-+E8:8"
_FF = "MDoEEPgAAAAAAAAAAAAAAAAAAAEwFAYIKoZIhvcNAwcECDAMJYvxVWmNBBAYOR+4wZeLSB7kqJ/GDhj3"
_DEVIN = ("apk_user_dXNlci0yMDc5ZjllYTUyZDA0OWE0OTVlOWUwNDc2OTJiNWZhYl9vcmctZmE4NzllMzdjYWRmNGI2YmJmMmE3YWYzMTg"
          "xZGVjMTM6MjUwZjRhNzc2ZDEyNGVlMTk0NDk5OGNhNmRmNjBiY2I=")  # betterleaks' own example


@pytest.mark.parametrize("text, secret", [
    (f"define('LOGGED_IN_KEY',    '{_WP}');", _WP),
    (f'define( "NONCE_SALT", "{_WP.replace(chr(39), "")}" );', _WP.replace("'", "")),
    (f'"encryptedUsername": "{_FF}",', _FF),
    (_DEVIN, _DEVIN),  # no key name: the prefix is the format
    ("aws_secret_access_key = nAH2VzKrMrRjySLlt8HCdFU3tM2TUuUZgh39NX", "nAH2VzKrMrRjySLlt8HCdFU3tM2TUuUZgh39NX"),
])
def test_an_applications_own_secret_shape_is_redacted(text, secret):
    assert secret not in redact(text).text


@pytest.mark.parametrize("text", [
    "define( 'AUTH_KEY',         'put your unique phrase here' );",  # wp-config-sample.php's placeholder
    "define('WP_CACHE_KEY_SALT', 'mysite');",
    "export AWS_SECRET_ACCESS_KEY=ded7db27a4558e2ea9bbf0bf36ae0e8521618f366c",  # 42 hex: the format near-missed
    '"aws_secret_access_key" =  aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaend',
    '"encryptedUsername": "",',
])
def test_their_placeholders_and_near_misses_are_left_alone(text):
    assert redact(text).text == text
