"""API keys: list, create (the secret is shown once), revoke."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from base.errors import MnemoError
from frontend.forms import ApiKeyForm
from frontend.views.base import can, page, report, tenant_view
from tenants import services
from tenants.models import ApiKey
from tenants.permissions import Capability, may_revoke_key
from tenants.requests import TenantRequest
from tenants.selectors import apikey_get_for_tenant, apikeys_for_tenant


@dataclass(frozen=True)
class KeyRow:
    key: ApiKey
    can_revoke: bool  # by this viewer


def _context(request: TenantRequest, form: ApiKeyForm, **extra: object) -> dict[str, object]:
    tenant = request.tenant
    actor = request.actor
    keys = [
        KeyRow(key=key, can_revoke=key.revoked_at is None and may_revoke_key(actor, key))
        for key in apikeys_for_tenant(tenant=tenant)
    ]
    return {
        "form": form,
        "keys": keys,
        "can_create": can(request, Capability.KEYS_CREATE),
        "can_admin_scope": can(request, Capability.KEYS_MANAGE),
        **extra,
    }


@tenant_view()
def keys(request: TenantRequest) -> HttpResponse:
    return page(request, "frontend/keys.html", _context(request, ApiKeyForm()))


@require_POST
@tenant_view(Capability.KEYS_CREATE)
def key_create(request: TenantRequest) -> HttpResponse:
    form = ApiKeyForm(request.POST)
    created = secret = None
    status = 200
    if form.is_valid():
        try:
            created, secret = services.apikey_create(
                tenant=request.tenant,
                actor=request.actor,
                name=form.cleaned_data["name"],
                scopes=form.cleaned_data["scopes"],
                expires_at=form.expires_at(),
            )
            form = ApiKeyForm()
        except MnemoError as exc:
            for field, message in exc.fields.items():
                field = {"expires_at": "expires_on"}.get(field, field)
                form.add_error(field if field in form.fields else None, message)
            if not exc.fields:
                form.add_error(None, exc.message)
            status = exc.status
    else:
        status = 400
    context = _context(request, form, created=created, secret=secret)
    if not request.htmx:
        response = page(request, "frontend/keys.html", context, status=status)
    else:  # HTMX swaps the whole keys panel; errors must still render, so answer 200 with the form.
        response = page(
            request, "frontend/keys.html", context, partial="frontend/partials/_keys.html"
        )
    response["Cache-Control"] = "no-store"  # the secret must not linger in any cache
    return response


@require_POST
@tenant_view(Capability.KEYS_CREATE)
def key_revoke(request: TenantRequest, key_id: int) -> HttpResponse:
    tenant = request.tenant
    key = apikey_get_for_tenant(tenant=tenant, id=key_id)
    try:
        services.apikey_revoke(tenant=tenant, actor=request.actor, key=key)
        messages.success(request, f"Key “{key.name}” revoked; agents using it are refused now.")
    except MnemoError as exc:
        report(request, exc)
    if not request.htmx:
        return redirect("keys", slug=tenant.slug)
    context = _context(request, ApiKeyForm())
    return page(request, "frontend/keys.html", context, partial="frontend/partials/_keys.html")
