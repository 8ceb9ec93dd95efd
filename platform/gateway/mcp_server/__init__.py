"""The per-tenant MCP server at ``/t/<slug>/mcp`` (stateless streamable HTTP, bearer API key)."""
