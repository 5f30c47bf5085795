"""The HTTP edge: streamable HTTP transport (`transport`), bearer tokens (`tokens`), OAuth
resource-server mode (`oauth`) and one service per tenant (`tenants`)."""
