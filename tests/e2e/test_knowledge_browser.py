"""The Knowledge section in a real Chromium with a real Celery worker: paste a conversation,
watch the job read it, see the facts by subject; a later message changes a fact, and the old
value stays, superseded, with the words it was read from; a skill learned from a task's steps,
a run reported from its page, and two entities merged from an entity's page."""

from __future__ import annotations

from pathlib import Path

from audit.actors import Actor
from memory.contracts.knowledge import EpisodesIn
from memory.services.episodes import episodes_ingest
from memory.services.extraction import job_run
from tenants import rls
from tests.e2e.conftest import shot
from tests.e2e.test_browser import log_in
from tests.factories import make_cast
from tests.scripted_llm import ORBIT, scripted_llm

FIRST = """[2024-01-10] Maya: I work at Acme Corp as a data engineer.
Leo: Nice! Maya's team uses Airflow, right?
Maya: Yes. I live in Lisbon and I'm allergic to peanuts."""
LATER = "[2024-03-02] Maya: Big news: I moved to Porto last week."


def test_a_member_pastes_a_conversation_and_sees_a_value_superseded_with_its_evidence(
    page: object, celery_worker: Path
) -> None:
    p = page
    cast = make_cast()
    log_in(p, cast.member.email)
    p.goto("/t/acme/knowledge/?network=team")  # type: ignore[attr-defined]
    assert p.locator("[data-testid=no-facts]").is_visible()  # type: ignore[attr-defined]
    p.fill("[data-testid=paste-form] textarea", "   ")  # type: ignore[attr-defined]
    p.click("[data-testid=paste-form] button[type=submit]")  # type: ignore[attr-defined]
    # the browser's own check stops a blank paste; a line too long is the server's to refuse
    p.fill("[data-testid=paste-form] textarea", "Maya: " + "x" * 17_000)  # type: ignore[attr-defined]
    p.click("[data-testid=paste-form] button[type=submit]")  # type: ignore[attr-defined]
    refused = p.locator("[data-testid=paste-error]")  # type: ignore[attr-defined]
    assert "content" in refused.inner_text() and "document" in refused.inner_text()
    shot(p, "knowledge-paste-refused")

    p.fill("[data-testid=paste-form] textarea", FIRST)  # type: ignore[attr-defined]
    shot(p, "knowledge-paste")
    p.click("[data-testid=paste-form] button[type=submit]")  # type: ignore[attr-defined]
    p.wait_for_url("**/knowledge/jobs/**")  # type: ignore[attr-defined]
    p.locator("[data-testid=knowledge-job][data-state=done]").wait_for(timeout=60_000)  # type: ignore[attr-defined]
    assert p.get_attribute("[data-testid=job-progress]", "value") == "100"  # type: ignore[attr-defined]
    assert "3 of 3 episodes read" in p.inner_text("[data-testid=knowledge-job]")  # type: ignore[attr-defined]
    shot(p, "knowledge-job-done")
    p.click("[data-testid=see-facts]")  # type: ignore[attr-defined]

    maya = p.locator("[data-testid=subject][data-subject=Maya]")  # type: ignore[attr-defined]
    works = maya.locator("[data-testid=slot][data-slot=works_at]")
    assert "Acme Corp" in works.inner_text()
    home = maya.locator("[data-testid=slot][data-slot=lives_in] [data-testid=value]")
    assert home.count() == 1 and "Lisbon" in home.first.inner_text()

    p.click("details.paste summary")  # type: ignore[attr-defined]  # folded once there are facts
    p.fill("[data-testid=paste-form] textarea", LATER)  # type: ignore[attr-defined]
    p.click("[data-testid=paste-form] button[type=submit]")  # type: ignore[attr-defined]
    p.locator("[data-testid=knowledge-job][data-state=done]").wait_for(timeout=60_000)  # type: ignore[attr-defined]
    p.click("[data-testid=see-facts]")  # type: ignore[attr-defined]
    values = p.locator(  # type: ignore[attr-defined]
        "[data-testid=subject][data-subject=Maya] [data-testid=slot][data-slot=lives_in] "
        "[data-testid=value]"
    )
    assert values.count() == 2
    assert values.nth(0).get_attribute("data-status") == "superseded"
    assert "Lisbon" in values.nth(0).inner_text() and "→ 2024-02-2" in values.nth(0).inner_text()
    assert values.nth(1).get_attribute("data-status") == "current"
    assert "Porto" in values.nth(1).inner_text()
    shot(p, "knowledge-facts")

    values.nth(0).locator("a").click()
    assert p.inner_text("[data-testid=fact-status]") == "superseded"  # type: ignore[attr-defined]
    assert "I live in Lisbon" in p.inner_text("[data-testid=evidence]")  # type: ignore[attr-defined]
    chain = p.locator("[data-testid=chain-value]")  # type: ignore[attr-defined]
    assert [chain.nth(i).get_attribute("data-status") for i in range(2)] == [
        "superseded",
        "current",
    ]
    shot(p, "knowledge-fact-superseded")
    p.locator("[data-testid=chain-value]", has_text="Porto").locator("a").click()  # type: ignore[attr-defined]
    assert p.inner_text("[data-testid=fact-status]") == "current"  # type: ignore[attr-defined]
    assert "I moved to Porto" in p.inner_text("[data-testid=evidence]")  # type: ignore[attr-defined]

    p.goto("/t/acme/knowledge/?network=team")  # type: ignore[attr-defined]
    entities = p.inner_text("[data-testid=entities]")  # type: ignore[attr-defined]
    assert "Maya" in entities and "Acme Corp" in entities


