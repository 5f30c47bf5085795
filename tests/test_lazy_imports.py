"""Every import inside a function under server/ says why it is there and not at the top of the module.

An import at the top shows the module's place in the import graph; one hidden in a function is kept
only when start-up needs it (the stdio server answering `initialize`, a hook process, a CLI command),
with the measured figure in a comment, or when it breaks an import cycle, or when the module exists on
one platform only. The comment sits on the import's line or the line above; a run of imports on
consecutive lines shares the comment above its first line. Imports under `if TYPE_CHECKING:` are
annotations only and are not counted.
"""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "server"


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def uncommented_local_imports(source: str) -> list[int]:
    """The lines of function-local imports (outside TYPE_CHECKING) with no comment on or just above them."""
    tree = ast.parse(source)
    tokens = [tok for tok in tokenize.generate_tokens(io.StringIO(source).readline) if tok.type == tokenize.COMMENT]
    inline = {tok.start[0] for tok in tokens}
    alone = {tok.start[0] for tok in tokens if not tok.line[: tok.start[1]].strip()}  # a line that is only a comment
    local: list[ast.stmt] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking(child):
                continue
            if in_function and isinstance(child, (ast.Import, ast.ImportFrom)):
                local.append(child)
            visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    visit(tree, False)
    starts = {imp.lineno: imp for imp in local}
    ends = {imp.end_lineno: imp for imp in local}
    missing = []
    for imp in local:
        first = imp
        while first.lineno - 1 in ends:  # the first of a run of imports on consecutive lines
            first = ends[first.lineno - 1]
        if not ({imp.lineno, first.lineno} & inline or first.lineno - 1 in alone):
            missing.append(imp.lineno)
    assert len(starts) == len(local)
    return missing


def test_every_function_local_import_carries_its_reason():
    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for line in uncommented_local_imports(path.read_text(encoding="utf-8")):
            missing.append(f"{path.relative_to(ROOT)}:{line}")
    assert not missing, (
        "hoist these imports to the top of the module, or say on (or above) the line why they stay in the "
        "function, with the measured start-up figure (python -X importtime): " + ", ".join(missing)
    )


def test_the_check_can_fail():
    source = '''
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from server.models import Memory


def f():
    import json

    # lazy: numpy, ~0.4 s that a hook process never needs
    import numpy as np
    from server import results

    x = 1  # a comment about x, not about the import below
    import os  # lazy: the reason
    import sys

    def g():
        import re
    y = 2  # about y
    import csv
    return json, np, results, x, os, sys, g, y, csv
'''
    assert uncommented_local_imports(source) == [9, 20, 22]  # json, re, csv; sys shares the comment on os
