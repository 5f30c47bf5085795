"""Kubernetes Secrets, for server.guard.redact (moved out of redact.py, which is at the line cap).

A Secret's ``data:`` values are base64 of the secret, its ``stringData:`` values the secret itself: every value of
either block is taken when the text declares ``kind: Secret``, except a reference or a placeholder in stringData
(``${DB_PASSWORD}``, ``changeme``, ``none``: the manifest's template, not a value).
"""

from __future__ import annotations

from collections.abc import Callable

from server.guard.lazyre import LazyRe as _LazyRe
from server.guard.secret_assignments import is_placeholder

_Cand = tuple[int, int, str, int, int]

# A Kubernetes Secret's `data:` (base64) and `stringData:` values, found when the text declares
# `kind: Secret`. Each data block is walked once, line by line, to the end of its indentation.
_K8S_KIND = _LazyRe(r"(?im)^[ \t]*kind:[ \t]*[\"']?secret[\"']?[ \t]*$")
_K8S_DATA = _LazyRe(r"(?m)^([ \t]*)(data|stringData):[ \t]*$")
_K8S_ITEM = _LazyRe(r"[ \t]*[^\s:#\-][^:\n]{0,250}:[ \t]*(?:([|>][-+]?)|[\"']?([^\s\"'#]{1,8192})[\"']?)[ \t]*\r?$")
_BASE64 = _LazyRe(r"[A-Za-z0-9+/]{11,}={0,2}")  # 8+ bytes: "YmFyCg==" ("bar") is a sample


def kubernetes_secrets(text: str, out: list[_Cand], is_reference: Callable[[str], bool]) -> None:
    """The values of a Secret's data blocks; stringData's unless ``is_reference`` or a placeholder (``changeme``)."""
    if _K8S_KIND.search(text) is None:
        return
    scanned_to = -1
    for m in _K8S_DATA.finditer(text):
        if m.start() < scanned_to:
            continue
        indent, plain = len(m.group(1)), m.group(2) == "stringData"
        pos = m.end() + 1
        block = -1  # indentation of the key whose value is a block scalar (| or >), else -1
        while pos < len(text):
            nl = text.find("\n", pos)
            end = len(text) if nl < 0 else nl
            line = text[pos:end]
            body = line.lstrip(" \t")
            ind = len(line) - len(body)
            if body.strip() and not body.startswith("#"):
                if ind <= indent:
                    break
                value_at = -1
                if block >= 0 and ind > block:
                    value_at = pos + ind
                    value = body.rstrip()
                else:
                    block = -1
                    item = _K8S_ITEM.match(line)
                    if item is not None and item.group(1):
                        block = ind
                    elif item is not None and item.group(2):
                        value_at, value = pos + item.start(2), item.group(2)
                if value_at >= 0 and (_BASE64.fullmatch(value) if not plain else not (
                        is_reference(value) or is_placeholder(value))):
                    out.append((value_at, value_at + len(value), "secret", 10, value_at))
            pos = end + 1
        scanned_to = pos
