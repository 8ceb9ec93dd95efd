"""Reading the audit trail."""

from __future__ import annotations

import re
from datetime import date, datetime, time

from django.db.models import QuerySet
from django.utils import timezone

from audit.models import AuditEvent
from base.pagination import day_after


def audit_events_for_tenant(
    *,
    tenant_id: int,
    actor: str = "",
    verb: str = "",
    since: date | None = None,
    until: date | None = None,
    target_type: str = "",
    target_id: str = "",
) -> QuerySet[AuditEvent]:
    """Newest first. ``actor`` is ``kind:id`` (``user:3``, ``api_key:7``) or a label substring."""
    events = AuditEvent.objects.filter(tenant_id=tenant_id)
    if actor:
        kind, _, ident = actor.partition(":")
        if kind in AuditEvent.ActorKind.values and re.fullmatch(r"[0-9]{1,18}", ident):
            events = events.filter(actor_kind=kind, actor_id=int(ident))
        elif kind == AuditEvent.ActorKind.SYSTEM and not ident:
            events = events.filter(actor_kind=kind)
        else:
            events = events.filter(actor_label__icontains=actor)
    if verb:
        events = (
            events.filter(verb__startswith=verb) if verb.endswith(".") else events.filter(verb=verb)
        )
    if since:
        events = events.filter(created_at__gte=_start_of(since))
    if until:
        end = day_after(until)
        if end is not None:
            events = events.filter(created_at__lt=_start_of(end))
    if target_type:
        events = events.filter(target_type=target_type)
    if target_id:
        events = events.filter(target_id=target_id)
    return events.order_by("-created_at", "-id")


def audit_actors_for_tenant(
    *, tenant_id: int, limit: int = 200
) -> list[tuple[str, int | None, str]]:
    """The distinct actors that appear in the tenant's log: ``(kind, id, label)``."""
    rows = (
        AuditEvent.objects.filter(tenant_id=tenant_id)
        .order_by("actor_kind", "actor_label", "actor_id")
        .values_list("actor_kind", "actor_id", "actor_label")
        .distinct()[:limit]
    )
    return list(rows)


def audit_verbs_for_tenant(*, tenant_id: int) -> list[str]:
    return list(
        AuditEvent.objects.filter(tenant_id=tenant_id)
        .order_by("verb")
        .values_list("verb", flat=True)
        .distinct()
    )


def _start_of(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min), timezone.get_default_timezone())
