"""Who is calling an MCP tool: resolved once per HTTP request by the gateway, read by tools."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError

from audit.actors import Actor
from base.errors import PermissionDenied

SCOPE_KEY = "mnemo.principal"


@dataclass(frozen=True)
class Principal:
    tenant_id: int
    tenant_slug: str
    tenant_name: str
    key_id: int
    key_name: str
    key_prefix: str
    scopes: tuple[str, ...]
    write_policy: str
    request_id: str
    ip: str | None
    session_id: str | None = None  # issued by the gateway on initialize; None if not kept

    @property
    def actor(self) -> Actor:
        return Actor(
            kind="api_key",
            id=self.key_id,
            label=f"{self.key_name} ({self.key_prefix})",
            scopes=self.scopes,
            write_policy=self.write_policy,
        )

    def require(self, scope: str) -> None:
        """Refuse the tool call (as a tool error the agent reads) without the scope."""
        if scope not in self.scopes:
            raise ToolError(
                f"This API key lacks the '{scope}' scope; ask a workspace admin for a key with it."
            )


def principal_from(ctx: Any) -> Principal:
    """The principal the gateway stored in the ASGI scope of this tool call's request."""
    request = ctx.request_context.request
    principal = request.scope.get(SCOPE_KEY) if request is not None else None
    if not isinstance(principal, Principal):
        raise PermissionDenied("no authenticated principal on this request")
    return principal
