"""A bare hello-world MCPServer: the start-up reference memvault is measured against."""

from mcp.server.mcpserver import MCPServer

mcp = MCPServer("hello")


@mcp.tool()
def hello(name: str) -> str:
    """Say hello."""
    return f"hello {name}"


if __name__ == "__main__":
    mcp.run()
