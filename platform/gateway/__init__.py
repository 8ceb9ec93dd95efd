"""Agent-facing gateways: the REST API under /api/v1/ and the per-tenant MCP server."""
