"""What the code around a key's value says about it, for server.guard.secret_assignments.

Public scanners' fixtures plant one literal under many keys and syntaxes and keep look-alikes that
must not fire; these are the rules that tell them apart by context, not by the value's format:

* **A value filled in elsewhere** is not a secret: a bare constant named for the secret
  (``= MAIL_API_TOKEN;``), a variable after a quoted key (``{"password": new_password}``), an
  f-string or ``.format`` field, a ``{{template}}``, a short unit typed over and over (``asdfasdf…``).
* **An interface's text** is not a password: capitalised words or a label under a password key
  (``"new_password": "Choose a new password"``, ``"otp": "Code:"``), in any alphabet.
* **A value that is its key's name** (``secret_data = "secret-data"``, ``DB_PASSWORD=DB_PASSWORD``) is a stand-in.
* **A value given as a call's default** is the key's value: ``getenv("DB_PASSWORD", "v")``,
  ``environ.get("pwd", "v")``, PHP's ``define("X_PASSWORD", "v")``.

Each check looks at the value and at most a few dozen characters before or after it: linear.
"""

from __future__ import annotations

from server.guard.lazyre import LazyRe as _LazyRe

_CONST_NAME = _LazyRe(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_CONST_WORDS = ("PASSWORD", "PASSWD", "SECRET", "TOKEN", "KEY", "PWD", "CREDENTIAL", "AUTH")
_IDENT = _LazyRe(r"[a-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")  # new_password, self.pw
_FORMAT_FIELD = _LazyRe(r"\{(?:\d{0,2}|[A-Za-z_]\w{0,40})\}")
_FORMAT_CALL = _LazyRe(r"[ \t]*\.format\(")
# capitalised words, or one capitalised word ending in ':' (a label)
# (sentences too: "Wrong user name or password. Try again.")
_UI_TEXT = _LazyRe(r"[^\W\d_a-z][^\W_]*(?:(?:[.!?:;]?[ \t]+|[ \t,]+)[^\W_]+)+[.!?:]?|[^\W\d_a-z][^\W\d_]+:")
# The word "password" itself in other languages: a label, as the English word is (is_placeholder).
_PASSWORD_WORDS = frozenset("""passord passordet passwort wachtwoord lösenord losenord adgangskode salasana hasło haslo
    heslo jelszó jelszo parola parool geslo lozinka senha contraseña contrasena contrasenya wagwoord
    пароль парола лозинка 密码 密碼 パスワード 비밀번호 סיסמה كلمةالمرور""".split())
# PowerShell's Verb-Noun cmdlets ($pw = Read-Host ..., $s = Get-AzKeyVaultSecret ...): a call, not a value.
_CMDLET = _LazyRe(r"(?:Get|Read|ConvertTo|ConvertFrom|New|Import|Invoke|Select|Unprotect|Protect)-[A-Z][A-Za-z]{2,40}")
# (SetEnvironmentVariable: .NET's setenv; SetDefault: viper's. A generic set/add/setItem stays out: its random
# value counts anyway, a plain word after "token" there is a cache entry's)
_SETTERS = r"define|setProperty|setenv|Setenv|put|SetEnvironmentVariable|SetDefault"
_SETTER_CALL = _LazyRe(r"\b(?:" + _SETTERS + r")\([ \t]*(?=[\"']\Z)")
_DEFAULT_CALL = _LazyRe(r"\b(?:getenv|get|getProperty|setdefault|" + _SETTERS + r")\((?=[\"']\Z)")


def repeated(v: str) -> bool:
    """A 16+ character value that is one unit of at most 4 characters repeated (bounded work; abcd1234 * 8,
    a scanner's sample secret, is kept)."""
    return len(v) >= 16 and any(v[p:] == v[:-p] for p in range(1, 5))


def bare_reference(text: str, value: str, end: int, key_quoted: bool) -> bool:
    """An unquoted value that names where the secret comes from: a constant named for it, a variable
    after a quoted key (JSON's values are quoted: a bare name there is code), a ``{{template}}`` cut
    at its first closing brace, a PowerShell cmdlet (``Read-Host``, ``Get-Secret``). (Quoted, the same words are a literal.)"""
    if _CONST_NAME.fullmatch(value) and any(w in value for w in _CONST_WORDS):
        return True
    if key_quoted and _IDENT.fullmatch(value):
        return True
    if _CMDLET.fullmatch(value):
        return True  # $password = Read-Host -AsSecureString: the cmdlet asks for it
    return value[:2] == "{{" and text.startswith("}}", end) and value[2:].strip().replace("_", "").isalnum()


def filled_at_run_time(text: str, value: str, prefix: str, end: int) -> bool:
    """A quoted value with a format field, in an f-string (``prefix`` holds the string's prefix letters)
    or followed by ``.format(`` (``end`` is just after the closing quote)."""
    return _FORMAT_FIELD.search(value) is not None and ("f" in prefix.lower() or _FORMAT_CALL.match(text, end) is not None)


def interface_text(value: str) -> bool:
    """A sentence or a label shown to a user, not a password; or the word "password" in another language."""
    return _UI_TEXT.fullmatch(value) is not None or value.lower() in _PASSWORD_WORDS


def default_of_a_call(text: str, key_start: int) -> bool:
    """Whether the quoted key starting at ``key_start`` is a lookup's first argument, its default next."""
    return _DEFAULT_CALL.search(text, max(0, key_start - 24), key_start) is not None


def set_by_a_call(text: str, key_start: int) -> bool:
    """Whether the quoted key is a setter's name argument (``define("DB_PASSWORD", "admin")``, ``setenv``,
    ``setProperty``, ``put``): the next argument is the value set, a plain word too (a lookup's default is not)."""
    return _SETTER_CALL.search(text, max(0, key_start - 24), key_start) is not None


# "...;Password=" + pw + ";": the quotes close and reopen a string around code (+ . & .. concatenation).
_CONCAT = _LazyRe(r"[ \t]*(?:\+|\.\.?|&)[ \t]*[^\"'\r\n]{1,80}?[ \t]*(?:\+|\.\.?|&)[ \t]*")


def concatenated(raw: str) -> bool:
    """A "quoted value" that is code between two string literals joined to it, not a literal."""
    return raw[:1] in " \t+.&" and _CONCAT.fullmatch(raw) is not None


_WHOLE_TEMPLATE = _LazyRe(r"\{\{[^{}]{1,300}\}\}|\{%[^{}%]{1,300}%\}|<%=?[^<>%]{1,300}%>")


def whole_template(value: str) -> bool:
    """A value that is one template expression: ``{{ lookup("env", "X") }}``, ``{% ... %}``, ``<%= ... %>``
    (no braces inside: ``{{h}o)p${e]...}}`` is a literal shaped to look like one)."""
    return _WHOLE_TEMPLATE.fullmatch(value) is not None


def self_named(key: str, value: str) -> bool:
    """A value that is its key's own name in another spelling (``access_token=ACCESS_TOKEN``,
    ``secret_data = "secret-data"``) or that name after a word or two (``client_secret: grafana-client-secret``): a
    stand-in written by someone who had no value to show. (A quoted constant's name, ``"MAIL_SERVICE_TOKEN"``, is a
    literal: test_secret_context holds it.)"""
    v = value.lower().replace("-", "_").replace(".", "_")
    k = key.lstrip("$").lower().replace("-", "_").replace(".", "_")
    if v == k:
        return True
    return "_" in k and len(v) > len(k) + 1 and v.endswith("_" + k) and v.replace("_", "").isalpha()


_PATH = _LazyRe(r"(?:~|\.{1,2}|[A-Za-z]:)?[/\\](?:[\w.\-@ ]{1,80}[/\\]){0,20}[\w.\-@]{0,80}")
_EXTENSION = _LazyRe(r"\.[A-Za-z][A-Za-z0-9]{0,5}\Z")


def file_path(value: str) -> bool:
    """A file's path (``/home/me/key.json``, ``~/.aws/credentials``, ``./secret.txt``, ``C:\\keys\\a.pem``): where a
    credential is kept, not the credential. (A base64 key may start with "/" too: a path has a file extension or
    two or more parts, no "+" or "=", and few capitals.)"""
    if _PATH.fullmatch(value) is None or "+" in value or "=" in value:
        return False
    letters = [c for c in value if c.isalpha()]
    few_capitals = sum(c.isupper() for c in letters) * 4 <= len(letters)
    parts = sum(value.count(sep) for sep in "/\\")
    return few_capitals and (_EXTENSION.search(value) is not None or parts >= 2 or value[0] in "~.")
