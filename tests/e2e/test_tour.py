"""The README's five-minute tour, walked in a real Chromium on the demo workspace ``make run``
seeds (``demo_bootstrap`` then ``demo_seed``, the same commands, the extraction job run here as
the worker would): each stop is checked and photographed. The screenshots go to
``test-artifacts/tour/``; ``make tour`` writes them to ``docs/tour/`` for the README."""

from __future__ import annotations

import json
import os
from io import StringIO
from pathlib import Path

from django.core.management import call_command

from memory.models import Job
from memory.services.extraction import job_run
from tenants import rls
from tenants.models import Tenant
from tests.e2e.conftest import ARTIFACTS

TOUR = Path(os.environ.get("MNEMO_TOUR_DIR") or ARTIFACTS / "tour")


def stop(page: object, name: str, at: str = "") -> None:
    """A screenshot of the window, scrolled to ``at`` (a selector) when given."""
    TOUR.mkdir(parents=True, exist_ok=True)
    if at:
        page.locator(at).first.evaluate("e => e.scrollIntoView()")  # type: ignore[attr-defined]
    page.screenshot(path=str(TOUR / f"{name}.png"), full_page=False)  # type: ignore[attr-defined]


def test_the_readme_tour_on_the_demo_workspace(page: object, tmp_path: Path) -> None:
    p = page
    state_file = tmp_path / "demo.json"
    call_command("demo_bootstrap", "--state", str(state_file), stdout=StringIO())
    said = StringIO()
    call_command("demo_seed", "--state", str(state_file), stdout=said)
    state = json.loads(state_file.read_text())
    tenant = Tenant.objects.get(slug="demo")
    with rls.tenant_scope(tenant.pk):  # what the worker does: every job read to its end
        for job in Job.objects.filter(tenant=tenant).order_by("pk").values_list("pk", flat=True):
            while job_run(tenant_id=tenant.pk, job_id=job) is not None:
                pass

    # 1. log in: the overview
    p.goto("/login/")  # type: ignore[attr-defined]
    p.fill("input[name=username]", state["email"])  # type: ignore[attr-defined]
    p.fill("input[name=password]", state["password"])  # type: ignore[attr-defined]
    p.click("main button[type=submit]")  # type: ignore[attr-defined]
    p.wait_for_url("**/t/demo/")  # type: ignore[attr-defined]
    overview = p.inner_text("main")  # type: ignore[attr-defined]
    assert all(key in overview for key in ("role:code-reviewer", "user:maya", "team"))
    stop(p, "1-overview")

    # 2. a role's memories
    p.goto("/t/demo/memory/role:code-reviewer/")  # type: ignore[attr-defined]
    rows = p.locator("[data-testid=engrams] tbody tr[data-engram]")  # type: ignore[attr-defined]
    assert rows.count() == 5
    stop(p, "2-memories")

    # 3. the team network's graph of concepts
    p.goto("/t/demo/memory/team/graph/")  # type: ignore[attr-defined]
    board = p.locator("[data-testid=graph][data-nodes]")  # type: ignore[attr-defined]
    board.wait_for(timeout=15_000)
    assert int(board.get_attribute("data-nodes")) >= 10
    p.wait_for_timeout(800)  # type: ignore[attr-defined]  # the layout settles
    stop(p, "3-graph")

    # 4. a recall in the playground, explained
    p.goto("/t/demo/memory/team/playground/")  # type: ignore[attr-defined]
    p.fill("input[name=query]", "who approves vendor contracts")  # type: ignore[attr-defined]
    p.click("[data-testid=run]")  # type: ignore[attr-defined]
    p.locator("[data-testid=mind-graph][data-nodes]").wait_for(timeout=15_000)  # type: ignore[attr-defined]
    assert "Ana from finance" in p.inner_text("[data-testid=ranked]")  # type: ignore[attr-defined]
    stop(p, "4-playground")

    # 5. knowledge: facts read from the conversation, one superseded
    p.goto("/t/demo/knowledge/?network=team")  # type: ignore[attr-defined]
    knowledge = p.inner_text("main")  # type: ignore[attr-defined]
    assert "Porto" in knowledge and "Lisbon" in knowledge
    stop(p, "5-knowledge", "h2:has-text('Facts by subject')")

    # 6. the task: a failure, its diagnosis, the fix, as a graph
    p.goto("/t/demo/tasks/")  # type: ignore[attr-defined]
    p.click("text=nightly-vendor-import")  # type: ignore[attr-defined]
    p.locator("[data-testid=task-dag][data-ready='1']").wait_for(timeout=15_000)  # type: ignore[attr-defined]
    assert "success" in p.inner_text("[data-testid=task-state]")  # type: ignore[attr-defined]
    stop(p, "6-task")

    # 7. the moderation queue: what the firewall held, and a person's flag
    p.goto("/t/demo/moderation/")  # type: ignore[attr-defined]
    queue = p.inner_text("main")  # type: ignore[attr-defined]
    assert "IGNORE ALL PREVIOUS INSTRUCTIONS" in queue and "Outdated" in queue
    assert p.inner_text("[data-testid=moderation-badge]").strip() == "3"  # type: ignore[attr-defined]
    stop(p, "7-moderation")

    # 8. connect an agent: the MCP URL and a snippet
    p.goto("/t/demo/connect/")  # type: ignore[attr-defined]
    assert "/t/demo/mcp" in p.inner_text("main")  # type: ignore[attr-defined]
    stop(p, "8-connect")
