"""Recall with knowledge: the facts that the found memories stated lead the context, grouped
by subject, each citing its id. A slot's *current* value is served even when only the message
with the old value was found; a question about the past also gets the earlier values; a
deleted memory takes the facts only it stated with it; ``facts: false`` gives memories only."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from audit.actors import Actor
from memory.models import Engram
from memory.services.engrams import engram_delete
from memory.services.extraction import job_run
from tenants import rls
from tests.factories import Cast
from tests.memory.test_knowledge import CONVERSATION, client, extracted, ingest


def recall(api: APIClient, query: str, **extra: Any) -> dict[str, Any]:
    answer = api.post(
        "/api/v1/recall",
        {"query": query, "network": "default", "record": False, **extra},
        format="json",
    )
    assert answer.status_code == 200, answer.json()
    return answer.json()


@pytest.mark.django_db
def test_recall_serves_a_slots_current_value_and_earlier_ones_for_the_past(cast: Cast) -> None:
    agent = client(cast, "read", "write")
    body = extracted(cast, ingest(agent, CONVERSATION))

    # the question finds the old message only; the value it stated is superseded: Porto is served
    mind = recall(agent, "does Maya live in Lisbon, is she allergic to peanuts")
    assert {e["id"] for e in mind["engrams"]} >= {body["episodes"][2]["engram"]}
    homes = [f for f in mind["facts"] if f["predicate"] == "lives in"]
    assert [(f["object"], f["status"]) for f in homes] == [("Porto", "current")]
    assert homes[0]["evidence"] == [body["episodes"][2]["engram"]]
    assert homes[0]["id"] in mind["context_fact_ids"] and homes[0]["in_context"]
    context = mind["context"]
    assert "- [facts of Maya] " in context and "lives in: Porto, since 2024-02-2" in context
    assert "Lisbon" not in context.split("\n- [")[1]  # the facts line holds no past value
    assert context.index("[facts of Maya]") < context.index(
        "#" + str(body["episodes"][2]["engram"])
    )

    # about the past: the earlier value too, with when it held
    mind = recall(agent, "where did Maya live before, Lisbon?")
    values = [(f["object"], f["status"]) for f in mind["facts"] if f["predicate"] == "lives in"]
    assert values == [("Porto", "current"), ("Lisbon", "superseded")]
    lisbon = next(f for f in mind["facts"] if f["object"] == "Lisbon")
    assert lisbon["valid_to"].startswith("2024-02-2")
    # its own statement is packed already: the fact would only repeat it
    assert f"#{body['episodes'][2]['engram']}]" in mind["context"] and not lisbon["in_context"]

    # memories only, on request
    plain = recall(agent, "does Maya live in Lisbon, is she allergic to peanuts", facts=False)
    assert plain["facts"] == [] and plain["context_fact_ids"] == []
    assert "[facts of" not in plain["context"]

    # a deleted message takes the facts only it stated with it
    porto = body["episodes"][3]["engram"]
    with rls.tenant_scope(cast.tenant.pk):
        engram_delete(
            tenant=cast.tenant,
            actor=Actor.for_user(cast.owner),
            engram=Engram.objects.get(tenant=cast.tenant, pk=porto),
        )
    mind = recall(agent, "does Maya live in Lisbon, is she allergic to peanuts")
    assert [f["object"] for f in mind["facts"] if f["predicate"] == "lives in"] == []
    allergy = [f for f in mind["facts"] if f["predicate"] == "is allergic to"]
    assert [f["object"] for f in allergy] == ["peanuts"]  # said by a memory still there


@pytest.mark.django_db
def test_facts_stay_within_the_budget_and_another_tenants_facts_never_come(cast: Cast) -> None:
    agent = client(cast, "read", "write")
    extracted(cast, ingest(agent, CONVERSATION))
    small = recall(
        agent, "where does Maya live and work, what is she allergic to", token_budget=120
    )
    assert small["context_tokens"] <= 120
    assert small["context_fact_ids"]  # facts are short: some fit where no message might

    outsider = client(Cast(**{**cast.__dict__, "tenant": cast.other}), "read", "write")
    said = [{"speaker": "Maya", "content": "I live in Berlin and I'm allergic to Lisbon."}]
    answer = ingest(outsider, said)
    job_run(tenant_id=cast.other.pk, job_id=answer.json()["job"]["id"])
    mind = recall(agent, "where does Maya live, Lisbon or Berlin")
    assert mind["facts"] and all(f["object"] != "Berlin" for f in mind["facts"])
    assert "Berlin" not in mind["context"]


HOW_TO = [
    {"content": "To deploy the Porto office app: run the tests, build, then tag the release",
     "type": "PATTERN"},
    {"content": "Never deploy the office app on Fridays: the March outage came from one",
     "type": "ATOMIC"},
]  # fmt: skip
TASK = "Deploy the office app for Maya in Porto, where she lives"


def guided(api: APIClient, **body: Any) -> Any:
    return api.post("/api/v1/guide", {"network": "default", **body}, format="json")


@pytest.mark.django_db
def test_the_guide_distils_facts_changes_warnings_and_steps_each_line_cited(cast: Cast) -> None:
    agent = client(cast, "read", "write")
    said_by = extracted(cast, ingest(agent, CONVERSATION))["episodes"]
    assert agent.post(
        "/api/v1/remember", {"network": "default", "engrams": HOW_TO}, format="json"
    ).status_code in (200, 201)

    answer = guided(agent, task=TASK, record=False)
    assert answer.status_code == 200, answer.json()
    body = answer.json()
    assert 0 < body["tokens"] <= 300 and body["made_by"] == "template"
    sections = {line["section"] for line in body["lines"]}
    assert {"facts", "conflicts", "warnings", "steps"} <= sections
    assert all(line["cites"] for line in body["lines"])
    home = next(line for line in body["lines"] if "lives in: Porto" in line["text"])
    assert home == body["lines"][0]  # the fact the task names comes first
    home_said = said_by[3]["engram"]
    changed = next(line for line in body["lines"] if line["section"] == "conflicts")
    assert "Lisbon" in changed["text"] and "became Porto" in changed["text"]
    assert "Fridays" in next(ln for ln in body["lines"] if ln["section"] == "warnings")["text"]
    assert "tag the release" in next(ln for ln in body["lines"] if ln["section"] == "steps")["text"]
    for line in body["lines"]:  # every cited unit is there to look at
        for cite in line["cites"]:
            path = "facts" if cite["kind"] == "fact" else "engrams"
            assert agent.get(f"/api/v1/{path}/{cite['id']}").status_code == 200
    guide = body["guide"]
    assert guide.startswith("Guide distilled from memory") and "</memories" in guide
    assert guide.index("Key facts:") < guide.index("Warnings:") < guide.index("Steps")

    said = [
        c["id"] for line in body["lines"] if line["section"] == "memories" for c in line["cites"]
    ]
    assert home_said not in said  # cited through its fact already
    small = guided(agent, task=TASK, token_budget=90, record=False).json()
    assert 0 < small["tokens"] <= 90 and small["lines"][0]["section"] == "facts"


@pytest.mark.django_db
def test_the_guide_refuses_bad_input_by_field(cast: Cast) -> None:
    agent = client(cast, "read", "write")
    too_big = guided(agent, task=TASK, token_budget=301)
    assert too_big.status_code == 400 and "token_budget" in str(too_big.json())
    blank = guided(agent, task="   ")
    assert blank.status_code == 400 and "task" in str(blank.json())
    missing = agent.post("/api/v1/guide", {"network": "nowhere", "task": TASK}, format="json")
    assert missing.status_code == 404
    assert "nowhere" in str(missing.json())
