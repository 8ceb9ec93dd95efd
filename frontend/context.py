"""Template context for every page: the workspace switcher and what the user may open."""

from __future__ import annotations

from django.http import HttpRequest

from memory.selectors import pending_moderation_count
from tenants.permissions import Capability, role_allows
from tenants.selectors import memberships_for_user


def navigation(request: HttpRequest) -> dict[str, object]:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    membership = getattr(request, "membership", None)
    role = membership.role if membership is not None else None
    tenant = getattr(request, "tenant", None)
    moderates = role_allows(role, Capability.MEMORY_MODERATE)
    return {
        "workspaces": memberships_for_user(user=user),
        "current_tenant": tenant,
        "current_role": role,
        "nav_can": {cap.name.lower(): role_allows(role, cap) for cap in Capability},
        # the navigation's badge: items waiting for a moderator (live updates keep it current)
        "moderation_pending": pending_moderation_count(tenant=tenant)
        if tenant is not None and moderates
        else 0,
    }
