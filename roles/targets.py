"""Which memory network a request means (the role <-> network binding).

``network`` names a network by key: a read of one that does not exist is a 404 naming the known
ones, and a write creates it (networks are made on first write). ``role`` means the network
``role:<slug>`` of a role this workspace has — its own or a built-in — or of a role whose network
already holds memories; any other role is a 404, so a typo never files memories away under a
name nobody will recall. With neither, the interface's fallback applies (REST: ``default``;
MCP: the role activated in the session).
"""

from __future__ import annotations

from dataclasses import dataclass

from base.errors import NotFound
from memory.contracts import MemoryTarget
from memory.selectors import network_find
from roles.builtin import registry
from roles.models import Role
from tenants.models import Tenant


@dataclass(frozen=True)
class Target:
    key: str  # the network key
    named: bool  # the client named this network: reading it requires it to exist

    @property
    def missing_ok(self) -> bool:
        """A role's network, or the fallback, may be read before its first memory."""
        return not self.named


def role_network_key(*, tenant: Tenant, slug: str) -> str:
    key = f"role:{slug}"
    known = (
        slug in registry().roles
        or Role.objects.filter(tenant=tenant, slug=slug).exists()
        or network_find(tenant=tenant, key=key) is not None
    )
    if not known:
        raise NotFound(
            f"There is no role “{slug}” in this workspace (`discover` over MCP, or "
            "GET /api/v1/roles, lists them). To keep memories under a name of your own, pass "
            'network instead of role (for example network="user:42").',
            fields={"role": "no such role"},
        )
    return key


def memory_target(*, tenant: Tenant, target: MemoryTarget, fallback: str) -> Target:
    if target.network:
        return Target(target.network, named=True)
    if target.role:
        return Target(role_network_key(tenant=tenant, slug=target.role), named=False)
    return Target(fallback, named=False)
