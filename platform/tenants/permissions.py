"""What each membership role and each API key scope may do.

Roles are ordered; a capability names the lowest role that has it, and the key scope that grants
it. This module is the only place that decides, so the dashboard, the REST API, the services and
the tests agree.
"""

from __future__ import annotations

from enum import StrEnum

from audit.actors import Actor
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
    ROLES_EDIT = "roles.edit"  # write, copy, archive and restore roles and resources
    ROLES_MANAGE = "roles.manage"  # delete resources for good
    MEMORY_EDIT = "memory.edit"  # edit and retype memories
    MEMORY_DELETE = "memory.delete"  # delete memories (soft), in bulk too (moderators up)
    MEMORY_IMPORT = "memory.import"  # import a network from a file
    MEMORY_FLAG = "memory.flag"  # say something is wrong with a memory (queues it for review)
    MEMORY_MODERATE = "memory.moderate"  # decide on the moderation queue, restore memories
    MODERATION_SETTINGS = "moderation.settings"  # write policies and firewall actions
    MEMORY_ERASE = "memory.erase"  # erase memories for good, with a signed receipt
    LLM_SETTINGS = "llm.settings"  # the workspace's language model: provider, key, budget
    INTENTS_EDIT = "intents.edit"  # the workspace's intent vocabulary


MINIMUM_ROLE: dict[Capability, str] = {
    Capability.VIEW: Role.VIEWER,
    Capability.KEYS_CREATE: Role.MEMBER,
    Capability.AUDIT_VIEW: Role.MODERATOR,
    Capability.KEYS_MANAGE: Role.ADMIN,
    Capability.MEMBERS_MANAGE: Role.ADMIN,
    Capability.ROLES_EDIT: Role.MEMBER,
    Capability.ROLES_MANAGE: Role.ADMIN,
    Capability.MEMORY_EDIT: Role.MEMBER,
    Capability.MEMORY_DELETE: Role.MODERATOR,
    Capability.MEMORY_IMPORT: Role.ADMIN,
    Capability.MEMORY_FLAG: Role.VIEWER,
    Capability.MEMORY_MODERATE: Role.MODERATOR,
    Capability.MODERATION_SETTINGS: Role.ADMIN,
    Capability.MEMORY_ERASE: Role.ADMIN,
    Capability.LLM_SETTINGS: Role.ADMIN,
    Capability.INTENTS_EDIT: Role.ADMIN,
}

KEY_SCOPE: dict[Capability, str] = {
    Capability.VIEW: Scope.READ,
    Capability.KEYS_CREATE: Scope.ADMIN,
    Capability.AUDIT_VIEW: Scope.ADMIN,
    Capability.KEYS_MANAGE: Scope.ADMIN,
    Capability.MEMBERS_MANAGE: Scope.ADMIN,
    Capability.ROLES_EDIT: Scope.WRITE,
    Capability.ROLES_MANAGE: Scope.ADMIN,
    Capability.MEMORY_EDIT: Scope.WRITE,
    Capability.MEMORY_DELETE: Scope.WRITE,
    Capability.MEMORY_IMPORT: Scope.WRITE,
    Capability.MEMORY_FLAG: Scope.READ,
    Capability.MEMORY_MODERATE: Scope.ADMIN,
    Capability.MODERATION_SETTINGS: Scope.ADMIN,
    Capability.MEMORY_ERASE: Scope.ADMIN,
    Capability.LLM_SETTINGS: Scope.ADMIN,
    Capability.INTENTS_EDIT: Scope.ADMIN,
}


def role_allows(role: str | None, capability: Capability) -> bool:
    if role not in RANK:
        return False
    return RANK[role] >= RANK[MINIMUM_ROLE[capability]]


def acting_role(actor: Actor) -> str | None:
    """The role an actor acts with: a user's own; an admin key acts as an admin (never owner)."""
    if actor.kind == "system":
        return Role.OWNER
    if actor.kind == "api_key":
        return Role.ADMIN if Scope.ADMIN in actor.scopes else None
    return actor.role


def actor_allows(actor: Actor, capability: Capability) -> bool:
    if actor.kind == "system":
        return True
    if actor.kind == "api_key":
        return KEY_SCOPE[capability] in actor.scopes
    return role_allows(actor.role, capability)


def may_assign_role(acting: str | None, current_role: str | None, new_role: str) -> bool:
    """Admins manage roles below owner; only owners touch owners."""
    if acting == Role.OWNER:
        return True
    if not role_allows(acting, Capability.MEMBERS_MANAGE):
        return False
    return Role.OWNER not in (current_role, new_role)


def may_remove_member(actor: Actor, membership: Membership) -> bool:
    """Anyone may leave; removing someone else is assigning them "nothing"."""
    if actor.kind == "user" and actor.id == membership.user_id:
        return True
    return may_assign_role(acting_role(actor), membership.role, Role.VIEWER)


def may_revoke_key(actor: Actor, key: ApiKey) -> bool:
    own = actor.kind == "user" and key.created_by_id == actor.id
    return own or actor_allows(actor, Capability.KEYS_MANAGE)
