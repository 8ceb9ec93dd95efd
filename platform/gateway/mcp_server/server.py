"""The MCP server and its tools. Tools are thin: resolve the principal, call a service or selector.

Every tool answer is text an agent can act on, ending with a short "next steps" hint.
"""

from __future__ import annotations

from django.conf import settings
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp

from gateway.mcp_server.principal import principal_from

INSTRUCTIONS = (
    "Mnemo is this workspace's long-term memory. Call `whoami` to see which workspace and "
    "permissions this connection has."
)

server = MCPServer(
    "mnemo",
    title="Mnemo memory",
    instructions=INSTRUCTIONS,
    version="0.1.0",
)


def next_steps(*steps: str) -> str:
    return "\n\nNext steps:\n" + "\n".join(f"- {step}" for step in steps)


@server.tool(
    name="whoami",
    description="Show the workspace (tenant) and API key scopes of this MCP connection.",
)
async def whoami(ctx: Context) -> str:
    principal = principal_from(ctx)
    scopes = ", ".join(principal.scopes) or "none"
    return (
        f"Workspace: {principal.tenant_name} (slug `{principal.tenant_slug}`)\n"
        f"API key: {principal.key_name} (prefix {principal.key_prefix})\n"
        f"Scopes: {scopes}"
        + next_steps(
            f"Manage keys and members at {settings.PUBLIC_URL}/t/{principal.tenant_slug}/",
            "REST reference: " + f"{settings.PUBLIC_URL}/api/v1/docs/",
        )
    )


def transport_security() -> TransportSecuritySettings:
    hosts = [h for h in settings.ALLOWED_HOSTS if h]
    if "*" in hosts:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    allowed_hosts = [pattern for host in hosts for pattern in (host, f"{host}:*")]
    origins = (
        [settings.PUBLIC_URL] + [f"http://{h}:*" for h in hosts] + [f"https://{h}" for h in hosts]
    )
    return TransportSecuritySettings(allowed_hosts=allowed_hosts, allowed_origins=origins)


def build_app() -> ASGIApp:
    """The SDK's app, stateless with JSON responses: any worker can answer any request."""
    return server.streamable_http_app(
        streamable_http_path="/",
        stateless_http=True,
        json_response=True,
        max_request_body_size=settings.MAX_REQUEST_BYTES,
        transport_security=transport_security(),
    )
