"""Moving from a peer: mem0's get_all, a Zep / Graphiti export and Letta's archival passages go
through the import job (progress page, line errors) into engrams keyed by the peer's ids, so a
second import of the same export changes nothing."""

from __future__ import annotations

import json

import pytest

from audit.actors import Actor
from base.errors import ValidationFailed
from memory.core import peers
from memory.models import Engram, Fact, FactEvidence
from memory.services.transfer import import_run, import_start
from tenants import rls
from tests.factories import Cast

MEM0 = {
    "results": [
        {"id": "8f1c", "memory": "Prefers window seats on flights", "user_id": "maya",
         "created_at": "2024-04-01T10:00:00-07:00", "updated_at": None,
         "metadata": {"app": "travel"}, "categories": ["travel"]},
        {"id": "9a2d", "memory": "Is allergic to peanuts", "user_id": "maya",
         "created_at": "2024-04-02T10:00:00Z"},
        {"id": "empty", "memory": "   "},
    ]
}  # fmt: skip

ZEP = {
    "nodes": [{"uuid": "n1", "name": "Maya"}, {"uuid": "n2", "name": "Acme"},
              {"uuid": "n3", "name": "Initech"}],
    "episodes": [
        {"uuid": "e1", "content": "Maya: I joined Acme in March.", "role": "user",
         "created_at": "2024-03-05T09:00:00Z"},
    ],
    "edges": [
        {"uuid": "f1", "fact": "Maya works at Acme", "name": "WORKS_AT",
         "source_node_uuid": "n1", "target_node_uuid": "n2",
         "valid_at": "2024-03-01T00:00:00Z", "invalid_at": None},
        {"uuid": "f2", "fact": "Maya works at Initech", "name": "WORKS_AT",
         "source_node_uuid": "n1", "target_node_uuid": "n3", "valid_at": "2022-01-01T00:00:00Z",
         "invalid_at": "2024-03-01T00:00:00Z"},
    ],
}  # fmt: skip

LETTA = [
    {"id": "passage-1", "text": "The deploy key lives in the team vault.", "agent_id": "agent-7",
     "created_at": "2024-05-01T08:00:00Z", "tags": ["ops"]},
]  # fmt: skip


def run(cast: Cast, export: object, name: str) -> tuple[dict[str, int], list[Engram]]:
    actor = Actor.for_user(cast.admin, "admin")
    with rls.tenant_scope(cast.tenant.pk):
        job = import_start(
            tenant=cast.tenant,
            actor=actor,
            network_key="moved",
            filename=name,
            data=json.dumps(export).encode(),
        )
    done = import_run(tenant_id=cast.tenant.pk, job_id=job.pk)
    assert done is not None and done.status == "done", done and done.errors
    with rls.tenant_scope(cast.tenant.pk):
        engrams = list(
            Engram.objects.filter(tenant=cast.tenant, network__key="moved").order_by("pk")
        )
    return {k: v for k, v in done.counts.items() if v and k != "edges restored"}, engrams


@pytest.mark.django_db
def test_mem0_zep_and_letta_exports_become_memories_and_import_twice_as_once(
    cast: Cast,
) -> None:
    counts, engrams = run(cast, MEM0, "mem0.json")
    assert counts == {"created": 2}
    seat = next(e for e in engrams if e.external_id == "mem0:8f1c")
    assert seat.content == "Prefers window seats on flights"
    assert seat.metadata["imported_from"] == "mem0" and seat.metadata["user_id"] == "maya"
    assert seat.metadata["app"] == "travel" and seat.occurred_at.isoformat().startswith(
        "2024-04-01T17"
    )

    counts, engrams = run(cast, ZEP, "zep.json")
    assert counts == {"created": 3, "facts": 2}
    by_id = {e.external_id: e for e in engrams}
    now, before = by_id["zep:f1"], by_id["zep:f2"]
    assert now.metadata["subject"] == "Maya" and now.metadata["object"] == "Acme"
    assert before.metadata["invalid_at"] == "2024-03-01T00:00:00Z"
    assert before.content.endswith("(no longer true)") and before.strength < now.strength
    assert by_id["zep:e1"].content == "Maya: I joined Acme in March."
    # Zep's facts are facts here too, with Zep's validity and the memory as their evidence
    with rls.tenant_scope(cast.tenant.pk):
        facts = {f.object: f for f in Fact.objects.filter(tenant=cast.tenant)}
        evidence = sorted(
            FactEvidence.objects.filter(tenant=cast.tenant).values_list("engram_id", flat=True)
        )
    acme, initech = facts["Acme"], facts["Initech"]
    assert (acme.status, acme.slot, acme.predicate) == ("current", "works_at", "works at")
    assert acme.valid_from.isoformat() == "2024-03-01T00:00:00+00:00" and acme.valid_to is None
    assert initech.status == "superseded" and initech.valid_to == acme.valid_from
    assert initech.valid_from.isoformat().startswith("2022-01-01")
    assert evidence == sorted([now.pk, before.pk])

    counts, engrams = run(cast, LETTA, "letta.json")
    assert counts == {"created": 1}
    assert {e.external_id for e in engrams} >= {"letta:passage-1"}

    for export in (MEM0, ZEP, LETTA):  # the same exports again: nothing new, nothing lost
        counts, again = run(cast, export, "again.json")
        assert "created" not in counts and counts.get("unchanged")
    assert len(again) == 6
    with rls.tenant_scope(cast.tenant.pk):  # and no second evidence for Zep's facts
        assert FactEvidence.objects.filter(tenant=cast.tenant).count() == 2
        assert Fact.objects.filter(tenant=cast.tenant).count() == 2


@pytest.mark.django_db
def test_an_empty_export_is_refused_and_other_json_is_left_to_the_line_reader(
    cast: Cast,
) -> None:
    actor = Actor.for_user(cast.admin, "admin")
    with rls.tenant_scope(cast.tenant.pk), pytest.raises(ValidationFailed, match="mem0 export"):
        import_start(
            tenant=cast.tenant,
            actor=actor,
            network_key="moved",
            filename="empty.json",
            data=json.dumps({"results": [{"id": "x", "memory": ""}]}).encode(),
        )
    assert peers.convert('{"kind": "engram", "content": "hi"}')[0] is None  # Mnemo's own line
    assert peers.convert('{"planets": [1, 2]}')[0] is None
    assert peers.convert("[1, 2, 3]")[0] is None
    peer, lines = peers.convert(json.dumps([{"id": "p", "text": "x", "agent_id": "a"}]))
    assert peer == "letta" and json.loads(lines.splitlines()[1])["external_id"] == "letta:p"
