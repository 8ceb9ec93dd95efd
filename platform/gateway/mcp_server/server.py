"""The MCP server. Tools (gateway.mcp_server.tools) are thin: resolve the principal, call a
service or selector, and answer with text an agent can act on plus a "next steps" hint."""

from __future__ import annotations

from django.conf import settings
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp

from gateway.mcp_server.tools import account, knowledge, memory, roles, work
from gateway.mcp_server.tools.common import built_tools

INSTRUCTIONS = (
    "Mnemo is this workspace's long-term memory and its expert roles. `discover` lists the roles "
    "and `action` activates one (its persona and primed memory). At the start of a session call "
    "`prime` (or `action`); before "
    "answering, `recall` with the key words of the task; before finishing, `remember` what is "
    "worth keeping (facts as ATOMIC, relations as LINK, procedures as PATTERN). `whoami` shows "
    "the workspace and permissions of this connection. Working on a multi-step task, "
    "`record_step` each step (what you did, what you saw, what caused it); `trace` answers "
    "how a fact or step was obtained."
)

server = MCPServer(
    "mnemo",
    title="Mnemo memory",
    instructions=INSTRUCTIONS,
    version="0.1.0",
    tools=built_tools(),
)
TOOL_MODULES = (account, knowledge, memory, roles, work)  # importing them registers their tools


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
