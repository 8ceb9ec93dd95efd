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
from base.background import after_commit
from memory.core.hebbian import HALF_LIFE_DAYS, PRUNE_BELOW
from memory.models import Engram, ImportJob, Job, ModerationItem, Network, RecallEvent
from memory.services import lifecycle
from memory.services.graph import bound_out_degree, cues_lock, degree_subtract
from tenants.models import Tenant

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


JOB_STALE_AFTER = timedelta(seconds=60)
EMBED_STALE_AFTER = timedelta(minutes=2)  # while embeddings are queued: they may be on their way
EMBED_LOST_AFTER = timedelta(seconds=30)  # with the queue empty: nothing is on its way
EMBED_SWEEP_LIMIT = 1000


def tenant_requeue_stale_work(
    *, tenant_id: int, embed_stale_after: timedelta = EMBED_STALE_AFTER
) -> tuple[int, int]:
    """Queue again what a lost message or a crashed worker left behind: import and extraction
    jobs nobody holds that should be moving, and active memories still without a vector
    ``embed_stale_after`` after they were written. Both tasks are idempotent, so a job that was
    merely slow is harmless to send twice. Returns (jobs, engrams) queued. Runs inside the
    tenant's scope."""
    now = timezone.now()
    jobs = list(
        ImportJob.objects.filter(
            tenant_id=tenant_id,
            status__in=[ImportJob.Status.QUEUED, ImportJob.Status.RUNNING],
        )
        # a lease that ran out: its worker died; no lease: queued a minute ago and not started
        .filter(
            Q(lease_until__lt=now)
            | Q(lease_until__isnull=True, created_at__lt=now - JOB_STALE_AFTER)
        )
        .values_list("pk", flat=True)
    )
    for job_id in jobs:
        after_commit("memory.tasks.import_network", tenant_id, job_id)
    extractions = list(
        Job.objects.filter(tenant_id=tenant_id, state__in=[Job.State.QUEUED, Job.State.RUNNING])
        .filter(
            Q(lease_until__lt=now)
            | Q(lease_until__isnull=True, created_at__lt=now - JOB_STALE_AFTER)
        )
        .values_list("pk", flat=True)
    )
    for job_id in extractions:
        after_commit("memory.tasks.extract_episodes", tenant_id, job_id)
    waiting = Engram.objects.filter(
        tenant_id=tenant_id,
        embedding__isnull=True,
        status=Engram.Status.ACTIVE,
        created_at__lt=now - embed_stale_after,
    ).values_list("network_id", "pk")[:EMBED_SWEEP_LIMIT]
    by_network: dict[int, list[int]] = {}
    for network_id, engram_id in waiting:
        by_network.setdefault(network_id, []).append(engram_id)
    for network_id, ids in by_network.items():
        after_commit("memory.tasks.embed_engrams", tenant_id, network_id, sorted(ids))
    return len(jobs) + len(extractions), sum(len(ids) for ids in by_network.values())


RETENTION_BATCH = 1000
QUARANTINE_DAYS = 30  # unreviewed held memories expire after this (tenant setting overrides)


def network_retention(*, network: Network) -> tuple[int, int]:
    """The network's retention, and held memories nobody reviewed in time: memories older than
    ``retention_days`` are deleted (soft; history kept), and pending held items older than the
    tenant's ``quarantine_days`` expire with their memory deleted. Each change audited.
    Returns (expired by retention, expired in quarantine)."""
    now = timezone.now()
    entries = []
    kept = 0
    if network.retention_days:
        cutoff = now - timedelta(days=network.retention_days)
        old = (
            Engram.objects.filter(
                tenant_id=network.tenant_id, network=network, created_at__lt=cutoff
            )
            .exclude(status__in=[Engram.Status.DELETED, Engram.Status.ERASED])
            .select_for_update(skip_locked=True)
            .order_by("id")[:RETENTION_BATCH]
        )
        for engram in old:
            was = lifecycle.delete(network, engram, now)
            entries.append(
                lifecycle.entry(
                    "engram.expire",
                    engram,
                    before={"status": was},
                    after={"status": engram.status, "retention_days": network.retention_days},
                )
            )
        kept = len(entries)
    tenant = Tenant.objects.get(pk=network.tenant_id)
    raw = (tenant.settings or {}).get("moderation") or {}
    days = int(raw.get("quarantine_days") or QUARANTINE_DAYS)
    stale = (
        ModerationItem.objects.filter(
            tenant_id=network.tenant_id,
            network=network,
            state=ModerationItem.State.PENDING,
            held=True,
            created_at__lt=now - timedelta(days=days),
        )
        .select_for_update(skip_locked=True)
        .order_by("id")[:RETENTION_BATCH]
    )
    expired = 0
    for item in stale:
        found = None
        if item.engram_id is not None:
            found = (
                Engram.objects.select_for_update()
                .filter(tenant_id=network.tenant_id, id=item.engram_id)
                .first()
            )
        if found is not None and found.status not in lifecycle.GONE:
            was = lifecycle.delete(network, found, now)
            entries.append(
                lifecycle.entry(
                    "moderation.expire",
                    found,
                    before={"status": was},
                    after={"status": found.status, "quarantine_days": days},
                )
            )
        item.state = ModerationItem.State.EXPIRED
        item.decided_at = now
        item.decided_by = {"kind": "system", "id": None, "label": "retention"}
        item.decision_note = f"not reviewed within {days} days"
        item.save(update_fields=["state", "decided_at", "decided_by", "decision_note"])
        expired += 1
    audit_records(tenant_id=network.tenant_id, actor=MAINTENANCE, entries=entries)
    return kept, expired
