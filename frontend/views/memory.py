"""The memory browser: find memories (full text or by meaning), filter, sort, page through
100k of them; look inside one (cues, edges, embedding, history), fix it inline, delete it; act
on many at once; export a network and import one with a progress bar."""

from __future__ import annotations

import itertools
import re
from collections.abc import AsyncIterator, Iterator
from datetime import date
from typing import Any

from asgiref.sync import sync_to_async
from django.contrib import messages
from django.core.cache import cache
from django.http import HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from audit.sealing import unseal
from base.contracts import validated
from base.errors import MnemoError, PermissionDenied, ValidationFailed
from frontend.views.base import can, page, report, tenant_view
from memory import selectors
from memory.contracts import EngramPatch, checked_network_key
from memory.models import Engram, ImportJob, Network
from memory.selectors import Browse, CountedNetwork
from memory.services.engrams import engram_change, engrams_bulk
from memory.services.engrams import engram_remove as remove
from memory.services.transfer import export_lines, import_start
from tenants.permissions import Capability
from tenants.requests import TenantRequest

PAGE_SIZE = 50
SOURCES = ("api", "mcp", "dashboard", "import")


def network_of(request: TenantRequest, key: str) -> Network:
    """The tenant's network ``key``: another tenant's (or none) is a 404."""
    return selectors.network_get_for_tenant(
        tenant=request.tenant,
        key=checked_network_key(key),
    )


def networks_of(request: TenantRequest) -> list[CountedNetwork]:
    return selectors.networks_with_cached_counts(tenant=request.tenant)


def counted(request: TenantRequest, key: str) -> CountedNetwork:
    """The network ``key`` with its (cached) counts; 404 if the tenant has none by that key."""
    key = checked_network_key(key)
    for attempt in (1, 2):
        for network in networks_of(request):
            if network.key == key:
                return network
        if attempt == 1:  # perhaps created since the counts were cached
            cache.delete(selectors.counts_key(request.tenant.pk))
    return selectors.network_with_counts(tenant=request.tenant, key=key)  # or the 404


@tenant_view()
def memory_home(request: TenantRequest) -> HttpResponse:
    """Straight to the busiest network's memories; an empty workspace gets directions."""
    networks = networks_of(request)
    if networks:
        busiest = max(networks, key=lambda n: (n.engram_count, n.key == "default"))
        return redirect("memory_browse", request.tenant.slug, busiest.key)
    return page(
        request,
        "frontend/memory_empty.html",
        {
            "can_import": can(request, Capability.MEMORY_IMPORT),
        },
    )


def _date(raw: str, name: str) -> date | None:
    if not raw:
        return None
    try:
        return date.fromisoformat(raw)
    except ValueError as exc:
        raise ValidationFailed.field(name, "a date like 2026-12-31") from exc


def _browse(request: TenantRequest) -> Browse:
    get = request.GET
    kind = get.get("type", "").upper()
    status = get.get("status", Engram.Status.ACTIVE)
    strength = get.get("min_strength", "")
    try:
        min_strength = float(strength) if strength else None
    except ValueError as exc:
        raise ValidationFailed.field("min_strength", "a number from 0 to 1") from exc
    return Browse(
        q=get.get("q", "").strip()[:500],
        semantic=get.get("how") == "meaning",
        type=kind if kind in Engram.Type.values else "",
        status="" if status == "any" else (status if status in Engram.Status.values else "active"),
        source=get.get("source", "") if get.get("source", "") in SOURCES else "",
        since=_date(get.get("since", ""), "since"),
        until=_date(get.get("until", ""), "until"),
        min_strength=min_strength,
        sort=get.get("sort", "newest") if get.get("sort") in selectors.BROWSE_SORTS else "newest",
    )


@tenant_view()
def memory_browse(request: TenantRequest, network: str) -> HttpResponse:
    net = counted(request, network)
    error = None
    try:
        browse = _browse(request)
        rows, cursor = selectors.engrams_browse(
            tenant=request.tenant,
            network=net,
            browse=browse,
            cursor=request.GET.get("cursor", ""),
            limit=PAGE_SIZE,
        )
    except MnemoError as exc:
        error, browse, rows, cursor = exc, Browse(), [], None
    query = request.GET.copy()
    query.pop("cursor", None)
    context = {
        "network": net,
        "networks": networks_of(request),
        "rows": rows,
        "next_cursor": cursor,
        "browse": browse,
        "filters": request.GET,
        "query": query.urlencode(),
        "error": error,
        "types": Engram.Type.choices,
        "statuses": Engram.Status.choices,
        "sources": SOURCES,
        "sorts": list(selectors.BROWSE_SORTS),
        "can_edit": can(request, Capability.MEMORY_EDIT),
        "can_delete": can(request, Capability.MEMORY_DELETE),
        "more": bool(request.GET.get("cursor")),
    }
    partial = "frontend/partials/_engram_rows.html" if request.GET.get("cursor") else None
    return page(request, "frontend/memory_browse.html", context, partial=partial)


