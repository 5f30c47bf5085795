"""Which keys name a credential, for server.guard.secret_assignments and the rules that reuse its judgement
(secret_pairs, secret_multi, secret_declarations, secret_comparisons).

:func:`key_kind` splits a key into words (``DB_PASSWORD``, ``clientSecret``, ``x-api-key``) and returns the kind
of credential it names and whether its value must look random before it counts:

* a key whose *last* word names a credential (``password``, ``secret``, ``token``, ``api_key``, ``signing_key``)
  takes any literal; one that only *mentions* a credential further in (``secret_key_base``, ``github_token_v2``)
  takes a random-looking one; a key ending in a word about the credential (``password_min_length``,
  ``token_url``, ``api_key_id``, ``password_hash``) takes none;
* ``password_for_email`` names a password (for e-mail), taken when its value is random; ``NOT_A_SECRET`` and
  ``no_password`` name what they are not.

Pure and cached: one split per distinct key.
"""

from __future__ import annotations

from functools import lru_cache

from server.guard.lazyre import LazyRe as _LazyRe
from server.guard.secret_key_qualifiers import qualified_base


_CAMEL = _LazyRe(r"(?<=[a-z0-9])(?=[A-Z])")
_SEG_SPLIT = _LazyRe(r"[\W_]+")  # Unicode-aware: contraseña is one word
_KEY_QUALIFIERS = frozenset(
    """api secret access private signing sign encryption enc master auth client app
    service account db database license licence webhook admin consumer subscription
    storage hmac jwt session deploy ssh gpg pgp crypto cipher aes root shared aws priv preshared
    privacy authentication community snmp function functions""".split()
)
# A key ending in one of these names something about a credential, not the credential.
_NOT_SECRET_LAST = frozenset(
    """id ids name names type types url uri urls endpoint endpoints path paths file files dir
    version length len size count expiry expires expiration ttl timeout header headers prefix
    format mode method scope scopes issuer audience provider hash hashed digest sha md5 salt
    policy rule rules field fields label hint env var name min max enabled required regex
    pattern location store manager generator user username login email host port""".split()
)
_HINTS = ("passw", "pwd", "secret", "token", "apikey", "credential", "auth", "bearer", "privatekey", "accesskey",
          "signature", "signingkey", "contrase")


TOKEN_SHAPED = "token-shaped"  # a key's value must be a long random run: letters, digits, - and _ only
RANDOM_RUN = "random-run"  # a long random run, base64 too, and not mostly words ("user_profile_cache_v2")
HEADER_VALUE = "header-value"  # 6+ characters with letters and digits: a header's credential, not its scheme


# Keys ending in "key" whose value is an index, a lookup or a public value, not a credential.
_NOT_CREDENTIAL_KEY = frozenset(
    """public publishable site primary foreign sort partition cache idempotency idempotent object s3 i18n
    translation lookup hash row map dict routing message event request trace dedup dedupe unique
    composite natural surrogate index group shard cursor pagination page next ssh gpg pgp key""".split()
)

# Services whose "auth" setting is their password (Redis' AUTH, a broker's or mail server's login).
_AUTH_IS_PASSWORD = frozenset("redis memcached valkey keydb broker amqp rabbitmq smtp mail".split())

# A last word that only says where the value sits (an XML tag or attribute, a field's value):
# `password_tag`, `secret_value`, `api_key_attr` name the credential as much as `password` does.
_CONTAINER_LAST = frozenset("tag att attr attribute attrib element elem node value val str string text txt data".split())


_NUMBERED = _LazyRe(r"(?:(?<=word)|(?<=sswd))(?:s|\d{1,3})\Z")  # (not token1, max_tokens: a count)