def test_an_admin_sets_a_language_model_and_sees_its_reading_and_the_meter(
    page: object, celery_worker: Path
) -> None:
    p = page
    cast = make_cast()
    log_in(p, cast.admin.email)
    with scripted_llm() as (url, script):
        script.answers = {"Orbit": ORBIT}
        p.goto("/t/acme/knowledge/")  # type: ignore[attr-defined]
        p.click("[data-testid=llm-link]")  # type: ignore[attr-defined]
        assert p.locator("[data-testid=llm-none]").is_visible()  # type: ignore[attr-defined]
        p.fill("[data-testid=llm-form] input[name=base_url]", "ftp://nowhere")  # type: ignore[attr-defined]
        p.fill("[data-testid=llm-form] input[name=model]", "scripted-1")  # type: ignore[attr-defined]
        p.fill("[data-testid=llm-form] input[name=api_key]", "sk-browser-secret-9876")  # type: ignore[attr-defined]
        p.click("[data-testid=llm-form] button[type=submit]")  # type: ignore[attr-defined]
        assert "http(s) URL" in p.inner_text("[data-testid=llm-error]")  # type: ignore[attr-defined]
        p.fill("[data-testid=llm-form] input[name=base_url]", url)  # type: ignore[attr-defined]
        p.fill("[data-testid=llm-form] input[name=api_key]", "sk-browser-secret-9876")  # type: ignore[attr-defined]
        p.click("[data-testid=llm-form] button[type=submit]")  # type: ignore[attr-defined]
        assert p.inner_text("[data-testid=llm-model]") == "scripted-1"  # type: ignore[attr-defined]
        assert "sk-browser-secret" not in p.content()  # type: ignore[attr-defined]
        assert "…9876" in p.inner_text("[data-testid=llm-state]")  # type: ignore[attr-defined]

        p.goto("/t/acme/knowledge/")  # type: ignore[attr-defined]
        p.fill("[data-testid=paste-form] textarea", "Nadia: I lead the Orbit project since spring.")  # type: ignore[attr-defined]
        p.click("[data-testid=paste-form] button[type=submit]")  # type: ignore[attr-defined]
        p.locator("[data-testid=knowledge-job][data-state=done]").wait_for(timeout=60_000)  # type: ignore[attr-defined]
        assert "llm/1:scripted-1, 120 tokens" in p.inner_text("[data-testid=job-extractor]")  # type: ignore[attr-defined]
        assert script.seen and script.seen[-1]["auth"] == "Bearer sk-browser-secret-9876"

        p.goto("/t/acme/knowledge/llm/")  # type: ignore[attr-defined]
        assert p.inner_text("[data-testid=llm-spent]") == "120"  # type: ignore[attr-defined]
        bars = p.locator("[data-testid=llm-usage-chart] rect")  # type: ignore[attr-defined]
        assert bars.count() == 30 and bars.last.get_attribute("data-tokens") == "120"
        assert p.locator("[data-testid=llm-jobs] tbody tr").count() == 1  # type: ignore[attr-defined]
        shot(p, "knowledge-llm-usage")


