"""`python -m server` runs the same command line as `memvault`."""

from server.cli import main

raise SystemExit(main())
