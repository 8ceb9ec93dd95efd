"""A task in a real Chromium: the list, the DAG drawn by Cytoscape (a node per step, an arrow
per cause, the failed step red), a click on a node opens the step with its causes and trace."""

from __future__ import annotations

from audit.actors import Actor
from audit.models import AuditEvent
from memory.contracts.work import StepIn
from memory.services.tasks import step_record, task_end, task_open
from tenants import rls
from tests.e2e.conftest import shot
from tests.e2e.test_browser import log_in
from tests.factories import make_cast

STEPS = [
    StepIn(step="s1", action="run the nightly import", outcome="failure",
           observation="UnicodeDecodeError in vendors.csv"),
    StepIn(step="s2", action="open vendors.csv in a hex viewer",
           observation="the file is latin-1"),
    StepIn(step="s3", action="set encoding to latin-1 in import.yaml", caused_by=["s2"]),
    StepIn(step="s4", action="rerun the nightly import", caused_by=["s3"], outcome="success",
           observation="9,340 vendors imported"),
]  # fmt: skip


def test_a_member_reads_a_task_as_a_graph_and_follows_a_step_to_its_causes(page: object) -> None:
    p = page
    cast = make_cast()
    actor = Actor.for_user(cast.member, role="member")
    with rls.tenant_scope(cast.tenant.pk):
        task, _ = task_open(
            tenant=cast.tenant, actor=actor, network_key="data", key="vendor-import",
            goal="import the vendor file",
        )  # fmt: skip
        for item in STEPS:
            step_record(tenant=cast.tenant, actor=actor, task=task, item=item)
        task_end(actor=actor, task=task, outcome="success", summary="latin-1 it was")
    log_in(p, cast.member.email)
    p.goto("/t/acme/tasks/")  # type: ignore[attr-defined]
    assert "vendor-import" in p.inner_text("[data-testid=tasks-table]")  # type: ignore[attr-defined]
    shot(p, "tasks-list")
    p.click("text=vendor-import")  # type: ignore[attr-defined]
    p.locator("[data-testid=task-dag][data-ready='1']").wait_for(timeout=15_000)  # type: ignore[attr-defined]
    counts = p.evaluate(  # type: ignore[attr-defined]
        "() => [mnemoDag.nodes().length, mnemoDag.edges().length,"
        " mnemoDag.getElementById(mnemoDag.nodes()[0].id()).data('colour')]"
    )
    assert counts[0] == 4 and counts[1] == 3  # s1→s2 inferred (vendors.csv), s2→s3, s3→s4
    assert counts[2] == "#c53030"  # the failed first run
    assert "success" in p.inner_text("[data-testid=task-state]")  # type: ignore[attr-defined]
    shot(p, "task-dag")
    node = p.evaluate(  # type: ignore[attr-defined]
        "() => { const n = mnemoDag.nodes().filter(n => n.data('index') === 3)[0];"
        " const b = n.renderedPosition(); const r = document.querySelector('[data-dag]')"
        ".getBoundingClientRect(); return [r.left + b.x, r.top + b.y]; }"
    )
    p.mouse.click(node[0], node[1])  # type: ignore[attr-defined]
    p.wait_for_url("**/tasks/steps/**")  # type: ignore[attr-defined]
    assert "set encoding to latin-1" in p.inner_text("[data-testid=step-action]")  # type: ignore[attr-defined]
    assert "open vendors.csv" in p.inner_text("[data-testid=step-causes]")  # type: ignore[attr-defined]
    trace = p.inner_text("[data-testid=trace]")  # type: ignore[attr-defined]
    assert "the file is latin-1" in trace and "UnicodeDecodeError" in trace
    shot(p, "task-step-trace")


def test_the_playground_draws_the_candidates_on_the_objectives(page: object) -> None:
    p = page
    cast = make_cast()
    actor = Actor.for_user(cast.member, role="member")
    with rls.tenant_scope(cast.tenant.pk):
        task, _ = task_open(
            tenant=cast.tenant, actor=actor, network_key="data", key="vendor-import"
        )
        for item in STEPS:
            step_record(tenant=cast.tenant, actor=actor, task=task, item=item)
    log_in(p, cast.member.email)
    p.goto("/t/acme/memory/data/playground/")  # type: ignore[attr-defined]
    p.fill("input[name=query]", "why latin-1 encoding")  # type: ignore[attr-defined]
    p.fill("[data-testid=task]", "vendor-import")  # type: ignore[attr-defined]
    p.click("[data-testid=run]")  # type: ignore[attr-defined]
    chart = p.locator("[data-testid=objectives][data-points]")  # type: ignore[attr-defined]
    chart.wait_for(timeout=15_000)
    assert int(chart.get_attribute("data-points")) >= 4  # every step of the task, at least
    assert int(chart.get_attribute("data-chosen")) >= 1
    assert "vendor-import" in p.inner_text("[data-testid=mind-task]")  # type: ignore[attr-defined]
    assert "front" in p.inner_text("[data-testid=ranked]")  # type: ignore[attr-defined]
    shot(p, "playground-pareto")


