"""Celery tasks for memory: thin, idempotent adapters around services."""

from __future__ import annotations

import logging
import threading
from typing import Any

from celery import shared_task
from celery.signals import worker_init, worker_process_init
from django.conf import settings
from django.db import OperationalError

from base.background import queue_is_empty
from memory.models import Network
from memory.services import access, maintenance
from memory.services.embedding import embed_missing
from memory.services.erasure import erasure_run
from memory.services.extraction import job_run
from memory.services.skills import skills_from_patterns
from memory.services.transfer import import_run
from tenants import rls
from tenants.models import Tenant

log = logging.getLogger(__name__)

# Set before the pool forks (worker_init), read by each pool process as it starts.
_embeds = False


@worker_init.connect
def _note_embeddings_queue(sender: Any = None, **_: Any) -> None:
    """Does this worker consume the embeddings queue? (``-Q`` may leave it to another.)"""
    global _embeds
    consumed = sender.app.amqp.queues.consume_from if sender is not None else None
    _embeds = settings.QUEUE_EMBEDDINGS in (consumed or {})


@worker_process_init.connect
def _warm_embedder(**_: Any) -> threading.Thread | None:
    """Each pool process of an embedding worker loads its model (one ONNX session) as it
    starts, not inside its first task. On a thread: Celery gives a starting process 4 s; a
    task that arrives first waits for the model on the embedder's lock."""
    if not _embeds:
        return None
    from memory.embeddings import warm_up

    thread = threading.Thread(target=warm_up, name="warm-embedder", daemon=True)
    thread.start()
    return thread


@shared_task(
    bind=True,
    autoretry_for=(OSError, ConnectionError, OperationalError),
    retry_backoff=True,
    max_retries=8,
    acks_late=True,
)
def embed_engrams(self: object, tenant_id: int, network_id: int, engram_ids: list[int]) -> int:
    """Embed these engrams (and the network's cues that have no vector yet). Re-running only
    fills what is still missing, so retries and duplicate deliveries are harmless. A task whose
    Postgres went away is run again: the vectors it wrote without waiting for their flush may
    be gone, and a cue's, unlike an engram's, has no sweeper to find it missing."""
    # embed_missing opens a short tenant-scoped transaction per chunk: no lock is held while
    # the model runs.
    return embed_missing(tenant_id=tenant_id, network_id=network_id, engram_ids=engram_ids)


def _each_network(work: str) -> dict[str, int]:
    """Run a maintenance service on every network of every tenant, each in its own scope."""
    totals: dict[str, int] = {}
    for tenant_id in Tenant.objects.values_list("pk", flat=True):
        with rls.tenant_scope(tenant_id):
            networks = list(Network.objects.filter(tenant_id=tenant_id))
        for network in networks:
            try:
                with rls.tenant_scope(tenant_id):
                    result = getattr(maintenance, work)(network=network)
            except Exception:  # one network's failure (say, a deadlock) must not stop the rest
                log.exception("%s failed for network %s of tenant %s", work, network.pk, tenant_id)
                totals["failed"] = totals.get("failed", 0) + 1
                continue
            values = result if isinstance(result, tuple) else (result,)
            for index, value in enumerate(values):
                totals[f"{work}[{index}]"] = totals.get(f"{work}[{index}]", 0) + value
    return totals


@shared_task(acks_late=True)
def decay_edges() -> dict[str, int]:
    return _each_network("network_decay")


@shared_task(acks_late=True)
def archive_cold_engrams() -> dict[str, int]:
    return _each_network("network_archive_cold")


@shared_task(acks_late=True)
def apply_retention() -> dict[str, int]:
    """Hourly: networks' retention and unreviewed held memories (maintenance.network_retention)."""
    return _each_network("network_retention")


@shared_task(acks_late=True)
def prune_recall_events() -> dict[str, int]:
    return _each_network("network_prune_recall_events")


@shared_task(acks_late=True)
def import_network(tenant_id: int, job_id: int) -> int:
    """Import a slice of a network file (memory.services.transfer); a duplicate is a no-op."""
    job = import_run(tenant_id=tenant_id, job_id=job_id)
    return job.processed_lines if job is not None else 0


