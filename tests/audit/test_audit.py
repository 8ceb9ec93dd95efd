from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.db.utils import DatabaseError
from django.utils import timezone

from audit import context
from audit.actors import Actor
from audit.models import AuditEvent
from audit.selectors import audit_events_for_tenant
from audit.services import audit_record
from tenants import rls
from tests.factories import Cast

pytestmark = pytest.mark.django_db


def test_audit_events_refuse_update_and_delete_at_the_database_level(cast: Cast) -> None:
    rls.activate(tenant_id=cast.tenant.pk)
    event = AuditEvent.objects.filter(tenant=cast.tenant).first()
    assert event is not None
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        AuditEvent.objects.filter(pk=event.pk).update(verb="tampered")
    with (
        pytest.raises(DatabaseError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("DELETE FROM audit_auditevent WHERE id = %s", [event.pk])
    assert AuditEvent.objects.get(pk=event.pk).verb == event.verb


def test_audit_record_keeps_the_request_id_and_address(cast: Cast) -> None:
    rls.activate(tenant_id=cast.tenant.pk)
    with context.bound("req-123", "203.0.113.9"):
        event = audit_record(
            tenant_id=cast.tenant.pk, actor=Actor.system(), verb="test.thing",
            target_type="thing", target_id=7, before={"a": 1}, after={"a": 2},
        )  # fmt: skip
    event.refresh_from_db()
    assert (event.request_id, event.ip, event.target_id) == ("req-123", "203.0.113.9", "7")


def test_audit_record_outside_a_transaction_is_refused(cast: Cast) -> None:
    connection.in_atomic_block = False
    try:
        with pytest.raises(RuntimeError):
            audit_record(tenant_id=cast.tenant.pk, actor=Actor.system(), verb="x")
    finally:
        connection.in_atomic_block = True


def test_events_filter_by_actor_verb_and_date(cast: Cast) -> None:
    rls.activate(tenant_id=cast.tenant.pk)
    owner = Actor.for_user(cast.owner, role="owner")
    audit_record(tenant_id=cast.tenant.pk, actor=owner, verb="thing.make")
    audit_record(tenant_id=cast.tenant.pk, actor=Actor.system(), verb="thing.break")
    by_owner = audit_events_for_tenant(tenant_id=cast.tenant.pk, actor=f"user:{cast.owner.pk}")
    assert {"thing.make", "tenant.create"} <= set(by_owner.values_list("verb", flat=True))
    assert "thing.break" not in set(by_owner.values_list("verb", flat=True))
    assert audit_events_for_tenant(tenant_id=cast.tenant.pk, verb="thing.").count() == 2
    assert (
        audit_events_for_tenant(tenant_id=cast.tenant.pk, actor="system")
        .filter(verb="thing.break")
        .exists()
    )
    tomorrow = (timezone.now() + timedelta(days=1)).date()
    assert audit_events_for_tenant(tenant_id=cast.tenant.pk, since=tomorrow).count() == 0
    assert audit_events_for_tenant(tenant_id=cast.tenant.pk, until=tomorrow).count() >= 2


def test_one_tenants_events_are_invisible_from_another(cast: Cast) -> None:
    rls.activate(tenant_id=cast.other.pk)
    assert not audit_events_for_tenant(tenant_id=cast.tenant.pk).exists()
