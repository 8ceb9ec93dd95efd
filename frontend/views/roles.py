"""Roles in the dashboard: the list (built-in and the workspace's own), an editor that checks
the DPML as you type (errors at their line, rendered preview), version history with diffs and
restore, copying a built-in to customise it; and the same editor for role resources."""

from __future__ import annotations

import difflib
from typing import Any

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_POST
from markdown_it import MarkdownIt

from base.contracts import validated
from base.errors import MnemoError, PermissionDenied
from frontend.views.base import can, page, report, tenant_view
from roles import selectors, services
from roles.contracts import (
    ResourceCreateIn,
    ResourcePatch,
    RoleCopyIn,
    RoleCreateIn,
    RolePatch,
    checked_kind,
)
from roles.dpml import DpmlError
from roles.models import Role, RoleResource
from roles.selectors import RoleSpec
from roles.services import RESOURCE, ROLE
from roles.validation import dpml_validate
from tenants.permissions import Capability
from tenants.requests import TenantRequest

_MARKDOWN = MarkdownIt("commonmark", {"html": False})  # raw HTML in a role is shown, not run


def _link_open(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
    """Links in a preview open without handing this page to the target (rel=noopener)."""
    tokens[idx].attrSet("rel", "noopener noreferrer nofollow")
    tokens[idx].attrSet("target", "_blank")
    return str(self.renderToken(tokens, idx, options, env))


_MARKDOWN.add_render_rule("link_open", _link_open)

NEW_ROLE = """<role>
  <personality>
    You are … (who the expert is, how they think and talk).
    @!thought://first-principles
  </personality>
  <principle>
    @!execution://memory-discipline
    - The rules this expert always follows.
  </principle>
  <knowledge>
    - What this expert knows that a generalist does not.
  </knowledge>
</role>
"""
NEW_RESOURCE = {
    "thought": "<thought>\n  <exploration>\n    \n  </exploration>\n  <reasoning>\n    \n"
    "  </reasoning>\n</thought>\n",
    "execution": "<execution>\n  <process>\n    1. \n  </process>\n  <rule>\n    - \n"
    "  </rule>\n</execution>\n",
    "knowledge": "<knowledge>\n  - \n</knowledge>\n",
}


def markdown_html(text: str) -> SafeString:
    return mark_safe(str(_MARKDOWN.render(text)))  # raw HTML is off: markdown-it escapes it


def _check_context(errors: list[DpmlError], preview: str) -> dict[str, Any]:
    lines = sorted({e.line for e in errors if not e.document and e.severity == "error"})
    return {
        "problems": errors,
        "error_count": sum(e.severity == "error" for e in errors),
        "error_lines": ",".join(str(n) for n in lines),
        "preview_html": markdown_html(preview) if preview else "",
    }


# the new role's template lines that are instructions to its author, not a role
PLACEHOLDERS = ("You are …", "- The rules this expert always follows.",
                "- What this expert knows that a generalist does not.")  # fmt: skip


def placeholders_left(source: str) -> list[DpmlError]:
    """A warning for each of the template's placeholder lines still in ``source``."""
    return [
        DpmlError(
            "placeholder",
            "still the template's placeholder: write what this role really is",
            number,
            line.index(line.strip()) + 1,
            "warning",
        )
        for number, line in enumerate(source.splitlines(), 1)
        if any(line.strip().startswith(p) for p in PLACEHOLDERS)
    ]


def _check(request: TenantRequest, source: str, kind: str, name: str) -> dict[str, Any]:
    check = dpml_validate(
        tenant=request.tenant,
        source=source,
        kind=kind,
        title=name or "Untitled role",
        name=name or "preview",
    )
    found = list(check.errors) + (placeholders_left(source) if kind == "role" else [])
    return _check_context(found, check.preview)


@tenant_view()
def roles(request: TenantRequest) -> HttpResponse:
    tenant = request.tenant
    show_archived = request.GET.get("archived") == "1"
    specs = selectors.roles_for_tenant(tenant=tenant, archived=show_archived)
    return page(
        request,
        "frontend/roles.html",
        {
            "own": [s for s in specs if s.origin == "tenant"],
            "builtins": [s for s in specs if s.origin == "builtin"],
            "show_archived": show_archived,
            "can_edit": can(request, Capability.ROLES_EDIT),
        },
    )


@require_POST
@tenant_view()
def role_check(request: TenantRequest) -> HttpResponse:
    """The live check: the editor posts its text as you type and swaps this partial in."""
    kind = request.POST.get("kind", "role")
    if kind not in ("role", *RoleResource.Kind.values):
        kind = "role"
    name = request.POST.get("name", "") if kind == "role" else request.POST.get("rname", "")
    context = _check(request, request.POST.get("source", ""), kind, name)
    return page(request, "frontend/partials/_dpml_check.html", context)


def _role_form_data(request: TenantRequest) -> dict[str, str]:
    data = {k: request.POST.get(k, "") for k in ("name", "description", "source", "status")}
    if request.POST.get("intent") == "draft":
        data["status"] = Role.Status.DRAFT
    return data


def _editor(
    request: TenantRequest,
    *,
    spec: RoleSpec | None,
    data: dict[str, str],
    error: MnemoError | None = None,
    status: int = 200,
) -> HttpResponse:
    context = {
        "spec": spec,
        "data": data,
        "error": error,
        "statuses": Role.Status.choices,
        "can_edit": can(request, Capability.ROLES_EDIT),
        "kind": "role",
        **_check(request, data.get("source", ""), "role", data.get("name", "")),
    }
    return page(request, "frontend/role_edit.html", context, status=status)


@tenant_view(Capability.ROLES_EDIT)
def role_new(request: TenantRequest) -> HttpResponse:
    if request.method != "POST":
        return _editor(
            request,
            spec=None,
            data={
                "source": NEW_ROLE,
                "status": "draft",  # a template is not a role yet: the author activates it
                "name": "",
                "slug": "",
                "description": "",
            },
        )
    data = {"slug": request.POST.get("slug", ""), **_role_form_data(request)}
    try:
        role = services.role_create(
            tenant=request.tenant,
            actor=request.actor,
            data=validated(RoleCreateIn, data),
        )
    except MnemoError as exc:
        return _editor(request, spec=None, data=data, error=exc, status=exc.status)
    _saved(request, role)
    return redirect("role_detail", request.tenant.slug, role.slug)


def _saved(request: TenantRequest, role: Role) -> None:
    if role.status == Role.Status.ACTIVE:
        messages.success(
            request, f"Saved version {role.version}; agents can activate “{role.slug}” now."
        )
    else:
        messages.success(
            request,
            f"Saved version {role.version} as {role.status}; agents get it once it is active.",
        )


@tenant_view()
def role_detail(request: TenantRequest, role_slug: str) -> HttpResponse:
    tenant = request.tenant
    spec = selectors.role_get_for_tenant(tenant=tenant, slug=role_slug)
    if spec.row is None:
        persona, _ = services.persona_render(tenant=tenant, role=spec)
        return page(
            request,
            "frontend/role_builtin.html",
            {
                "spec": spec,
                "persona_html": markdown_html(persona),
                "can_edit": can(request, Capability.ROLES_EDIT),
                "source_lines": spec.source.splitlines(),
            },
        )
    data = {
        "slug": spec.slug,
        "name": spec.name,
        "description": spec.description,
        "source": spec.source,
        "status": spec.status,
    }
    if request.method != "POST":
        return _editor(request, spec=spec, data=data)
    if not can(request, Capability.ROLES_EDIT):
        raise PermissionDenied("Your role can read roles here, not change them.")
    data.update(_role_form_data(request))
    try:
        role = services.role_update(
            tenant=tenant,
            actor=request.actor,
            role=spec.row,
            changes=validated(RolePatch, {k: data[k] for k in ROLE.fields}),
        )
    except MnemoError as exc:
        return _editor(request, spec=spec, data=data, error=exc, status=exc.status)
    if role.version == spec.version:
        messages.info(request, "Nothing changed.")
    else:
        _saved(request, role)
    return redirect("role_detail", tenant.slug, role.slug)


@require_POST
@tenant_view(Capability.ROLES_EDIT)
def role_copy(request: TenantRequest, role_slug: str) -> HttpResponse:
    tenant = request.tenant
    try:
        role = services.role_copy(
            tenant=tenant,
            actor=request.actor,
            slug=role_slug,
            data=validated(RoleCopyIn, {"slug": request.POST.get("slug", "").strip() or None}),
        )
    except MnemoError as exc:
        report(request, exc)
        return redirect("role_detail", tenant.slug, role_slug)
    if role.slug == role_slug:
        messages.success(
            request,
            f"Your copy of “{role.name}” is a draft: agents keep the "
            "built-in until you set the copy active.",
        )
    else:
        messages.success(request, f"Copied to “{role.slug}”.")
    return redirect("role_detail", tenant.slug, role.slug)


@require_POST
@tenant_view(Capability.ROLES_EDIT)
def role_archive(request: TenantRequest, role_slug: str) -> HttpResponse:
    tenant = request.tenant
    row = selectors.role_row_get_for_tenant(tenant=tenant, slug=role_slug)
    services.role_archive(tenant=tenant, actor=request.actor, role=row)
    messages.success(request, f"Archived “{row.slug}”; its history stays and it can be restored.")
    return redirect("roles", tenant.slug)


def diff_rows(old: str, new: str) -> list[tuple[str, str]]:
    """(css class, line) for a unified diff of two sources."""
    rows: list[tuple[str, str]] = []
    lines = difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=2)
    for line in list(lines)[2:]:
        kind = {"+": "add", "-": "del", "@": "hunk"}.get(line[:1], "same")
        rows.append((kind, line))
    return rows


