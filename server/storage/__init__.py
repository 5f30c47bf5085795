"""Storage: the contract every backend keeps (`protocol`, with its records in `records`), the one
place that builds a backend (`opener`), and the two backends, SQLite (`sqlite/`, the default) and
PostgreSQL (`pg/`).

Also here: store health (`health`), content fingerprints for verification (`fingerprint`) and
copying a store between backends (`copy`, the `memvault migrate` command).
"""
