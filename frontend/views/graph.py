"""Seeing the network: the graph around a cue (bounded neighbourhoods served as JSON, drawn by
Cytoscape.js), the memories of a cue, and the recall playground that shows a Mind — activated
cues on the graph, ranked memories with their score parts and why, the packed context."""

from __future__ import annotations

import re
from typing import Any

from django.http import HttpResponse, JsonResponse

from base.contracts import validated
from base.errors import MnemoError, ValidationFailed
from frontend.views.base import page, tenant_view
from frontend.views.memory import network_of, networks_of
from memory import selectors
from memory.contracts import RECALL_MODES, PrimeIn, RecallIn, present_mind
from memory.models import Network
from memory.services.intents import known_names
from memory.services.recall import RecallOptions, network_prime, network_recall
from tenants.requests import TenantRequest


@tenant_view()
def graph(request: TenantRequest, network: str) -> HttpResponse:
    net = network_of(request, network)
    start = None
    if _is_id(request.GET.get("cue", "")):
        start = selectors.cue_get(network=net, id=int(request.GET["cue"]))
    elif request.GET.get("word"):
        found = selectors.cue_find(network=net, q=request.GET["word"], limit=1)
        start = found[0] if found else None
    start = start or selectors.hub_cue(network=net)
    return page(
        request,
        "frontend/graph.html",
        {
            "network": net,
            "start": start,
            "depth": _depth(request),
            "networks": networks_of(request),
        },
    )


def _is_id(raw: str) -> bool:
    return re.fullmatch(r"[0-9]{1,18}", raw) is not None  # not str.isdigit: "²" is a digit


def _depth(request: TenantRequest) -> int:
    raw = request.GET.get("depth", "2")
    return int(raw) if raw in ("1", "2", "3", "4") else 2


@tenant_view()
def graph_data(request: TenantRequest, network: str) -> JsonResponse:
    """Nodes and edges around ``cue`` up to ``depth`` hops, at most 150 nodes."""
    net = network_of(request, network)
    raw = request.GET.get("cue", "")
    if not _is_id(raw):
        return JsonResponse(
            {"error": {"code": "validation_error", "message": "cue: an id"}}, status=400
        )
    cue = selectors.cue_get(network=net, id=int(raw))
    data = selectors.graph_neighbourhood(network=net, cue_id=cue.pk, depth=_depth(request))
    return JsonResponse({"center": cue.pk, **data})


@tenant_view()
def cue_search(request: TenantRequest, network: str) -> HttpResponse:
    net = network_of(request, network)
    q = request.GET.get("q", "").strip()[:100]
    cues = selectors.cue_find(network=net, q=q) if q else []
    return page(request, "frontend/partials/_cue_results.html", {"network": net, "cues": cues})


@tenant_view()
def cue_memories(request: TenantRequest, network: str, cue_id: int) -> HttpResponse:
    net = network_of(request, network)
    cue = selectors.cue_get(network=net, id=cue_id)
    return page(
        request,
        "frontend/partials/_cue_memories.html",
        {
            "network": net,
            "cue": cue,
            "engrams": selectors.cue_engrams(network=net, cue=cue),
        },
    )


@tenant_view()
def playground(request: TenantRequest, network: str) -> HttpResponse:
    """Try recall (or prime) without changing anything: access statistics are not counted and
    the prime is not carried into an agent's next recall."""
    net = network_of(request, network)
    form = {
        "query": "",
        "mode": "balanced",
        "k": "10",
        "token_budget": "1500",
        "what": "recall",
        "speaker": "",
        "task": "",
        "intent": "",
        "selection": "auto",
    }
    form.update({k: request.GET[k] for k in form if k in request.GET})
    context = {
        "network": net,
        "form": form,
        "modes": RECALL_MODES,
        "networks": networks_of(request),
        "intents": known_names(request.tenant.pk),
        "selections": ("auto", "pareto", "sum", "score"),
    }
    if request.GET.get("run"):
        try:
            context["mind"] = _run(request, net, form)
        except MnemoError as exc:
            context["error"] = exc
    partial = "frontend/partials/_mind.html" if request.GET.get("run") else None
    return page(request, "frontend/playground.html", context, partial=partial)


def _run(request: TenantRequest, net: Network, form: dict[str, str]) -> dict[str, Any]:
    """The Mind as the API would answer it (the same presenter), for the template."""
    tenant = request.tenant
    actor = request.actor
    fields: dict[str, Any] = {"token_budget": _whole(form["token_budget"], "token_budget")}
    if form["what"] == "prime":
        primed = validated(PrimeIn, fields)
        mind = network_prime(
            tenant=tenant,
            actor=actor,
            network_key=net.key,
            token_budget=primed.token_budget,
            source="dashboard",
            record=False,
        )
    else:
        fields |= {
            "query": form["query"] or None,
            "mode": form["mode"],
            "speaker": form["speaker"].strip() or None,
            "task": form["task"].strip() or None,
            "intent": form["intent"] or None,
            "selection": form["selection"],
            "objectives": True,
        }
        request_in = validated(RecallIn, fields | {"k": _whole(form["k"], "k")})
        mind = network_recall(
            tenant=tenant,
            actor=actor,
            network_key=net.key,
            query=request_in.query,
            options=RecallOptions.of(request_in, record=False, source="dashboard"),
        )
    return present_mind(mind).as_json()


def _whole(raw: str, name: str) -> int:
    try:
        return int(raw)
    except ValueError as exc:
        raise ValidationFailed.field(name, "a whole number") from exc
