"""The Knowledge section: paste a conversation (episodes), watch its extraction, see the facts
it gave by subject with each slot's timeline of values, a fact's evidence and chain, and the
entities with their aliases."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

from django.http import HttpResponse
from django.shortcuts import redirect
from django.utils import timezone

from base.contracts import validated
from base.errors import MnemoError, PermissionDenied, ValidationFailed
from frontend.views.base import can, page, tenant_view
from memory import selectors
from memory.contracts.knowledge import EpisodesIn, present_job
from memory.models import Network
from memory.selectors import knowledge
from memory.services.episodes import episodes_ingest
from tenants.permissions import Capability
from tenants.requests import TenantRequest

# "[2024-03-02] Maya: I moved to Porto." — the date and the speaker are optional
LINE = re.compile(
    r"^\s*(?:\[?(?P<day>\d{4}-\d{2}-\d{2})\]?\s+)?(?:(?P<who>[^:\n]{1,60}):\s+)?(?P<said>.+)$"
)
MAX_LINES = 500


def conversation(text: str, now: datetime) -> list[dict[str, Any]]:
    """A pasted conversation as episodes, one per non-empty line, in order: a line's date
    holds for the lines after it (a minute apart); without any, the lines end now."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise ValidationFailed.field("conversation", "paste at least one line")
    if len(lines) > MAX_LINES:
        raise ValidationFailed.field("conversation", f"at most {MAX_LINES} lines at once")
    when = now - timedelta(minutes=len(lines))
    out = []
    for line in lines:
        found = LINE.match(line)
        assert found is not None  # the last group takes any non-empty line
        if found.group("day"):
            try:
                when = datetime.fromisoformat(found.group("day")).replace(hour=12, tzinfo=UTC)
            except ValueError:
                raise ValidationFailed.field(
                    "conversation", f"{found.group('day')} is no date (YYYY-MM-DD)"
                ) from None
        else:
            when += timedelta(minutes=1)
        episode: dict[str, Any] = {"content": found.group("said").strip(), "occurred_at": when}
        if found.group("who"):
            episode["speaker"] = found.group("who").strip()
        out.append(episode)
    return out


def _network(request: TenantRequest, key: str) -> Network | None:
    return selectors.network_find(tenant=request.tenant, key=key) if key else None


@tenant_view()
def knowledge_home(request: TenantRequest) -> HttpResponse:
    tenant = request.tenant
    key = (request.POST.get("network") or request.GET.get("network") or "default").strip()
    error: MnemoError | None = None
    text = ""
    if request.method == "POST":
        if not can(request, Capability.MEMORY_EDIT):
            raise PermissionDenied("Viewers cannot add to memory.")
        text = request.POST.get("conversation", "")
        try:
            data = validated(
                EpisodesIn,
                {"network": key, "episodes": conversation(text, timezone.now())},
            )
            done = episodes_ingest(
                tenant=tenant, actor=request.actor, network_key=key, items=data.episodes
            )
            return redirect("knowledge_job", tenant.slug, done.job.pk)
        except MnemoError as exc:
            error = exc
    network = _network(request, key)
    return page(
        request,
        "frontend/knowledge.html",
        {
            "network_key": key,
            "networks": selectors.networks_with_cached_counts(tenant=tenant),
            "subjects": knowledge.facts_by_subject(tenant=tenant, network=network)
            if network
            else [],
            "jobs": [
                present_job(job, key)
                for job in knowledge.jobs_for_network(tenant=tenant, network=network)
            ]
            if network
            else [],
            "entities": _entities(request, network),
            "can_add": can(request, Capability.MEMORY_EDIT),
            "conversation": text,
            "error": error,
        },
        status=error.status if error else 200,
    )


def _entities(request: TenantRequest, network: Network | None) -> list[dict[str, Any]]:
    if network is None:
        return []
    rows = list(
        knowledge.entities_for_tenant(tenant=request.tenant, network=network).order_by(
            "-mentions", "name"
        )[:40]
    )
    aliases = knowledge.aliases_of(tenant=request.tenant, entities=rows)
    return [
        {
            "entity": entity,
            "aliases": sorted({a.alias for a in aliases[entity.pk]} - {entity.name}),
        }
        for entity in rows
    ]


@tenant_view()
def knowledge_job(request: TenantRequest, job_id: int) -> HttpResponse:
    job = knowledge.job_get_for_tenant(tenant=request.tenant, id=job_id)
    return page(
        request,
        "frontend/knowledge_job.html",
        {"job": present_job(job, job.network.key)},
        partial="frontend/partials/_knowledge_job.html",
    )


@tenant_view()
def fact_detail(request: TenantRequest, fact_id: int) -> HttpResponse:
    fact = knowledge.fact_get_for_tenant(tenant=request.tenant, id=fact_id)
    evidence = knowledge.fact_evidence(fact=fact)
    return page(
        request,
        "frontend/fact_detail.html",
        {
            "fact": fact,
            "chain": knowledge.fact_chain(fact=fact),
            "evidence": [
                {
                    "row": e,
                    "quote": e.episode.content[e.start : e.end] if e.episode else "",
                    "said": e.episode.content if e.episode else "",
                }
                for e in evidence
            ],
        },
    )
