"""The request of a page inside a workspace, for type checkers.

``frontend.views.base.tenant_view`` resolves ``/t/<slug>/...`` for the logged-in member and sets
these attributes before the view runs; views annotate their request as ``TenantRequest`` so that
``request.tenant`` and ``request.actor`` are checked like any other attribute.
"""

from __future__ import annotations

from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails

from audit.actors import Actor
from tenants.models import Membership, Tenant, User


class UserRequest(HttpRequest):
    """A request behind ``login_required``: the user is a real one."""

    user: User  # narrower than HttpRequest's: login_required has checked it
    htmx: HtmxDetails


class TenantRequest(UserRequest):
    tenant: Tenant
    membership: Membership
    actor: Actor
