"""MCP tools, one module per area; each module has ``register(server)``."""
