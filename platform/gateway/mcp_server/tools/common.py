"""What every tool shares: running database work for the caller's tenant, errors, hints."""

from __future__ import annotations

from collections.abc import Callable

from asgiref.sync import sync_to_async
from django.db import close_old_connections
from mcp.server.mcpserver.exceptions import ToolError

from audit import context
from config.errors import MnemoError
from gateway.mcp_server.principal import Principal
from tenants import rls


def next_steps(*steps: str) -> str:
    """PromptX's navigation idea: every answer ends with where the agent can go from here."""
    return "\n\nNext steps:\n" + "\n".join(f"- {step}" for step in steps)


def _in_tenant[T](principal: Principal, work: Callable[[], T]) -> T:
    close_old_connections()
    try:
        with (
            context.bound(principal.request_id, principal.ip),
            rls.tenant_scope(principal.tenant_id),
        ):
            return work()
    finally:
        close_old_connections()


async def in_tenant[T](principal: Principal, work: Callable[[], T]) -> T:
    """Run ``work`` in a worker thread, in a transaction scoped to the caller's tenant; service
    errors come back to the agent as tool errors with the service's message."""
    try:
        return await sync_to_async(_in_tenant, thread_sensitive=False)(principal, work)
    except MnemoError as exc:
        fields = "; ".join(f"{name}: {message}" for name, message in exc.fields.items())
        raise ToolError(f"{exc.message}" + (f" ({fields})" if fields else "")) from exc
