"""The Knowledge pages through Django's test client: skills with their run records (a member
reports a run, a viewer cannot), an entity's page with merge and split, an episode with what
was read from it and back — and another workspace's objects answer 404."""

from __future__ import annotations

from typing import Any

import pytest

from audit.actors import Actor
from memory.contracts.knowledge import EpisodesIn
from memory.models import Entity, Episode, Skill
from memory.services.episodes import episodes_ingest
from memory.services.extraction import job_run
from tenants import rls
from tests.factories import Cast
from tests.frontend.test_dashboard import logged_in

pytestmark = pytest.mark.django_db
BASE = "/t/acme/knowledge"

TASK = [
    ("log in to https://reports.acme.io/q3 with the team account", {}),
    ("export to /tmp/q3.csv", {"outcome": "failure", "observation": "permission denied"}),
    ("export to ~/out/q3.csv", {}),
    ("attach ~/out/q3.csv to ticket OPS-1234", {"task_outcome": "success"}),
]
TALK = [
    {"speaker": "Maya", "content": "I live in Lisbon.", "occurred_at": "2024-01-10T09:00:00Z"},
    {"speaker": "Leo", "content": "Maya Silva and Maya's team use Airflow."},
]


def ingest(cast: Cast, episodes: list[dict[str, Any]]) -> None:
    with rls.tenant_scope(cast.tenant.pk):
        data = EpisodesIn.model_validate({"network": "ops", "episodes": episodes})
        done = episodes_ingest(
            tenant=cast.tenant, actor=Actor.system("test"), network_key="ops", items=data.episodes
        )
    job_run(tenant_id=cast.tenant.pk, job_id=done.job.pk)


def task_episodes() -> list[dict[str, Any]]:
    return [
        {
            "kind": "step",
            "content": content,
            "metadata": {"task": "export-q3", "goal": "Export the Q3 report", **meta},
        }
        for content, meta in TASK
    ]


def test_a_skill_shows_its_steps_and_record_and_a_member_reports_a_run(cast: Cast) -> None:
    ingest(cast, task_episodes())
    with rls.tenant_scope(cast.tenant.pk):
        skill = Skill.objects.get(tenant=cast.tenant)
    viewer = logged_in(cast.viewer)
    home = viewer.get(f"{BASE}/?network=ops").content.decode()
    assert 'data-testid="skill-row"' in home and "Export the Q3 report" in home
    page = viewer.get(f"{BASE}/skills/{skill.pk}/").content.decode()
    assert '<span class="slot-chip"' in page and ">path2</span>" in page
    assert "worked 1 of 1 time" in page and "permission denied" in page
    assert 'data-testid="skill-outcome"' not in page  # a viewer only looks
    refused = viewer.post(f"{BASE}/skills/{skill.pk}/", {"outcome": "failure"})
    assert refused.status_code == 403
    member = logged_in(cast.member)
    told = member.post(f"{BASE}/skills/{skill.pk}/", {"outcome": "failure", "note": "VPN down"})
    assert told.status_code == 302
    page = member.get(f"{BASE}/skills/{skill.pk}/").content.decode()
    assert "worked 1 of 2 times" in page and "VPN down" in page
    bad = member.post(f"{BASE}/skills/{skill.pk}/", {"outcome": "maybe"})
    assert bad.status_code == 400 and "outcome" in bad.content.decode()
    # the episodes it was learned from, and back
    with rls.tenant_scope(cast.tenant.pk):
        step = Episode.objects.filter(tenant=cast.tenant, kind="step").order_by("pk").first()
        assert step is not None
    episode = viewer.get(f"{BASE}/episodes/{step.pk}/").content.decode()
    assert f"/knowledge/skills/{skill.pk}/" in episode and "task <code>export-q3</code>" in episode
    assert f"/knowledge/episodes/{step.pk}/" in page


def test_an_entity_page_merges_and_splits_and_an_episode_shows_its_facts(cast: Cast) -> None:
    ingest(cast, TALK)
    with rls.tenant_scope(cast.tenant.pk):
        maya = Entity.objects.get(tenant=cast.tenant, name="Maya")
        silva = Entity.objects.get(tenant=cast.tenant, name="Maya Silva")
        said = Episode.objects.filter(tenant=cast.tenant).order_by("pk").first()
        assert said is not None
    member = logged_in(cast.member)
    page = member.get(f"{BASE}/entities/{silva.pk}/").content.decode()
    assert 'data-testid="merge-form"' in page and f'value="{maya.pk}"' in page
    merged = member.post(f"{BASE}/entities/{silva.pk}/", {"action": "merge", "into": maya.pk})
    assert merged.status_code == 302 and merged["Location"].endswith(f"/entities/{maya.pk}/")
    page = member.get(f"{BASE}/entities/{maya.pk}/").content.decode()
    assert "Maya Silva" in page and "lives in" in page.replace("_", " ")
    # the merged one's address leads to the survivor
    assert member.get(f"{BASE}/entities/{silva.pk}/")["Location"].endswith(f"/{maya.pk}/")
    nothing = member.post(f"{BASE}/entities/{maya.pk}/", {"action": "merge", "into": ""})
    assert nothing.status_code == 400
    split = member.post(
        f"{BASE}/entities/{maya.pk}/",
        {"action": "split", "aliases": ["Maya Silva"], "name": "Maya Silva"},
    )
    assert split.status_code == 302
    with rls.tenant_scope(cast.tenant.pk):
        assert Entity.objects.filter(
            tenant=cast.tenant, name="Maya Silva", merged_into__isnull=True
        ).exists()
    viewer = logged_in(cast.viewer)
    assert viewer.post(f"{BASE}/entities/{maya.pk}/", {"action": "merge"}).status_code == 403
    episode = viewer.get(f"{BASE}/episodes/{said.pk}/").content.decode()
    assert "Lisbon" in episode and "/knowledge/facts/" in episode
    assert f"/knowledge/entities/{maya.pk}/" in episode


def test_another_workspaces_knowledge_pages_answer_404(cast: Cast) -> None:
    ingest(cast, task_episodes() + TALK)
    with rls.tenant_scope(cast.tenant.pk):
        skill = Skill.objects.get(tenant=cast.tenant)
        entity = Entity.objects.filter(tenant=cast.tenant).first()
        episode = Episode.objects.filter(tenant=cast.tenant).first()
        assert entity is not None and episode is not None
    outsider = logged_in(cast.outsider)
    for url in (f"skills/{skill.pk}/", f"entities/{entity.pk}/", f"episodes/{episode.pk}/"):
        assert outsider.get(f"/t/globex/knowledge/{url}").status_code == 404, url
        assert outsider.get(f"{BASE}/{url}").status_code == 404, url
    told = outsider.post(f"/t/globex/knowledge/skills/{skill.pk}/", {"outcome": "failure"})
    assert told.status_code == 404
