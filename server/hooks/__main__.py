"""`python -m server.hooks EVENT [--host H] [--foreground]`: what `memvault hook` runs (the detached capture uses it)."""

from __future__ import annotations

import sys

from server.hooks.command import hook_main

if __name__ == "__main__":
    raise SystemExit(hook_main(sys.argv[1:]))
