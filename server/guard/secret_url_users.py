"""A URL whose user part is the credential, for server.guard.redact (kept apart: redact.py is at the line cap).

GitHub documents ``https://<token>:x-oauth-basic@github.com``, and other services take a token as the user and
ignore the password (``x``, ``unused``, ``none``): when the password is such a throwaway and the user is shaped like
a token, the user is the secret.
"""

from __future__ import annotations

FILLER_PASSWORDS = frozenset({"x-oauth-basic", "x", "unused", "none", "ignored", "blank", "nopass", "dummy"})


def token_user(user: str, password: str) -> bool:
    """A throwaway ``password`` after a user of 12+ letters and digits (``_``/``-`` allowed), both present."""
    return (password.lower() in FILLER_PASSWORDS and len(user) >= 12 and user.isascii()
            and user.replace("_", "").replace("-", "").isalnum()
            and any(c.isdigit() for c in user) and any(c.isalpha() for c in user))