@tenant_view()
def role_history(request: TenantRequest, role_slug: str) -> HttpResponse:
    tenant = request.tenant
    row = selectors.role_row_get_for_tenant(tenant=tenant, slug=role_slug)
    versions = list(selectors.role_versions(tenant=tenant, role=row)[:200])
    entries = []
    for i, version in enumerate(versions):
        previous = versions[i + 1] if i + 1 < len(versions) else None
        changes = []
        if previous is not None:
            changes = [
                (label, getattr(previous, f), getattr(version, f))
                for f, label in (
                    ("name", "Name"),
                    ("description", "Description"),
                    ("status", "Status"),
                )
                if getattr(previous, f) != getattr(version, f)
            ]
        entries.append(
            {
                "version": version,
                "changes": changes,
                "diff": diff_rows(previous.source if previous else "", version.source),
                "current": version.version == row.version,
            }
        )
    return page(
        request,
        "frontend/role_history.html",
        {
            "role": row,
            "entries": entries,
            "can_edit": can(request, Capability.ROLES_EDIT),
        },
    )


@require_POST
@tenant_view(Capability.ROLES_EDIT)
def role_restore(request: TenantRequest, role_slug: str, version: int) -> HttpResponse:
    tenant = request.tenant
    row = selectors.role_row_get_for_tenant(tenant=tenant, slug=role_slug)
    try:
        role = services.role_restore(
            tenant=tenant,
            actor=request.actor,
            role=row,
            version=version,
        )
    except MnemoError as exc:
        report(request, exc)
        return redirect("role_history", tenant.slug, role_slug)
    messages.success(request, f"Restored version {version} as version {role.version}.")
    return redirect("role_detail", tenant.slug, role.slug)


