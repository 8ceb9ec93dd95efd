"""Platform staff in a tenant's moderation queue: a written reason opens a time-limited pass,
and every look and every decision is an audit row in *that tenant's* log, which its admins
read. The only cross-tenant read is the console's count of waiting items per workspace (no
content); anything more goes through a tenant's own scope, with a pass and its trace."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.db.models import Count, Q

from audit.actors import Actor
from audit.services import audit_record
from base.errors import PermissionDenied, ValidationFailed
from memory.models import ModerationItem
from tenants import rls
from tenants.models import Membership, Tenant

PASS_SECONDS = 30 * 60


@dataclass(frozen=True)
class WaitingCount:
    tenant: Tenant
    pending: int
    held: int
    flags: int


def staff_actor(user_id: int, email: str) -> Actor:
    """How staff appear in a tenant's log, and the role they decide with."""
    return Actor(kind="user", id=user_id, label=f"staff: {email}", role=Membership.Role.MODERATOR)


def waiting_counts() -> list[WaitingCount]:
    """Per workspace, the items waiting (counts only): each counted in its own scope."""
    rows = []
    for tenant in Tenant.objects.order_by("slug"):
        with rls.tenant_scope(tenant.pk):
            row = ModerationItem.objects.filter(tenant=tenant, state="pending").aggregate(
                pending=Count("id"),
                held=Count("id", filter=Q(held=True)),
                flags=Count("id", filter=Q(kind=ModerationItem.Kind.FLAG)),
            )
            counts = WaitingCount(tenant, row["pending"], row["held"], row["flags"])
        if counts.pending:
            rows.append(counts)
    return rows


def staff_enter(*, tenant: Tenant, actor: Actor, reason: str) -> None:
    """Open a pass into ``tenant`` (the caller keeps it, for PASS_SECONDS): the reason is
    written to the tenant's audit log first."""
    reason = " ".join(reason.split())
    if len(reason) < 10:
        raise ValidationFailed.field("reason", "say why, in a sentence (10 characters or more)")
    with rls.tenant_scope(tenant.pk), transaction.atomic():
        audit_record(
            tenant_id=tenant.pk,
            actor=actor,
            verb="staff.enter",
            target_type="tenant",
            target_id=tenant.pk,
            target_label=tenant.slug,
            after={"reason": reason[:1000], "minutes": PASS_SECONDS // 60},
        )


def staff_look(*, tenant: Tenant, actor: Actor, what: str) -> None:
    """A trace of what staff looked at, in the tenant's log."""
    with rls.tenant_scope(tenant.pk), transaction.atomic():
        audit_record(
            tenant_id=tenant.pk,
            actor=actor,
            verb="staff.view",
            target_type="tenant",
            target_id=tenant.pk,
            target_label=tenant.slug,
            after={"viewed": what[:200]},
        )


def require_staff(user: object) -> None:
    if not getattr(user, "is_staff", False):
        raise PermissionDenied("Platform staff only.")
