"""Races between real database connections (one per thread), on committed data."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from audit.actors import Actor
from base.errors import Conflict
from tenants import rls, services
from tenants.models import Membership
from tests.factories import make_cast


@pytest.mark.django_db(transaction=True)
def test_two_owners_demoting_each_other_at_once_leave_one_owner() -> None:
    cast = make_cast()
    with rls.tenant_scope(cast.tenant.pk):
        Membership.objects.filter(tenant=cast.tenant, user=cast.admin).update(role="owner")
        first = Membership.objects.get(tenant=cast.tenant, user=cast.owner)
        second = Membership.objects.get(tenant=cast.tenant, user=cast.admin)
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def demote(actor_user: object, target: Membership) -> None:
        try:
            barrier.wait(timeout=10)
            with rls.tenant_scope(cast.tenant.pk):
                services.membership_change_role(
                    tenant=cast.tenant,
                    actor=Actor.for_user(actor_user, role="owner"),  # type: ignore[arg-type]
                    membership=target,
                    role="member",
                )
            outcomes.append("demoted")
        except Conflict:
            outcomes.append("refused")
        finally:
            connection.close()

    threads = [
        threading.Thread(target=demote, args=(cast.owner, second)),
        threading.Thread(target=demote, args=(cast.admin, first)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(outcomes) == ["demoted", "refused"]
    with rls.tenant_scope(cast.tenant.pk):
        assert Membership.objects.filter(tenant=cast.tenant, role="owner").count() == 1