# --- resources ------------------------------------------------------------------------------


@tenant_view()
def resources(request: TenantRequest) -> HttpResponse:
    specs = selectors.resources_for_tenant(tenant=request.tenant)
    return page(
        request,
        "frontend/resources.html",
        {
            "resources": specs,
            "can_edit": can(request, Capability.ROLES_EDIT),
        },
    )


def _resource_editor(
    request: TenantRequest,
    *,
    data: dict[str, str],
    existing: bool,
    error: MnemoError | None = None,
    status: int = 200,
    origin: str = "tenant",
) -> HttpResponse:
    context = {
        "data": data,
        "error": error,
        "existing": existing,
        "origin": origin,
        "kinds": RoleResource.Kind.choices,
        "kind": data["kind"],
        "not_existing": not existing,
        "can_edit": can(request, Capability.ROLES_EDIT),
        "can_delete": can(request, Capability.ROLES_MANAGE) and existing and origin == "tenant",
        **_check(request, data["source"], data["kind"], data["name"]),
    }
    return page(request, "frontend/resource_edit.html", context, status=status)


@tenant_view(Capability.ROLES_EDIT)
def resource_new(request: TenantRequest) -> HttpResponse:
    kind = request.GET.get("kind") or request.POST.get("kind") or "thought"
    if kind not in RoleResource.Kind.values:
        kind = "thought"
    if request.method != "POST":
        return _resource_editor(
            request,
            existing=False,
            data={
                "kind": kind,
                "name": request.GET.get("name", ""),
                "description": "",
                "source": NEW_RESOURCE[kind],
            },
        )
    data = {k: request.POST.get(k, "") for k in ("kind", "name", "description", "source")}
    data["name"] = request.POST.get("rname", "")
    try:
        row = services.resource_create(
            tenant=request.tenant,
            actor=request.actor,
            data=validated(ResourceCreateIn, data),
        )
    except MnemoError as exc:
        return _resource_editor(request, existing=False, data=data, error=exc, status=exc.status)
    messages.success(request, f"Saved {row.uri}.")
    return redirect("resource_detail", request.tenant.slug, row.kind, row.name)


