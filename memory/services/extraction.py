"""Extraction: a job's episodes read into entities, mentions and facts, on the Celery worker.

A job is claimed with a lease (a duplicate delivery, or the sweep's requeue of a job that was
only slow, finds it held and does nothing); its episodes are read in batches, each batch in one
transaction with the job's progress, so the dashboard sees the bar move and a crash loses
nothing done. An episode is read once per extractor version (``Episode.extracted_with``): a
redelivered job skips what was read. An episode whose memory the firewall or the write policy
holds is not read until a moderator releases it (``episodes_release`` queues it then). One
episode's error is that episode's, written on the job; the rest go on.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from datetime import timedelta

from django.db import IntegrityError, InterfaceError, OperationalError, transaction
from django.utils import timezone

from audit.actors import Actor
from audit.services import audit_record
from base.background import after_commit
from base.db import atomic_with_retry
from memory.extraction import rules
from memory.models import Engram, EntityMention, Episode, Job, Network
from memory.services.entities import Names, mentions_add
from memory.services.facts import Said, facts_apply
from tenants import rls
from tenants.models import Tenant

log = logging.getLogger(__name__)

BATCH = 50  # episodes a transaction reads
SLICE_SECONDS = 20  # then the task queues its continuation (tasks stay short)
# a worker's hold on a job, renewed at every batch: a job whose worker died is free again this
# long after its last batch, and the sweep (every 15 s) queues it again
LEASE = timedelta(seconds=60)
MAX_ERRORS_KEPT = 50


def _claim(tenant_id: int, job_id: int) -> Job | None:
    with rls.tenant_scope(tenant_id), transaction.atomic():
        job = Job.objects.select_for_update().filter(tenant_id=tenant_id, pk=job_id).first()
        now = timezone.now()
        if job is None or job.state in (Job.State.DONE, Job.State.FAILED):
            return None
        if job.lease_until is not None and job.lease_until > now:
            return None
        job.state = Job.State.RUNNING
        job.lease_until = now + LEASE
        job.attempts += 1
        job.started_at = job.started_at or now
        job.extractor = rules.VERSION
        job.save(update_fields=["state", "lease_until", "attempts", "started_at", "extractor"])
    return job


def job_run(*, tenant_id: int, job_id: int) -> Job | None:
    """Read a queued job's episodes for up to SLICE_SECONDS, then queue the rest; None when
    the job is finished or another worker holds it."""
    job = _claim(tenant_id, job_id)
    if job is None:
        return None
    started = time.monotonic()
    try:
        while True:
            with rls.tenant_scope(tenant_id):
                more = atomic_with_retry(lambda: _batch(job))
            if not more:
                break
            if time.monotonic() - started > SLICE_SECONDS:
                with rls.tenant_scope(tenant_id), transaction.atomic():
                    job.lease_until = None
                    job.save(update_fields=["lease_until"])
                    after_commit("memory.tasks.extract_episodes", tenant_id, job.pk)
                return job
        with rls.tenant_scope(tenant_id), transaction.atomic():
            done = Job.objects.select_for_update().get(pk=job.pk)
            if done.state != Job.State.RUNNING:  # released meanwhile: the queued task reads on
                done.lease_until = None
                done.save(update_fields=["lease_until"])
                return done
            done.counts["entities"] = (
                EntityMention.objects.filter(tenant_id=tenant_id, episode__job_id=done.pk)
                .values("entity_id")
                .distinct()
                .count()
            )
            _finish(done, Job.State.DONE, _summary(done))
            audit_record(
                tenant_id=tenant_id,
                actor=Actor.from_json(done.actor, default="extraction"),
                verb="episodes.extract",
                target=done,
                target_label=done.message[:200],
                after={k: v for k, v in done.counts.items() if not k.startswith("_")},
            )
    except (OperationalError, InterfaceError):
        raise  # the database went away: the job keeps its progress; the sweep resumes it
    except Exception:
        log.exception("extraction job %s of tenant %s failed", job_id, tenant_id)
        with rls.tenant_scope(tenant_id):
            _finish(job, Job.State.FAILED, "stopped at an unexpected error; what was read is kept")
        raise
    return done


def _summary(job: Job) -> str:
    counts = job.counts
    parts = [f"{job.processed:,} of {job.total:,} episodes read"]
    for key, label in (("facts", "facts"), ("entities", "entities"), ("supersede", "superseded")):
        if counts.get(key):
            parts.append(f"{counts[key]:,} {label}")
    if counts.get("held"):
        parts.append(f"{counts['held']:,} held for review (read when released)")
    if job.error_count:
        parts.append(f"{job.error_count:,} with errors")
    return ", ".join(parts)


def _finish(job: Job, state: str, message: str) -> None:
    job.state = state
    job.message = message[:300]
    job.lease_until = None
    job.finished_at = timezone.now()
    job.save(update_fields=["state", "message", "lease_until", "finished_at", "counts"])


def _batch(job: Job) -> bool:
    """Read the next batch of the job's unread episodes; False when none was left."""
    after = Job.objects.filter(pk=job.pk).values_list("counts", flat=True).get().get("_after", 0)
    episodes = list(
        Episode.objects.filter(tenant_id=job.tenant_id, job_id=job.pk)
        .exclude(extracted_with=rules.VERSION)
        .filter(pk__gt=after)
        .order_by("pk")[:BATCH]
    )
    if not episodes:
        return False
    names = Names(Network.objects.get(pk=job.network_id))  # this transaction's resolutions
    # locked while they are read: an erasure or a moderator's decision waits, or goes first
    statuses = dict(
        Engram.objects.select_for_update()
        .filter(tenant_id=job.tenant_id, pk__in=[e.engram_id for e in episodes if e.engram_id])
        .order_by("pk")
        .values_list("pk", "status")
    )
    # then the job (the order a moderator's release takes: the memory, then its job)
    fresh = Job.objects.select_for_update().get(pk=job.pk)
    if fresh.counts.get("_after", 0) != after:
        return True  # a release rewound the job meanwhile: read again from where it says
    counts: Counter[str] = Counter(fresh.counts)
    errors = list(fresh.errors)
    error_count = fresh.error_count
    now = timezone.now()
    for episode in episodes:
        if episode.engram_id is None or statuses.get(episode.engram_id) != Engram.Status.ACTIVE:
            counts["held"] += 1  # quarantined, or deleted meanwhile: nothing to read yet
            continue
        try:
            with transaction.atomic():  # a savepoint: one episode's failure is its own
                counts.update(episode_read(names=names, episode=episode))
                Episode.objects.filter(pk=episode.pk).update(
                    extracted_with=rules.VERSION, extracted_at=now
                )
        except (OperationalError, InterfaceError, IntegrityError):
            raise  # a deadlock or a concurrent insert: atomic_with_retry runs the batch again
        except Exception as error:  # recorded on the job; the batch goes on
            names.forget()  # the savepoint took back what it resolved
            log.exception("extracting episode %s failed", episode.pk)
            error_count += 1
            if len(errors) < MAX_ERRORS_KEPT:
                errors.append({"episode": episode.pk, "message": str(error)[:300]})
    counts["_after"] = episodes[-1].pk
    fresh.processed = min(fresh.total, fresh.processed + len(episodes))
    fresh.counts = dict(counts)
    fresh.errors = errors
    fresh.error_count = error_count
    fresh.lease_until = timezone.now() + LEASE
    fresh.save(update_fields=["processed", "counts", "errors", "error_count", "lease_until"])
    job.processed, job.counts, job.error_count = fresh.processed, fresh.counts, error_count
    return True


