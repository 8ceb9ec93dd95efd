"""The Knowledge section: paste a conversation (episodes), watch its extraction, see the facts
it gave by subject with each slot's timeline of values, a fact's evidence and chain, and the
entities with their aliases."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect
from django.utils import timezone

from base.contracts import validated
from base.errors import MnemoError, PermissionDenied, ValidationFailed
from frontend.views.base import can, page, tenant_view
from memory import selectors
from memory.contracts.knowledge import EpisodesIn, present_job
from memory.contracts.llm import LlmIn, present_llm
from memory.models import Network
from memory.selectors import knowledge
from memory.services import llm as llm_service
from memory.services.episodes import episodes_ingest
from memory.services.llm import DayUse
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
            "can_llm": can(request, Capability.LLM_SETTINGS),
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


CHART_W, CHART_H = 600, 140


def usage_bars(days: list[DayUse]) -> dict[str, Any]:
    """The usage meter as SVG bars (tokens a day; failed calls and fallbacks marked), laid out
    here so the template only draws."""
    top = max((d.tokens for d in days), default=0) or 1
    step = CHART_W / max(1, len(days))
    bars = []
    for i, day in enumerate(days):
        height = round((CHART_H - 20) * day.tokens / top, 1)
        bars.append(
            {
                "x": round(i * step + 1, 1),
                "y": round(CHART_H - 14 - height, 1),
                "width": round(max(1.0, step - 2), 1),
                "height": height,
                "day": day,
                "warn": bool(day.failures or day.fallbacks),
            }
        )
    return {"bars": bars, "top": top, "width": CHART_W, "height": CHART_H, "axis": CHART_H - 14}


@tenant_view(Capability.LLM_SETTINGS)
def llm_settings(request: TenantRequest) -> HttpResponse:
    """The workspace's language model: provider, key (never shown again), daily budget, the
    circuit's state and the usage meter."""
    tenant = request.tenant
    error: MnemoError | None = None
    if request.method == "POST":
        post = request.POST
        try:
            if post.get("action") == "remove":
                llm_service.llm_remove(tenant=tenant, actor=request.actor)
                messages.success(request, "Language model removed; the rules read from now on.")
                return redirect("llm_settings", tenant.slug)
            tokens = post.get("daily_tokens", "").replace(",", "").strip()
            data = validated(
                LlmIn,
                {
                    "base_url": post.get("base_url", ""),
                    "model": post.get("model", ""),
                    "api_key": post.get("api_key") or None,
                    "daily_tokens": int(tokens) if re.fullmatch(r"[0-9]{1,9}", tokens) else tokens,
                    "enabled": post.get("enabled") == "on",
                },
            )
            llm_service.llm_configure(tenant=tenant, actor=request.actor, **data.model_dump())
            messages.success(request, "Saved. Extraction asks this model from its next batch.")
            return redirect("llm_settings", tenant.slug)
        except MnemoError as exc:
            error = exc
    config = llm_service.settings_of(tenant=tenant)
    days = llm_service.usage_by_day(tenant=tenant, days=30)
    shown = present_llm(config, spent_today=llm_service.spent_today(tenant.pk), now=timezone.now())
    return page(
        request,
        "frontend/llm_settings.html",
        {
            "section": "knowledge",
            "llm": shown,
            "form": request.POST if error else None,
            "error": error,
            "chart": usage_bars(days),
            "month_tokens": sum(d.tokens for d in days),
            "jobs": llm_service.usage_by_job(tenant=tenant, limit=10),
        },
        status=400 if error else 200,
    )
