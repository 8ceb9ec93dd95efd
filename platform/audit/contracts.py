"""The audit trail as interfaces show it: one event, a page of them, and the list's filters."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field

from audit.models import AuditEvent
from base.contracts import Day, Output, PageSize, QueryContract, Text


class AuditFilters(QueryContract):
    actor: Text = Field("", description="kind:id (user:3, api_key:7, system) or words of a label")
    verb: Text = Field("", description="a verb (engram.update), or a prefix ending in a dot")
    since: Day | None = None
    until: Day | None = None
    target_type: Text = ""
    target_id: Text = ""
    cursor: Text = ""
    limit: PageSize = 50


class AuditActorOut(Output):
    kind: str
    id: int | None
    label: str


class AuditTargetOut(Output):
    type: str
    id: str
    label: str


class AuditEventOut(Output):
    id: int
    created_at: datetime
    actor: AuditActorOut
    verb: str
    target: AuditTargetOut
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    request_id: str
    ip: str | None


class AuditPage(Output):
    events: list[AuditEventOut]
    next_cursor: str | None = None


def present_event(event: AuditEvent) -> AuditEventOut:
    return AuditEventOut(
        id=event.pk,
        created_at=event.created_at,
        actor=AuditActorOut(kind=event.actor_kind, id=event.actor_id, label=event.actor_label),
        verb=event.verb,
        target=AuditTargetOut(type=event.target_type, id=event.target_id, label=event.target_label),
        before=event.before,
        after=event.after,
        request_id=event.request_id,
        ip=event.ip,
    )
