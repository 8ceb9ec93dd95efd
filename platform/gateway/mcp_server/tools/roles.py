"""``discover`` and ``action``: find an expert role and become it (PromptX's welcome/action).

``action`` answers with the role's persona (personality, principles, knowledge, every reference
written out) and a prime of its memory network, and records the role as active for the MCP
session, so ``recall`` and ``remember`` without ``role`` use it.
"""

from __future__ import annotations

from typing import Literal

from mcp.server.mcpserver import Context

from base.contracts import Text
from gateway.mcp_server import sessions
from gateway.mcp_server.principal import principal_from
from gateway.mcp_server.tools.common import in_tenant, next_steps, state_of, tenant_of, tool
from gateway.mcp_server.tools.memory import render_mind
from roles import selectors
from roles.contracts import ActivationOut, RoleOut, RoleToActivate, present_activation, present_role
from roles.services import role_activate


def _listing(roles: list[RoleOut]) -> str:
    lines = []
    for role in roles:
        origin = "built-in" if role.origin == "builtin" else "this workspace"
        lines.append(
            f"- `{role.slug}` — {role.name}: {role.description or '(no description)'} [{origin}]"
        )
    return "\n".join(lines)


@tool(
    name="discover",
    description=(
        "List the expert roles you can become (built-in and this workspace's own), each with "
        "a one-line description. Optional query filters by words; source: all, builtin, "
        "workspace. Then `action` with the role's slug."
    ),
)
async def discover(
    ctx: Context,
    query: Text | None = None,
    source: Literal["all", "builtin", "workspace"] = "all",
) -> str:
    principal = principal_from(ctx)
    principal.require("read")

    def work() -> tuple[list[RoleOut], str]:
        specs = selectors.roles_for_agents(tenant=tenant_of(principal), q=query or "")
        if source != "all":
            wanted = "builtin" if source == "builtin" else "tenant"
            specs = [s for s in specs if s.origin == wanted]
        return [present_role(s) for s in specs], state_of(principal)

    specs, state = await in_tenant(principal, work)
    if not specs:
        head = "No roles match" + (f" “{query}”." if query else ".")
        return head + next_steps("`discover` without a query lists every role.", state=state)
    head = f"{len(specs)} roles" + (f" matching “{query}”" if query else "") + ":\n"
    return (
        head
        + _listing(specs)
        + next_steps(
            '`action` with role="<slug>" to take on that expert\'s persona and memory.',
            "People write new roles in the dashboard (Roles); they appear here at once.",
            state=state,
        )
    )


@tool(
    name="action",
    description=(
        "Activate a role: become that expert. Returns its persona (personality, principles, "
        "knowledge) and its primed memory; afterwards `recall` and `remember` without "
        "`role` use this role's memory for the rest of the session."
    ),
)
async def action(ctx: Context, role: RoleToActivate) -> str:
    principal = principal_from(ctx)
    principal.require("read")
    slug = role

    def work() -> tuple[ActivationOut, str]:
        activation = role_activate(
            tenant=tenant_of(principal), actor=principal.actor, slug=slug, source="mcp"
        )
        if principal.session_id:
            sessions.session_update(
                tenant_id=principal.tenant_id,
                key_id=principal.key_id,
                session_id=principal.session_id,
                role=slug,
            )
        presented = present_activation(
            activation.role, activation.persona, activation.mind, activation.warnings
        )
        return presented, state_of(principal)

    activation, state = await in_tenant(principal, work)
    spec = activation.role
    kept = principal.session_id is not None
    memory = render_mind(activation.prime, title="Primed memory")
    return (
        f"You are now “{spec.name}” (role `{spec.slug}`, memory network "
        f"`{spec.network}`). Take on this persona:\n\n{activation.persona}\n\n---\n\n"
        f"{memory}"
        + next_steps(
            "Work as this expert; `recall` with the key words of each task before answering"
            + ("." if kept else f' (pass role="{spec.slug}": no session is kept).'),
            "`remember` what you learn before you finish"
            + ("." if kept else f' (with role="{spec.slug}").'),
            "`discover` and `action` again to switch roles.",
            state=state,
        )
    )
