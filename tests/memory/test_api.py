"""Memory over REST: remember, recall, prime, networks, engrams — scopes and tenant isolation."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from memory.services import access
from tests.conftest import bearer
from tests.factories import Cast, make_key

pytestmark = pytest.mark.django_db


def client_for(cast: Cast, *scopes: str, other: bool = False) -> APIClient:
    _, secret = make_key(cast.other if other else cast.tenant, scopes=scopes or ("read", "write"))
    return bearer(APIClient(), secret)


def remember(api: APIClient, engrams: list[dict[str, Any]], **extra: Any) -> Any:
    return api.post("/api/v1/remember", {"engrams": engrams, **extra}, format="json")


def test_remember_then_recall_over_rest(cast: Cast) -> None:
    api = client_for(cast)
    stored = remember(api, [{"content": "Redis listens on 6379", "schema": ["Redis", "port"]}])
    assert stored.status_code == 201
    assert stored.json()["created"] == 1 and stored.json()["network"] == "default"
    mind = api.post("/api/v1/recall", {"query": "redis"}, format="json").json()
    assert mind["engrams"][0]["content"] == "Redis listens on 6379"
    assert mind["engrams"][0]["why"]["channels"]
    assert {"id", "external_id", "metadata", "score", "type"} <= set(mind["engrams"][0])
    assert mind["context_tokens"] > 0 and mind["took_ms"] >= 0
    assert any(c["word"] == "port" for c in mind["cues"])


def test_role_maps_to_its_own_network(cast: Cast) -> None:
    api = client_for(cast)
    remember(api, [{"content": "Use active voice", "schema": ["voice"]}], role="technical-writer")
    assert api.post("/api/v1/recall", {"query": "voice"}, format="json").json()["engrams"] == []
    mind = api.post(
        "/api/v1/recall", {"query": "voice", "role": "technical-writer"}, format="json"
    ).json()
    assert mind["network"] == "role:technical-writer" and len(mind["engrams"]) == 1


def test_a_read_key_may_recall_but_not_remember(cast: Cast) -> None:
    reader = client_for(cast, "read")
    response = remember(reader, [{"content": "x"}])
    assert response.status_code == 403 and response.json()["error"]["code"] == "missing_scope"
    assert reader.post("/api/v1/recall", {"query": "x"}, format="json").status_code == 200
    writer = client_for(cast, "write")
    assert writer.post("/api/v1/recall", {"query": "x"}, format="json").status_code == 403


def test_bad_engrams_are_400_with_the_field_named(cast: Cast) -> None:
    api = client_for(cast)
    response = remember(api, [{"content": "ok"}, {"content": "x", "strength": 3}])
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "validation_error" and "engrams[1].strength" in error["fields"]
    assert api.get("/api/v1/networks/").json()["networks"] == []  # nothing written
    bad_mode = api.post("/api/v1/recall", {"query": "x", "mode": "wild"}, format="json")
    assert bad_mode.status_code == 400 and "mode" in bad_mode.json()["error"]["fields"]
    bad_net = remember(api, [{"content": "x"}], network="Has Spaces")
    assert bad_net.status_code == 400 and "network" in bad_net.json()["error"]["fields"]


def test_remembering_the_same_external_id_twice_changes_nothing(cast: Cast) -> None:
    api = client_for(cast)
    batch = [{"content": "Prefers tea", "external_id": "pref:tea"}]
    first = remember(api, batch).json()
    second = remember(api, batch).json()
    assert second["unchanged"] == 1 and second["engrams"][0]["id"] == first["engrams"][0]["id"]


def test_engrams_list_get_patch_delete_and_history(cast: Cast) -> None:
    api = client_for(cast)
    engram_id = remember(api, [{"content": "Standup at 9", "schema": ["standup"]}]).json()[
        "engrams"
    ][0]["id"]
    listed = api.get("/api/v1/engrams", {"network": "default"}).json()
    assert [e["id"] for e in listed["engrams"]] == [engram_id]
    patched = api.patch(f"/api/v1/engrams/{engram_id}", {"content": "Standup at 10"}, format="json")
    assert patched.status_code == 200 and patched.json()["content"] == "Standup at 10"
    assert (
        api.post("/api/v1/recall", {"query": "standup"}, format="json").json()["engrams"][0][
            "content"
        ]
        == "Standup at 10"
    )
    deleted = api.delete(f"/api/v1/engrams/{engram_id}")
    assert deleted.json()["status"] == "deleted"
    assert api.post("/api/v1/recall", {"query": "standup"}, format="json").json()["engrams"] == []
    verbs = [e["verb"] for e in api.get(f"/api/v1/engrams/{engram_id}/history").json()["events"]]
    assert verbs == ["engram.delete", "engram.update", "engram.create"]
    assert api.get("/api/v1/engrams", {"status": "deleted"}).json()["engrams"][0]["id"] == engram_id


def test_patching_unknown_or_bad_fields_is_400(cast: Cast) -> None:
    api = client_for(cast)
    engram_id = remember(api, [{"content": "x"}]).json()["engrams"][0]["id"]
    for body, field in (({"colour": "red"}, "colour"), ({"type": "NOPE"}, "type")):
        response = api.patch(f"/api/v1/engrams/{engram_id}", body, format="json")
        assert response.status_code == 400 and field in response.json()["error"]["fields"]


def test_another_tenants_engrams_and_networks_are_404(cast: Cast) -> None:
    ours = client_for(cast)
    engram_id = remember(ours, [{"content": "secret plan"}], network="plans").json()["engrams"][0][
        "id"
    ]
    theirs = client_for(cast, "read", "write", other=True)
    for response in (
        theirs.get(f"/api/v1/engrams/{engram_id}"),
        theirs.patch(f"/api/v1/engrams/{engram_id}", {"content": "pwned"}, format="json"),
        theirs.delete(f"/api/v1/engrams/{engram_id}"),
        theirs.get(f"/api/v1/engrams/{engram_id}/history"),
        theirs.get("/api/v1/networks/plans"),
        theirs.get("/api/v1/engrams", {"network": "plans"}),
    ):
        assert response.status_code == 404, response.content
    assert theirs.get("/api/v1/networks/").json()["networks"] == []
    unknown = theirs.post(
        "/api/v1/recall", {"query": "secret plan", "network": "plans"}, format="json"
    )
    assert unknown.status_code == 404  # their workspace has no such network, and says so:
    assert unknown.json()["error"]["message"].endswith("Its networks: none yet.")
    assert ours.get(f"/api/v1/engrams/{engram_id}").json()["content"] == "secret plan"


def test_two_tenants_with_the_same_network_and_words_see_only_their_own(cast: Cast) -> None:
    ours, theirs = client_for(cast), client_for(cast, other=True)
    remember(ours, [{"content": "Acme launch code is tulip", "schema": ["launch", "code"]}])
    remember(theirs, [{"content": "Globex launch code is daisy", "schema": ["launch", "code"]}])
    for api, mine, other in ((ours, "tulip", "daisy"), (theirs, "daisy", "tulip")):
        mind = api.post("/api/v1/recall", {"query": "launch code"}, format="json").json()
        text = " ".join(e["content"] for e in mind["engrams"]) + mind["context"]
        assert mine in text and other not in text
        assert api.get("/api/v1/networks/default").json()["engrams"] == 1


def test_networks_list_their_counts(cast: Cast) -> None:
    api = client_for(cast)
    remember(api, [{"content": "a b c", "schema": ["a1", "b1", "c1"]}], network="n1")
    networks = api.get("/api/v1/networks/").json()["networks"]
    assert networks == [
        {
            "key": "n1",
            "engrams": 1,
            "cues": 3,
            "edges": 6,
            # nothing embeds here (no worker in this test): all of it still waits
            "pending_embeddings": 1,
            "pending_cue_embeddings": 3,
            "created_at": networks[0]["created_at"],
        }
    ]
    assert api.get("/api/v1/networks/n1").json()["cues"] == 3


def test_a_network_says_when_its_vectors_are_ready(cast: Cast) -> None:
    from memory.models import Engram, Network
    from memory.services.embedding import embed_missing
    from tenants import rls

    api = client_for(cast)
    remember(api, [{"content": "Maya prefers green tea"}], network="ready")
    assert api.get("/api/v1/networks/ready").json()["pending_embeddings"] == 1
    with rls.tenant_scope(cast.tenant.pk):
        network = Network.objects.get(tenant=cast.tenant, key="ready")
        ids = list(Engram.objects.filter(network=network).values_list("pk", flat=True))
    embed_missing(tenant_id=cast.tenant.pk, network_id=network.pk, engram_ids=ids)
    ready = api.get("/api/v1/networks/ready").json()
    assert ready["pending_embeddings"] == 0 and ready["pending_cue_embeddings"] == 0


def test_numbers_dates_and_times_get_no_cue_vector_and_never_wait_for_one(cast: Cast) -> None:
    from memory.models import Cue, Engram, Network
    from memory.services.embedding import embed_missing
    from tenants import rls

    api = client_for(cast)
    schema = ["invoice", "8985", "2026-08-17", "10:00", "Zürich", "Москва", "東京"]
    content = "invoice 8985 due 2026-08-17 10:00 Zürich, Москва, 東京"
    remember(api, [{"content": content, "schema": schema}])
    counts = api.get("/api/v1/networks/default").json()
    assert counts["cues"] == 7 and counts["pending_cue_embeddings"] == 4
    with rls.tenant_scope(cast.tenant.pk):
        network = Network.objects.get(tenant=cast.tenant, key="default")
        ids = list(Engram.objects.filter(network=network).values_list("pk", flat=True))
    embed_missing(tenant_id=cast.tenant.pk, network_id=network.pk, engram_ids=ids)
    assert api.get("/api/v1/networks/default").json()["pending_cue_embeddings"] == 0
    with rls.tenant_scope(cast.tenant.pk):
        embedded = set(
            Cue.objects.filter(network=network, vector__isnull=False).values_list(
                "lemma", flat=True
            )
        )
    assert embedded == {"invoice", "zürich", "москва", "東京"}


def test_prime_over_rest(cast: Cast) -> None:
    api = client_for(cast)
    facts = [{"content": f"coffee fact {i}", "schema": ["coffee", f"x{i}"]} for i in range(3)]
    remember(api, facts)
    primed = api.post("/api/v1/prime", {}, format="json").json()
    assert primed["cues"][0]["word"] == "coffee" and primed["engrams"]


@pytest.mark.parametrize("rows", [3, 30])
def test_the_engram_list_runs_a_fixed_number_of_queries(
    cast: Cast, django_assert_num_queries: Any, rows: int
) -> None:
    api = client_for(cast)
    remember(api, [{"content": f"fact {i}"} for i in range(rows)])
    api.get("/api/v1/engrams")  # touches the key once
    with django_assert_num_queries(7):
        assert len(api.get("/api/v1/engrams", {"limit": 50}).json()["engrams"]) == rows


def test_recall_over_rest_can_look_without_touching_and_names_its_context(cast: Cast) -> None:
    api = client_for(cast)
    remember(api, [{"content": "Redis listens on 6379"}, {"content": "Postgres listens on 5432"}])
    looked = api.post("/api/v1/recall", {"query": "redis", "record": False}, format="json").json()
    assert looked["context_ids"] and looked["context_ids"][0] == looked["engrams"][0]["id"]
    assert all(f"#{i}]" in looked["context"] for i in looked["context_ids"])
    from memory.models import Engram
    from tenants import rls

    access.flush()
    with rls.tenant_scope(cast.tenant.pk):
        assert not Engram.objects.filter(tenant=cast.tenant, recall_count__gt=0).exists()
    api.post("/api/v1/recall", {"query": "redis"}, format="json")
    access.flush()
    with rls.tenant_scope(cast.tenant.pk):
        assert Engram.objects.filter(tenant=cast.tenant, recall_count__gt=0).exists()
    refused = api.post("/api/v1/recall", {"query": "redis", "record": "no"}, format="json")
    assert refused.status_code == 400


def test_the_speaker_is_metadata_and_a_recall_filter_not_a_concept(cast: Cast) -> None:
    api = client_for(cast)
    stored = remember(
        api,
        [
            {"content": "Maya: I finally booked the flight to Lisbon for the conference"},
            {"content": "John: my flight to Lisbon got cancelled, so I am taking the train"},
            {
                "content": "Flights to Lisbon are cheaper on Tuesdays, someone said",
                "metadata": {"speaker": "Ana"},
            },
        ],
    )
    assert stored.status_code == 201
    listed = {e["content"][:4]: e for e in api.get("/api/v1/engrams").json()["engrams"]}
    assert listed["Maya"]["metadata"] == {"speaker": "Maya"}
    assert listed["Flig"]["metadata"] == {"speaker": "Ana"}  # a speaker the client named stays
    assert "Maya" not in listed["Maya"]["schema"]  # the label is no concept
    everyone = api.post("/api/v1/recall", {"query": "flight to Lisbon"}, format="json").json()
    assert len(everyone["engrams"]) == 3
    maya = api.post(
        "/api/v1/recall", {"query": "flight to Lisbon", "speaker": "maya"}, format="json"
    ).json()
    assert [e["content"][:5] for e in maya["engrams"]] == ["Maya:"]
    nobody = api.post(
        "/api/v1/recall", {"query": "flight to Lisbon", "speaker": "Zed"}, format="json"
    ).json()
    assert nobody["engrams"] == []
    refused = api.post("/api/v1/recall", {"query": "x", "speaker": 7}, format="json")
    assert refused.status_code == 400 and "speaker" in refused.content.decode()
