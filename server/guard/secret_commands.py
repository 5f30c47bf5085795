"""Passwords handed to a command on its command line, for server.guard.redact.

``curl -u user:pw``, ``mysql -p<pw>``, ``sshpass -p``, ``docker login -p``, ``redis-cli -a``,
``psexec -p``, ``sqlplus user/pw@db``, ``keytool -storepass``, SQL's ``IDENTIFIED BY '...'``,
.NET's ``new NetworkCredential("user", "pw")``. Each rule is (trigger, regex, kind): the rule
runs only when its lower-case trigger occurs in the text, its pattern starts at the command's
name and scans a bounded stretch (at most one line, or curl's four continuation lines), and
group 1 holds the password. (Split from secret_formats.py, which holds the token formats.)
"""

from __future__ import annotations

from server.guard.lazyre import LazyRe as _LazyRe

# ----------------------------------------------------------------------- command lines

# (trigger, regex with the secret in group 1, kind): passwords handed to a command on its
# command line. Each pattern starts at the command's name and scans at most one line.


def _cmd(name: str) -> str:
    """The command's name, then a look-behind that it starts a word: the regex still starts with a
    literal (the engine's fast search), which a leading \\b would lose."""
    return f"{name}(?<![A-Za-z0-9_]{name})"


# curl, then up to four lines joined by "\" continuations. The continuation is the only way from one
# segment to the next, so a failing start costs at most the four segments' length (linear overall).
_CURL_SEG = r"[^\n|;]{0,120}?"
_CURL = _cmd("curl") + r"\b" + _CURL_SEG + r"(?:\\[ \t]*\r?\n" + _CURL_SEG + r"){0,3}?"

_QUOTED = r"[\"'][^\"'\n]{0,256}[\"']"  # a quoted argument (a host, a DSN, a user name)