@lru_cache(maxsize=4096)
def key_kind(key: str) -> tuple[str, bool | str] | None:
    """(kind, needs a high-entropy value) when the key names a credential, else None."""
    segs = [s for s in _SEG_SPLIT.split(_CAMEL.sub("_", key).lower()) if s]
    if len(segs) > 1 and segs[0] in ("not", "non", "no"):
        return None  # NOT_A_SECRET, non_secret_value, no_password: named for what it is not
    if "for" in segs[1:]:
        # my_secret_password_for_email: a password (for e-mail) when its value is random; "ok2" under
        # passwordForPassenger is a word (whispers' must-not-fire line)
        head = key_kind("_".join(segs[:segs.index("for", 1)]))
        return (head[0], True) if head else None
    while len(segs) > 1 and segs[-1] in _CONTAINER_LAST:
        segs.pop()
    if not segs:
        return None
    base = qualified_base(segs)
    if base is not None:
        # DB_PASSWORD_PROD, DB_PASS_BD, password_old: the trailing words say which one, the rest what it is
        return key_kind("_".join(base))
    # static_password01, db_passwords: a numbered or plural password key names a password too
    segs[-1] = _NUMBERED.sub("", segs[-1]) or segs[-1]
    last = segs[-1]
    prev = segs[-2] if len(segs) > 1 else ""
    if last.startswith("tokeni") or (last == "pass" and prev in (
            "to", "can", "must", "should", "will", "would", "not", "forward", "backward", "remove", "add", "skip", "first",
            "second", "each", "one", "two", "render", "compile")):
        return None  # tokenizer(s), tokenization; kwargs_to_pass: the verb; forward_pass: a pass over something
    if last.endswith(("password", "passwd", "adminpwd", "userpwd", "dbpwd", "rootpwd", "passphrase", "passwrd", "pswd",
                      "psswd", "paswd")) or last == "pword" or last in ("pwd", "pass", "pw", "passphrase", "passcode", "contraseña",
                                                          "contrasena", "contrasenia"):
        return "password", False
    if last.endswith("secret"):
        return "secret", False
    if last in ("communitystring", "communitystrings") or (last in ("string", "strings") and prev == "community") or (
            last in ("community", "communities") and (prev in ("snmp", "ro", "rw", "read", "write", "trap", "v2c") or _CAMEL.sub(
                "_", key).lower().replace("-", "_").rstrip("s").endswith("community_string"))):
        return "password", False  # an SNMP community string is the device's password (community="cmty": networkx's)
    if last == "authorization":
        return "token", HEADER_VALUE  # "Authorization": "auth456" in a header map
    if last == "auth" and prev in _AUTH_IS_PASSWORD:
        return "password", False  # redis.auth, REDIS_AUTH: the server's AUTH password
    if key.lower().endswith(":_auth") or key == "_auth":
        return "password", False  # .npmrc's _auth (base64 of user:password)
    if prev in ("public", "publishable", "csrf", "xsrf", "authenticity") or last in ("csrftoken", "xsrftoken"):
        return None  # designed to be shown: in a web page, a form, a client bundle
    if last.endswith("token"):
        return "token", False
    if last.endswith("apikey") or (last == "key" and prev.endswith("api")):
        return "api-key", False  # (theapikey, x_apikey, myapi_key: the word glued to a prefix)
    if last in ("secretkey", "accesskey", "privatekey", "privkey", "appkey", "masterkey", "signingkey", "authkey",
                "servicekey", "accountkey", "dbkey", "databasekey", "clientkey"):
        return "secret", False
    if last in ("dbpass", "databasepass", "keypass", "userpass", "adminpass", "rootpass", "sqlpass", "mypass"):
        return "password", False
    if last == "key" and (prev in _KEY_QUALIFIERS or prev.endswith(("private", "secret", "signing", "encryption"))):
        return "secret", False
    if last in ("credential", "credentials", "creds") and prev not in ("use", "with"):
        return "secret", False  # (fetch's credentials: "include" is a mode: is_placeholder)
    if last == "login":
        # SONAR_LOGIN, sonar.login: some tools take a token as the "login"; a user name
        # is not token-shaped, so only a long random run counts.
        return "token", TOKEN_SHAPED
    if last in _NOT_SECRET_LAST or last.isdigit() and prev in _NOT_SECRET_LAST:
        return None
    if last in ("cred", "creds"):
        return "secret", True  # gosec's `cred = "..."`: a credential when its value is random
    joined = "".join(segs)
    if any(h in joined for h in _HINTS):
        return "secret", True
    if (last == "key" and prev not in _NOT_CREDENTIAL_KEY) or (last in ("certificate", "cert") and prev in (
            "app", "application", "client", "api", "customer", "service")):
        # DD_APPLICATION_KEY, LINEAR_KEY, "key": any other key named a key holds a credential when
        # its value is a long random run, not a name
        return "secret", RANDOM_RUN
    return None
