"""Regressions found in review: bookkeeping, resurrection, carry-over, limits."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from audit.actors import Actor
from memory.contracts import EngramPatch
from memory.models import Cue, Edge, Engram
from memory.services import access
from memory.services.engrams import engram_delete, engram_update
from memory.services.recall import network_prime
from tenants import rls
from tests.conftest import bearer
from tests.factories import Cast, make_key
from tests.memory.test_recall import recall, store

pytestmark = pytest.mark.django_db
ACTOR = Actor.system("tests")


@pytest.fixture(autouse=True)
def tenant_active(cast: Cast) -> None:
    rls.activate(tenant_id=cast.tenant.pk)


def test_a_clients_now_shapes_scoring_but_is_never_written_into_statistics(cast: Cast) -> None:
    store(cast, [{"content": "Redis listens on 6379", "schema": ["redis", "port"]}], embed=False)
    recall(cast, "redis", now=timezone.now() - timedelta(days=2000))
    access.flush()
    cue = Cue.objects.get(tenant=cast.tenant, lemma="redis")
    engram = Engram.objects.get(tenant=cast.tenant)
    for stamp in (cue.last_recalled_at, engram.last_recalled_at):
        assert stamp is not None and timezone.now() - stamp < timedelta(minutes=5)


def test_deleting_one_of_two_memories_keeps_their_shared_edge_even_after_decay(cast: Cast) -> None:
    store(
        cast,
        [
            {"content": "one", "schema": ["alpha", "beta"]},
            {"content": "two", "schema": ["alpha", "beta"]},
        ],
        embed=False,
    )
    past = timezone.now() - timedelta(days=45)
    Edge.objects.filter(tenant=cast.tenant).update(last_reinforced_at=past, decayed_at=past)
    Edge.objects.filter(tenant=cast.tenant).update(weight=0.255)  # as if decayed
    engram_delete(tenant=cast.tenant, actor=ACTOR, engram=Engram.objects.get(content="one"))
    edge = Edge.objects.get(tenant=cast.tenant, kind="sequence")
    assert edge.count == 1 and edge.weight == pytest.approx(0.1275)
    engram_delete(tenant=cast.tenant, actor=ACTOR, engram=Engram.objects.get(content="two"))
    assert not Edge.objects.filter(tenant=cast.tenant).exists()
    hub = Cue.objects.get(tenant=cast.tenant, lemma="alpha")
    assert hub.out_degree == 0 and hub.engram_count == 0


def test_an_agent_repeating_itself_does_not_undo_a_persons_delete(cast: Cast) -> None:
    batch = [{"content": "Prefers tea", "external_id": "pref"}]
    store(cast, batch, embed=False)
    engram = Engram.objects.get(tenant=cast.tenant)
    engram_delete(tenant=cast.tenant, actor=ACTOR, engram=engram)
    store(cast, [{"content": "Prefers coffee", "external_id": "pref"}], embed=False)
    engram.refresh_from_db()
    assert engram.status == "deleted" and engram.content == "Prefers tea"


def test_changing_only_metadata_keeps_the_vector_and_the_edges(cast: Cast) -> None:
    raw = [{"content": "Standup at 9", "schema": ["standup", "nine"], "external_id": "s"}]
    store(cast, raw)
    engram = Engram.objects.get(tenant=cast.tenant)
    weight = Edge.objects.get(tenant=cast.tenant, kind="sequence").weight
    assert engram.embedding is not None
    store(cast, [{**raw[0], "metadata": {"team": "core"}}], embed=False)
    engram.refresh_from_db()
    assert engram.metadata == {"team": "core"} and engram.embedding is not None
    assert Edge.objects.get(tenant=cast.tenant, kind="sequence").weight == pytest.approx(weight)
    engram = engram_update(
        tenant=cast.tenant,
        actor=ACTOR,
        engram=engram,
        patch=EngramPatch.model_validate({"strength": 0.9}),
    )
    assert engram.embedding is not None


def test_editing_an_archived_memory_keeps_it_out_of_the_graph(cast: Cast) -> None:
    store(cast, [{"content": "old trivia", "schema": ["trivia"]}], embed=False)
    engram = Engram.objects.get(tenant=cast.tenant)
    from memory.services.graph import engram_unlink

    engram_unlink(engram.network, engram)
    Engram.objects.filter(pk=engram.pk).update(status="archived")
    engram.refresh_from_db()
    engram_update(
        tenant=cast.tenant,
        actor=ACTOR,
        engram=engram,
        patch=EngramPatch.model_validate({"content": "new trivia", "schema": ["quiz"]}),
    )
    assert not Cue.objects.filter(tenant=cast.tenant, lemma="quiz", engram_count__gt=0).exists()
    assert Engram.objects.get(pk=engram.pk).status == "archived"


def test_priming_does_not_dilute_an_exact_match_in_the_next_recall(cast: Cast) -> None:
    notes = [{"content": f"coffee note {i}", "schema": ["coffee", f"c{i}"]} for i in range(6)]
    store(
        cast,
        [*notes, {"content": "Redis listens on 6379", "schema": ["redis", "port"]}],
        embed=False,
    )
    network_prime(tenant=cast.tenant, actor=ACTOR, network_key="default")
    mind = recall(cast, "redis")
    top = mind.engrams[0]
    assert top.content.startswith("Redis") and top.why.parts["direct"] == pytest.approx(1.0)
    assert any(c.seed_via == "prime" for c in mind.cues)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (
            {"engrams": [{"content": "x", "occurred_at": "2024-02-30T00:00:00Z"}]},
            "engrams[0].occurred_at",
        ),
        ({"engrams": [{"content": "a\u0000b"}]}, "engrams[0].content"),
        ({"engrams": [{"content": "x", "metadata": {"k": "\u0000"}}]}, "engrams[0].metadata"),
        ({"engrams": [{"content": "x", "external_id": "a\u0000"}]}, "engrams[0].external_id"),
    ],
)
def test_impossible_dates_and_nul_characters_are_400s(cast: Cast, body: Any, field: str) -> None:
    _, secret = make_key(cast.tenant)
    response = bearer(APIClient(), secret).post("/api/v1/remember", body, format="json")
    assert response.status_code == 400 and field in response.json()["error"]["fields"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"query": "x", "channels": [["text"]]}, "channels[0]"),
        ({"query": "x", "now": "2024-13-01T00:00:00Z"}, "now"),
        ({"query": "word " * 500}, "query"),
        ({"query": "a\u0000b"}, "query"),
    ],
)
def test_bad_recall_requests_are_400s(cast: Cast, body: Any, field: str) -> None:
    _, secret = make_key(cast.tenant)
    response = bearer(APIClient(), secret).post("/api/v1/recall", body, format="json")
    assert response.status_code == 400 and field in response.json()["error"]["fields"]


def test_run_on_names_and_long_tokens_become_bounded_cues(cast: Cast) -> None:
    _, secret = make_key(cast.tenant)
    api = bearer(APIClient(), secret)
    content = "ALPHA " * 60 + " x" * 3 + " " + "b" * 300 + " ﬃ" * 10
    response = api.post(
        "/api/v1/remember",
        {"engrams": [{"content": content}, {"content": "y", "schema": ["ﬃ" * 100]}]},
        format="json",
    )
    assert response.status_code == 201, response.content
    assert all(len(c.lemma) <= 100 for c in Cue.objects.filter(tenant=cast.tenant))


def test_bulk_retype_counts_only_the_memories_it_changes(cast: Cast) -> None:
    from memory.services.engrams import engrams_bulk

    store(cast, [{"content": "a fact", "type": "PATTERN"}, {"content": "b fact"}], embed=False)
    engrams = list(Engram.objects.filter(tenant=cast.tenant).order_by("id"))
    owner = Actor.for_user(cast.owner, role="owner")
    changed = engrams_bulk(
        tenant=cast.tenant, actor=owner, engrams=engrams, action="retype", type="pattern"
    )
    assert changed == 1
    assert set(Engram.objects.filter(tenant=cast.tenant).values_list("type", flat=True)) == {
        "PATTERN"
    }