@tenant_view()
def network_counts(request: TenantRequest, network: str) -> HttpResponse:
    """The counts strip, refreshed when a live event says the network changed."""
    return page(
        request, "frontend/partials/_network_counts.html", {"network": counted(request, network)}
    )


def _detail_context(request: TenantRequest, engram: Engram, **extra: Any) -> dict[str, Any]:
    tenant = request.tenant
    return {
        "engram": engram,
        "network": engram.network,
        "cues": selectors.engram_cues(tenant=tenant, engram=engram),
        "edges": selectors.engram_edges(tenant=tenant, engram=engram),
        "history": list(unseal(list(selectors.engram_history(tenant=tenant, engram=engram)[:50]))),
        "embedded": engram.embedding is not None,
        "can_edit": can(request, Capability.MEMORY_EDIT)
        and engram.status not in (Engram.Status.DELETED, Engram.Status.ERASED),
        "can_delete": can(request, Capability.MEMORY_DELETE)
        and engram.status != Engram.Status.DELETED,
        "types": Engram.Type.choices,
        **extra,
    }


def _engram(request: TenantRequest, network: str, engram_id: int) -> Engram:
    net = network_of(request, network)
    engram = selectors.engram_get_for_tenant(tenant=request.tenant, id=engram_id)
    if engram.network_id != net.pk:
        raise ValidationFailed("This memory belongs to another network.")
    return engram


@tenant_view()
def engram_detail(request: TenantRequest, network: str, engram_id: int) -> HttpResponse:
    engram = _engram(request, network, engram_id)
    editing = request.GET.get("edit") == "1" and can(request, Capability.MEMORY_EDIT)
    context = _detail_context(request, engram, editing=editing)
    return page(
        request,
        "frontend/engram_detail.html",
        context,
        partial="frontend/partials/_engram_panel.html",
    )


def _form_changes(request: TenantRequest, engram: Engram) -> dict[str, Any]:
    post = request.POST
    changes: dict[str, Any] = {}
    # Browsers send textarea line breaks as CRLF: compare like with like.
    content = post.get("content", "").replace("\r\n", "\n").strip()
    if content != engram.content.replace("\r\n", "\n"):
        changes["content"] = content
    schema = [w.strip() for w in post.get("schema", "").split(",") if w.strip()]
    # "derive again" (ticked by the page as soon as the content changes) files the memory under
    # the cues of its new content, unless a schema was typed; unticked, the schema is as the
    # field says (emptied: derived).
    typed = schema != list(engram.schema)
    if post.get("derive") == "on" and not typed:  # a schema typed by hand wins
        changes["schema"] = None
    elif schema != list(engram.schema) or (schema and "content" in changes):
        changes["schema"] = schema or None
    if post.get("type", engram.type) != engram.type:
        changes["type"] = post["type"]
    for name in ("strength", "importance"):
        raw = post.get(name, "")
        try:
            value = float(raw)
        except ValueError as exc:
            raise ValidationFailed.field(name, "a number from 0 to 1") from exc
        if abs(value - getattr(engram, name)) > 1e-9:
            changes[name] = value
    return changes


@require_POST
@tenant_view(Capability.MEMORY_EDIT)
def engram_edit(request: TenantRequest, network: str, engram_id: int) -> HttpResponse:
    engram = _engram(request, network, engram_id)
    try:
        changes = _form_changes(request, engram)
        if changes:
            changed = engram_change(
                tenant=request.tenant,
                actor=request.actor,
                engram=engram,
                patch=validated(EngramPatch, changes),
            )
            if changed.proposal is not None:
                messages.warning(
                    request,
                    "The firewall held this change: it waits in the moderation queue "
                    f"(item {changed.proposal.pk}).",
                )
            else:
                messages.success(request, "Saved; the change is in the history below.")
        else:
            messages.info(request, "Nothing changed.")
    except MnemoError as exc:
        context = _detail_context(request, engram, editing=True, error=exc, form=request.POST)
        return page(
            request,
            "frontend/engram_detail.html",
            context,
            status=exc.status,
            partial="frontend/partials/_engram_panel.html",
        )
    engram = selectors.engram_get_for_tenant(tenant=request.tenant, id=engram.pk)
    if not request.htmx:
        return redirect("engram_detail", request.tenant.slug, network, engram.pk)
    return page(
        request,
        "frontend/partials/_engram_panel.html",
        _detail_context(request, engram, editing=False),
    )


