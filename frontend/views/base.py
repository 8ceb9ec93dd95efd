"""Tenant resolution for dashboard pages, and rendering of pages with their HTMX partials."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, cast

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import render

from audit.actors import Actor
from base.errors import MnemoError, PermissionDenied
from tenants.access import tenant_for_member
from tenants.permissions import Capability, role_allows
from tenants.requests import TenantRequest, UserRequest

View = Callable[..., HttpResponseBase]


def tenant_view(capability: Capability = Capability.VIEW) -> Callable[[View], View]:
    """Resolve ``/t/<slug>/...`` for the logged-in member: 404 for outsiders, 403 below the role.

    Sets ``request.tenant``, ``request.membership`` and ``request.actor``; the view receives the
    rest of the URL kwargs without ``slug``.
    """

    def decorator(view: View) -> View:
        @login_required
        @wraps(view)
        def wrapper(request: UserRequest, slug: str, *args: Any, **kwargs: Any) -> HttpResponseBase:
            tenant, membership = tenant_for_member(user=request.user, slug=slug)
            if not role_allows(membership.role, capability):
                raise PermissionDenied(f"Your role ({membership.role}) cannot do this here.")
            resolved = cast(TenantRequest, request)  # it becomes one here
            resolved.tenant = tenant
            resolved.membership = membership
            resolved.actor = Actor.for_user(request.user, role=membership.role)
            if request.session.get("last_tenant") != tenant.slug:
                request.session["last_tenant"] = tenant.slug
            return view(resolved, *args, **kwargs)

        return wrapper

    return decorator


def can(request: TenantRequest, capability: Capability) -> bool:
    membership = getattr(request, "membership", None)
    return membership is not None and role_allows(membership.role, capability)


def page(
    request: TenantRequest,
    template: str,
    context: dict[str, Any],
    *,
    partial: str | None = None,
    status: int = 200,
) -> HttpResponse:
    """Render the full page, or only ``partial`` when HTMX asks for it (NetBox's htmx_partial)."""
    name = partial if partial and getattr(request, "htmx", False) else template
    return render(request, name, context, status=status)


def report(request: TenantRequest, error: MnemoError) -> None:
    """Show a service error to the user as a flash message."""
    messages.error(request, error.message)
