"""What each membership role may do in the dashboard, and which API scopes exist.

Roles are ordered; a capability names the lowest role that has it. Keep this table the only place
that decides, so the dashboard, the REST API and the tests agree.
"""

from __future__ import annotations

from enum import StrEnum

from tenants.models import ApiKey, Membership

Role = Membership.Role
Scope = ApiKey.Scope

RANK: dict[str, int] = {
    Role.VIEWER: 0,
    Role.MEMBER: 1,
    Role.MODERATOR: 2,
    Role.ADMIN: 3,
    Role.OWNER: 4,
}


class Capability(StrEnum):
    VIEW = "view"  # see the tenant, its memory and its members
    KEYS_CREATE = "keys.create"  # create read/write keys, revoke one's own
    KEYS_MANAGE = "keys.manage"  # create admin keys, revoke anyone's
    MEMBERS_MANAGE = "members.manage"  # invite, change roles, remove
    AUDIT_VIEW = "audit.view"


MINIMUM_ROLE: dict[Capability, str] = {
    Capability.VIEW: Role.VIEWER,
    Capability.KEYS_CREATE: Role.MEMBER,
    Capability.AUDIT_VIEW: Role.MODERATOR,
    Capability.KEYS_MANAGE: Role.ADMIN,
    Capability.MEMBERS_MANAGE: Role.ADMIN,
}


def role_allows(role: str | None, capability: Capability) -> bool:
    if role is None:
        return False
    return RANK[role] >= RANK[MINIMUM_ROLE[capability]]


def may_assign_role(acting_role: str, current_role: str | None, new_role: str) -> bool:
    """Admins manage roles below owner; only owners touch owners."""
    if acting_role == Role.OWNER:
        return True
    if not role_allows(acting_role, Capability.MEMBERS_MANAGE):
        return False
    return Role.OWNER not in (current_role, new_role)
