"""A credential key with a word after it that only says which one (server.guard.secret_keys).

Deploy files and application config name one credential per environment or store: ``DB_PASSWORD_PROD``,
``ADMIN_PASSWORD_DEV``, ``DB_PASS_BD`` (KICS: *base de datos*), ``password_old``, ``PASSWORD_DB``,
``API_KEY_STAGING``. The last word is an environment, a store or a version of the credential, not something
about it (a ``password_length`` or ``token_url``), so the key names what the words before it name.
:func:`qualified_base` drops those trailing words and hands back the rest for :func:`key_kind` to judge
whole. The list is closed on purpose: a word that names a thing of its own (``user``, ``app``, ``name``,
``hash``, ``encrypted``) is not here, so ``password_user`` or ``secret_app`` (a resource's name) stay
what they were.
"""

from __future__ import annotations

QUALIFIERS = frozenset(
    # environments
    """prod production prd live dev devel develop development test testing tst stg stage staging qa uat
    preprod preproduction local sandbox demo"""
    # the store it opens (bd: base de datos / banco de dados), or the server it logs in to
    """ db bd database mysql mariadb postgres postgresql pg mssql sqlserver oracle mongo mongodb redis couchbase
    couchdb cassandra elastic elasticsearch ldap smtp imap ftp sftp rabbitmq amqp kafka neo4j influxdb memcached"""
    # which version of it
    """ old new current prev previous default initial init orig original temp tmp backup bak""".split()
)


def qualified_base(segs: list[str]) -> list[str] | None:
    """The key's words without its trailing qualifiers, or None when it has none (or is nothing else)."""
    end, worded = len(segs), False
    while end > 1 and (segs[end - 1] in QUALIFIERS or segs[end - 1].isdigit() and len(segs[end - 1]) <= 3):
        worded = worded or not segs[end - 1].isdigit()
        end -= 1
    # digits alone are left to key_kind's own rules (token_2, max_tokens_10 are no qualified names): DB_PASS_BD_2 is
    return segs[:end] if worded else None
