"""What every tool shares: registration, running database work for the caller's tenant, the
memory target, errors, hints.

Tools take the operations' contracts as typed arguments (the SDK builds each tool's input schema
from them and validates every call). ``ContractTool`` reports a failed validation the way REST
does — every bad field named, in words for people — instead of pydantic's raw text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from asgiref.sync import sync_to_async
from django.db import InterfaceError, OperationalError, close_old_connections
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from pydantic import ValidationError

from audit import context
from base.contracts import invalid
from base.errors import MnemoError, ValidationFailed
from gateway.mcp_server import sessions
from gateway.mcp_server.principal import Principal
from memory.contracts import MemoryTarget
from roles.targets import Target, memory_target
from tenants import rls
from tenants.models import Tenant


class ContractTool(Tool):
    """A tool whose argument errors read like the REST API's."""

    async def run(self, arguments: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        try:
            self.fn_metadata.validate_arguments(arguments)
        except ValidationError as exc:
            raise ToolError(f"Error executing tool {self.name}: {describe(invalid(exc))}") from exc
        return await super().run(arguments, *args, **kwargs)


@dataclass(frozen=True)
class Registered:
    fn: Callable[..., Any]
    name: str
    description: str


TOOLS: list[Registered] = []


def tool(name: str, description: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a tool function (the server builds them all as ContractTools)."""

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        TOOLS.append(Registered(fn, name, description))
        return fn

    return register


def built_tools() -> list[Tool]:
    return [ContractTool.from_function(t.fn, name=t.name, description=t.description) for t in TOOLS]


def describe(error: MnemoError) -> str:
    """A service error as one line: its message, then the fields it did not already name."""
    extra = [f"{name}: {message}" for name, message in error.fields.items()]
    extra = [item for item in extra if item not in error.message]
    return error.message + (f" ({'; '.join(extra)})" if extra else "")


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
    role = state.get("role")
    return str(role) if role else None


def state_of(principal: Principal) -> str:
    role = active_role(principal)
    if role:
        return f"active role `{role}` (memory network `role:{role}`) for this session."
    if principal.session_id:
        return "no active role in this session (`action` activates one)."
    return "this connection keeps no MCP session: name the `role` (or `network`) in each call."


def target_for(principal: Principal, tenant: Tenant, target: MemoryTarget) -> Target:
    """The network a memory tool works on: ``network`` or ``role`` if given, else the role
    active in this session; with none of them the agent is told what to pass."""
    current = None if target.network or target.role else active_role(principal)
    if target.network or target.role or current:
        return memory_target(tenant=tenant, target=target, fallback=f"role:{current}")
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
        raise ToolError(describe(exc)) from exc
    except (OperationalError, InterfaceError) as exc:
        raise ToolError("The database does not answer; retry in a few seconds.") from exc
