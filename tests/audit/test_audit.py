from __future__ import annotations

from datetime import timedelta

import psycopg
import pytest
from django.conf import settings
from django.db import connection, transaction
from django.db.utils import DatabaseError
from django.utils import timezone

from audit import context
from audit.actors import Actor
from audit.models import AuditEvent
from audit.selectors import audit_events_for_tenant
from audit.services import audit_record
from tenants import rls
from tests.factories import Cast, make_cast

pytestmark = pytest.mark.django_db


def test_the_app_role_may_not_update_or_delete_audit_events(cast: Cast) -> None:
    rls.activate(tenant_id=cast.tenant.pk)
    event = AuditEvent.objects.filter(tenant=cast.tenant).first()
    assert event is not None
    with pytest.raises(DatabaseError, match="permission denied"), transaction.atomic():
        AuditEvent.objects.filter(pk=event.pk).update(verb="tampered")
    with (
        pytest.raises(DatabaseError, match="permission denied"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("DELETE FROM audit_auditevent WHERE id = %s", [event.pk])
    assert AuditEvent.objects.get(pk=event.pk).verb == event.verb


@pytest.mark.django_db(transaction=True)
def test_even_the_table_owner_cannot_update_or_delete_audit_events() -> None:
    cast = make_cast()
    owner_url = settings.DATABASE_OWNER_URL
    if not owner_url:
        pytest.skip("DATABASE_OWNER_URL is not set (external database without an owner role)")
    dbname = settings.DATABASES["default"]["NAME"]
    tenant = str(cast.tenant.pk)
    enter = (
        "SELECT set_config('app.tenant_id', %s, false), set_config('app.sig', %s, false)",
        [tenant, rls.signature([tenant, "", "", ""])],
    )
    with psycopg.connect(owner_url, dbname=dbname) as owner:
        owner.execute(*enter)
        for statement in ("UPDATE audit_auditevent SET verb = 'x'", "DELETE FROM audit_auditevent"):
            with pytest.raises(psycopg.Error, match="append-only"):
                owner.execute(statement)
            owner.rollback()
            owner.execute(*enter)
        count = owner.execute("SELECT count(*) FROM audit_auditevent").fetchone()
        assert count is not None and count[0] > 0


def test_audit_record_keeps_the_request_id_and_address(cast: Cast) -> None:
    rls.activate(tenant_id=cast.tenant.pk)
    with context.bound("req-123", "203.0.113.9"):
        event = audit_record(
            tenant_id=cast.tenant.pk,
            actor=Actor.system(),
            verb="test.thing",
            target_type="thing",
            target_id=7,
            before={"a": 1},
            after={"a": 2},
        )
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