def test_an_admin_tries_a_query_adds_an_intent_and_disables_a_default(page: object) -> None:
    p = page
    cast = make_cast()
    log_in(p, cast.admin.email)
    p.goto("/t/acme/tasks/")  # type: ignore[attr-defined]
    p.click("[data-testid=intents-link]")  # type: ignore[attr-defined]
    p.wait_for_url("**/intents/")  # type: ignore[attr-defined]
    table = p.inner_text("[data-testid=intents-table]")  # type: ignore[attr-defined]
    assert "temporal" in table and "debugging" in table and "shipped" in table
    p.fill("[data-testid=intent-try] input[name=q]", "which indemnity clause applies")  # type: ignore[attr-defined]
    p.click("[data-testid=intent-try] button")  # type: ignore[attr-defined]
    before = p.inner_text("[data-testid=intent-routed-name]")  # type: ignore[attr-defined]
    assert before != "contract"
    # a new intent, routed by its keyword at once
    p.fill("[data-testid=intent-add] input[name=name]", "contract")  # type: ignore[attr-defined]
    p.fill("[data-testid=intent-add] input[name=description]", "contract terms")  # type: ignore[attr-defined]
    p.fill("[data-testid=intent-add] textarea[name=keywords]", "indemnity\nclause")  # type: ignore[attr-defined]
    p.click("[data-testid=intent-add] button")  # type: ignore[attr-defined]
    assert "Intent contract saved" in p.inner_text("main")  # type: ignore[attr-defined]
    p.fill("[data-testid=intent-try] input[name=q]", "which indemnity clause applies")  # type: ignore[attr-defined]
    p.click("[data-testid=intent-try] button")  # type: ignore[attr-defined]
    assert p.inner_text("[data-testid=intent-routed-name]") == "contract"  # type: ignore[attr-defined]
    assert "by rules" in p.inner_text("[data-testid=intent-routed-via]")  # type: ignore[attr-defined]
    bars = p.locator("[data-testid=intent-scores] .score-won")  # type: ignore[attr-defined]
    assert bars.count() == 1
    shot(p, "intents-try")
    # the same name again is refused, naming the field, and keeps what was typed
    p.fill("[data-testid=intent-add] input[name=name]", "contract")  # type: ignore[attr-defined]
    p.click("[data-testid=intent-add] button")  # type: ignore[attr-defined]
    assert "already has an intent" in p.inner_text("[data-testid=intent-error]")  # type: ignore[attr-defined]
    assert p.input_value("[data-testid=intent-add] input[name=name]") == "contract"  # type: ignore[attr-defined]
    # a default switched off, then reset to as shipped
    p.click("[data-testid=intent-edit-planning] summary")  # type: ignore[attr-defined]
    p.uncheck("[data-testid=intent-edit-planning] input[name=enabled]")  # type: ignore[attr-defined]
    p.click("[data-testid=intent-save-planning]")  # type: ignore[attr-defined]
    row = p.locator("tr[data-intent=planning]")  # type: ignore[attr-defined]
    assert row.locator("[data-testid=intent-disabled]").count() == 1
    assert "6 shipped rules" in row.inner_text()  # saving the form added no keywords
    p.click("[data-testid=intent-edit-planning] summary")  # type: ignore[attr-defined]
    examples = p.input_value("[data-testid=intent-edit-planning] textarea[name=examples]")  # type: ignore[attr-defined]
    assert len(examples.splitlines()) == 16 and "{" not in examples
    shot(p, "intents-vocabulary")
    p.click("[data-testid=intent-reset-planning]")  # type: ignore[attr-defined]
    assert row.locator("[data-testid=intent-disabled]").count() == 0
    with rls.tenant_scope(cast.tenant.pk):
        verbs = list(
            AuditEvent.objects.filter(tenant=cast.tenant, verb__startswith="intent.")
            .order_by("pk")
            .values_list("verb", "target_label")
        )
    assert verbs == [
        ("intent.set", "contract"), ("intent.set", "planning"), ("intent.reset", "planning")
    ]  # fmt: skip
    # a member reads the vocabulary and tries queries, but cannot change it
    p.context.clear_cookies()  # type: ignore[attr-defined]
    log_in(p, cast.member.email)
    p.goto("/t/acme/intents/")  # type: ignore[attr-defined]
    assert p.locator("[data-testid=intent-add]").count() == 0  # type: ignore[attr-defined]
    assert "contract" in p.inner_text("[data-testid=intents-table]")  # type: ignore[attr-defined]
