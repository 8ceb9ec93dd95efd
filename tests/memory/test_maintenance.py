"""Edge decay and pruning, archiving of cold memories (the Celery beat jobs, run directly)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from audit.models import AuditEvent
from memory.models import Cue, Edge, Engram
from memory.tasks import archive_cold_engrams, decay_edges
from tenants import rls
from tests.factories import Cast
from tests.memory.test_recall import recall, store

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def tenant_active(cast: Cast) -> None:
    """Direct ORM reads in these tests see the cast's tenant (services restore it after use)."""
    rls.activate(tenant_id=cast.tenant.pk)


def age_edges(cast: Cast, days: float) -> None:
    past = timezone.now() - timedelta(days=days)
    Edge.objects.filter(tenant=cast.tenant).update(last_reinforced_at=past, decayed_at=past)


def test_idle_edges_halve_after_a_half_life_and_decay_is_idempotent(cast: Cast) -> None:
    store(cast, [{"content": "a", "schema": ["alpha", "beta"]}], embed=False)
    age_edges(cast, 45)
    decay_edges()
    rls.activate(tenant_id=cast.tenant.pk)
    first = Edge.objects.get(tenant=cast.tenant, kind="sequence").weight
    assert first == pytest.approx(0.15, rel=0.01)
    decay_edges()
    rls.activate(tenant_id=cast.tenant.pk)
    assert Edge.objects.get(tenant=cast.tenant, kind="sequence").weight == pytest.approx(first)


def test_faded_edges_are_pruned_and_recently_used_ones_kept(cast: Cast) -> None:
    store(cast, [{"content": "a", "schema": ["alpha", "beta"]}], embed=False)
    age_edges(cast, 400)
    store(cast, [{"content": "b", "schema": ["gamma", "delta"]}], embed=False)
    decay_edges()
    rls.activate(tenant_id=cast.tenant.pk)
    lemmas = set(Edge.objects.filter(tenant=cast.tenant).values_list("source__lemma", flat=True))
    assert lemmas == {"gamma", "delta"}


def test_cold_weak_unimportant_memories_are_archived_and_leave_recall(cast: Cast) -> None:
    store(
        cast,
        [
            {
                "content": "old trivia about kettles",
                "strength": 0.1,
                "importance": 0.1,
                "schema": ["kettle", "trivia"],
            },
            {
                "content": "old but important kettle safety rule",
                "strength": 0.1,
                "importance": 0.9,
                "schema": ["kettle", "safety"],
            },
        ],
        embed=False,
    )
    Engram.objects.filter(tenant=cast.tenant).update(
        created_at=timezone.now() - timedelta(days=400)
    )
    assert archive_cold_engrams() == {"network_archive_cold[0]": 1}
    rls.activate(tenant_id=cast.tenant.pk)
    statuses = dict(Engram.objects.filter(tenant=cast.tenant).values_list("content", "status"))
    assert statuses["old trivia about kettles"] == "archived"
    assert statuses["old but important kettle safety rule"] == "active"
    assert Cue.objects.get(tenant=cast.tenant, lemma="trivia").engram_count == 0
    assert [e.content for e in recall(cast, "kettle trivia").engrams] == [
        "old but important kettle safety rule"
    ]
    event = AuditEvent.objects.get(tenant=cast.tenant, verb="engram.archive")
    assert event.actor_kind == "system" and event.actor_label == "maintenance"


def test_reinforcing_an_idle_edge_first_applies_the_decay_it_owes(cast: Cast) -> None:
    store(cast, [{"content": "a", "schema": ["alpha", "beta"]}], embed=False)
    age_edges(cast, 45)
    store(cast, [{"content": "b", "schema": ["alpha", "beta"]}], embed=False)
    rls.activate(tenant_id=cast.tenant.pk)
    weight = Edge.objects.get(tenant=cast.tenant, kind="sequence").weight
    assert weight == pytest.approx(1 - (1 - 0.15) * 0.7, rel=0.01)
