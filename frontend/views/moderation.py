"""The moderation queue: pending items with the firewall's spans highlighted, an edit's diff,
the memory's neighbours; decisions one by one (buttons or the keyboard) or in bulk."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from base.contracts import validated
from base.errors import MnemoError
from base.pagination import page_of
from frontend.views.base import can, page, report, tenant_view
from memory import selectors
from memory.contracts import (
    DecideIn,
    ModerationFilters,
    PolicyIn,
    item_content,
    mask,
    masked,
)
from memory.models import ModerationItem, Network
from memory.services import moderation
from memory.services.review import item_decide, items_decide
from tenants.permissions import Capability
from tenants.requests import TenantRequest

PAGE_SIZE = 30
NEIGHBOURS_FOR = 20  # the first items of a page show their neighbours


@dataclass(frozen=True)
class Piece:
    """A run of a memory's text: plain, or a hit (a secret shown masked)."""

    text: str
    detector: str = ""
    family: str = ""
    confidence: float = 0.0


def pieces(content: str, hits: list[dict[str, Any]]) -> list[Piece]:
    out: list[Piece] = []
    cursor = 0
    secret = [(h["start"], h["end"]) for h in hits if h.get("family") == "secret"]
    hits = [
        {**h, "family": "secret"}
        if any(h["start"] < end and start < h["end"] for start, end in secret)
        else h
        for h in hits
    ]
    for hit in sorted(hits, key=lambda h: (h["start"], -h["end"])):
        start, end = max(hit["start"], cursor), min(hit["end"], len(content))
        if end <= start:
            continue
        out.append(Piece(content[cursor:start]))
        shown = content[start:end]
        if hit.get("family") == "secret":  # enough to recognise it, not enough to use it
            shown = mask(shown)
        out.append(Piece(shown, hit["detector"], hit["family"], hit.get("confidence", 0)))
        cursor = end
    out.append(Piece(content[cursor:]))
    return [p for p in out if p.text]


def queue_cards(
    tenant: Any, rows: list[ModerationItem], *, neighbours: int = 0
) -> list[dict[str, Any]]:
    """What the queue page shows of each item: its text in pieces (hits marked, secrets
    masked), the detectors, an edit's diff, the first items' neighbours."""
    cards = []
    for index, item in enumerate(rows):
        engram = item.engram
        cards.append(
            {
                "item": item,
                "pieces": pieces(item_content(item), item.hits) if engram else [],
                "detectors": sorted({h["detector"] for h in item.hits}),
                "diff": [
                    {
                        "field": k,
                        "before": masked(str(getattr(engram, k, ""))),
                        "after": masked(str(v), item.hits if k == "content" else None),
                    }
                    for k, v in item.proposed.items()
                ]
                if engram is not None and item.kind == ModerationItem.Kind.EDIT
                else [],
                "neighbours": selectors.engram_neighbours(tenant=tenant, engram=engram)
                if engram is not None and index < neighbours
                else [],
            }
        )
    return cards


@tenant_view(Capability.MEMORY_MODERATE)
def moderation_queue(request: TenantRequest) -> HttpResponse:
    tenant = request.tenant
    try:
        filters = validated(ModerationFilters, request.GET.dict())
    except MnemoError as exc:
        report(request, exc)
        filters = ModerationFilters()
    items = selectors.moderation_items_for_tenant(
        tenant=tenant, state=filters.state, kind=filters.kind
    )
    try:
        rows, next_cursor = page_of(items, cursor=filters.cursor, limit=PAGE_SIZE)
    except MnemoError:
        rows, next_cursor = page_of(items, limit=PAGE_SIZE)
    cards = queue_cards(tenant, rows, neighbours=NEIGHBOURS_FOR)
    policy = moderation.policy_of(tenant)
    context = {
        "policy": policy,
        "actions": moderation.effective_actions(policy.settings),
        "families": ["secret", "personal", "injection"],
        "action_choices": ["allow", "flag", "redact", "quarantine", "reject"],
        "networks": list(Network.objects.filter(tenant=tenant).order_by("key")),
        "can_set_policy": can(request, Capability.MODERATION_SETTINGS),
        "cards": cards,
        "filters": filters,
        "states": ["pending", "approved", "rejected", "redacted", "hidden", "restored", "any"],
        "next_cursor": next_cursor or "",
        "pending": selectors.pending_moderation_count(tenant=tenant),
    }
    return page(
        request, "frontend/moderation.html", context, partial="frontend/partials/_moderation.html"
    )