def test_a_member_reads_a_skill_reports_a_run_and_merges_two_entities(page: object) -> None:
    p = page
    cast = make_cast()
    steps = [
        ("Make sure the VPN is up", {}),
        ("log in to https://reports.acme.io/q3 with the team account", {}),
        ("export to /tmp/q3.csv", {"outcome": "failure", "observation": "permission denied"}),
        ("export to ~/out/q3.csv", {}),
        ("attach ~/out/q3.csv to ticket OPS-1234", {"task_outcome": "success"}),
    ]
    episodes = [
        {"kind": "step", "content": text,
         "metadata": {"task": "export-q3", "goal": "Export the Q3 report", **meta}}
        for text, meta in steps
    ] + [
        {"speaker": "Maya", "content": "I live in Lisbon."},
        {"speaker": "Leo", "content": "Maya Silva joined the data team."},
    ]  # fmt: skip
    with rls.tenant_scope(cast.tenant.pk):
        data = EpisodesIn.model_validate({"network": "ops", "episodes": episodes})
        done = episodes_ingest(
            tenant=cast.tenant, actor=Actor.system("test"), network_key="ops", items=data.episodes
        )
    job_run(tenant_id=cast.tenant.pk, job_id=done.job.pk)
    log_in(p, cast.member.email)
    p.goto("/t/acme/knowledge/?network=ops")  # type: ignore[attr-defined]
    row = p.locator("[data-testid=skill-row]")  # type: ignore[attr-defined]
    assert row.count() == 1 and "1 of 1" in row.inner_text()
    shot(p, "knowledge-skills")
    row.locator("a").click()
    assert p.inner_text("[data-testid=skill-title]").startswith("Export the Q3 report")  # type: ignore[attr-defined]
    chips = p.locator("[data-testid=skill-steps] .slot-chip")  # type: ignore[attr-defined]
    assert [chips.nth(i).inner_text() for i in range(chips.count())] == [
        "url",
        "path2",
        "path2",
        "ticket",
    ]
    assert "permission denied" in p.inner_text("[data-testid=skill-pitfalls]")  # type: ignore[attr-defined]
    assert "the VPN is up" in p.inner_text("[data-testid=skill-needs]")  # type: ignore[attr-defined]
    p.fill("[data-testid=skill-outcome] input[name=note]", "the VPN was down")  # type: ignore[attr-defined]
    p.click("[data-testid=skill-failed]")  # type: ignore[attr-defined]
    assert p.inner_text("[data-testid=skill-record]") == "worked 1 of 2 times"  # type: ignore[attr-defined]
    assert "the VPN was down" in p.inner_text("[data-testid=skill-runs]")  # type: ignore[attr-defined]
    bar = p.locator("[data-testid=skill-bar] .won")  # type: ignore[attr-defined]
    assert bar.get_attribute("style") == "width: 50%"
    shot(p, "knowledge-skill")
    # from a run to the episode it came from, and what was read from it
    p.locator("[data-testid=skill-runs] a", has_text="episode").first.click()  # type: ignore[attr-defined]
    assert "Make sure the VPN is up" in p.inner_text("[data-testid=episode-content]")  # type: ignore[attr-defined]
    assert "Export the Q3 report" in p.inner_text("[data-testid=episode-skills]")  # type: ignore[attr-defined]

    p.goto("/t/acme/knowledge/?network=ops")  # type: ignore[attr-defined]
    p.locator("[data-testid=entities] a", has_text="Maya Silva").click()  # type: ignore[attr-defined]
    p.select_option("[data-testid=merge-form] select", label="Maya (person)")  # type: ignore[attr-defined]
    p.click("[data-testid=merge]")  # type: ignore[attr-defined]
    assert p.inner_text("[data-testid=entity-title]").startswith("Maya")  # type: ignore[attr-defined]
    assert "Maya Silva" in p.inner_text("[data-testid=entity-aliases]")  # type: ignore[attr-defined]
    assert "Lisbon" in p.inner_text("[data-testid=entity-facts]")  # type: ignore[attr-defined]
    shot(p, "knowledge-entity-merged")
