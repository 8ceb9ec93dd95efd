"""Networks are created on first write (reads: memory.selectors)."""

from __future__ import annotations

from django.db import connection
from django.utils import timezone

from memory.models import Network
from tenants.models import Tenant


def network_for_write(*, tenant: Tenant, key: str) -> Network:
    """The network ``key``, created if new (race-safe: concurrent first writes get one row)."""
    found = Network.objects.filter(tenant=tenant, key=key).first()
    if found is not None:
        return found
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO memory_network (tenant_id, key, created_at) VALUES (%s, %s, %s) "
            "ON CONFLICT (tenant_id, key) DO NOTHING",
            [tenant.pk, key, timezone.now()],
        )
    return Network.objects.get(tenant=tenant, key=key)
