"""PostgreSQL + pgvector backend (MEMVAULT_DATABASE_URL; see docs/postgres.md): connections and
tenants (`db`), schema migrations (`migrations`), `memvault db` set-up (`bootstrap`, `commands`),
the store (`store`) and the bearer-token table (`tokens`). Built only by server.storage.opener."""
