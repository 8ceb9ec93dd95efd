"""Dashboard pages for the memory of work: tasks, a task's DAG drawn as a graph (steps,
causal links, outcome), a step's page, the trace view of any unit — over the selectors REST
uses (``memory.selectors.work``) — and the workspace's intents: the vocabulary queries are
routed by, edited by admins through the services REST uses, with a query tried on it."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect

from base.contracts import validated
from base.errors import MnemoError, PermissionDenied, ValidationFailed
from frontend.views.base import can, page, tenant_view
from memory import selectors
from memory.contracts.work import (
    IntentIn,
    IntentNameIn,
    TraceIn,
    VocabularyIntentOut,
    present_intent,
    present_trace,
)
from memory.models import Step, StepLink, Task
from memory.selectors import work
from memory.services import intents as intent_service
from tenants.permissions import Capability
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


# --- intents -------------------------------------------------------------------------------


SCALES = {
    "rules": "the rules' points",
    "prototype": "the cosines to each intent's nearest examples",
    "llm": "the language model's answer and how sure it is",
    "none": "the rules' points or, when no rule matched, the cosines to the nearest examples",
}


def _lines(text: str) -> list[str]:
    """A textarea's non-empty lines, trimmed (keywords and examples are one per line)."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def _intent_save(request: TenantRequest) -> str:
    """Add or change the intent the form names; the message to show."""
    post = request.POST
    raw = post.get("name", "").strip().lower()
    name = validated(IntentNameIn, {"name": raw}).name
    known = {d.name for d, _, _ in intent_service.intents_listed(tenant=request.tenant)}
    if post.get("action") == "add" and name in known:
        raise ValidationFailed.field("name", f"the workspace already has an intent {name!r}")
    data = validated(
        IntentIn,
        {
            "description": post.get("description", "").strip(),
            "keywords": _lines(post.get("keywords", "")),
            "examples": _lines(post.get("examples", "")),
            "enabled": post.get("action") == "add" or post.get("enabled") == "on",
        },
    )
    intent_service.intent_set(
        tenant=request.tenant, actor=request.actor, name=name, **data.model_dump()
    )
    return f"Intent {name} saved; queries are routed by it from now on."


def _shown(intent: VocabularyIntentOut) -> dict[str, Any]:
    """An intent as its row and edit form show it (keywords and examples one per line)."""
    return {
        **intent.model_dump(),
        "keywords_text": "\n".join(intent.keywords),
        "examples_text": "\n".join(intent.examples),
    }


def _tried(request: TenantRequest, query: str) -> dict[str, Any] | None:
    """How ``query`` is routed now, with the scores the deciding stage saw as bars."""
    if not query:
        return None
    routed = intent_service.route(tenant_id=request.tenant.pk, query=query[:500])
    top = max((abs(score) for _, score in routed.scores), default=0.0) or 1.0
    bars = [
        {"name": name, "score": score, "width": round(100 * max(score, 0.0) / top)}
        for name, score in routed.scores[:8]
    ]
    scale = SCALES.get(routed.via, SCALES["none"])
    return {"query": query, "routed": routed, "bars": bars, "scale": scale}


@tenant_view()
def intents_page(request: TenantRequest) -> HttpResponse:
    """The intents queries are routed to: each one's description, keywords, examples and what it
    changes in recall; admins add one, change or disable a default, or reset it; anyone tries a
    query to see where it goes."""
    editable = can(request, Capability.INTENTS_EDIT)
    error: MnemoError | None = None
    failed_name = ""
    if request.method == "POST":
        if not editable:
            raise PermissionDenied("Only admins and owners change the intents.")
        try:
            if request.POST.get("action") == "reset":
                name = validated(IntentNameIn, {"name": request.POST.get("name", "")}).name
                intent_service.intent_reset(tenant=request.tenant, actor=request.actor, name=name)
                messages.success(request, f"Intent {name} reset.")
            else:
                messages.success(request, _intent_save(request))
            return redirect("intents", request.tenant.slug)
        except MnemoError as exc:
            error = exc
            if request.POST.get("action") == "save":  # a failed add opens no other form
                failed_name = request.POST.get("name", "")
    listed = [
        _shown(present_intent(*item))
        for item in intent_service.intents_listed(tenant=request.tenant)
    ]
    return page(
        request,
        "frontend/intents.html",
        {
            "section": "intents",
            "intents": listed,
            "editable": editable,
            "error": error,
            "failed_name": failed_name,
            "form": request.POST if error else None,
            "tried": _tried(request, request.GET.get("q", "").strip()),
        },
        status=error.status if error else 200,
    )
