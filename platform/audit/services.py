"""Writing the audit trail. Call from inside the service's transaction, never after it."""

from __future__ import annotations

from typing import Any

from django.db import connection

from audit import context
from audit.actors import Actor
from audit.models import AuditEvent


def audit_record(
    *,
    tenant_id: int,
    actor: Actor,
    verb: str,
    target: Any = None,
    target_type: str = "",
    target_id: str | int = "",
    target_label: str = "",
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
) -> AuditEvent:
    """Append one event. ``target`` may be a model instance; its type, pk and str() are used."""
    if not connection.in_atomic_block:
        raise RuntimeError("audit_record() must run inside the transaction of the change")
    if target is not None:
        target_type = target_type or target._meta.model_name
        target_id = target_id or target.pk
        target_label = target_label or str(target)
    info = context.current()
    return AuditEvent.objects.create(
        tenant_id=tenant_id,
        actor_kind=actor.kind,
        actor_id=actor.id,
        actor_label=actor.label[:200],
        verb=verb,
        target_type=target_type,
        target_id=str(target_id),
        target_label=target_label[:200],
        before=before,
        after=after,
        request_id=info.request_id if info else "",
        ip=info.ip if info else None,
    )


def audit_record_many(events: list[AuditEvent]) -> None:
    """Append many prepared events at once (a batch write), stamped with the request context."""
    if not events:
        return
    if not connection.in_atomic_block:
        raise RuntimeError("audit_record_many() must run inside the transaction of the change")
    info = context.current()
    for event in events:
        event.request_id = info.request_id if info else ""
        event.ip = info.ip if info else None
    AuditEvent.objects.bulk_create(events, batch_size=500)
