"""The Knowledge section: paste a conversation (episodes), watch its extraction, see the facts
it gave by subject with each slot's timeline of values, a fact's evidence and chain, the
entities with their aliases (merge and split them), the skills with their run records (report
a run), and each episode with what was read from it."""

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
from memory.contracts.knowledge import (
    EntityMergeIn,
    EntitySplitIn,
    EpisodesIn,
    SkillOutcomeIn,
    present_job,
)
from memory.contracts.llm import LlmIn, present_llm
from memory.core.skills import PLACEHOLDER
from memory.models import Network
from memory.selectors import knowledge
from memory.services import llm as llm_service
from memory.services.entities import entity_merge, entity_split
from memory.services.episodes import episodes_ingest
from memory.services.llm import DayUse
from memory.services.skills import skill_outcome
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
            "skills": _skill_rows(request, network),
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
        {"job": present_job(job, job.network.key), "episodes": knowledge.episodes_of_job(job=job)},
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


# --- skills, entities, episodes ------------------------------------------------------------


def skill_bar(successes: int, failures: int) -> dict[str, Any]:
    """A run record as a two-colour bar: the share that worked and the share that failed."""
    runs = successes + failures
    won = round(100 * successes / runs) if runs else 0
    return {"runs": runs, "won": won, "lost": 100 - won if runs else 0}


def _skill_rows(request: TenantRequest, network: Network | None) -> list[dict[str, Any]]:
    if network is None:
        return []
    rows = knowledge.skills_for_tenant(tenant=request.tenant, network=network)[:30]
    return [{"skill": s, "bar": skill_bar(s.successes, s.failures)} for s in rows]


@tenant_view()
def skill_detail(request: TenantRequest, skill_id: int) -> HttpResponse:
    """A skill: its steps with their placeholders, what it needs, what failed on the way, how
    often it worked (report a run here), its versions, its parent and children, its runs."""
    skill = knowledge.skill_get_for_tenant(tenant=request.tenant, id=skill_id)
    error: MnemoError | None = None
    if request.method == "POST":
        if not can(request, Capability.MEMORY_EDIT):
            raise PermissionDenied("Viewers cannot report a skill's runs.")
        try:
            data = validated(
                SkillOutcomeIn,
                {"outcome": request.POST.get("outcome", ""), "note": request.POST.get("note", "")},
            )
            skill_outcome(actor=request.actor, skill=skill, outcome=data.outcome, note=data.note)
            messages.success(request, f"Counted a {data.outcome}.")
            return redirect("skill_detail", request.tenant.slug, skill.pk)
        except MnemoError as exc:
            error = exc
    parent = (
        knowledge.skill_get_for_tenant(tenant=request.tenant, id=skill.parent_id)
        if skill.parent_id
        else None
    )
    return page(
        request,
        "frontend/skill_detail.html",
        {
            "section": "knowledge",
            "skill": skill,
            "bar": skill_bar(skill.successes, skill.failures),
            "steps": [_marked(step) for step in skill.steps],
            "pitfalls": [_marked(pitfall) for pitfall in skill.pitfalls],
            "placeholders": sorted(skill.placeholders.items()),
            "versions": knowledge.skill_versions(skill=skill),
            "parent": parent,
            "children": knowledge.skill_children(skill=skill),
            "runs": knowledge.skill_evidence(skill=skill, limit=50),
            "can_tell": can(request, Capability.MEMORY_EDIT),
            "error": error,
        },
        status=error.status if error else 200,
    )


def _marked(step: str) -> list[tuple[str, bool]]:
    """A step's text in pieces, each saying whether it is a placeholder (drawn as a chip)."""
    pieces: list[tuple[str, bool]] = []
    at = 0
    for found in PLACEHOLDER.finditer(step):
        if found.start() > at:
            pieces.append((step[at : found.start()], False))
        pieces.append((found.group()[1:-1], True))
        at = found.end()
    if at < len(step):
        pieces.append((step[at:], False))
    return pieces


@tenant_view()
def entity_detail(request: TenantRequest, entity_id: int) -> HttpResponse:
    """An entity: its names, what is known about it, where it is named; people merge it into
    another or split written forms off it."""
    tenant = request.tenant
    entity = knowledge.entity_get_for_tenant(tenant=tenant, id=entity_id)
    if entity.merged_into_id:
        return redirect("entity_detail", tenant.slug, entity.merged_into_id)
    error: MnemoError | None = None
    if request.method == "POST":
        if not can(request, Capability.MEMORY_EDIT):
            raise PermissionDenied("Viewers cannot correct entities.")
        try:
            if request.POST.get("action") == "merge":
                into_id = request.POST.get("into", "")
                if not into_id.isdigit():
                    raise ValidationFailed.field("into", "choose the entity to merge into")
                data = validated(EntityMergeIn, {"into": int(into_id)})
                into = knowledge.entity_get_for_tenant(tenant=tenant, id=data.into)
                kept = entity_merge(actor=request.actor, entity=entity, into=into)
                messages.success(request, f"Merged “{entity.name}” into “{kept.name}”.")
                return redirect("entity_detail", tenant.slug, kept.pk)
            split = validated(
                EntitySplitIn,
                {
                    "aliases": request.POST.getlist("aliases"),
                    "name": request.POST.get("name") or None,
                },
            )
            new = entity_split(
                actor=request.actor, entity=entity, aliases=split.aliases, name=split.name
            )
            messages.success(request, f"“{new.name}” is an entity of its own now.")
            return redirect("entity_detail", tenant.slug, new.pk)
        except MnemoError as exc:
            error = exc
    aliases = sorted(
        a.alias for a in knowledge.aliases_of(tenant=tenant, entities=[entity])[entity.pk]
    )
    others = (
        knowledge.entities_for_tenant(tenant=tenant, network=entity.network)
        .exclude(pk=entity.pk)
        .order_by("name", "id")[:300]
    )
    return page(
        request,
        "frontend/entity_detail.html",
        {
            "section": "knowledge",
            "entity": entity,
            "aliases": aliases,
            "facts": knowledge.entity_facts(entity=entity),
            "mentions": knowledge.entity_mentions(entity=entity),
            "others": others,
            "can_edit": can(request, Capability.MEMORY_EDIT),
            "error": error,
        },
        status=error.status if error else 200,
    )


@tenant_view()
def episode_detail(request: TenantRequest, episode_id: int) -> HttpResponse:
    """An episode as it came in, and what was read from it: entities, facts, skills."""
    episode = knowledge.episode_get_for_tenant(tenant=request.tenant, id=episode_id)
    reading = knowledge.episode_reading(episode=episode)
    facts = [
        {"fact": fact, "quote": episode.content[e.start : e.end], "extractor": e.extractor}
        for e, fact in reading.facts
    ]
    return page(
        request,
        "frontend/episode_detail.html",
        {"section": "knowledge", "episode": episode, "reading": reading, "facts": facts},
    )
