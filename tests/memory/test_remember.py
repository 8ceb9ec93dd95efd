"""remember on real Postgres: cues, edges, idempotency, validation, audit."""

from __future__ import annotations

import pytest

from audit.actors import Actor
from audit.models import AuditEvent
from audit.sealing import unseal
from base.errors import ValidationFailed
from memory.contracts import engram_items
from memory.models import Cue, CueVector, Edge, Engram, EngramCue, Network
from memory.services.lifecycle import Plan
from memory.services.remember import engrams_remember
from tenants import rls
from tests.factories import Cast

pytestmark = pytest.mark.django_db


def remember(cast: Cast, raw: list[dict[str, object]], network: str = "default"):  # type: ignore[no-untyped-def]
    rls.activate(tenant_id=cast.tenant.pk)
    return engrams_remember(
        tenant=cast.tenant,
        actor=Actor.system("tests"),
        network_key=network,
        items=engram_items(raw),
        source="api",
    )


def edge(cast: Cast, a: str, b: str, kind: str = "sequence") -> Edge:
    return Edge.objects.get(tenant=cast.tenant, source__lemma=a, target__lemma=b, kind=kind)


def test_the_first_store_creates_the_network_cues_and_edges(cast: Cast) -> None:
    result = remember(
        cast, [{"content": "Redis listens on 6379", "schema": ["Redis", "port", "6379"]}]
    )
    assert result.count(Plan.CREATE) == 1
    network = Network.objects.get(tenant=cast.tenant, key="default")
    cues = dict(Cue.objects.filter(network=network).values_list("lemma", "engram_count"))
    assert cues == {"redis": 1, "port": 1, "6379": 1}
    assert edge(cast, "redis", "port").weight == pytest.approx(0.3)
    assert edge(cast, "port", "redis", "cooccur").weight == pytest.approx(0.12)
    assert edge(cast, "redis", "6379", "cooccur").weight == pytest.approx(0.12)
    links = EngramCue.objects.filter(engram_id=result.outcomes[0].id).order_by("position")
    assert [link.cue.lemma for link in links] == ["redis", "port", "6379"]


def test_a_missing_schema_is_derived_by_the_rules_extractor(cast: Cast) -> None:
    result = remember(cast, [{"content": "The deploy runs on Fridays at Acme Corp."}])
    engram = Engram.objects.get(pk=result.outcomes[0].id)
    assert "Acme Corp" in engram.schema and "The" not in engram.schema
    assert engram.token_count > 0 and len(engram.content_hash) == 64


def test_edges_are_reinforced_never_overwritten(cast: Cast) -> None:
    remember(cast, [{"content": "one", "schema": ["alpha", "beta"]}])
    remember(cast, [{"content": "two", "schema": ["alpha", "beta"]}])
    e = edge(cast, "alpha", "beta")
    assert e.weight == pytest.approx(1 - 0.7 * 0.7) and e.count == 2


def test_several_uses_in_one_batch_count_like_separate_calls(cast: Cast) -> None:
    remember(cast, [{"content": f"m{i}", "schema": ["alpha", "beta"]} for i in range(3)])
    assert edge(cast, "alpha", "beta").weight == pytest.approx(1 - 0.7**3)


def test_the_same_call_twice_with_external_ids_changes_nothing(cast: Cast) -> None:
    batch = [{"content": "Prefers tea", "external_id": "pref-1", "schema": ["tea", "prefer"]}]
    first = remember(cast, batch)
    weights = sorted(Edge.objects.filter(tenant=cast.tenant).values_list("weight", flat=True))
    events = AuditEvent.objects.filter(tenant=cast.tenant, target_type="engram").count()
    second = remember(cast, batch)
    assert second.outcomes[0].plan is Plan.UNCHANGED
    assert second.outcomes[0].id == first.outcomes[0].id
    assert (
        sorted(Edge.objects.filter(tenant=cast.tenant).values_list("weight", flat=True)) == weights
    )
    assert AuditEvent.objects.filter(tenant=cast.tenant, target_type="engram").count() == events
    assert Engram.objects.filter(tenant=cast.tenant).count() == 1


