"""Embeddings: the Embedder protocol and its implementations (`embedders`), MiniLM's three runtimes
(`minilm`), the one-time ONNX export (`export`) and the backfill that embeds queued memories
(`backfill`)."""