@require_POST
@tenant_view(Capability.MEMORY_DELETE)
def engram_remove(request: TenantRequest, network: str, engram_id: int) -> HttpResponse:
    engram = _engram(request, network, engram_id)
    remove(tenant=request.tenant, actor=request.actor, engram=engram)
    messages.success(request, f"Deleted memory #{engram.pk}; its history stays.")
    return redirect("memory_browse", request.tenant.slug, network)


@require_POST
@tenant_view(Capability.MEMORY_EDIT)
def engrams_bulk_action(request: TenantRequest, network: str) -> HttpResponse:
    net = network_of(request, network)
    action = request.POST.get("action", "")
    if action == "delete" and not can(request, Capability.MEMORY_DELETE):
        raise PermissionDenied("Only moderators, admins and owners delete memories.")
    ids = [int(i) for i in request.POST.getlist("ids") if re.fullmatch(r"[0-9]{1,18}", i)][:1000]
    engrams = list(Engram.objects.filter(tenant=request.tenant, network=net, pk__in=ids))
    if not engrams:
        messages.error(request, "Select at least one memory first.")
    else:
        try:
            kind = request.POST.get("type", "")
            done = engrams_bulk(
                tenant=request.tenant,
                actor=request.actor,
                engrams=engrams,
                action=action,
                type=kind,
            )
            verb = "Deleted" if action == "delete" else f"Changed to {kind}:"
            messages.success(request, f"{verb} {done} memor{'y' if done == 1 else 'ies'}.")
        except MnemoError as exc:
            report(request, exc)
    back = request.POST.get("back", "")
    if back.startswith(f"/t/{request.tenant.slug}/memory/"):
        return redirect(back)
    return redirect("memory_browse", request.tenant.slug, net.key)


async def _streamed(lines: Iterator[str], chunk: int = 2000) -> AsyncIterator[str]:
    """Under ASGI Django reads a sync iterator whole before sending a byte; an async one is
    sent as it comes: pull the (tenant-scoped, chunked) lines a few thousand at a time."""
    pull = sync_to_async(lambda: "".join(itertools.islice(lines, chunk)))
    while part := await pull():
        yield part


@tenant_view()
def network_export(request: TenantRequest, network: str) -> StreamingHttpResponse:
    net = network_of(request, network)
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in net.key)
    response = StreamingHttpResponse(
        _streamed(export_lines(network=net)), content_type="application/x-ndjson; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="mnemo-{safe}.jsonl"'
    return response


@tenant_view()
def memory_import(request: TenantRequest) -> HttpResponse:
    tenant = request.tenant
    error = None
    if request.method == "POST":
        if not can(request, Capability.MEMORY_IMPORT):
            raise PermissionDenied("Only admins import memories.")
        upload = request.FILES.get("file")
        try:
            if upload is None:
                raise ValidationFailed.field("file", "choose a .jsonl file")
            job = import_start(
                tenant=tenant,
                actor=request.actor,
                network_key=request.POST.get("network", "default"),
                filename=upload.name or "",
                data=upload.read(),
            )
            return redirect("import_detail", tenant.slug, job.pk)
        except MnemoError as exc:
            error = exc
    return page(
        request,
        "frontend/memory_import.html",
        {
            "jobs": selectors.import_jobs(tenant=tenant),
            "error": error,
            "networks": networks_of(request),
            "can_import": can(request, Capability.MEMORY_IMPORT),
            "network": request.POST.get("network") or request.GET.get("network", "default"),
        },
        status=error.status if error else 200,
    )


@tenant_view()
def import_detail(request: TenantRequest, job_id: int) -> HttpResponse:
    job: ImportJob = selectors.import_job_get(tenant=request.tenant, id=job_id)
    return page(
        request,
        "frontend/import_detail.html",
        {"job": job},
        partial="frontend/partials/_import_job.html",
    )
