"""The Knowledge section in a real Chromium with a real Celery worker: paste a conversation,
watch the job read it, see the facts by subject; a later message changes a fact, and the old
value stays, superseded, with the words it was read from."""

from __future__ import annotations

from pathlib import Path

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
