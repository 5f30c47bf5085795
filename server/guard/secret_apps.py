"""Secrets in one application's own file shape, for server.guard.redact (kept apart: redact.py and
secret_providers.py are near the 600-line cap).

* WordPress's wp-config.php authentication keys and salts: ``define('AUTH_KEY', '<64 characters>')`` and its
  seven siblings (the values api.wordpress.org/secret-key hands out: any printable character, spaces too;
  the file's own placeholder ``put your unique phrase here`` is not one). Their names end in KEY/SALT, which
  the assignment rules read as "not a credential" (a salt) or too generic to trust.
* Firefox's logins.json: ``"encryptedUsername"`` / ``"encryptedPassword"`` hold base64 DER blobs (``MD...``)
  that decrypt with the profile's key4.db; leaked together they are the login.
* Devin's API keys: ``apk_user_`` then base64 of ``user-<hex>_org-<hex>:<hex>`` (no key name needed).

Each pattern is anchored on a literal tested first; matching is linear in the text.
"""

from __future__ import annotations

from server.guard.lazyre import LazyRe as _LazyRe

_Cand = tuple[int, int, str, int, int]  # start, end, kind, rank, match start

_WP_SALT = _LazyRe(
    r"define\([ \t]*(?P<q>['\"])(?:AUTH|SECURE_AUTH|LOGGED_IN|NONCE)_(?:KEY|SALT)(?P=q)[ \t]*,[ \t]*"
    r"(?P<vq>['\"])(?P<v>[^'\"\r\n]{32,128})(?P=vq)[ \t]*\)")
_FIREFOX = _LazyRe(r"\"encrypted(?:Username|Password)\"[ \t]*:[ \t]*\"(?P<v>M[A-Za-z0-9+/]{40,2048}={0,2})\"")
_DEVIN = _LazyRe(r"(?<![A-Za-z0-9_])apk_user_[A-Za-z0-9+/]{80,2048}={0,2}")


def app_secrets(text: str, out: list[_Cand]) -> None:
    """Append the candidates of the module docstring's shapes found in ``text``."""
    if "define(" in text:
        for m in _WP_SALT.finditer(text):
            if "unique phrase" not in m.group("v"):
                out.append((m.start("v"), m.end("v"), "secret", 10, m.start()))
    if '"encrypted' in text:
        out += [(m.start("v"), m.end("v"), "password", 10, m.start()) for m in _FIREFOX.finditer(text)]
    if "apk_user_" in text:
        out += [(m.start(), m.end(), "api-key", 5, m.start()) for m in _DEVIN.finditer(text)]
