"""More SaaS providers' credential formats: a prefix of their own, or a host or label that names them.

Written from the providers' documented formats (session 34); server.guard.secret_providers adds them
to its token rules, so each runs only when its literal occurs, like every other prefixed rule.

* **Prefixes**: PostHog's OAuth access and refresh tokens and feature-flag secure keys (``pha_``,
  ``phr_``, ``phs_``: 40-48 letters and digits); Razorpay's key ids (``rzp_live_`` / ``rzp_test_``
  and 14 characters; Kingfisher reports them, the key's secret is found by its keyword).
* **Hosts**: an Infura project key (32 lower-case hex or letters) in an ``infura.io`` URL or just
  after the word; a Mattermost incoming webhook (``https://<host>/hooks/<26-character id>``).
* **Words**: an Ollama key (32 hex, ".", 24 more) after the word; a token after the ``OAuth``
  authorization scheme, as after ``Bearer``.
* **Labels**: a Splunk HEC token (a UUID) after ``splunk.hec`` / ``splunk_hec``; a 32-hex key on the
  line after a bare ``API Key`` / ``API Secret`` label, as a dashboard shows it and people paste it.

Every pattern is bounded (a literal, then at most a few dozen characters): linear on hostile input.
"""

from __future__ import annotations

from server.guard.lazyre import LazyRe as _LazyRe
from server.guard.secret_formats import UUID, Rule, has_digit, mixed, tok

_LA = r"(?![A-Za-z0-9_])"


def _hex_key(s: str) -> bool:
    """A 32-character key with digits and letters: not a run of one class."""
    return has_digit(s) and any(c.isalpha() for c in s)


SERVICE_RULES: tuple[Rule, ...] = (
    *[tok("posthog-token", p, r"[A-Za-z0-9]{40,48}" + _LA, check=lambda s: mixed(s[4:]) and has_digit(s))
      for p in ("pha_", "phr_", "phs_")],
    *[tok("razorpay-key", p, r"[A-Za-z0-9]{14}" + _LA, check=lambda s: mixed(s[9:]) and has_digit(s))
      for p in ("rzp_live_", "rzp_test_")],
    # "infura", then at most 32 characters (".io/v3/", "_PROJECT_ID=", "KEY-"), then the key.
    Rule("infura-key", _LazyRe(r"(?i:infura)[^\n<>]{0,32}?(?<![A-Za-z0-9])([a-z0-9]{32})(?![A-Za-z0-9])"),
         ("infura",), group=1, check=_hex_key, ci=True),
    # (any host: a 26-character lower-case id after /hooks/ is Mattermost's id format)
    Rule("mattermost-webhook", _LazyRe(r"(?i:https?://[a-z0-9.\-]{1,200}(?::[0-9]{2,5})?/hooks/)([a-z0-9]{26})" + _LA),
         ("/hooks/",), group=1, check=_hex_key),
    Rule("splunk-hec-token",
         _LazyRe(r"(?i:splunk[._\-]hec)(?:[._\-]?token)?[\"']?[ \t]*[:=][ \t]*[\"']?(" + UUID + r")(?![A-Za-z0-9\-])"),
         ("splunk.hec", "splunk_hec", "splunk-hec"), group=1, ci=True),
    # Ollama's API keys: 32 hex, ".", 24 URL-safe characters, after the word "ollama".
    Rule("ollama-api-key",
         _LazyRe(r"(?i:ollama)[^\n]{0,32}?(?<![A-Za-z0-9])([a-f0-9]{32}\.[A-Za-z0-9_\-]{24})(?![A-Za-z0-9_\-])"),
         ("ollama",), group=1, ci=True),
    # The "OAuth" authorization scheme (Statuspage, Twitch, GitHub's legacy header): the token follows it.
    # (a sentence's full stop after the token is not part of it)
    Rule("bearer-token", _LazyRe(r"(?i:oauth)[ \t]+([A-Za-z0-9\-._~+/]{19,}[A-Za-z0-9\-_~+/]=*)"), ("oauth",),
         before=frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"), group=1,
         check=lambda s: _hex_key(s) and mixed(s), rank=5, ci=True),
    Rule("api-key", _LazyRe(r"(?i:api[ \t]+(?:key|secret))[ \t]*:?[ \t]*\r?\n[ \t]*([a-f0-9]{32})" + _LA),
         ("api key", "api secret"), group=1, check=_hex_key, ci=True),
)