def test_an_external_id_with_new_content_updates_and_moves_the_cues(cast: Cast) -> None:
    remember(cast, [{"content": "Likes tea", "external_id": "p", "schema": ["tea", "like"]}])
    result = remember(
        cast, [{"content": "Likes coffee", "external_id": "p", "schema": ["coffee", "like"]}]
    )
    assert result.outcomes[0].plan is Plan.REVISE
    counts = dict(Cue.objects.filter(tenant=cast.tenant).values_list("lemma", "engram_count"))
    assert counts["tea"] == 0 and counts["coffee"] == 1 and counts["like"] == 1
    assert not Edge.objects.filter(tenant=cast.tenant, source__lemma="tea").exists()
    sealed = AuditEvent.objects.get(tenant=cast.tenant, verb="engram.update")
    assert "Likes" not in str(sealed.after) and sealed.before is None  # sealed at rest
    [update] = unseal([sealed])
    assert update.before["content"] == "Likes tea" and update.after["content"] == "Likes coffee"


def test_repeating_content_without_an_id_strengthens_the_memory(cast: Cast) -> None:
    first = remember(cast, [{"content": "The build uses Bazel", "strength": 0.5}])
    again = remember(cast, [{"content": "the build  uses bazel"}])
    assert again.outcomes[0].plan is Plan.REINFORCE and again.outcomes[0].id == first.outcomes[0].id
    assert Engram.objects.get(pk=first.outcomes[0].id).strength == pytest.approx(0.55)


def test_networks_are_separate_memory_spaces(cast: Cast) -> None:
    remember(cast, [{"content": "a", "schema": ["common"]}], network="role:writer")
    remember(cast, [{"content": "b", "schema": ["common"]}], network="role:coder")
    assert Cue.objects.filter(tenant=cast.tenant, lemma="common").count() == 2
    assert set(Network.objects.filter(tenant=cast.tenant).values_list("key", flat=True)) == {
        "role:writer",
        "role:coder",
    }


def test_each_remembered_engram_is_audited_in_the_same_transaction(cast: Cast) -> None:
    result = remember(cast, [{"content": f"fact {i}"} for i in range(3)])
    ids = {str(o.id) for o in result.outcomes}
    audited = set(
        AuditEvent.objects.filter(tenant=cast.tenant, verb="engram.create").values_list(
            "target_id", flat=True
        )
    )
    assert audited == ids


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ([{"content": ""}], "engrams[0].content"),
        ([{"content": "x"}, {"content": "ok", "type": "MOLECULE"}], "engrams[1].type"),
        ([{"content": "x", "strength": 1.5}], "engrams[0].strength"),
        ([{"content": "x", "strength": "high"}], "engrams[0].strength"),
        ([{"content": "x" * 16_001}], "engrams[0].content"),
        ([{"content": "x", "schema": ["w"] * 33}], "engrams[0].schema"),
        ([{"content": "x", "occurred_at": "yesterday"}], "engrams[0].occurred_at"),
        ([{"content": "x", "colour": "red"}], "engrams[0].colour"),
        (
            [{"content": "x", "external_id": "a"}, {"content": "y", "external_id": "a"}],
            "engrams[1].external_id",
        ),
        ([], "engrams"),
        ([{"content": "x"}] * 1001, "engrams"),
    ],
)
def test_bad_input_names_the_field_and_writes_nothing(
    cast: Cast, raw: list[dict[str, object]], field: str
) -> None:
    with pytest.raises(ValidationFailed) as err:
        remember(cast, raw)
    assert field in err.value.fields
    assert not Engram.objects.filter(tenant=cast.tenant).exists()
    assert not Network.objects.filter(tenant=cast.tenant).exists()


def test_a_batch_of_a_thousand_is_accepted(cast: Cast) -> None:
    result = remember(cast, [{"content": f"memory {i} about topic{i % 50}"} for i in range(1000)])
    assert result.count(Plan.CREATE) == 1000


