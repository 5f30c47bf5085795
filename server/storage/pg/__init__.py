"""PostgreSQL + pgvector backend (MEMVAULT_DATABASE_URL); see docs/postgres.md."""