@require_POST
@tenant_view(Capability.MEMORY_MODERATE)
def moderation_decide(request: TenantRequest, item_id: int) -> HttpResponse:
    item = selectors.moderation_item_get_for_tenant(tenant=request.tenant, id=item_id)
    try:
        data = validated(
            DecideIn,
            {"action": request.POST.get("action", ""), "note": request.POST.get("note", "")},
        )
        item_decide(
            tenant=request.tenant,
            actor=request.actor,
            item=item,
            action=data.action,
            note=data.note,
        )
        messages.success(request, f"Item {item.pk}: {data.action} done.")
    except MnemoError as exc:
        report(request, exc)
    return redirect(_back(request))


@require_POST
@tenant_view(Capability.MEMORY_MODERATE)
def moderation_bulk(request: TenantRequest) -> HttpResponse:
    ids = [int(i) for i in request.POST.getlist("ids") if re.fullmatch(r"[0-9]{1,18}", i)][:500]
    action = request.POST.get("action", "")
    try:
        if not ids:
            messages.info(request, "Select items first.")
            return redirect(_back(request))
        items = [
            selectors.moderation_item_get_for_tenant(tenant=request.tenant, id=pk) for pk in ids
        ]
        decided = items_decide(
            tenant=request.tenant,
            actor=request.actor,
            items=items,
            action=action,
            note=request.POST.get("note", "")[:2000],
        )
        messages.success(request, f"{len(decided)} items: {action} done.")
    except MnemoError as exc:
        report(request, exc)
    return redirect(_back(request))


@require_POST
@tenant_view(Capability.MODERATION_SETTINGS)
def moderation_policy(request: TenantRequest) -> HttpResponse:
    post = request.POST
    changes: dict[str, Any] = {
        "write_policy": post.get("write_policy") or None,
        "agent_changes": post.get("agent_changes") or None,
        "firewall": {
            family: post[f"firewall_{family}"]
            for family in ("secret", "personal", "injection")
            if f"firewall_{family}" in post
        },
        "networks": {
            name.removeprefix("network_"): value
            for name, value in post.items()
            if name.startswith("network_")
        },
        "retention_days": {
            name.removeprefix("retention_"): _days(str(post.get(name, "")))
            for name in post
            if name.startswith("retention_")
        },
        "quarantine_days": _days(post.get("quarantine_days", "")) or None,
    }
    try:
        data = validated(PolicyIn, changes)
        moderation.policy_update(
            tenant=request.tenant, actor=request.actor, changes=data.model_dump(exclude_none=True)
        )
        messages.success(request, "Moderation policy saved; new writes follow it.")
    except MnemoError as exc:
        report(request, exc)
    return redirect("moderation", request.tenant.slug)


def _days(value: str) -> int | str:
    """A days field as sent: a number, 0 when empty (keep), the text when it is not a number
    (the contract names the field)."""
    value = value.strip()
    if not value:
        return 0
    return int(value) if re.fullmatch(r"[0-9]{1,6}", value) else value


def _back(request: TenantRequest) -> str:
    """The queue as the moderator was looking at it."""
    query = request.POST.get("query", "")
    base = f"/t/{request.tenant.slug}/moderation/"
    return base + (f"?{query}" if re.fullmatch(r"[\w=&%.+-]*", query) and query else "")
