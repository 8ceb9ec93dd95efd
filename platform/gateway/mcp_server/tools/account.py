"""``whoami``: which workspace and permissions this connection has."""

from __future__ import annotations

from asgiref.sync import sync_to_async
from django.conf import settings
from mcp.server.mcpserver import Context

from gateway.mcp_server.principal import principal_from
from gateway.mcp_server.tools.common import next_steps, state_of, tool


@tool(
    name="whoami",
    description="Show the workspace (tenant) and API key scopes of this MCP connection.",
)
async def whoami(ctx: Context) -> str:
    principal = principal_from(ctx)
    scopes = ", ".join(principal.scopes) or "none"
    state = await sync_to_async(state_of, thread_sensitive=False)(principal)
    return (
        f"Workspace: {principal.tenant_name} (slug `{principal.tenant_slug}`)\n"
        f"API key: {principal.key_name} (prefix {principal.key_prefix})\n"
        f"Scopes: {scopes}"
        + next_steps(
            "`discover` the expert roles; `action` activates one with its memory.",
            "`prime` at the start of a session to warm up the memory.",
            "`recall` before answering; `remember` what you learn before you finish.",
            f"People manage this memory at {settings.PUBLIC_URL}/t/{principal.tenant_slug}/",
            state=state,
        )
    )
