"""Dashboard pages for the memory of work: tasks, a task's DAG drawn as a graph (steps,
causal links, outcome), a step's page, and the trace view of any unit — over the selectors
REST uses (``memory.selectors.work``)."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse

from base.contracts import validated
from frontend.views.base import page, tenant_view
from memory import selectors
from memory.contracts.work import TraceIn, present_trace
from memory.models import Step, StepLink, Task
from memory.selectors import work
from tenants.requests import TenantRequest

TASK_STATES = ("any", "open", "success", "failure")


@tenant_view()
def tasks_home(request: TenantRequest) -> HttpResponse:
    """Tasks agents worked on, most recent first, by network and state."""
    key = request.GET.get("network", "")
    state = request.GET.get("state", "any")
    state = state if state in TASK_STATES else "any"
    network = selectors.network_get_for_tenant(tenant=request.tenant, key=key) if key else None
    tasks = list(work.tasks_for_tenant(tenant=request.tenant, network=network, state=state)[:100])
    networks = selectors.networks_for_tenant(tenant=request.tenant)
    return page(
        request,
        "frontend/tasks.html",
        {
            "section": "tasks",
            "tasks": tasks,
            "networks": networks,
            "network_key": key,
            "state": state,
            "states": TASK_STATES,
        },
    )


def dag_data(steps: list[Step], links: list[StepLink]) -> dict[str, Any]:
    """The DAG as the page's script draws it: nodes (steps) and edges (causes, parents)."""
    nodes = [
        {
            "id": s.pk,
            "key": s.key,
            "label": f"{s.key}: {s.action[:60]}",
            "outcome": s.outcome or "none",
            "index": s.index,
        }
        for s in steps
    ]
    edges = [
        {"source": link.cause_id, "target": link.effect_id,
         "kind": "inferred" if link.inferred else "caused"}
        for link in links
    ]  # fmt: skip
    edges += [
        {"source": s.parent_id, "target": s.pk, "kind": "parent"} for s in steps if s.parent_id
    ]
    return {"nodes": nodes, "edges": edges}


@tenant_view()
def task_detail(request: TenantRequest, task_id: int) -> HttpResponse:
    """A task: its goal and outcome, its DAG drawn, its steps with their causes."""
    task = work.task_get_for_tenant(tenant=request.tenant, id=task_id)
    steps = work.task_steps(task=task)
    links = work.task_links(task=task)
    keys = {s.pk: s.key for s in steps}
    causes: dict[int, list[dict[str, Any]]] = {}
    for link in links:
        causes.setdefault(link.effect_id, []).append(
            {"key": keys.get(link.cause_id, "?"), "id": link.cause_id, "inferred": link.inferred,
             "reason": link.reason}
        )  # fmt: skip
    rows = [{"step": s, "causes": causes.get(s.pk, []), "parent": keys.get(s.parent_id or 0)}
            for s in steps]  # fmt: skip
    return page(
        request,
        "frontend/task_detail.html",
        {"section": "tasks", "task": task, "rows": rows, "dag": dag_data(steps, links),
         "failures": sum(1 for s in steps if s.outcome == Step.Outcome.FAILURE)},
    )  # fmt: skip


@tenant_view()
def step_detail(request: TenantRequest, step_id: int) -> HttpResponse:
    """A step: what was done and seen, what caused it and what it caused, and its trace."""
    step = work.step_get_for_tenant(tenant=request.tenant, id=step_id)
    task: Task = step.task
    steps = {s.pk: s for s in work.task_steps(task=task)}
    links = work.task_links(task=task)
    causes = [(steps[link.cause_id], link) for link in links if link.effect_id == step.pk]
    effects = [(steps[link.effect_id], link) for link in links if link.cause_id == step.pk]
    trace = present_trace(work.trace_of(tenant=request.tenant, kind="step", id=step.pk))
    return page(
        request,
        "frontend/step_detail.html",
        {"section": "tasks", "step": step, "task": task, "causes": causes, "effects": effects,
         "trace": trace, "parent": steps.get(step.parent_id or 0)},
    )  # fmt: skip


@tenant_view()
def trace_view(request: TenantRequest, kind: str, unit_id: int) -> HttpResponse:
    """How a fact, step, memory, skill or episode was obtained, nearest causes first."""
    data = validated(TraceIn, {"kind": kind, "id": unit_id})
    trace = present_trace(work.trace_of(tenant=request.tenant, kind=data.kind, id=data.id))
    return page(request, "frontend/trace.html", {"section": "tasks", "trace": trace})
