"""The SQLite backend: connections (`db`), the numbered schema migrations (`migrations`), the
store with all of its SQL (`store`), the in-process vector index (`vectors`) and the bearer-token
table (`tokens`). Built only by server.storage.opener."""
