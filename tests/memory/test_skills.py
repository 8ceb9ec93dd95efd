"""Skills over REST, with the database: a successful task's steps become a skill (placeholders,
pitfalls from its failed step), the same procedure again counts a success, other steps make a
new version, a failed task counts against the skill it used, a redelivered job counts nothing
twice; PATTERN memories become skills (an edit revises); outcomes are reported once per task
and audited; recall and the guide bring the best skill; another tenant sees none of it."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from audit.models import AuditEvent
from memory.models import Engram, Job, Skill
from memory.services.extraction import job_run
from memory.services.skills import skills_from_patterns
from tenants import rls
from tests.conftest import bearer
from tests.factories import Cast, make_key


def client(cast: Cast, *scopes: str) -> APIClient:
    return bearer(APIClient(), make_key(cast.tenant, scopes=scopes)[1])


def steps(task: str, items: list[tuple[str, dict[str, Any]]], goal: str) -> list[dict[str, Any]]:
    out = []
    for i, (content, meta) in enumerate(items):
        meta = {"task": task, "goal": goal, **meta}
        out.append({"kind": "step", "content": content, "metadata": meta,
                    "occurred_at": f"2025-02-01T10:{i:02d}:00Z"})  # fmt: skip
    return out


def run_task(cast: Cast, api: APIClient, episodes: list[dict[str, Any]]) -> dict[str, Any]:
    answer = api.post("/api/v1/episodes", {"network": "ops", "episodes": episodes}, format="json")
    assert answer.status_code == 202, answer.json()
    job = job_run(tenant_id=cast.tenant.pk, job_id=answer.json()["job"]["id"])
    assert job is not None and job.state == Job.State.DONE, job and job.errors
    return api.get(f"/api/v1/jobs/{job.pk}").json()


EXPORT = [
    ("Make sure the VPN is up", {}),
    ("log in to https://reports.acme.io/q3 with the team account", {}),
    ("export to /tmp/q3.csv", {"outcome": "failure", "observation": "permission denied"}),
    ("export to ~/out/q3.csv", {}),
    ("attach ~/out/q3.csv to ticket OPS-1234", {"task_outcome": "success"}),
]


def skills(api: APIClient, **params: str) -> list[dict[str, Any]]:
    answer = api.get("/api/v1/skills", {"network": "ops", **params})
    assert answer.status_code == 200, answer.json()
    return answer.json()["skills"]


@pytest.mark.django_db
def test_a_successful_task_becomes_a_skill_that_versions_and_counts_its_runs(cast: Cast) -> None:
    agent = client(cast, "read", "write")
    job = run_task(cast, agent, steps("export-q3", EXPORT, "Export the Q3 report"))
    assert job["counts"]["skills"] == 1 and "1 skills learned" in job["message"]
    [skill] = skills(agent)
    assert skill["goal"] == "Export the Q3 report" and skill["source"] == "trajectory"
    assert skill["steps"] == [
        "log in to {url} with the team account",
        "export to {path2}",
        "attach {path2} to ticket {ticket}",
    ]
    assert skill["preconditions"] == ["the VPN is up"]
    assert skill["pitfalls"] == ["export to {path} (failed: permission denied)"]
    assert skill["placeholders"]["ticket"] == "OPS-1234"
    assert (skill["successes"], skill["failures"], skill["version"]) == (1, 0, 1)

    # the same procedure for another quarter: one more success, not a second skill
    again = [(c.replace("q3", "q4").replace("Q3", "Q4").replace("1234", "1301"), m)
             for c, m in EXPORT]  # fmt: skip
    run_task(cast, agent, steps("export-q4", again, "Export the Q3 report"))
    [skill] = skills(agent)
    assert (skill["successes"], skill["version"]) == (2, 1)

    # a redelivered job, read again from the start: nothing counted twice
    with rls.tenant_scope(cast.tenant.pk):
        last = Job.objects.filter(tenant=cast.tenant).order_by("-pk").first()
        assert last is not None
        Job.objects.filter(pk=last.pk).update(state="queued", counts={}, processed=0)
    job_run(tenant_id=cast.tenant.pk, job_id=last.pk)
    assert skills(agent)[0]["successes"] == 2

    # a failed run that says which skill it followed counts against it
    login = "log in to https://reports.acme.io/q1 with the team account"
    failed = [(login, {"skill": skill["id"]}),
              ("export to ~/out/q1.csv", {"outcome": "failure", "observation": "disk full",
                                          "task_outcome": "failure"})]  # fmt: skip
    run_task(cast, agent, steps("export-q1", failed, "Export the Q1 report"))
    [skill] = skills(agent)
    assert (skill["successes"], skill["failures"]) == (2, 1)
    assert "export to {path} (failed: disk full)" in skill["pitfalls"]

    # other steps for the same goal: version 2, the first kept as superseded
    better = [("log in to https://reports.acme.io/q3 with the team account", {}),
              ("run the export job for Q3", {}),
              ("download the file from the job page", {"task_outcome": "success"})]  # fmt: skip
    run_task(cast, agent, steps("export-q3-new", better, "Export the Q3 report"))
    [current] = skills(agent)
    assert current["version"] == 2 and current["previous"] == skill["id"]
    assert (current["successes"], current["failures"]) == (1, 0)
    assert current["pitfalls"][:2] == skill["pitfalls"][:2]  # what failed before still warns
    detail = agent.get(f"/api/v1/skills/{current['id']}").json()
    assert [v["version"] for v in detail["versions"]] == [1, 2]
    assert detail["versions"][0]["status"] == "superseded"
    assert detail["evidence"][0]["run"] == "task:export-q3-new"
    assert len(detail["evidence"][0]["episodes"]) == 3
    assert [s["id"] for s in skills(agent, status="any")] == [current["id"], skill["id"]]
    assert [s["id"] for s in skills(agent, q="download export")] == [current["id"]]


@pytest.mark.django_db
def test_outcomes_count_once_per_task_are_audited_and_need_a_write_key(cast: Cast) -> None:
    agent = client(cast, "read", "write")
    run_task(cast, agent, steps("export-q3", EXPORT, "Export the Q3 report"))
    skill_id = skills(agent)[0]["id"]
    url = f"/api/v1/skills/{skill_id}/outcome"
    told = agent.post(url, {"outcome": "failure", "note": "the VPN was down", "task": "t-9"},
                      format="json")  # fmt: skip
    assert told.status_code == 200, told.json()
    assert told.json()["counted"] is True and told.json()["skill"]["failures"] == 1
    twice = agent.post(url, {"outcome": "failure", "task": "t-9"}, format="json")
    assert twice.json()["counted"] is False and twice.json()["skill"]["failures"] == 1
    untracked = agent.post(url, {"outcome": "success"}, format="json").json()
    assert untracked["skill"]["successes"] == 2 and untracked["skill"]["success_rate"] == 0.667
    bad = agent.post(url, {"outcome": "maybe"}, format="json")
    assert bad.status_code == 400 and "outcome" in str(bad.json())
    reader = client(cast, "read")
    assert reader.post(url, {"outcome": "success"}, format="json").status_code == 403
    assert agent.post("/api/v1/skills/999999/outcome", {"outcome": "success"},
                      format="json").status_code == 404  # fmt: skip
    with rls.tenant_scope(cast.tenant.pk):
        notes = list(
            AuditEvent.objects.filter(tenant=cast.tenant, verb="skill.outcome").values_list(
                "after", flat=True
            )
        )
    assert len(notes) == 2 and notes[-1]["note"] == "the VPN was down"


@pytest.mark.django_db
def test_a_pattern_memory_becomes_a_skill_and_an_edit_revises_it(cast: Cast) -> None:
    agent = client(cast, "read", "write")
    written = {"content": "To rotate the api key: 1. create a new key 2. deploy it to "
                          "staging 3. revoke the old key", "type": "PATTERN"}  # fmt: skip
    answer = agent.post("/api/v1/remember", {"network": "ops", "engrams": [written]}, format="json")
    assert answer.status_code in (200, 201), answer.json()
    engram_id = answer.json()["engrams"][0]["id"]
    learn = {"tenant_id": cast.tenant.pk, "engram_ids": [engram_id]}
    with rls.tenant_scope(cast.tenant.pk):
        network_id = Engram.objects.get(pk=engram_id).network_id
    assert skills_from_patterns(network_id=network_id, **learn) == 1
    assert skills_from_patterns(network_id=network_id, **learn) == 0  # delivered twice
    [skill] = skills(agent)
    assert skill["goal"] == "rotate the api key" and skill["source"] == "pattern"
    assert skill["steps"][1] == "deploy it to staging"
    edited = "To rotate the api key: 1. create a new key 2. revoke the old key"
    assert agent.patch(f"/api/v1/engrams/{engram_id}", {"content": edited},
                       format="json").status_code == 200  # fmt: skip
    assert skills_from_patterns(network_id=network_id, **learn) == 1
    [revised] = skills(agent)
    assert revised["version"] == 2 and revised["steps"] == [
        "create a new key",
        "revoke the old key",
    ]
    # a memory that writes no procedure is no skill
    prose = {"content": "Maya prefers TypeScript", "type": "PATTERN"}
    other = agent.post("/api/v1/remember", {"network": "ops", "engrams": [prose]}, format="json")
    ids = [other.json()["engrams"][0]["id"]]
    assert (
        skills_from_patterns(tenant_id=cast.tenant.pk, network_id=network_id, engram_ids=ids) == 0
    )
    with rls.tenant_scope(cast.tenant.pk):
        assert AuditEvent.objects.filter(tenant=cast.tenant, verb="skill.revise").count() == 1


@pytest.mark.django_db
def test_recall_and_the_guide_bring_the_skill_that_worked(cast: Cast) -> None:
    agent = client(cast, "read", "write")
    run_task(cast, agent, steps("export-q3", EXPORT, "Export the Q3 report"))
    skill_id = skills(agent)[0]["id"]
    mind = agent.post("/api/v1/recall", {"network": "ops", "query": "how do I export the report"},
                      format="json").json()  # fmt: skip
    assert [s["id"] for s in mind["skills"]] == [skill_id]
    assert mind["context_skill_ids"] == [skill_id]
    assert f"[skill #{skill_id}] Export the Q3 report (v1, worked 1 of 1 times)" in mind["context"]
    unrelated = agent.post("/api/v1/recall", {"network": "ops", "query": "Maya's birthday"},
                           format="json").json()  # fmt: skip
    assert unrelated["skills"] == []
    guide = agent.post("/api/v1/guide", {"network": "ops", "task": "export the Q3 report"},
                       format="json").json()  # fmt: skip
    steps_line = next(line for line in guide["lines"] if line["section"] == "steps")
    assert steps_line["cites"] == [{"kind": "skill", "id": skill_id}]
    assert "attach {path2} to ticket {ticket}" in steps_line["text"]
    assert any("permission denied" in line["text"] for line in guide["lines"]
               if line["section"] == "warnings")  # fmt: skip
    assert guide["tokens"] <= 300
    # its memories hidden: the skill goes with them
    with rls.tenant_scope(cast.tenant.pk):
        Engram.objects.filter(tenant=cast.tenant, network__key="ops").update(status="hidden")
    mind = agent.post("/api/v1/recall", {"network": "ops", "query": "export the report"},
                      format="json").json()  # fmt: skip
    assert mind["skills"] == []


@pytest.mark.django_db
def test_another_tenants_skills_answer_404(cast: Cast) -> None:
    agent = client(cast, "read", "write")
    run_task(cast, agent, steps("export-q3", EXPORT, "Export the Q3 report"))
    skill_id = skills(agent)[0]["id"]
    outsider = bearer(APIClient(), make_key(cast.other, scopes=("read", "write", "admin"))[1])
    assert outsider.get(f"/api/v1/skills/{skill_id}").status_code == 404
    told = outsider.post(f"/api/v1/skills/{skill_id}/outcome", {"outcome": "failure"},
                         format="json")  # fmt: skip
    assert told.status_code == 404
    assert outsider.get("/api/v1/skills").json()["skills"] == []
    with rls.tenant_scope(cast.tenant.pk):
        assert Skill.objects.get(pk=skill_id).failures == 0


@pytest.mark.django_db
def test_a_task_named_by_a_number_is_one_task(cast: Cast) -> None:
    agent = client(cast, "read", "write")
    items = [
        {"kind": "step", "content": "run the migrations", "metadata": {"task": 42}},
        {"kind": "step", "content": "restart the workers",
         "metadata": {"task": 42, "task_outcome": "success", "goal": "Upgrade the database"}},
    ]  # fmt: skip
    run_task(cast, agent, items)
    [skill] = skills(agent)
    assert skill["steps"] == ["run the migrations", "restart the workers"]
    assert agent.get(f"/api/v1/skills/{skill['id']}").json()["evidence"][0]["run"] == "task:42"
