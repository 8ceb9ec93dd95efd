"""Extraction: a job's episodes read into entities, mentions and facts, on the Celery worker.

A job is claimed with a lease (a duplicate delivery, or the sweep's requeue of a job that was
only slow, finds it held and does nothing); its episodes are read in batches, each batch in one
transaction with the job's progress, so the dashboard sees the bar move and a crash loses
nothing done. An episode is read once per extractor version (``Episode.extracted_with``): a
redelivered job skips what was read. An episode whose memory the firewall or the write policy
holds is not read until a moderator releases it (``episodes_release`` queues it then). One
episode's error is that episode's, written on the job; the rest go on.

With the tenant's language model set (memory.services.llm), a batch is first read by the
provider *outside* any transaction (a few calls at once; nothing is locked while it answers),
the tokens metered at once, then applied like the rules' reading. An episode the provider could
not read — budget spent, circuit open, a failed call, an answer that is not the JSON asked for —
is read by the rules (``counts["fallback"]``), and records the extractor that actually read it.
Only active memories are sent: quarantined content never leaves.

A step episode that ends its task (``metadata.task_outcome``) has the task's skill learned
(memory.services.skills) in the same transaction, once per task.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import timedelta
from functools import partial

from django.db import IntegrityError, InterfaceError, OperationalError, transaction
from django.utils import timezone

from audit.actors import Actor
from audit.services import audit_record
from base.background import after_commit
from base.db import atomic_with_retry
from memory.extraction import llm, rules
from memory.extraction.types import Extraction
from memory.models import Engram, EntityMention, Episode, Job, Network
from memory.services.entities import Names, mentions_add
from memory.services.facts import Said, facts_apply
from memory.services.llm import FAILURES_TO_OPEN, Spent, configured, gate, meter
from memory.services.skills import skills_from_task, task_ended, task_of
from tenants import rls
from tenants.models import Tenant

log = logging.getLogger(__name__)

BATCH = 50  # episodes a transaction reads
LLM_BATCH = 8  # episodes a provider reads before they are applied
LLM_CALLS_AT_ONCE = 4
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
        provider = configured(tenant_id)
        job.extractor = llm.version(provider.model) if provider else rules.VERSION
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
            ahead = _read_ahead(job) if job.extractor.startswith(llm.VERSION) else None
            with rls.tenant_scope(tenant_id):
                more = atomic_with_retry(partial(_batch, job, ahead))
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
    for key, label in (
        ("facts", "facts"),
        ("entities", "entities"),
        ("supersede", "superseded"),
        ("skills", "skills learned"),
    ):
        if counts.get(key):
            parts.append(f"{counts[key]:,} {label}")
    if counts.get("fallback"):
        parts.append(f"{counts['fallback']:,} read by the rules instead of the language model")
    if job.tokens:
        parts.append(f"{job.tokens:,} tokens")
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


@dataclass
class Ahead:
    """A batch the provider read before its transaction: from where, which episodes, what it
    found in each (an episode missing from ``found`` is read by the rules)."""

    after: int
    episode_ids: list[int]
    found: dict[int, Extraction] = field(default_factory=dict)
    tokens: int = 0


def _unread(job: Job, after: int, size: int) -> list[Episode]:
    return list(
        Episode.objects.filter(tenant_id=job.tenant_id, job_id=job.pk)
        .exclude(extracted_with=job.extractor)
        .filter(pk__gt=after)
        .order_by("pk")[:size]
    )


def _read_ahead(job: Job) -> Ahead:
    """The next batch read by the tenant's provider, within its gate; metered at once."""
    with rls.tenant_scope(job.tenant_id):
        counts = Job.objects.filter(pk=job.pk).values_list("counts", flat=True).get()
        after = counts.get("_after", 0)
        episodes = _unread(job, after, LLM_BATCH)
        active = set(
            Engram.objects.filter(
                tenant_id=job.tenant_id,
                pk__in=[e.engram_id for e in episodes if e.engram_id],
                status=Engram.Status.ACTIVE,
            ).values_list("pk", flat=True)
        )
        allowed = gate(job.tenant_id)
    ahead = Ahead(after, [e.pk for e in episodes])
    readable = [e for e in episodes if e.engram_id in active]
    if allowed.provider is None or not readable:
        meter(tenant_id=job.tenant_id, job_id=job.pk, spent=Spent(fallbacks=len(readable)))
        return ahead
    provider = allowed.provider

    def read(episode: Episode) -> tuple[Extraction, llm.Usage] | str:
        said_at = episode.occurred_at or episode.created_at
        try:
            return llm.extract(
                provider, episode.content, speaker=episode.speaker or None, occurred_at=said_at
            )
        except llm.ProviderError as error:
            return str(error)

    left = allowed.tokens_left
    calls = failures = in_row = prompt = completion = fallbacks = 0
    last_error = ""
    # a few calls at once; the budget is checked between rounds (a round may pass it by a few
    # calls' tokens, never by more)
    with ThreadPoolExecutor(max_workers=LLM_CALLS_AT_ONCE) as pool:
        for start in range(0, len(readable), LLM_CALLS_AT_ONCE):
            round_ = readable[start : start + LLM_CALLS_AT_ONCE]
            if left <= 0 or in_row >= FAILURES_TO_OPEN:
                fallbacks += len(round_)
                continue
            for episode, result in zip(round_, pool.map(read, round_), strict=True):
                calls += 1
                if isinstance(result, str):
                    failures += 1
                    in_row += 1
                    fallbacks += 1
                    last_error = result
                    continue
                found, usage = result
                in_row = 0
                prompt += usage.prompt_tokens
                completion += usage.completion_tokens
                left -= usage.total
                ahead.found[episode.pk] = found
    ahead.tokens = prompt + completion
    spent = Spent(
        calls=calls,
        prompt_tokens=prompt,
        completion_tokens=completion,
        failures=failures,
        fallbacks=fallbacks,
        last_error=last_error,
        succeeded=calls > failures,
        failures_in_row=in_row,
    )
    meter(tenant_id=job.tenant_id, job_id=job.pk, spent=spent)
    return ahead


