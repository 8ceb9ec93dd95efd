"""Periodic upkeep (Celery beat): edges fade when unused, cold unimportant memories retire.

Decay is idempotent whatever the schedule: each run decays an edge by the time since it was
last decayed or reinforced, whichever is later, with the Hebbian half-life.
"""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

from django.db import connection
from django.db.models import Q
from django.utils import timezone

from audit.actors import Actor
from audit.services import audit_records
from memory.core.hebbian import HALF_LIFE_DAYS, PRUNE_BELOW
from memory.models import Engram, Network, RecallEvent
from memory.services import lifecycle
from memory.services.graph import bound_out_degree, cues_lock, degree_subtract

ARCHIVE_AFTER_DAYS = 180
ARCHIVE_BELOW = 0.3  # both strength and importance under this
ARCHIVE_BATCH = 500
MAINTENANCE = Actor.system("maintenance")


def network_decay(*, network: Network, half_life_days: float = HALF_LIFE_DAYS) -> tuple[int, int]:
    """Decay the network's idle edges, prune those that faded out and those beyond the
    out-degree bound. Returns (decayed, pruned)."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            UPDATE memory_edge
               SET weight = weight * power(0.5, extract(epoch FROM
                       (now() - greatest(decayed_at, last_reinforced_at))) / 86400.0 / %s),
                   decayed_at = now()
             WHERE tenant_id = %s AND network_id = %s
               AND greatest(decayed_at, last_reinforced_at) < now() - interval '1 hour'
            """,
            [half_life_days, network.tenant_id, network.pk],
        )
        decayed = cursor.rowcount
        cursor.execute(
            "DELETE FROM memory_edge WHERE tenant_id = %s AND network_id = %s AND weight < %s "
            "RETURNING source_id",
            [network.tenant_id, network.pk, PRUNE_BELOW],
        )
        gone = Counter(row[0] for row in cursor.fetchall())
    cues_lock(network, list(gone))
    degree_subtract(network, gone)
    return decayed, sum(gone.values()) + bound_out_degree(network)


def network_archive_cold(*, network: Network) -> int:
    """Retire memories nobody used for ARCHIVE_AFTER_DAYS that are weak and unimportant: they
    leave recall and the graph but stay listed (status archived), with an audit entry each."""
    cutoff = timezone.now() - timedelta(days=ARCHIVE_AFTER_DAYS)
    cold = (
        Engram.objects.filter(
            tenant_id=network.tenant_id,
            network=network,
            status=Engram.Status.ACTIVE,
            strength__lt=ARCHIVE_BELOW,
            importance__lt=ARCHIVE_BELOW,
        )
        .filter(
            Q(last_recalled_at__lt=cutoff) | Q(last_recalled_at__isnull=True, created_at__lt=cutoff)
        )
        .select_for_update(skip_locked=True)
        .order_by("id")[:ARCHIVE_BATCH]
    )
    entries = []
    for engram in cold:
        was = lifecycle.archive(network, engram, timezone.now())
        entries.append(
            lifecycle.entry(
                "engram.archive", engram, before={"status": was}, after={"status": engram.status}
            )
        )
    audit_records(tenant_id=network.tenant_id, actor=MAINTENANCE, entries=entries)
    return len(entries)


RECALL_EVENTS_KEEP_DAYS = 30


def network_prune_recall_events(*, network: Network) -> int:
    """The activity log keeps a month: enough for the dashboard's plots and percentiles."""
    cutoff = timezone.now() - timedelta(days=RECALL_EVENTS_KEEP_DAYS)
    deleted, _ = RecallEvent.objects.filter(
        tenant_id=network.tenant_id, network=network, created_at__lt=cutoff
    ).delete()
    return deleted