@tenant_view()
def resource_detail(request: TenantRequest, kind: str, name: str) -> HttpResponse:
    tenant = request.tenant
    spec = selectors.resource_get_for_tenant(tenant=tenant, kind=checked_kind(kind), name=name)
    data = {
        "kind": spec.kind,
        "name": spec.name,
        "description": spec.description,
        "source": spec.source,
    }
    if request.method != "POST":
        return _resource_editor(request, existing=True, data=data, origin=spec.origin)
    if not can(request, Capability.ROLES_EDIT):
        raise PermissionDenied("Your role can read roles here, not change them.")
    data.update({k: request.POST.get(k, "") for k in ("description", "source")})
    try:
        actor = request.actor
        if spec.row is None:  # saving a built-in makes the workspace's own version of it
            created = validated(ResourceCreateIn, data)
            row = services.resource_create(tenant=tenant, actor=actor, data=created)
        else:
            changes = validated(ResourcePatch, {k: data[k] for k in RESOURCE.fields})
            row = services.resource_update(
                tenant=tenant, actor=actor, resource=spec.row, changes=changes
            )
    except MnemoError as exc:
        return _resource_editor(
            request, existing=True, data=data, error=exc, status=exc.status, origin=spec.origin
        )
    messages.success(
        request,
        f"Saved {row.uri} (version {row.version}); roles that use it show the change at once.",
    )
    return redirect("resource_detail", tenant.slug, row.kind, row.name)


@require_POST
@tenant_view(Capability.ROLES_MANAGE)
def resource_delete(request: TenantRequest, kind: str, name: str) -> HttpResponse:
    tenant = request.tenant
    row = selectors.resource_row_get_for_tenant(tenant=tenant, kind=kind, name=name)
    try:
        services.resource_delete(tenant=tenant, actor=request.actor, resource=row)
    except MnemoError as exc:
        report(request, exc)
        return redirect("resource_detail", tenant.slug, kind, name)
    messages.success(request, f"Deleted {row.uri}.")
    return redirect("resources", tenant.slug)