@shared_task(
    autoretry_for=(OSError, ConnectionError, OperationalError),
    retry_backoff=True,
    max_retries=8,
    acks_late=True,
)
def extract_episodes(tenant_id: int, job_id: int) -> int:
    """Read a job's episodes into entities and facts (memory.services.extraction); a
    duplicate delivery finds the job held or done, and an episode is never read twice."""
    job = job_run(tenant_id=tenant_id, job_id=job_id)
    return job.processed if job is not None else 0


@shared_task(
    autoretry_for=(OSError, ConnectionError, OperationalError),
    retry_backoff=True,
    max_retries=8,
    acks_late=True,
)
def learn_skills(
    tenant_id: int, network_id: int, engram_ids: list[int], actor: dict[str, Any] | None = None
) -> int:
    """Learn the procedures PATTERN memories write down (memory.services.skills); a memory
    already learned in this wording is skipped, so a redelivery changes nothing."""
    return skills_from_patterns(
        tenant_id=tenant_id, network_id=network_id, engram_ids=engram_ids, actor=actor
    )


@shared_task(
    autoretry_for=(OSError, ConnectionError, OperationalError),
    retry_backoff=True,
    max_retries=8,
    acks_late=True,
)
def erase(tenant_id: int, erasure_id: int) -> int:
    """Run an erasure (memory.services.erasure); a duplicate delivery finds it done."""
    erasure = erasure_run(tenant_id=tenant_id, erasure_id=erasure_id)
    return erasure.counts.get("engrams", 0) if erasure is not None else 0


@shared_task(acks_late=True)
def requeue_stale_work() -> dict[str, int]:
    """Every 15 s: import jobs and embeddings that a lost message or a crashed worker left
    behind are queued again (memory.services.maintenance.tenant_requeue_stale_work). With
    nothing in the embeddings queue, a memory 30 s old without a vector was lost (say, in a
    broker outage); otherwise it may still be on its way, and gets two minutes."""
    totals = {"jobs": 0, "engrams": 0}
    idle = queue_is_empty("embeddings")
    after = maintenance.EMBED_LOST_AFTER if idle else maintenance.EMBED_STALE_AFTER
    for tenant_id in Tenant.objects.values_list("pk", flat=True):
        try:
            with rls.tenant_scope(tenant_id):
                jobs, engrams = maintenance.tenant_requeue_stale_work(
                    tenant_id=tenant_id, embed_stale_after=after
                )
        except Exception:  # one tenant's failure must not stop the rest
            log.exception("requeueing stale work failed for tenant %s", tenant_id)
            continue
        totals["jobs"] += jobs
        totals["engrams"] += engrams
        totals["erasures"] = totals.get("erasures", 0) + _requeue_erasures(tenant_id)
    return totals


ERASURE_STALE_AFTER = 60  # seconds an erasure may wait (or run) before it is queued again


def _requeue_erasures(tenant_id: int) -> int:
    """Erasures a lost message or a failed run left unfinished are queued again: an erasure
    must not wait forever (with its subject still stored)."""
    from datetime import timedelta

    from django.utils import timezone

    from base.background import after_commit
    from memory.models import Erasure

    cutoff = timezone.now() - timedelta(seconds=ERASURE_STALE_AFTER)
    with rls.tenant_scope(tenant_id):
        stale = list(
            Erasure.objects.filter(
                tenant_id=tenant_id,
                state__in=[Erasure.State.QUEUED, Erasure.State.RUNNING],
                requested_at__lt=cutoff,
            ).values_list("pk", flat=True)
        )
        for pk in stale:
            after_commit("memory.tasks.erase", tenant_id, pk)
    return len(stale)


@shared_task(acks_late=True, expires=10)
def flush_access() -> int:
    """Every 2 s: apply the access notes recalls left (memory.services.access), in batches,
    until none wait. A message older than 10 s is dropped: the next one does the same work."""
    applied = 0
    while (done := access.flush()) == access.BATCH:
        applied += done
    return applied + done
