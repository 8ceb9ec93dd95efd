"""Tasks and steps over REST, with the database: a task opened by key, steps recorded with the
causal links an agent names and those inferred from shared ids (marked so), the DAG read back,
each step recallable at once, idempotent and immutable steps, unknown steps and ended tasks
refused, a task's end teaching a skill (success) or counting against it (failure), trace from a
step back along its causes, everything audited, and another tenant answered 404."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from audit.models import AuditEvent
from memory.models import Engram, Step
from tenants import rls
from tests.conftest import bearer
from tests.factories import Cast, make_key


def client(cast: Cast, *scopes: str, other: bool = False) -> APIClient:
    tenant = cast.other if other else cast.tenant
    return bearer(APIClient(), make_key(tenant, scopes=scopes or ("read", "write"))[1])


def step(api: APIClient, task: int, body: dict[str, Any], status: int = 201) -> dict[str, Any]:
    """The answer's body (an error's ``error`` object when it failed)."""
    answer = api.post(f"/api/v1/tasks/{task}/steps", body, format="json")
    assert answer.status_code == status, answer.json()
    return answer.json().get("error", answer.json())


FIX = [
    {"step": "s1", "action": "run the test suite", "action_type": "run",
     "observation": "test_billing fails: ImportError in ledger_sync.py", "outcome": "failure"},
    {"step": "s2", "action": "read ledger_sync.py around the import",
     "observation": "it imports decimal_utils which was renamed to money_utils"},
    {"step": "s3", "action": "rename the import in ledger_sync.py to money_utils",
     "caused_by": ["s2"]},
    {"step": "s4", "action": "run the test suite again", "observation": "all 312 tests pass",
     "caused_by": ["s3"], "outcome": "success"},
]  # fmt: skip


def open_task(api: APIClient, key: str = "fix-billing", goal: str = "fix the billing tests") -> int:
    answer = api.post("/api/v1/tasks", {"network": "ops", "key": key, "goal": goal}, format="json")
    assert answer.status_code in (200, 201), answer.json()
    return int(answer.json()["id"])


def task_with_steps(api: APIClient, n: int) -> int:
    """The billing-fix task with its first ``n`` steps recorded."""
    task = open_task(api)
    for body in FIX[:n]:
        step(api, task, body)
    return task


@pytest.mark.django_db
def test_a_task_records_steps_with_given_and_inferred_causes_and_reads_back_as_a_dag(
    cast: Cast,
) -> None:
    api = client(cast)
    first = api.post("/api/v1/tasks", {"network": "ops", "key": "fix-billing"}, format="json")
    assert first.status_code == 201 and first.json()["state"] == "open"
    task = first.json()["id"]
    again = api.post(
        "/api/v1/tasks",
        {"network": "ops", "key": "fix-billing", "goal": "fix the billing tests"},
        format="json",
    )
    assert again.status_code == 200 and again.json()["id"] == task
    assert again.json()["goal"] == "fix the billing tests"  # a goal given later fills it
    recorded = [step(api, task, body) for body in FIX]
    s2 = recorded[1]["step"]
    assert [c["cause"] for c in s2["caused_by"]] == ["s1"]  # ledger_sync.py, seen in s1
    assert s2["caused_by"][0]["inferred"] and "ledger_sync.py" in s2["caused_by"][0]["reason"]
    s3 = recorded[2]["step"]
    assert s3["caused_by"] == [
        {"cause": "s2", "effect": "s3", "inferred": False, "reason": "said by the agent"}
    ]
    assert recorded[0]["step"]["intents"][:1] == ["debugging"]
    dag = api.get(f"/api/v1/tasks/{task}").json()
    assert [s["key"] for s in dag["steps"]] == ["s1", "s2", "s3", "s4"]
    assert [s["index"] for s in dag["steps"]] == [1, 2, 3, 4]
    assert {(link["cause"], link["effect"]) for link in dag["links"]} == {
        ("s1", "s2"),
        ("s2", "s3"),
        ("s3", "s4"),
    }
    assert dag["task"]["step_count"] == 4
    # every step is a memory at once, and a step episode for the extractor
    with rls.tenant_scope(cast.tenant.pk):
        engram = Engram.objects.get(pk=s3["engram"])
        assert engram.status == "active" and "money_utils" in engram.content
        assert engram.metadata["task"] == "fix-billing" and engram.metadata["step"] == "s3"
    mind = api.post(
        "/api/v1/recall", {"network": "ops", "query": "money_utils import"}, format="json"
    ).json()
    assert s3["engram"] in [e["id"] for e in mind["engrams"]]


@pytest.mark.django_db
def test_steps_are_idempotent_immutable_and_must_name_known_steps(cast: Cast) -> None:
    api = client(cast)
    task = open_task(api)
    step(api, task, FIX[0])
    same = step(api, task, FIX[0], status=200)
    assert same["created"] is False and same["task"]["step_count"] == 1
    changed = step(api, task, {**FIX[0], "observation": "all green"}, status=409)
    assert "immutable" in changed["message"] and "step" in changed["fields"]
    unknown = step(api, task, {"action": "x", "caused_by": ["s9"]}, status=404)
    assert "caused_by" in unknown["fields"] and "s9" in unknown["message"]
    orphan = step(api, task, {"action": "x", "parent_step": "nope"}, status=404)
    assert "parent_step" in orphan["fields"]
    blank = step(api, task, {"action": ""}, status=400)
    assert "action" in blank["fields"]
    bad = step(api, task, {"action": "x", "outcome": "maybe"}, status=400)
    assert "outcome" in bad["fields"]
    numbered = step(api, task, {"action": "look at the logs"})
    assert numbered["step"]["key"] == "2"  # no name: its number
    with rls.tenant_scope(cast.tenant.pk):
        assert Step.objects.filter(tenant=cast.tenant).count() == 2


@pytest.mark.django_db
def test_a_task_that_succeeds_teaches_a_skill_and_one_that_fails_counts_against_it(
    cast: Cast,
) -> None:
    api = client(cast)
    task = open_task(api)
    for body in FIX:
        step(api, task, body)
    ended = api.patch(
        f"/api/v1/tasks/{task}",
        {"outcome": "success", "summary": "the import was renamed"},
        format="json",
    )
    assert ended.status_code == 200, ended.json()
    out = ended.json()
    assert out["task"]["state"] == "success" and out["learned"] == "create"
    skill = api.get(f"/api/v1/skills/{out['skill']}").json()["skill"]
    assert skill["successes"] == 1
    assert any("money_utils" in s or "{" in s for s in skill["steps"])
    assert any("test suite" in p for p in skill["pitfalls"])  # the failed first run
    twice = api.patch(f"/api/v1/tasks/{task}", {"outcome": "success"}, format="json")
    assert twice.status_code == 200 and twice.json()["learned"] == "seen"
    other_way = api.patch(f"/api/v1/tasks/{task}", {"outcome": "failure"}, format="json")
    assert other_way.status_code == 409
    late = step(api, task, {"action": "one more thing"}, status=409)
    assert "ended" in late["message"]
    # the same goal failing later counts against the skill
    again = open_task(api, key="fix-billing-2", goal="fix the billing tests")
    step(api, again, {"action": "run the test suite", "observation": "3 failures"})
    failed = api.patch(f"/api/v1/tasks/{again}", {"outcome": "failure"}, format="json").json()
    assert failed["learned"] == "failure" and failed["skill"] == out["skill"]
    assert api.get(f"/api/v1/skills/{out['skill']}").json()["skill"]["failures"] == 1
    with rls.tenant_scope(cast.tenant.pk):
        verbs = set(AuditEvent.objects.filter(tenant=cast.tenant).values_list("verb", flat=True))
    assert {"task.open", "task.step", "task.end"} <= verbs


@pytest.mark.django_db
def test_trace_walks_a_step_back_along_its_causes(cast: Cast) -> None:
    api = client(cast)
    task = open_task(api)
    ids = [step(api, task, body)["step"] for body in FIX]
    trace = api.get(f"/api/v1/trace/step/{ids[3]['id']}").json()
    assert trace["unit"] == f"step:{ids[3]['id']}"
    steps = [(n["id"], n["depth"], n["via"]) for n in trace["nodes"] if n["kind"] == "step"]
    assert [s[0] for s in steps] == [ids[2]["id"], ids[1]["id"], ids[0]["id"]]
    assert [s[1] for s in steps] == [1, 2, 3]
    assert steps[0][2] == "caused" and steps[2][2].startswith("caused (inferred")
    assert any(n["kind"] == "task" for n in trace["nodes"])
    assert "fix-billing" in trace["summary"] or trace["nodes"]
    engram = api.get(f"/api/v1/trace/engram/{ids[3]['engram']}").json()
    assert engram["nodes"][0]["kind"] == "step" and engram["nodes"][0]["id"] == ids[3]["id"]
    written = api.post(
        "/api/v1/remember",
        {"network": "ops", "engrams": [{"content": "a plain note"}]},
        format="json",
    ).json()
    plain = api.get(f"/api/v1/trace/engram/{written['engrams'][0]['id']}").json()
    assert plain["nodes"] == [] and "directly" in plain["summary"]
    assert api.get("/api/v1/trace/planet/1").status_code == 400
    assert api.get("/api/v1/trace/step/999999").status_code == 404


@pytest.mark.django_db
def test_another_workspace_sees_none_of_it(cast: Cast) -> None:
    api = client(cast)
    task = open_task(api)
    first = step(api, task, FIX[0])["step"]
    theirs = client(cast, other=True)
    assert theirs.get(f"/api/v1/tasks/{task}").status_code == 404
    assert theirs.post(f"/api/v1/tasks/{task}/steps", FIX[1], format="json").status_code == 404
    assert (
        theirs.patch(f"/api/v1/tasks/{task}", {"outcome": "success"}, format="json").status_code
        == 404
    )
    assert theirs.get(f"/api/v1/trace/step/{first['id']}").status_code == 404
    assert theirs.get("/api/v1/tasks").json()["tasks"] == []
    reader = client(cast, "read")
    assert reader.post(f"/api/v1/tasks/{task}/steps", FIX[1], format="json").status_code == 403
    assert reader.get(f"/api/v1/tasks/{task}").status_code == 200


@pytest.mark.django_db
def test_recall_scoped_to_a_task_brings_its_causal_chain_by_pareto_fronts(cast: Cast) -> None:
    api = client(cast)
    task = open_task(api)
    ids = [step(api, task, body)["step"] for body in FIX]
    noise = [{"content": f"ledger report {n} was mailed to finance"} for n in range(12)]
    api.post("/api/v1/remember", {"network": "ops", "engrams": noise}, format="json")
    ask = {"network": "ops", "query": "why import money_utils in ledger_sync", "record": False}
    scoped = api.post(
        "/api/v1/recall", {**ask, "task": "fix-billing", "objectives": True}, format="json"
    ).json()
    assert scoped["selection"] == "pareto" and scoped["task"] == "fix-billing"
    chain = {s["engram"] for s in ids}
    assert chain <= set(scoped["context_ids"])  # every step of the task at hand, even s4
    fronts = {e["id"]: e["why"]["front"] for e in scoped["engrams"]}
    assert all(fronts[i] is not None for i in chain)
    coherence = {e["id"]: e["why"]["parts"]["coherence"] for e in scoped["engrams"]}
    assert coherence[ids[3]["engram"]] == 1.0  # the latest step
    plotted = {o["id"]: o for o in scoped["objectives"]}
    assert chain <= set(plotted) and all(plotted[i]["chosen"] for i in chain)
    plain = api.post("/api/v1/recall", {**ask, "selection": "score"}, format="json").json()
    assert ids[3]["engram"] not in plain["context_ids"]  # no query word: only coherence finds it
    assert plain["engrams"][0]["why"]["front"] is None
    routed = api.post(
        "/api/v1/recall",
        {**ask, "query": "how did we fix the failing billing tests"},
        format="json",
    ).json()
    assert routed["intent"] == {
        "name": "debugging",
        "via": "rules",
        "confidence": routed["intent"]["confidence"],
    }
    assert routed["task"] == "fix-billing"  # debugging is about the work in progress
    forced = api.post("/api/v1/recall", {**ask, "intent": "astrology"}, format="json")
    assert forced.status_code == 404 and "intent" in forced.json()["error"]["fields"]
    unknown = api.post("/api/v1/recall", {**ask, "task": "nope"}, format="json")
    assert unknown.status_code == 404 and "task" in unknown.json()["error"]["fields"]


@pytest.mark.django_db
def test_prime_brings_the_open_tasks_and_their_latest_steps(cast: Cast) -> None:
    api = client(cast)
    task = task_with_steps(api, 3)
    primed = api.post("/api/v1/prime", {"network": "ops"}, format="json").json()
    assert [t["key"] for t in primed["open_tasks"]] == ["fix-billing"]
    assert primed["open_tasks"][0]["steps"] == 3 and len(primed["open_tasks"][0]["last"]) == 2
    assert "open task fix-billing" in primed["context"]
    assert "money_utils" in primed["context"]  # the latest step, as remembered
    assert primed["context_tokens"] <= 600
    api.patch(f"/api/v1/tasks/{task}", {"outcome": "success"}, format="json")
    after = api.post("/api/v1/prime", {"network": "ops"}, format="json").json()
    assert after["open_tasks"] == [] and "open task" not in after["context"]


@pytest.mark.django_db
def test_a_workspace_adds_an_intent_changes_a_default_and_resets_it(cast: Cast) -> None:
    admin = client(cast, "read", "write", "admin")
    listed = admin.get("/api/v1/intents").json()["intents"]
    assert [i["name"] for i in listed][:3] == ["fact", "temporal", "preference"]
    assert all(i["shipped"] for i in listed) and len(listed) == 8
    added = admin.put(
        "/api/v1/intents/contract",
        {"description": "contract terms", "keywords": ["indemnity", "clause"]},
        format="json",
    )
    assert added.status_code == 200 and added.json()["shipped"] is False
    note = {"network": "ops", "engrams": [{"content": "the indemnity clause caps at 1M"}]}
    assert admin.post("/api/v1/remember", note, format="json").status_code == 201
    ask = {"network": "ops", "query": "which indemnity clause applies", "record": False}
    routed = admin.post("/api/v1/recall", ask, format="json").json()["intent"]
    assert routed["name"] == "contract" and routed["via"] == "rules"
    off = admin.put("/api/v1/intents/planning", {"enabled": False}, format="json").json()
    assert off["enabled"] is False and off["shipped"] is True
    forced = admin.post("/api/v1/recall", {**ask, "intent": "planning"}, format="json")
    assert forced.status_code == 404  # disabled: not routed to, not forced either
    assert admin.delete("/api/v1/intents/planning").status_code == 204
    assert admin.delete("/api/v1/intents/planning").status_code == 404
    assert admin.put("/api/v1/intents/Bad-Name", {}, format="json").status_code == 400
    writer = client(cast)
    assert writer.put("/api/v1/intents/contract", {}, format="json").status_code == 403
    assert client(cast, other=True).get("/api/v1/intents").json()["intents"][-1]["name"] == "status"
    with rls.tenant_scope(cast.tenant.pk):
        verbs = set(AuditEvent.objects.filter(tenant=cast.tenant).values_list("verb", flat=True))
    assert {"intent.set", "intent.reset"} <= verbs


@pytest.mark.django_db
def test_the_guide_says_where_the_task_stands_from_its_dag(cast: Cast) -> None:
    api = client(cast)
    task = task_with_steps(api, 3)
    asked = {"network": "ops", "task": "finish the billing fix", "task_key": "fix-billing"}
    guide = api.post("/api/v1/guide", asked, format="json").json()
    work = [line for line in guide["lines"] if line["section"] == "work"]
    assert work, guide["guide"]
    assert "step s1 failed: run the test suite" in work[0]["text"]
    assert "not fixed yet" in work[0]["text"]
    assert "latest step s3" in work[-1]["text"]
    assert "Where the task stands" in guide["guide"] and guide["tokens"] <= 300
    step(api, task, FIX[3])  # the rerun passes: downstream of the failure, through s2 and s3
    again = api.post("/api/v1/guide", asked, format="json").json()
    fixed = next(line for line in again["lines"] if line["section"] == "work")
    assert "fixed by step s4: run the test suite again" in fixed["text"]
    assert "(after s2, s3)" in fixed["text"]
    missing = api.post("/api/v1/guide", {**asked, "task_key": "nope"}, format="json")
    assert missing.status_code == 404
    assert client(cast, other=True).post("/api/v1/guide", asked, format="json").status_code == 404
