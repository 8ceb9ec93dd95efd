"""Import jobs that nothing can stall or sink (issue 9): one bad line is one error, a job works
in short slices under a lease, and the sweep finds what a lost message or a dead worker left."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from memory.models import Engram, ImportJob
from memory.services import transfer
from memory.services.maintenance import tenant_requeue_stale_work
from memory.services.transfer import import_run
from tenants import rls
from tests.factories import Cast

pytestmark = pytest.mark.django_db


def job_of(cast: Cast, lines: list[str], **fields: object) -> ImportJob:
    with rls.tenant_scope(cast.tenant.pk):
        return ImportJob.objects.create(
            tenant=cast.tenant,
            network_key="default",
            payload="\n".join(lines),
            total_lines=len(lines),
            created_by="test",
            **fields,
        )


def test_bad_lines_are_errors_of_their_own_and_the_rest_goes_in(cast: Cast) -> None:
    lines = [
        json.dumps({"content": "First fine line"}),
        '{"content": "a\\ud800b"}',  # an unpaired surrogate
        "[" * 3000 + "]" * 3000,  # nested past what the parser takes
        json.dumps({"content": "x", "occurred_at": "0001-01-01T00:00:00+23:59"}),
        '{"kind": "cue", "word": "\\udfff", "recall_count": 3}',
        json.dumps({"kind": "cue", "word": "fine", "last_recalled_at": "0001-01-01T00:00:00"}),
        json.dumps({"content": "Last fine line"}),
    ]
    job = import_run(tenant_id=cast.tenant.pk, job_id=job_of(cast, lines).pk)
    assert job is not None and job.status == "done", job and job.message
    assert [e["line"] for e in job.errors] == [2, 3, 4, 5]
    assert "SQL" not in job.message and job.counts["created"] == 2


def test_a_job_works_in_slices_and_hands_itself_on(
    cast: Cast, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(transfer, "BATCH", 2)
    monkeypatch.setattr(transfer, "IMPORT_SLICE_SECONDS", 0)  # one batch per slice
    lines = [json.dumps({"content": f"Fact number {i}"}) for i in range(5)]
    job = job_of(cast, lines)
    first = import_run(tenant_id=cast.tenant.pk, job_id=job.pk)
    assert first is not None and first.status == "running" and first.processed_lines == 2
    assert first.lease_until is None  # let go: the continuation (or the sweep) picks it up
    while (step := import_run(tenant_id=cast.tenant.pk, job_id=job.pk)) is not None:
        if step.status == "done":
            break
    with rls.tenant_scope(cast.tenant.pk):
        finished = ImportJob.objects.get(pk=job.pk)
        assert finished.status == "done" and finished.counts["created"] == 5
        assert Engram.objects.filter(tenant=cast.tenant).count() == 5


def test_a_job_another_worker_holds_is_left_alone(cast: Cast) -> None:
    held = job_of(
        cast,
        [json.dumps({"content": "Held"})],
        status="running",
        lease_until=timezone.now() + timedelta(seconds=30),
    )
    assert import_run(tenant_id=cast.tenant.pk, job_id=held.pk) is None
    with rls.tenant_scope(cast.tenant.pk):
        assert not Engram.objects.filter(tenant=cast.tenant).exists()


def test_the_sweep_queues_jobs_nobody_holds_and_vectors_nobody_made(cast: Cast) -> None:
    long_ago = timezone.now() - timedelta(minutes=5)
    lost = job_of(cast, [json.dumps({"content": "Lost"})], created_at=long_ago)
    job_of(cast, [json.dumps({"content": "New"})])  # just queued: not stale yet
    job_of(
        cast,
        [json.dumps({"content": "Busy"})],
        created_at=long_ago,
        status="running",
        lease_until=timezone.now() + timedelta(seconds=30),
    )
    transfer_result = import_run(tenant_id=cast.tenant.pk, job_id=lost.pk)
    assert transfer_result is not None  # (made an engram to embed; then mark it old)
    with rls.tenant_scope(cast.tenant.pk):
        Engram.objects.filter(tenant=cast.tenant).update(created_at=long_ago, embedding=None)
        ImportJob.objects.filter(pk=lost.pk).update(status="queued")
        jobs, engrams = tenant_requeue_stale_work(tenant_id=cast.tenant.pk)
    assert (jobs, engrams) == (1, 1)


def test_with_the_embeddings_queue_empty_a_missing_vector_is_queued_again_after_30_s(
    cast: Cast,
) -> None:
    from django.conf import settings

    from base.redis_client import client
    from memory.tasks import requeue_stale_work

    job = job_of(cast, [json.dumps({"content": "Written while the broker was away"})])
    import_run(tenant_id=cast.tenant.pk, job_id=job.pk)
    with rls.tenant_scope(cast.tenant.pk):
        Engram.objects.filter(tenant=cast.tenant).update(
            created_at=timezone.now() - timedelta(seconds=45), embedding=None
        )
    queue = settings.QUEUES["embeddings"]
    redis = client()
    redis.delete(queue)
    try:
        assert requeue_stale_work()["engrams"] == 1  # nothing on its way: it was lost
        redis.lpush(queue, b"a message still waiting")
        assert requeue_stale_work()["engrams"] == 0  # it may be on its way: give it 2 minutes
    finally:
        redis.delete(queue)