def _batch(job: Job, ahead: Ahead | None = None) -> bool:
    """Read the next batch of the job's unread episodes (those ``ahead`` names, when the
    provider read them first); False when none was left."""
    after = Job.objects.filter(pk=job.pk).values_list("counts", flat=True).get().get("_after", 0)
    if ahead is not None and ahead.after != after:
        return True  # moved on meanwhile (a release rewound it): read ahead again
    if ahead is None:
        episodes = _unread(job, after, BATCH)
    else:
        chosen = Episode.objects.filter(tenant_id=job.tenant_id, pk__in=ahead.episode_ids)
        episodes = list(chosen.order_by("pk"))
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
    using_llm = ahead is not None
    errors = list(fresh.errors)
    error_count = fresh.error_count
    now = timezone.now()
    ended: set[str] = set()  # tasks whose last step this batch read: their skill is learned
    for episode in episodes:
        if episode.engram_id is None or statuses.get(episode.engram_id) != Engram.Status.ACTIVE:
            counts["held"] += 1  # quarantined, or deleted meanwhile: nothing to read yet
            continue
        try:
            read = ahead.found.get(episode.pk) if ahead is not None else None
            if using_llm and read is None:
                counts["fallback"] += 1
            with transaction.atomic():  # a savepoint: one episode's failure is its own
                counts.update(episode_read(names=names, episode=episode, found=read))
                Episode.objects.filter(pk=episode.pk).update(
                    extracted_with=read.extractor if read else rules.VERSION, extracted_at=now
                )
            if task_ended(episode):
                ended.add(task_of(episode))
        except (OperationalError, InterfaceError, IntegrityError):
            raise  # a deadlock or a concurrent insert: atomic_with_retry runs the batch again
        except Exception as error:  # recorded on the job; the batch goes on
            names.forget()  # the savepoint took back what it resolved
            log.exception("extracting episode %s failed", episode.pk)
            error_count += 1
            if len(errors) < MAX_ERRORS_KEPT:
                errors.append({"episode": episode.pk, "message": str(error)[:300]})
    for task in sorted(ended):
        try:
            with transaction.atomic():
                _, action = skills_from_task(network=names.network, task=task)
            if action in ("create", "revise"):
                counts["skills"] += 1
            if action in ("create", "revise", "confirm", "failure"):
                counts["skill_runs"] += 1
        except (OperationalError, InterfaceError, IntegrityError):
            raise
        except Exception as error:
            log.exception("learning the skill of task %r failed", task)
            error_count += 1
            if len(errors) < MAX_ERRORS_KEPT:
                errors.append({"task": task, "message": str(error)[:300]})
    counts["_after"] = episodes[-1].pk
    fresh.processed = min(fresh.total, fresh.processed + len(episodes))
    fresh.counts = dict(counts)
    fresh.errors = errors
    fresh.error_count = error_count
    fresh.lease_until = timezone.now() + LEASE
    fresh.tokens += ahead.tokens if ahead is not None else 0
    fresh.save(
        update_fields=["processed", "counts", "errors", "error_count", "lease_until", "tokens"]
    )
    job.processed, job.counts, job.error_count = fresh.processed, fresh.counts, error_count
    job.tokens = fresh.tokens
    return True


def episode_read(
    *, names: Names, episode: Episode, found: Extraction | None = None
) -> Counter[str]:
    """One episode's entities (with mentions on its engram) and facts: what the provider
    ``found`` in it, else what the rules find."""
    said_at = episode.occurred_at or episode.created_at
    if found is None:
        found = rules.extract(episode.content, speaker=episode.speaker or None, occurred_at=said_at)
    counts: Counter[str] = Counter()
    kinds = {m.name: m.kind for m in found.mentions}
    rows: list[EntityMention] = []
    engram_id = episode.engram_id
    for mention in found.mentions:
        if engram_id is None:
            break  # nothing to link the spans to
        rows.append(
            EntityMention(
                tenant_id=episode.tenant_id,
                entity=names.resolve(mention.name, mention.kind),
                engram_id=engram_id,
                episode=episode,
                name=mention.name[:200],
                start=mention.start,
                end=mention.end,
            )
        )
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
    # not read yet (held): whatever extractor its job uses reads it now
    jobs = set(episodes.filter(extracted_at__isnull=True).values_list("job_id", flat=True))
    reopened = 0
    for job in Job.objects.select_for_update().filter(tenant=tenant, pk__in=[j for j in jobs if j]):
        counts = dict(job.counts)
        counts.pop("_after", None)  # read the job's list again from the start: skips what it read
        counts["held"] = 0
        read = Episode.objects.filter(tenant=tenant, job=job, extracted_at__isnull=False)
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
