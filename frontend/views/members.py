"""Members: list, invite by email, change role, remove; pending invitations."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from base.errors import MnemoError
from frontend.forms import InviteForm, RoleForm
from frontend.views.base import can, page, report, tenant_view
from tenants import services
from tenants.models import Membership
from tenants.permissions import Capability, may_assign_role, may_remove_member
from tenants.requests import TenantRequest
from tenants.selectors import (
    invitation_get_for_tenant,
    invitations_pending_for_tenant,
    members_for_tenant,
    membership_get_for_tenant,
)


@dataclass(frozen=True)
class MemberRow:
    """A member as the members table shows them: which roles the viewer may give, and whether
    the viewer may remove them."""

    m: Membership
    assignable: list[tuple[str, str]]
    removable: bool


def _context(request: TenantRequest, form: InviteForm, **extra: object) -> dict[str, object]:
    tenant = request.tenant
    actor = request.actor
    members = [
        MemberRow(
            m=member,
            assignable=[
                (value, label)
                for value, label in Membership.Role.choices
                if value == member.role or may_assign_role(actor.role, member.role, value)
            ],
            removable=may_remove_member(actor, member),
        )
        for member in members_for_tenant(tenant=tenant)
    ]
    manage = can(request, Capability.MEMBERS_MANAGE)
    return {
        "members": members,
        "invitations": list(invitations_pending_for_tenant(tenant=tenant)) if manage else [],
        "form": form,
        "can_manage": manage,
        "mail_delivers": settings.MAIL_DELIVERS,
        **extra,
    }


def _panel(request: TenantRequest, form: InviteForm | None = None, **extra: object) -> HttpResponse:
    if not request.htmx:
        return redirect("members", slug=request.tenant.slug)
    context = _context(request, form or InviteForm(), **extra)
    return page(
        request, "frontend/members.html", context, partial="frontend/partials/_members.html"
    )


@tenant_view()
def members(request: TenantRequest) -> HttpResponse:
    return page(request, "frontend/members.html", _context(request, InviteForm()))


@require_POST
@tenant_view(Capability.MEMBERS_MANAGE)
def invite(request: TenantRequest) -> HttpResponse:
    form = InviteForm(request.POST)
    link = None
    if form.is_valid():
        try:
            invitation, token = services.invitation_create(
                tenant=request.tenant,
                actor=request.actor,
                email=form.cleaned_data["email"],
                role=form.cleaned_data["role"],
            )
        except MnemoError as exc:
            form.add_error("email" if "email" in exc.fields else None, exc.message)
        else:
            if settings.MAIL_DELIVERS:
                messages.success(request, f"Invitation emailed to {invitation.email}.")
            else:  # no real mail: the admin passes the link on (it only works for that address)
                link = settings.PUBLIC_URL + reverse("invitation_accept", args=[token])
                messages.success(request, f"Invitation created for {invitation.email}.")
            form = InviteForm()
    if not request.htmx:
        context = _context(request, form, invite_link=link)
        return page(request, "frontend/members.html", context, status=200 if link else 400)
    return _panel(request, form, invite_link=link)


@require_POST
@tenant_view(Capability.MEMBERS_MANAGE)
def member_role(request: TenantRequest, member_id: int) -> HttpResponse:
    tenant = request.tenant
    membership = membership_get_for_tenant(tenant=tenant, id=member_id)
    form = RoleForm(request.POST)
    if form.is_valid():
        try:
            services.membership_change_role(
                tenant=tenant,
                actor=request.actor,
                membership=membership,
                role=form.cleaned_data["role"],
            )
            messages.success(
                request, f"{membership.user.email} is now {form.cleaned_data['role']}."
            )
        except MnemoError as exc:
            report(request, exc)
    else:
        messages.error(request, "Choose a valid role.")
    return _panel(request)


@require_POST
@tenant_view()
def member_remove(request: TenantRequest, member_id: int) -> HttpResponse:
    """Admins remove members; anyone may leave (remove themselves)."""
    tenant = request.tenant
    membership = membership_get_for_tenant(tenant=tenant, id=member_id)
    leaving = membership.user_id == request.user.pk
    try:
        services.membership_remove(tenant=tenant, actor=request.actor, membership=membership)
    except MnemoError as exc:
        report(request, exc)
        return _panel(request)
    if leaving:
        messages.success(request, f"You left {tenant.name}.")
        response = HttpResponse(status=204)
        response["HX-Redirect"] = reverse("home")
        return response if request.htmx else redirect("home")
    messages.success(request, f"{membership.user.email} was removed.")
    return _panel(request)


@require_POST
@tenant_view(Capability.MEMBERS_MANAGE)
def invitation_revoke(request: TenantRequest, invitation_id: int) -> HttpResponse:
    tenant = request.tenant
    invitation = invitation_get_for_tenant(tenant=tenant, id=invitation_id)
    try:
        services.invitation_revoke(tenant=tenant, actor=request.actor, invitation=invitation)
        messages.success(request, f"Invitation to {invitation.email} revoked.")
    except MnemoError as exc:
        report(request, exc)
    return _panel(request)
