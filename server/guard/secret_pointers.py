"""Values that point at a secret or mark where one will go, never hold one (server.guard.redact).

A scanner's must-not-fire lines are full of them, whatever key they sit under:

* **Resource names.** An AWS ARN (``arn:aws:secretsmanager:us-east-1:123456789012:secret:db-AbC123``,
  ``arn:aws:iam::aws:policy/IAMUserChangePassword``) names a secret or a policy; the secret lives in the
  service. A CloudFormation dynamic reference (``{{resolve:secretsmanager:db:SecretString:password}}``)
  is resolved at deploy time. Both are the whole point of not writing the secret down. Likewise a key's value
  found inside a ``{{ ... }}`` template expression (``{{ lookup('hashi_vault', 'secret=secret/db:password') }}``)
  is the expression's code; a provider-format token there still counts.
* **Replacement tokens.** Deploy tools fill ``__DB_PASSWORD__`` (Azure Pipelines' replace-tokens, Helm and
  Ansible conventions) or ``@@TOKEN@@`` in at release time: a template's slot, not a value; a secret manager's
  reference (``op://prod/db/password``, ``ref+vault://...``, ``vault:secret/data/db#password``) is looked up.
* **Lines a scanner was told to skip.** A secret scanner's own inline allowlist comment (``# pragma: allowlist
  secret``, ``gitleaks:allow``, ``ggignore``, ``trufflehog:ignore``, ``#nosec``, ``kics-scan ignore-line``) marks a
  value its writer checked and declared no secret (a fixture, a public sample); scanners' tests keep such lines
  as must-not-fire, and so does this guard, on that line only.

Bounded work per text: one linear regex scan, only when its literal occurs; a binary search per candidate.
"""

from __future__ import annotations

from bisect import bisect_right

from server.guard.lazyre import LazyRe as _LazyRe

_Cand = tuple[int, int, str, int, int]  # start, end, kind, rank, match start

# arn:partition:service:region:account:resource (region and account may be empty: IAM, S3)
_ARN = _LazyRe(r"\barn:aws(?:-[a-z]+)*:[a-z0-9-]{1,40}:[a-z0-9-]{0,30}:(?:\d{12}|aws)?:[^\s\"'`<>,;)}\]]{1,512}")
_RESOLVE = _LazyRe(r"\{\{resolve:(?:secretsmanager|ssm|ssm-secure):[^{}\s]{1,512}\}\}")
_SLOT = _LazyRe(r"(?:__[A-Za-z][A-Za-z0-9_.]{0,60}[A-Za-z0-9]__|@@[A-Za-z][\w.]{0,60}@@)\Z")


# a secret manager's reference: 1Password's op://, vals' ref+<backend>://, Bank-Vaults' vault:<path>, Berglas'
# sm:// and berglas://, secretsmanager:<name>, keyvault://
_STORE_REF = _LazyRe(r"(?:op://|ref\+[a-z0-9]{2,20}://|vault:[\w-]+/|berglas://|sm://|secretsmanager:|keyvault://)"
                     r"[\w./#:@+-]{1,300}\Z")


def replacement_token(value: str) -> bool:
    """``__DB_PASSWORD__`` / ``@@TOKEN@@``: a slot a deploy tool fills in; ``op://vault/item/password``: a secret
    manager's reference (module docstring)."""
    return len(value) <= 320 and (_SLOT.match(value) is not None or _STORE_REF.match(value) is not None)


# {{ lookup('hashi_vault', 'secret=secret/db:password') }}: a template expression's own key=value text is code
_EXPRESSION = _LazyRe(r"\{\{[^{}\n]{1,300}\}\}")
_KEY_KINDS = frozenset(("password", "secret", "token", "api-key"))  # found by a key's name, not by a format


def drop_pointed(text: str, cands: list[_Cand]) -> list[_Cand]:
    """The candidates that do not lie inside an ARN or a dynamic reference, nor a key's value found inside a
    ``{{ ... }}`` template expression (module docstring); a provider-format token there is still one."""
    if not cands or ("arn:aws" not in text and "{{" not in text):
        return cands
    spans = [m.span() for rx in (_ARN, _RESOLVE) for m in rx.finditer(text)]
    keyed = [m.span() for m in _EXPRESSION.finditer(text)] if "{{" in text else []
    if not spans and not keyed:
        return cands
    # (start, end, whether any kind is dropped there): sorted by start, found by binary search
    areas = sorted([(s, e, True) for s, e in spans] + [(s, e, False) for s, e in keyed])
    firsts = [a[0] for a in areas]

    def inside(c: _Cand) -> bool:
        i = bisect_right(firsts, c[0]) - 1
        if i < 0:
            return False
        _, end, any_kind = areas[i]
        return c[1] <= end and (any_kind or c[2] in _KEY_KINDS)

    return [c for c in cands if not inside(c)]


# A scanner's own inline allowlist comment: the writer marked the line as checked and not a secret (detect-secrets'
# pragma, gitleaks, ggshield, trufflehog, gosec/bandit, KICS). Scanners' tests keep such lines as must-not-fire.
_ALLOW_HINTS = ("allowlist secret", "gitleaks:allow", "ggignore", "trufflehog:ignore", "nosec", "kics-scan ignore-line")
_ALLOW = _LazyRe(r"pragma: ?allowlist secret|gitleaks:allow|ggignore|trufflehog:ignore|(?<![a-z])nosec(?![a-z])"
                 r"|kics-scan ignore-line")


def drop_allowlisted(text: str, low: str, cands: list[_Cand]) -> list[_Cand]:
    """The candidates not on a line that carries a scanner's inline allowlist comment (linear: one scan for the
    marks, a binary search per candidate)."""
    if not cands or not any(h in low for h in _ALLOW_HINTS):
        return cands
    starts: list[int] = []
    ends: list[int] = []
    for m in _ALLOW.finditer(low):
        s = text.rfind("\n", 0, m.start()) + 1
        if ends and s < ends[-1]:
            continue  # a second mark on a line already taken
        e = text.find("\n", m.end())
        starts.append(s)
        ends.append(len(text) if e == -1 else e)
    if not starts:
        return cands

    def marked(c: _Cand) -> bool:
        i = bisect_right(starts, c[0]) - 1
        return i >= 0 and c[1] <= ends[i]

    return [c for c in cands if not marked(c)]
