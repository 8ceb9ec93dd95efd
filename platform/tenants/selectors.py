"""Reads for tenants, members, invitations and keys; every lookup is scoped by tenant.

They never switch row-level security; tenants.access does, once per request.
"""

from __future__ import annotations

from django.db.models import QuerySet
from django.utils import timezone

from base.errors import NotFound
from tenants.models import ApiKey, Invitation, Membership, Tenant, User


def memberships_for_user(*, user: User) -> QuerySet[Membership]:
    """All of a user's memberships (visible through the ``app.user_id`` read policy)."""
    return Membership.objects.filter(user=user).select_related("tenant").order_by("tenant__name")


def members_for_tenant(*, tenant: Tenant) -> QuerySet[Membership]:
    return Membership.objects.filter(tenant=tenant).select_related("user").order_by("created_at")


def membership_get_for_tenant(*, tenant: Tenant, id: int) -> Membership:
    membership = Membership.objects.filter(tenant=tenant, pk=id).select_related("user").first()
    if membership is None:
        raise NotFound("There is no such member.")
    return membership


def invitations_pending_for_tenant(*, tenant: Tenant) -> QuerySet[Invitation]:
    return Invitation.objects.filter(
        tenant=tenant,
        accepted_at__isnull=True,
        revoked_at__isnull=True,
        expires_at__gt=timezone.now(),
    ).order_by("-created_at")


def invitation_get_for_tenant(*, tenant: Tenant, id: int) -> Invitation:
    invitation = Invitation.objects.filter(tenant=tenant, pk=id).first()
    if invitation is None:
        raise NotFound("There is no such invitation.")
    return invitation


def apikeys_for_tenant(*, tenant: Tenant) -> QuerySet[ApiKey]:
    return ApiKey.objects.filter(tenant=tenant).order_by("revoked_at", "-created_at")


def apikey_get_for_tenant(*, tenant: Tenant, id: int) -> ApiKey:
    key = ApiKey.objects.filter(tenant=tenant, pk=id).first()
    if key is None:
        raise NotFound("There is no such API key.")
    return key