def episode_read(*, names: Names, episode: Episode) -> Counter[str]:
    """One episode through the rules: its entities (with mentions on its engram) and facts."""
    said_at = episode.occurred_at or episode.created_at
    found = rules.extract(episode.content, speaker=episode.speaker or None, occurred_at=said_at)
    counts: Counter[str] = Counter()
    kinds = {m.name: m.kind for m in found.mentions}
    rows = [
        EntityMention(
            tenant_id=episode.tenant_id,
            entity=names.resolve(mention.name, mention.kind),
            engram_id=episode.engram_id,
            episode=episode,
            name=mention.name[:200],
            start=mention.start,
            end=mention.end,
        )
        for mention in found.mentions
    ]
    if episode.engram_id is not None:
        mentions_add(rows=rows)
    counts["mentions"] += len(rows)
    said = Said(episode.pk, episode.engram_id, said_at, found.extractor)
    actions = facts_apply(names=names, drafts=found.facts, said=said, kinds=kinds)
    counts.update(actions)
    counts["facts"] += actions["create"] + actions["supersede"]
    return counts


def episodes_release(*, tenant: Tenant, engram: Engram, redacted: bool = False) -> int:
    """A moderator released (or redacted) ``engram``: its episodes take the redacted text, and
    those not read yet are queued for extraction again. Returns the jobs queued."""
    episodes = Episode.objects.filter(tenant=tenant, engram=engram)
    if redacted:  # the one change an immutable episode takes: the secret goes
        episodes.update(content=engram.content)
    if engram.status != Engram.Status.ACTIVE:
        return 0
    jobs = set(episodes.exclude(extracted_with=rules.VERSION).values_list("job_id", flat=True))
    reopened = 0
    for job in Job.objects.select_for_update().filter(tenant=tenant, pk__in=[j for j in jobs if j]):
        counts = dict(job.counts)
        counts.pop("_after", None)  # read the job's list again from the start: skips what it read
        counts["held"] = 0
        read = Episode.objects.filter(tenant=tenant, job=job, extracted_with=rules.VERSION)
        Job.objects.filter(pk=job.pk).update(
            state=Job.State.QUEUED,
            counts=counts,
            finished_at=None,
            lease_until=None,
            processed=read.count(),
        )
        after_commit("memory.tasks.extract_episodes", tenant.pk, job.pk)
        reopened += 1
    return reopened
