"""The platform staff console: workspaces with items waiting, entered one at a time with a
written reason (memory.services.staff); inside, the workspace's queue and its decisions, each
look and each decision an audit row in that workspace's own log."""

from __future__ import annotations

import time
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from base.errors import MnemoError
from frontend.views.moderation import queue_cards
from memory import selectors
from memory.services import staff
from memory.services.review import item_decide
from tenants import rls
from tenants.models import Tenant

PASSES = "staff_passes"  # session: {slug: expiry (epoch seconds)}


def _staff_only(request: HttpRequest) -> None:
    if not getattr(request.user, "is_staff", False):
        raise Http404  # the console does not exist for anyone else


def _tenant(slug: str) -> Tenant:
    tenant = Tenant.objects.filter(slug=slug).first()
    if tenant is None:
        raise Http404
    return tenant


def _has_pass(request: HttpRequest, slug: str) -> bool:
    return float(request.session.get(PASSES, {}).get(slug, 0)) > time.time()


def _actor(request: HttpRequest) -> Any:
    user: Any = request.user
    return staff.staff_actor(user.pk, user.email)


@login_required
def console(request: HttpRequest) -> HttpResponse:
    _staff_only(request)
    return render(request, "frontend/staff_console.html", {"rows": staff.waiting_counts()})


@require_POST
@login_required
def enter(request: HttpRequest, slug: str) -> HttpResponse:
    _staff_only(request)
    tenant = _tenant(slug)
    try:
        staff.staff_enter(
            tenant=tenant, actor=_actor(request), reason=request.POST.get("reason", "")
        )
    except MnemoError as exc:
        messages.error(request, exc.message)
        return redirect("staff_console")
    passes = dict(request.session.get(PASSES, {}))
    passes[slug] = time.time() + staff.PASS_SECONDS
    request.session[PASSES] = passes
    return redirect("staff_queue", slug)


@login_required
def queue(request: HttpRequest, slug: str) -> HttpResponse:
    _staff_only(request)
    tenant = _tenant(slug)
    if not _has_pass(request, slug):
        messages.info(request, f"Say why you enter {tenant.name} first.")
        return redirect("staff_console")
    staff.staff_look(tenant=tenant, actor=_actor(request), what="moderation queue")
    with rls.tenant_scope(tenant.pk):
        rows = list(selectors.moderation_items_for_tenant(tenant=tenant)[:50])
        cards = queue_cards(tenant, rows)
    return render(request, "frontend/staff_queue.html", {"tenant": tenant, "cards": cards})


@require_POST
@login_required
def decide(request: HttpRequest, slug: str, item_id: int) -> HttpResponse:
    _staff_only(request)
    tenant = _tenant(slug)
    if not _has_pass(request, slug):
        return redirect("staff_console")
    action = request.POST.get("action", "")
    try:
        with rls.tenant_scope(tenant.pk):
            item = selectors.moderation_item_get_for_tenant(tenant=tenant, id=item_id)
            item_decide(
                tenant=tenant,
                actor=_actor(request),
                item=item,
                action=action,
                note=request.POST.get("note", "")[:2000],
            )
        messages.success(request, f"Item {item_id}: {action} done (in {tenant.name}'s log).")
    except MnemoError as exc:
        messages.error(request, exc.message)
    return redirect("staff_queue", slug)
