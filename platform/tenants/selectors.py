"""Reads for tenants, members, invitations and keys; every lookup is scoped by tenant."""

from __future__ import annotations

from django.db.models import QuerySet
from django.utils import timezone

from config.errors import NotFound
from tenants import rls, tokens
from tenants.models import ApiKey, Invitation, Membership, Tenant, User


def tenant_resolve_for_user(*, user: User, slug: str) -> tuple[Tenant, Membership]:
    """The tenant ``slug`` and the user's membership in it, and RLS switched to that tenant.

    Not a member, or no such tenant, is the same 404: outsiders learn nothing about slugs.
    """
    membership = (
        Membership.objects.select_related("tenant").filter(user=user, tenant__slug=slug).first()
    )
    if membership is None:
        raise NotFound("no such workspace")
    rls.activate(tenant_id=membership.tenant_id, user_id=user.pk)
    return membership.tenant, membership


def memberships_for_user(*, user: User) -> QuerySet[Membership]:
    """All of a user's memberships (visible through the ``app.user_id`` read policy)."""
    return Membership.objects.filter(user=user).select_related("tenant").order_by("tenant__name")


def members_for_tenant(*, tenant: Tenant) -> QuerySet[Membership]:
    return Membership.objects.filter(tenant=tenant).select_related("user").order_by("created_at")


def membership_get_for_tenant(*, tenant: Tenant, id: int) -> Membership:
    membership = Membership.objects.filter(tenant=tenant, pk=id).select_related("user").first()
    if membership is None:
        raise NotFound("no such member")
    return membership


def invitations_pending_for_tenant(*, tenant: Tenant) -> QuerySet[Invitation]:
    return Invitation.objects.filter(
        tenant=tenant, accepted_at__isnull=True, revoked_at__isnull=True,
        expires_at__gt=timezone.now(),
    ).order_by("-created_at")  # fmt: skip


def invitation_get_for_tenant(*, tenant: Tenant, id: int) -> Invitation:
    invitation = Invitation.objects.filter(tenant=tenant, pk=id).first()
    if invitation is None:
        raise NotFound("no such invitation")
    return invitation


def invitation_find(*, token: str) -> Invitation | None:
    """The invitation behind an emailed link (seen through the ``app.invite_digest`` policy)."""
    digest = tokens.digest(token)
    rls.activate(invite_digest=digest)
    return Invitation.objects.select_related("tenant").filter(token_digest=digest).first()


def apikeys_for_tenant(*, tenant: Tenant) -> QuerySet[ApiKey]:
    return ApiKey.objects.filter(tenant=tenant).order_by("revoked_at", "-created_at")


def apikey_get_for_tenant(*, tenant: Tenant, id: int) -> ApiKey:
    key = ApiKey.objects.filter(tenant=tenant, pk=id).first()
    if key is None:
        raise NotFound("no such API key")
    return key


def apikey_authenticate(raw: str, *, tenant_slug: str | None = None) -> ApiKey | None:
    """The active key for a bearer secret, with RLS switched to its tenant; None if not valid.

    With ``tenant_slug`` (the MCP URL), a key of another tenant is as invalid as a wrong one.
    """
    prefix = tokens.api_key_prefix(raw)
    if prefix is None:
        return None
    rls.activate(apikey_prefix=prefix)
    for key in ApiKey.objects.select_related("tenant").filter(prefix=prefix):
        if tokens.digests_match(raw, key.digest) and key.is_active:
            if tenant_slug is not None and key.tenant.slug != tenant_slug:
                break
            rls.activate(tenant_id=key.tenant_id)
            return key
    rls.activate()
    return None
