"""Recall's access statistics off the hot path (issue 10): a recall writes nothing; its notes
are applied in batches, each exactly once, by one flusher at a time; without Redis, at once."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from base.redis_client import client, redis_breaker
from memory.models import Cue, Engram, RecallEvent
from memory.services import access
from memory.tasks import flush_access
from tenants import rls
from tests.factories import Cast, make_cast
from tests.memory.test_recall import recall, store

FACT = [{"content": "Redis listens on port 6379", "schema": ["redis", "port", "6379"]}]


def counts(cast: Cast) -> tuple[int, int, int]:
    with rls.tenant_scope(cast.tenant.pk):
        return (
            Engram.objects.get(tenant=cast.tenant).recall_count,
            Cue.objects.get(tenant=cast.tenant, lemma="redis").recall_count,
            RecallEvent.objects.filter(tenant=cast.tenant).count(),
        )


@pytest.mark.django_db
def test_a_recall_writes_nothing_and_its_notes_count_once(cast: Cast) -> None:
    store(cast, FACT, embed=False)
    for _ in range(3):
        recall(cast, "redis")
    assert counts(cast) == (0, 0, 0)  # nothing written by the recalls themselves
    assert access.pending() == 3
    assert access.flush() == 3
    assert counts(cast) == (3, 3, 3)
    assert access.flush() == 0 and counts(cast) == (3, 3, 3)  # applied once


@pytest.mark.django_db
def test_one_flusher_at_a_time_and_notes_stay_until_applied(cast: Cast) -> None:
    store(cast, FACT, embed=False)
    recall(cast, "redis")
    held = f"{access._key()}:lock"
    client().set(held, "another flusher", ex=30)
    assert access.flush() == 0 and access.pending() == 1  # it waits for the other flusher
    client().delete(held)
    assert access.flush() == 1 and counts(cast)[:2] == (1, 1)


@pytest.mark.django_db
def test_without_redis_the_access_is_counted_at_once(cast: Cast) -> None:
    store(cast, FACT, embed=False)
    redis_breaker.failed()  # Redis seen failing: the next 5 s skip it
    try:
        recall(cast, "redis")
    finally:
        redis_breaker.reset()
    assert counts(cast) == (1, 1, 1) and access.pending() == 0


@pytest.mark.django_db
def test_a_note_of_a_deleted_network_or_tenant_mix_is_harmless(cast: Cast) -> None:
    store(cast, FACT, embed=False)
    other = make_cast("initech", "umbrella")
    store(other, FACT, embed=False)
    for who in (cast, other):
        recall(who, "redis")
    client().rpush(access._key(), "not json")
    assert access.flush() == 3
    assert counts(cast) == (1, 1, 1) and counts(other) == (1, 1, 1)


def test_the_worker_applies_the_notes(celery_worker: Path) -> None:
    cast = make_cast()
    store(cast, FACT, embed=False)
    recall(cast, "redis")
    flush_access.delay()
    deadline = time.monotonic() + 30
    while counts(cast)[0] == 0 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert counts(cast) == (1, 1, 1) and access.pending() == 0


@pytest.mark.django_db
def test_with_too_many_notes_waiting_the_access_is_counted_at_once(
    cast: Cast, monkeypatch: pytest.MonkeyPatch
) -> None:
    store(cast, FACT, embed=False)
    monkeypatch.setattr(access, "MAX_WAITING", 1)
    recall(cast, "redis")  # queued: the first one waiting
    recall(cast, "redis")  # over the bound: taken back, applied in the request
    assert access.pending() == 1 and counts(cast) == (1, 1, 1)
    assert access.flush() == 1 and counts(cast) == (2, 2, 2)
