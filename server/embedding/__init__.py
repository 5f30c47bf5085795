"""Embeddings: the Embedder protocol and its implementations (`embedders`), MiniLM without torch
(`minilm`), the one-time ONNX export (`export`) and the backfill that embeds queued memories
(`backfill`)."""
