"""Networks: created on first write, looked up by key within a tenant."""

from __future__ import annotations

from django.db import connection
from django.utils import timezone

from base.errors import NotFound
from memory.models import Network
from tenants.models import Tenant


def network_for_write(*, tenant: Tenant, key: str) -> Network:
    """The network ``key``, created if new (race-safe: concurrent first writes get one row)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO memory_network (tenant_id, key, created_at) VALUES (%s, %s, %s) "
            "ON CONFLICT (tenant_id, key) DO NOTHING",
            [tenant.pk, key, timezone.now()],
        )
    return Network.objects.get(tenant=tenant, key=key)


def network_get_for_tenant(*, tenant: Tenant, key: str) -> Network:
    network = Network.objects.filter(tenant=tenant, key=key).first()
    if network is None:
        raise NotFound(f"There is no network “{key}” in this workspace.")
    return network


def network_find(*, tenant: Tenant, key: str) -> Network | None:
    return Network.objects.filter(tenant=tenant, key=key).first()
