"""The demo workspace ``make run`` seeds, with the database: two roles' memories and a user
network, a conversation whose extraction supersedes a value, a task with a failure and its fix
that teaches a skill, and items waiting in the moderation queue — written through the public
services (so audited), once: a second run changes nothing, ``MNEMO_DEMO=0`` writes nothing, and
the dashboard's pages show it."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client

from audit.models import AuditEvent
from memory.models import Engram, Fact, ModerationItem, Network, Skill, Task
from memory.services.extraction import job_run
from tenants import rls
from tenants.models import Tenant, User


def counts(tenant: Tenant) -> dict[str, int]:
    with rls.tenant_scope(tenant.pk):
        return {
            "networks": Network.objects.filter(tenant=tenant).count(),
            "engrams": Engram.objects.filter(tenant=tenant).count(),
            "facts": Fact.objects.filter(tenant=tenant).count(),
            "tasks": Task.objects.filter(tenant=tenant).count(),
            "skills": Skill.objects.filter(tenant=tenant).count(),
            "pending": ModerationItem.objects.filter(tenant=tenant, state="pending").count(),
        }


@pytest.mark.django_db
def test_make_runs_demo_has_something_on_every_page_and_is_seeded_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tmp_path / "demo.json"
    call_command("demo_bootstrap", "--state", str(state), stdout=StringIO())
    monkeypatch.setenv("MNEMO_DEMO", "0")
    skipped = StringIO()
    call_command("demo_seed", "--state", str(state), stdout=skipped)
    tenant = Tenant.objects.get(slug="demo")
    assert "skipped" in skipped.getvalue() and counts(tenant)["engrams"] == 0
    monkeypatch.delenv("MNEMO_DEMO")
    said = StringIO()
    call_command("demo_seed", "--state", str(state), stdout=said)
    assert "items to moderate" in said.getvalue()
    assert json.loads(state.read_text())["seeded"] == 1
    with rls.tenant_scope(tenant.pk):
        job = int(said.getvalue().split("(job ")[1].split(")")[0])
        while job_run(tenant_id=tenant.pk, job_id=job) is not None:
            pass
        keys = set(Network.objects.filter(tenant=tenant).values_list("key", flat=True))
        lives = {
            f.object: f.status
            for f in Fact.objects.filter(tenant=tenant, subject_name="Maya", slot="lives_in")
        }
        task = Task.objects.get(tenant=tenant, key="nightly-vendor-import")
        pending = list(
            ModerationItem.objects.filter(tenant=tenant, state="pending").values_list(
                "kind", flat=True
            )
        )
        verbs = set(AuditEvent.objects.filter(tenant=tenant).values_list("verb", flat=True))
    assert {"role:code-reviewer", "role:product-manager", "user:maya", "team"} <= keys
    assert lives == {"Lisbon": "superseded", "Porto": "current"}
    assert task.state == "success" and task.skill_id is not None
    assert sorted(pending) == ["flag", "write", "write"], pending
    assert {"engram.create", "episodes.ingest", "task.open", "engram.flag"} <= verbs

    before = counts(tenant)
    state.write_text(json.dumps({**json.loads(state.read_text()), "seeded": 0}))
    call_command("demo_seed", "--state", str(state), stdout=StringIO())  # forced: idempotent
    assert counts(tenant) == before
    again = StringIO()
    call_command("demo_seed", "--state", str(state), stdout=again)
    assert "seeded before" in again.getvalue() and counts(tenant) == before

    client = Client()
    client.force_login(User.objects.get(email="demo@mnemo.local"))
    pages = {
        "/t/demo/memory/role:code-reviewer/": "two approvals",
        "/t/demo/knowledge/?network=team": "Porto",
        "/t/demo/tasks/": "nightly-vendor-import",
        "/t/demo/moderation/": "IGNORE ALL PREVIOUS",
    }
    for url, shown in pages.items():
        page = client.get(url)
        assert page.status_code == 200 and shown in page.content.decode(), url
