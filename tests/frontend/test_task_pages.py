"""The dashboard's task pages, with the database: the list (filters), a task's page with its
DAG data and steps, a step's page with causes, effects and trace, the trace view of a fact or
memory, bad input and another workspace's ids."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from audit.actors import Actor
from memory.contracts.work import StepIn
from memory.services.tasks import step_record, task_end, task_open
from tenants import rls
from tests.factories import Cast


def record(cast: Cast) -> tuple[int, list[int]]:
    actor = Actor.for_user(cast.member, role="member")
    with rls.tenant_scope(cast.tenant.pk):
        task, _ = task_open(
            tenant=cast.tenant, actor=actor, network_key="ops", key="fix-billing",
            goal="fix the billing tests",
        )  # fmt: skip
        steps = [
            StepIn(step="s1", action="run the test suite",
                   observation="ImportError in ledger_sync.py", outcome="failure"),
            StepIn(step="s2", action="read ledger_sync.py",
                   observation="decimal_utils was renamed to money_utils"),
            StepIn(step="s3", action="rename the import to money_utils", caused_by=["s2"],
                   outcome="success"),
        ]  # fmt: skip
        ids = [
            step_record(tenant=cast.tenant, actor=actor, task=task, item=s).step.pk for s in steps
        ]
        task_end(actor=actor, task=task, outcome="success")
    return task.pk, ids


@pytest.mark.django_db
def test_a_member_reads_the_tasks_a_dag_a_step_and_its_trace(cast: Cast, client: Client) -> None:
    task, steps = record(cast)
    client.force_login(cast.viewer)
    base = f"/t/{cast.tenant.slug}"
    listed = client.get(f"{base}/tasks/")
    assert listed.status_code == 200 and b"fix-billing" in listed.content
    assert b"success" in listed.content and b"skill #" in listed.content
    assert b"fix-billing" not in client.get(f"{base}/tasks/?state=open").content
    shown = client.get(f"{base}/tasks/{task}/")
    assert shown.status_code == 200
    html = shown.content.decode()
    data = json.loads(re.search(r'id="dag-data"[^>]*>(.*?)</script>', html, re.S).group(1))
    assert [n["key"] for n in data["nodes"]] == ["s1", "s2", "s3"]
    assert {(e["kind"]) for e in data["edges"]} == {"caused", "inferred"}
    assert data["nodes"][0]["outcome"] == "failure"
    step = client.get(f"{base}/tasks/steps/{steps[2]}/").content.decode()
    assert "rename the import to money_utils" in step
    assert "decimal_utils was renamed" in step  # its cause, and in the trace
    assert 'data-testid="trace"' in step and "caused" in step
    first = client.get(f"{base}/tasks/steps/{steps[0]}/").content.decode()
    assert "read ledger_sync.py" in first  # what it led to (inferred)
    traced = client.get(f"{base}/trace/step/{steps[2]}/")
    assert traced.status_code == 200 and b"fix-billing" in traced.content
    assert client.get(f"{base}/trace/planet/1/").status_code == 400
    assert client.get(f"{base}/trace/step/999999/").status_code == 404


@pytest.mark.django_db
def test_another_workspace_gets_404_for_these_pages(cast: Cast, client: Client) -> None:
    task, steps = record(cast)
    client.force_login(cast.outsider)
    theirs = f"/t/{cast.other.slug}"
    assert client.get(f"{theirs}/tasks/{task}/").status_code == 404
    assert client.get(f"{theirs}/tasks/steps/{steps[0]}/").status_code == 404
    assert client.get(f"{theirs}/trace/step/{steps[0]}/").status_code == 404
    assert b"fix-billing" not in client.get(f"{theirs}/tasks/").content
    assert client.get(f"/t/{cast.tenant.slug}/tasks/").status_code == 404


@pytest.mark.django_db
def test_the_intents_page_is_read_by_members_changed_by_admins_and_checks_what_it_is_sent(
    cast: Cast, client: Client
) -> None:
    base = f"/t/{cast.tenant.slug}/intents/"
    client.force_login(cast.member)
    shown = client.get(base, {"q": "when did we move the database to Postgres"})
    assert shown.status_code == 200 and b"temporal" in shown.content
    assert b'data-testid="intent-add"' not in shown.content
    assert b"by rules" in shown.content and b"score-won" in shown.content
    refused = client.post(base, {"action": "add", "name": "contract", "keywords": "clause"})
    assert refused.status_code == 403
    client.force_login(cast.admin)
    bad = client.post(base, {"action": "add", "name": "Bad Name!"})
    assert bad.status_code == 400 and b"name" in bad.content
    long = client.post(base, {"action": "add", "name": "legal", "keywords": "x" * 81})
    assert long.status_code == 400 and b"keywords" in long.content
    missing = client.post(base, {"action": "reset", "name": "contract"})
    assert missing.status_code == 404  # nothing of its own to reset
    added = client.post(
        base, {"action": "add", "name": "contract", "keywords": "clause\n\n indemnity \n"}
    )
    assert added.status_code == 302
    again = client.get(base, {"q": "which indemnity clause applies"})
    assert b"<code>clause</code> <code>indemnity</code>" in again.content
    assert b'<textarea name="keywords" rows="3">clause\nindemnity</textarea>' in again.content
    assert re.search(rb'data-testid="intent-routed-name">contract<', again.content)
    # a disabled default keeps the workspace's own text in its form (saving it back re-enables
    # it without restoring the shipped examples)
    changed = {"action": "save", "name": "planning", "description": "our planning",
               "examples": "what is next for us", "keywords": ""}  # fmt: skip
    assert client.post(base, changed).status_code == 302  # unticked: disabled
    form = client.get(base).content.decode()
    assert 'value="our planning"' in form and ">what is next for us</textarea>" in form
    clash = client.post(base, {"action": "add", "name": "planning", "description": "x"})
    assert clash.status_code == 400 and b'data-testid="intent-edit-planning" open' not in (
        clash.content
    )
    client.force_login(cast.outsider)
    assert client.get(base).status_code == 404
