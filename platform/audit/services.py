"""Writing the audit trail. Call from inside the service's transaction, never after it.

This module is the only code that makes ``AuditEvent`` rows (a test holds it to that): one event
with ``audit_record``, a batch (remember's 1,000 engrams) with ``audit_records``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import connection

from audit import context, sealing
from audit.actors import Actor
from audit.models import AuditEvent


@dataclass(frozen=True)
class AuditEntry:
    """One change to record: what was done to which target, before and after."""

    verb: str
    target_type: str
    target_id: str | int
    target_label: str = ""
    before: dict[str, Any] | None = None
    after: dict[str, Any] | None = None
    # who the payload is about (``engram:42``): label, before and after are sealed with the
    # subject's key (audit.sealing), so erasing the subject leaves the event unreadable
    subject: str = ""


def _require_transaction(name: str) -> None:
    if not connection.in_atomic_block:
        raise RuntimeError(f"{name}() must run inside the transaction of the change")


def _event(tenant_id: int, actor: Actor, entry: AuditEntry, key: bytes | None = None) -> AuditEvent:
    info = context.current()
    if entry.subject and key is not None:
        payload = {"label": entry.target_label, "before": entry.before, "after": entry.after}
        entry = AuditEntry(
            verb=entry.verb,
            target_type=entry.target_type,
            target_id=entry.target_id,
            target_label=f"{entry.target_type} #{entry.target_id}",
            before=None,
            after=sealing.seal(tenant_id, entry.subject, key, payload),
        )
    return AuditEvent(
        tenant_id=tenant_id,
        actor_kind=actor.kind,
        actor_id=actor.id,
        actor_label=actor.label[:200],
        verb=entry.verb,
        target_type=entry.target_type,
        target_id=str(entry.target_id),
        target_label=entry.target_label[:200],
        before=entry.before,
        after=entry.after,
        request_id=info.request_id if info else "",
        ip=info.ip if info else None,
    )


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
    _require_transaction("audit_record")
    if target is not None:
        target_type = target_type or target._meta.model_name
        target_id = target_id or target.pk
        target_label = target_label or str(target)
    entry = AuditEntry(verb, target_type, target_id, target_label, before, after)
    event = _event(tenant_id, actor, entry)
    event.save(force_insert=True)
    return event


def audit_records(*, tenant_id: int, actor: Actor, entries: list[AuditEntry]) -> None:
    """Append many events by one actor in one statement (a batch write)."""
    if not entries:
        return
    _require_transaction("audit_records")
    keys = sealing.keys_for(tenant_id, (e.subject for e in entries if e.subject), create=True)
    AuditEvent.objects.bulk_create(
        [_event(tenant_id, actor, e, keys.get(e.subject)) for e in entries], batch_size=500
    )
