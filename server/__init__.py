"""memvault: long-term memory for coding assistants, served over MCP."""

__version__ = "0.1.0"
