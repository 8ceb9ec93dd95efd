"""Tenants, their members and API keys; tenant resolution, permissions and row-level security."""
