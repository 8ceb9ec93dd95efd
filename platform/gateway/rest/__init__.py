"""REST API: bearer API keys, JSON errors, OpenAPI schema."""