def test_out_degree_stays_bounded_and_keeps_the_strongest_edges(cast: Cast) -> None:
    from memory.core.hebbian import MAX_OUT_DEGREE
    from memory.services.graph import DEGREE_SLACK

    remember(cast, [{"content": "strong", "schema": ["hub", "favourite"]}] * 1)
    remember(cast, [{"content": "strong again", "schema": ["hub", "favourite"]}])
    remember(cast, [{"content": f"spoke {i}", "schema": ["hub", f"spoke{i}"]} for i in range(120)])
    hub = Cue.objects.get(tenant=cast.tenant, lemma="hub")
    degree = Edge.objects.filter(tenant=cast.tenant, source=hub).count()
    assert degree <= MAX_OUT_DEGREE + DEGREE_SLACK and hub.out_degree == degree
    assert Edge.objects.filter(tenant=cast.tenant, source=hub, target__lemma="favourite").exists()


@pytest.mark.django_db(transaction=True)
def test_a_cue_count_update_is_hot_even_with_the_cues_embedding(cast: Cast) -> None:
    """Every remember raises its cues' counts. Were a count indexed, or a cue page too full
    for a second version of the row, each update would write the cue into every index again
    (migration 0026; the embedding was inline then, and its HNSW graph one of the indexes).
    Each write commits, as in service, so the versions it leaves behind can be pruned."""
    from django.db import connection, transaction

    from memory.services.embedding import embed_missing

    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]

    def write(content: str) -> int:
        with transaction.atomic():
            return remember(cast, [{"content": content, "schema": words}]).outcomes[0].id

    def updates() -> tuple[int, int]:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_stat_get_xact_tuples_updated('memory_cue'::regclass), "
                "pg_stat_get_xact_tuples_hot_updated('memory_cue'::regclass)"
            )
            done, hot = cursor.fetchone()
        return int(done), int(hot)

    first = write("first")
    with rls.tenant_scope(cast.tenant.pk):
        network = Network.objects.get(tenant=cast.tenant, key="default")
    embed_missing(tenant_id=cast.tenant.pk, network_id=network.pk, engram_ids=[first])
    with rls.tenant_scope(cast.tenant.pk):
        assert CueVector.objects.filter(network=network).count() == 8
    # Nearly every count update is HOT (a chain is pruned only when its page is nearly full,
    # so now and then one moves again).
    write("settle")
    done, hot = 0, 0
    for n in range(6):
        with transaction.atomic():
            before = updates()
            remember(cast, [{"content": f"again {n}", "schema": words}])
            done, hot = (a - b + c for a, b, c in zip(updates(), before, (done, hot), strict=True))
    assert done >= 6 * len(words)  # engram counts (and out-degrees) went up
    assert hot >= 0.75 * done, f"{hot} of {done} cue updates were HOT"


@pytest.mark.django_db
def test_a_cue_vector_of_another_model_is_made_again_and_an_unknown_one_is_kept(
    cast: Cast,
) -> None:
    """Cue vectors record their model, as engrams do: a change of model replaces them when
    their engrams are embedded again; the vectors migration 0028 moved (blank model) stay."""
    from memory.embeddings import embedder
    from memory.services.embedding import embed_missing

    first = remember(cast, [{"content": "x", "schema": ["harbour", "lantern"]}]).outcomes[0].id
    with rls.tenant_scope(cast.tenant.pk):
        network = Network.objects.get(tenant=cast.tenant, key="default")
    embed_missing(tenant_id=cast.tenant.pk, network_id=network.pk, engram_ids=[first])
    current = embedder().model_id
    with rls.tenant_scope(cast.tenant.pk):
        vectors = CueVector.objects.filter(network=network)
        assert {v.model for v in vectors} == {current}
        made = {v.cue.lemma: list(v.embedding) for v in vectors}
        CueVector.objects.filter(network=network, cue__lemma="harbour").update(
            model="old-model", embedding=[0.5] * 384
        )
        CueVector.objects.filter(network=network, cue__lemma="lantern").update(
            model="", embedding=[0.25] * 384
        )
    embed_missing(tenant_id=cast.tenant.pk, network_id=network.pk, engram_ids=[first])
    with rls.tenant_scope(cast.tenant.pk):
        after = {v.cue.lemma: v for v in CueVector.objects.filter(network=network)}
    assert after["harbour"].model == current
    assert list(after["harbour"].embedding) == pytest.approx(made["harbour"], abs=1e-6)
    assert after["lantern"].model == "" and list(after["lantern"].embedding) == [0.25] * 384