COMMAND_RULES: tuple[tuple[str, _LazyRe, str], ...] = (
    # -u user:pw, also quoted or braced parts ("{user}":"{pw}", kevin:'pw'), an empty user (-u ":pw"),
    # and the option on a continuation line (`curl ... \` newline `-u ...`).
    ("curl", _LazyRe(_CURL + r"\s(?:-u|--user|--proxy-user|-U)(?:\s*|=)"
                     r"[\"']?\{?[^\s:\"'{}]{0,64}\}?[\"']?:[\"']?\{?([^\s\"'{}]{1,256})"), "password"),
    # -u "<key>:" -- an API key given as the user name with an empty password (quoted: `:"` gates it)
    (':"', _LazyRe(_CURL + r"\s(?:-u|--user)\s*[\"']?"
                     r"(?=[^\s:\"'{}]{0,63}[0-9])([^\s:\"'{}<\[][^\s:\"'{}]{5,63}):(?=[\"'\s]|$)"), "password"),
    ("wget", _LazyRe(_cmd("wget") + r"\b[^\n|;]{0,120}?\s--(?:http-|ftp-|proxy-)?password[= ][\"']?([^\s\"']{1,256})"), "password"),
    ("mysql", _LazyRe(r"mysql(?:dump|admin|sh)?\b[^\n|;]{0,120}?\s-p([^\s\"'-][^\s\"']{1,256})"), "password"),
    ("sshpass", _LazyRe(_cmd("sshpass") + r"\s+-p\s*[\"']?([^\s\"']{1,256})"), "password"),
    ("login", _LazyRe(r"(?:docker|podman|helm|nerdctl)\s+(?:registry\s+)?login\b[^\n|;]{0,120}?\s-p\s+[\"']?([^\s\"']{1,256})"),
     "password"),
    ("redis-cli", _LazyRe(_cmd("redis-cli") + r"\b[^\n|;]{0,120}?\s-a\s+[\"']?([^\s\"']{1,256})"), "password"),
    ("sqlcmd", _LazyRe(r"(?:sqlcmd|bcp|osql)\b[^\n|;]{0,120}?\s-P\s*[\"']?([^\s\"']{1,256})"), "password"),
    ("mongo", _LazyRe(r"mongo(?:sh|dump|restore|import|export)?\b[^\n|;]{0,120}?\s(?:-p|--password)[= ][\"']?"
                      r"([^\s\"'-][^\s\"']{0,255})"), "password"),
    ("ldap", _LazyRe(r"ldap(?:search|add|modify|delete|passwd|whoami)\b[^\n|;]{0,120}?\s-w\s+[\"']?([^\s\"']{1,256})"),
     "password"),
    ("%", _LazyRe(r"(?:smbclient|rpcclient|net\s+use)\b[^\n|;]{0,120}?(?:-U\s*|/user:)[^\s%]{1,64}%([^\s\"']{1,256})"),
     "password"),
    ("sqlplus", _LazyRe(_cmd("sqlplus") + r"\s+[^\s/@]{1,64}/([^\s@]{1,256})@"), "password"),
    ("pass:", _LazyRe(r"-(?:passin|passout|pass|k|password)\s+pass:([^\s\"']{1,256})"), "password"),
    ("pass ", _LazyRe(r"-(?:storepass|keypass|srcstorepass|deststorepass)\s+[\"']?([^\s\"']{1,256})"), "password"),
    ("identified", _LazyRe(r"(?i:identified\s+by)\s+(?:(?i:password)\s+)?['\"]([^'\"\n]{3,256})['\"]"), "password"),
    # Sysinternals PsExec's password flag (psexec \\host -u user -p pw cmd).
    ("psexec", _LazyRe(r"(?i:psexec)(?:\.exe)?\b[^\n|;]{0,200}?\s-p\s+[\"']?([^\s\"']{1,256})"), "password"),
    # .NET: new NetworkCredential("user", "pw"[, domain]); new DirectoryEntry("LDAP://...", "user", "pw")
    ("networkcredential(", _LazyRe(r"NetworkCredential\(\s*@?\"[^\"\n]{0,128}\"\s*,\s*@?\"([^\"\n]{1,256})\""), "password"),
    ("directoryentry(", _LazyRe(r"DirectoryEntry\(\s*@?\"[^\"\n]{0,256}\"\s*,\s*@?\"[^\"\n]{0,128}\"\s*,\s*@?\"([^\"\n]{1,256})\""),
     "password"),
    # A database connect call's positional password: PHP mysql_connect("host", "user", "pw"), mysqli_connect,
    # new mysqli(...), new PDO(dsn, "user", "pw"), Perl/Ruby DBI->connect / DBI.connect(dsn, "user", "pw"),
    # Java DriverManager.getConnection(url, "user", "pw"). Only quoted literals: a variable stays.
    ("connect", _LazyRe(r"(?:(?:mysqli?|mssql|sybase|ibase|ifx|maxdb)_p?connect|DBI(?:->|\.|::)connect|getConnection)\(\s*"
                         + _QUOTED + r"\s*,\s*" + _QUOTED + r"\s*,\s*[\"']([^\"'\n]{1,256})[\"']"), "password"),
    ("new ", _LazyRe(r"new\s+(?:mysqli|PDO)\(\s*" + _QUOTED + r"\s*,\s*" + _QUOTED
                     + r"\s*,\s*[\"']([^\"'\n]{1,256})[\"']"), "password"),
    # Python's DB-API connect(..., password="pw") / passwd= / pwd=, and a libpq string "... password=pw ..."
    # passed to it: inside a connect call "secret" is the password, not a placeholder word.
    (".connect(", _LazyRe(r"\.connect\([^)\n]{0,300}?(?<![A-Za-z0-9_])(?:password|passwd|pwd)\s*=\s*[\"']([^\"'\n]{1,256})[\"']"),
     "password"),
    (".connect(", _LazyRe(r"\.connect\(\s*[\"'][^\"'\n]{0,300}?(?<![A-Za-z0-9_])(?:password|passwd|pwd)=([^\s\"';]{1,256})"),
     "password"),
    # Session 35: more command lines. Any tool's `login` subcommand given -u and -p / --password (oc, cf, az, argocd,
    # skopeo, jf, ...; --password-stdin is not a value); a password echoed into --password-stdin or chpasswd;
    # `gh secret set NAME --body v`; Windows `net user NAME pw /add`; `htpasswd -b file user pw`;
    # zip/unzip -P, 7z -p; xfreerdp /p:; ssh-keygen -N "passphrase".
    ("login", _LazyRe(r"(?<![A-Za-z0-9_\-])login\b(?:[ \t]+[^\s|;]{1,200}){0,8}?[ \t]+(?:-u|--username|--user)(?:=|[ \t]+)"
                      r"[^\s|;-][^\s|;]{0,63}(?:[ \t]+[^\s|;]{1,200}){0,8}?[ \t]+(?:-p|--password)(?:=|[ \t]+)"
                      r"[\"']?([^\s\"'-][^\s\"']{0,255})"), "password"),
    ("password-stdin", _LazyRe(r"(?:echo|printf)[ \t]+(?:-n[ \t]+)?[\"']?([^\s\"'|;$][^\s\"'|;]{0,255})[\"']?[ \t]*\|"
                               r"[^\n|;]{0,160}?--password-stdin"), "password"),
    ("chpasswd", _LazyRe(r"(?:echo|printf)[ \t]+[\"']?[^\s:\"'|]{1,64}:([^\s\"'|]{1,256})[\"']?[ \t]*\|[ \t]*(?:sudo[ \t]+)?chpasswd"),
     "password"),
    ("secret set", _LazyRe(r"secret[ \t]+set\b[^\n|;]{0,120}?\s(?:-b|--body)(?:=|[ \t]+)[\"']?([^\s\"']{1,256})"), "secret"),
    ("net user", _LazyRe(r"(?i:net[ \t]+user)[ \t]+[^\s/]{1,64}[ \t]+([^\s/*][^\s]{0,255})[ \t]+/(?i:add|domain)"), "password"),
    ("htpasswd", _LazyRe(_cmd("htpasswd") + r"[ \t]+-[A-Za-z]*b[A-Za-z]*(?:[ \t]+-[A-Za-z]+)*[ \t]+[^\s-]\S{0,255}[ \t]+[^\s]{1,64}"
                         r"[ \t]+[\"']?([^\s\"']{1,256})"), "password"),
    ("zip", _LazyRe(r"(?<![A-Za-z0-9_\-])(?:un)?zip\b[^\n|;]{0,120}?\s-P[ \t]+[\"']?([^\s\"']{1,256})"), "password"),
    ("7z", _LazyRe(_cmd("7z") + r"a?\b[^\n|;]{0,120}?\s-p([^\s\"'-][^\s\"']{0,255})"), "password"),
    ("/p:", _LazyRe(r"(?i:xfreerdp|wlfreerdp|sdl-freerdp)\b[^\n|;]{0,200}?\s/p:[\"']?([^\s\"']{1,256})"), "password"),
    ("ssh-keygen", _LazyRe(_cmd("ssh-keygen") + r"\b[^\n|;]{0,120}?\s-N[ \t]+[\"']([^\"'\n]{1,256})[\"']"), "password"),
    # Go's MySQL DSN (user:pw@tcp(host:3306)/db), RabbitMQ's add_user / change_password, MySQL's SET PASSWORD.
    ("@tcp(", _LazyRe(r"(?<![^\s\"'`=(])[^\s:/\"'`@()]{1,64}:([^\s@\"'`]{1,256})@tcp\("), "password"),
    ("@unix(", _LazyRe(r"(?<![^\s\"'`=(])[^\s:/\"'`@()]{1,64}:([^\s@\"'`]{1,256})@unix\("), "password"),
    ("rabbitmqctl", _LazyRe(_cmd("rabbitmqctl") + r"[ \t]+(?:add_user|change_password)[ \t]+[^\s]{1,64}[ \t]+[\"']?([^\s\"']{1,256})"),
     "password"),
    ("set password", _LazyRe(r"(?i:set[ \t]+password)\b[^\n;]{0,160}?=[ \t]*(?:(?i:password)\([ \t]*)?['\"]([^'\"\n]{1,256})['\"]"),
     "password"),
    ("with password", _LazyRe(r"(?i:with\s+(?:encrypted\s+)?password)\s+['\"]([^'\"\n]{3,256})['\"]"), "password"),
)
