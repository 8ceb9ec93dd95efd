"""What every tool shares: running database work for the caller's tenant, errors, hints."""

from __future__ import annotations

from collections.abc import Callable

from asgiref.sync import sync_to_async
from django.db import close_old_connections
from mcp.server.mcpserver.exceptions import ToolError

from audit import context
from base.errors import MnemoError, ValidationFailed
from gateway.mcp_server import sessions
from gateway.mcp_server.principal import Principal
from memory.services import inputs
from tenants import rls
from tenants.models import Tenant


def next_steps(*steps: str, state: str = "") -> str:
    """PromptX's navigation idea: every answer ends with where the agent stands (``state``) and
    where it can go from here."""
    where = f"\n\nState: {state}" if state else "\n"
    return where + "\nNext steps:\n" + "\n".join(f"- {step}" for step in steps)


def tenant_of(principal: Principal) -> Tenant:
    return Tenant.objects.get(pk=principal.tenant_id)


def active_role(principal: Principal) -> str | None:
    """The role activated in this MCP session (None without a session or an activation)."""
    state = sessions.session_state(
        tenant_id=principal.tenant_id, key_id=principal.key_id, session_id=principal.session_id
    )
    if state and principal.session_id:  # a day after the last use, not after activation
        sessions.session_touch(
            tenant_id=principal.tenant_id, key_id=principal.key_id, session_id=principal.session_id
        )
    return state.get("role")


def state_of(principal: Principal) -> str:
    role = active_role(principal)
    if role:
        return f"active role `{role}` (memory network `role:{role}`) for this session."
    if principal.session_id:
        return "no active role in this session (`action` activates one)."
    return "this connection keeps no MCP session: name the `role` (or `network`) in each call."


def network_for(principal: Principal, *, network: str | None, role: str | None) -> str:
    """The network a memory tool works on: ``network`` or ``role`` if given, else the role
    active in this session; with none of them the agent is told what to pass."""
    if network not in (None, "") or role not in (None, ""):
        return inputs.network_from(network=network, role=role)
    current = active_role(principal)
    if current:
        return inputs.network_from(role=current)
    if principal.session_id:
        raise ValidationFailed.field(
            "role",
            'no role is active in this session: pass role (for example role="code-reviewer"), '
            'or network (for example network="default"), or call `action` first '
            "(`discover` lists the roles)",
        )
    raise ValidationFailed.field(
        "role",
        "role is required: this connection keeps no MCP session, so an activated role cannot "
        'carry over between calls; pass role (for example role="code-reviewer") or network '
        '(for example network="default")',
    )


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
        extra = [f"{name}: {message}" for name, message in exc.fields.items()]
        extra = [item for item in extra if item not in exc.message]  # .field() already says it
        raise ToolError(exc.message + (f" ({'; '.join(extra)})" if extra else "")) from exc
