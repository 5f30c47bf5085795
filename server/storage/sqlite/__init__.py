"""The SQLite backend: connections (`db`), the numbered schema migrations (`migrations`), the
store with all of its SQL (`store`) and the in-process vector index (`vectors`)."""
