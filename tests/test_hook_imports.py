"""What an injecting hook process pays before it reads the store: no regex compiled at import in the
command rules (bench/hooks.py counts every millisecond of a hook: the host waits for it)."""

from __future__ import annotations

import subprocess
import sys

from server.hooks.commands import command_purpose, package_manager, salient_errors


def test_importing_the_command_rules_compiles_no_pattern():
    probe = (
        "import re, sys\n"
        "import server.hooks.transcript, server.guard.lazyre\n"  # their own patterns are not counted
        "compiled = []\n"
        "real = re.compile\n"
        "re.compile = lambda *a, **k: compiled.append(a[0]) or real(*a, **k)\n"
        "import server.hooks.commands\n"
        "print(len(compiled))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "0", out.stdout


def test_the_command_rules_answer_as_before():
    assert command_purpose("pytest -q tests/") == "test"
    assert command_purpose("pnpm add zod") == "install"
    assert command_purpose("ls -la") is None
    assert package_manager("pnpm run build") == "pnpm"
    assert salient_errors("Traceback\n  File \"x.py\"\nModuleNotFoundError: No module named 'x'\n1 failed in 0.4s") \
        == "ModuleNotFoundError: No module named 'x'"
