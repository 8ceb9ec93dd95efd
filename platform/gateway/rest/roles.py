"""REST endpoints for roles and role resources: CRUD with versions, validate, render, activate.

Built-in roles are read-only here; ``POST /roles/<slug>/copy`` makes a tenant copy to edit.
``DELETE`` of a role archives it (restorable); resources are deleted for good (admin scope).
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from base.errors import Conflict
from gateway.rest.base import TenantAPIView, answer
from gateway.rest.schema import query_parameters, with_errors
from roles import selectors, services
from roles.contracts import (
    ActivationOut,
    DpmlCheckIn,
    DpmlCheckOut,
    RenderOut,
    ResourceCreateIn,
    ResourceDetailOut,
    ResourceFilters,
    ResourceList,
    ResourcePatch,
    RoleCopyIn,
    RoleCreateIn,
    RoleDetailOut,
    RoleFilters,
    RoleList,
    RoleOut,
    RolePatch,
    VersionList,
    checked_kind,
    present_activation,
    present_check,
    present_render,
    present_resource,
    present_resource_detail,
    present_role,
    present_role_detail,
    present_versions,
)
from roles.models import Role
from roles.validation import dpml_validate
from tenants.models import Tenant

WRITES = {"POST": "write", "PATCH": "write", "DELETE": "write"}


def _role(tenant: Tenant, slug: str) -> Response:
    return answer(present_role_detail(selectors.role_get_for_tenant(tenant=tenant, slug=slug)))


def _resource(tenant: Tenant, kind: str, name: str) -> Response:
    spec = selectors.resource_get_for_tenant(tenant=tenant, kind=kind, name=name)
    return answer(present_resource_detail(spec))


def _own_row(tenant: Tenant, slug: str) -> Role:
    spec = selectors.role_get_for_tenant(tenant=tenant, slug=slug)
    if spec.row is None:
        raise Conflict(
            f"“{slug}” is a built-in role and cannot be changed; POST /api/v1/roles/{slug}/copy "
            "makes a copy of it for this workspace."
        )
    return spec.row


class RoleListView(TenantAPIView):
    """Every role of the workspace: its own and the built-ins."""

    method_scopes = WRITES

    @extend_schema(
        parameters=query_parameters(RoleFilters),
        responses=with_errors(RoleList),
        summary="List roles",
        operation_id="roles_list",
    )
    def get(self, request: Request) -> Response:
        filters = self.params(RoleFilters)
        specs = selectors.roles_for_tenant(tenant=self.tenant, archived=filters.archived)
        words = filters.q.lower().split()
        specs = [
            s
            for s in specs
            if (not filters.origin or s.origin == filters.origin)
            and all(w in f"{s.slug} {s.name} {s.description}".lower() for w in words)
        ]
        return answer(RoleList(roles=[present_role(s) for s in specs]))

    @extend_schema(
        request=RoleCreateIn, responses=with_errors(RoleDetailOut, 201), summary="Create a role"
    )
    def post(self, request: Request) -> Response:
        data = self.body(RoleCreateIn)
        role = services.role_create(tenant=self.tenant, actor=self.actor, data=data)
        response = _role(self.tenant, role.slug)
        response.status_code = 201
        return response


class RoleDetailView(TenantAPIView):
    method_scopes = WRITES

    @extend_schema(responses=with_errors(RoleDetailOut), summary="Get a role with its source")
    def get(self, request: Request, slug: str) -> Response:
        return _role(self.tenant, slug)

    @extend_schema(
        request=RolePatch,
        responses=with_errors(RoleDetailOut),
        summary="Edit a role (a new version)",
    )
    def patch(self, request: Request, slug: str) -> Response:
        changes = self.body(RolePatch)
        row = _own_row(self.tenant, slug)
        services.role_update(tenant=self.tenant, actor=self.actor, role=row, changes=changes)
        return _role(self.tenant, slug)

    @extend_schema(responses=with_errors(RoleOut), summary="Archive a role (restorable)")
    def delete(self, request: Request, slug: str) -> Response:
        row = _own_row(self.tenant, slug)
        services.role_archive(tenant=self.tenant, actor=self.actor, role=row)
        return answer(present_role(selectors.role_get_for_tenant(tenant=self.tenant, slug=slug)))


class RoleRenderView(TenantAPIView):
    required_scope = "read"

    @extend_schema(
        responses=with_errors(RenderOut),
        summary="The rendered persona of a role, references resolved",
    )
    def get(self, request: Request, slug: str) -> Response:
        spec = selectors.role_get_for_tenant(tenant=self.tenant, slug=slug)
        persona, errors = services.persona_render(tenant=self.tenant, role=spec)
        return answer(present_render(spec, persona, errors))


class RoleActivateView(TenantAPIView):
    """What MCP ``action`` does: the persona plus a prime of the role's memory network."""

    required_scope = "read"

    @extend_schema(
        request=None,
        responses=with_errors(ActivationOut),
        summary="Activate a role: persona and primed memory",
    )
    def post(self, request: Request, slug: str) -> Response:
        activation = services.role_activate(tenant=self.tenant, actor=self.actor, slug=slug)
        return answer(
            present_activation(
                activation.role, activation.persona, activation.mind, activation.warnings
            )
        )


class RoleCopyView(TenantAPIView):
    required_scope = "write"

    @extend_schema(
        request=RoleCopyIn, responses=with_errors(RoleDetailOut, 201), summary="Copy a role"
    )
    def post(self, request: Request, slug: str) -> Response:
        data = self.body(RoleCopyIn)
        role = services.role_copy(tenant=self.tenant, actor=self.actor, slug=slug, data=data)
        response = _role(self.tenant, role.slug)
        response.status_code = 201
        return response


class RoleVersionsView(TenantAPIView):
    required_scope = "read"

    @extend_schema(responses=with_errors(VersionList), summary="Versions of a role")
    def get(self, request: Request, slug: str) -> Response:
        row = selectors.role_row_get_for_tenant(tenant=self.tenant, slug=slug)
        return answer(present_versions(selectors.role_versions(tenant=self.tenant, role=row)[:500]))


class RoleRestoreView(TenantAPIView):
    required_scope = "write"

    @extend_schema(request=None, responses=with_errors(RoleDetailOut), summary="Restore a version")
    def post(self, request: Request, slug: str, version: int) -> Response:
        row = selectors.role_row_get_for_tenant(tenant=self.tenant, slug=slug)
        services.role_restore(tenant=self.tenant, actor=self.actor, role=row, version=version)
        return _role(self.tenant, slug)


class DpmlValidateView(TenantAPIView):
    """Parse and resolve DPML without saving: errors with line and column, and a preview."""

    required_scope = "read"

    @extend_schema(request=DpmlCheckIn, responses=with_errors(DpmlCheckOut), summary="Check DPML")
    def post(self, request: Request) -> Response:
        data = self.body(DpmlCheckIn)
        check = dpml_validate(
            tenant=self.tenant,
            source=data.source,
            kind=data.kind,
            title=data.name,
            name=data.name or "preview",
        )
        return answer(present_check(check.document, check.errors, check.preview))


class ResourceListView(TenantAPIView):
    method_scopes = WRITES

    @extend_schema(
        parameters=query_parameters(ResourceFilters),
        responses=with_errors(ResourceList),
        summary="List role resources",
        operation_id="role_resources_list",
    )
    def get(self, request: Request) -> Response:
        kind = self.params(ResourceFilters).kind
        specs = selectors.resources_for_tenant(tenant=self.tenant)
        return answer(
            ResourceList(resources=[present_resource(s) for s in specs if kind in ("", s.kind)])
        )

    @extend_schema(
        request=ResourceCreateIn,
        responses=with_errors(ResourceDetailOut, 201),
        summary="Create a role resource",
    )
    def post(self, request: Request) -> Response:
        data = self.body(ResourceCreateIn)
        row = services.resource_create(tenant=self.tenant, actor=self.actor, data=data)
        response = _resource(self.tenant, row.kind, row.name)
        response.status_code = 201
        return response


class ResourceDetailView(TenantAPIView):
    method_scopes = {"PATCH": "write", "DELETE": "admin"}

    @extend_schema(responses=with_errors(ResourceDetailOut), summary="Get a role resource")
    def get(self, request: Request, kind: str, name: str) -> Response:
        return _resource(self.tenant, checked_kind(kind), name)

    @extend_schema(
        request=ResourcePatch,
        responses=with_errors(ResourceDetailOut),
        summary="Edit a role resource (a new version)",
    )
    def patch(self, request: Request, kind: str, name: str) -> Response:
        changes = self.body(ResourcePatch)
        row = selectors.resource_row_get_for_tenant(tenant=self.tenant, kind=kind, name=name)
        services.resource_update(
            tenant=self.tenant, actor=self.actor, resource=row, changes=changes
        )
        return _resource(self.tenant, kind, name)

    @extend_schema(responses=with_errors(None, 204), summary="Delete a role resource for good")
    def delete(self, request: Request, kind: str, name: str) -> Response:
        row = selectors.resource_row_get_for_tenant(tenant=self.tenant, kind=kind, name=name)
        services.resource_delete(tenant=self.tenant, actor=self.actor, resource=row)
        return Response(status=204)


class ResourceVersionsView(TenantAPIView):
    required_scope = "read"

    @extend_schema(responses=with_errors(VersionList), summary="Versions of a resource")
    def get(self, request: Request, kind: str, name: str) -> Response:
        row = selectors.resource_row_get_for_tenant(tenant=self.tenant, kind=kind, name=name)
        versions = selectors.resource_versions(tenant=self.tenant, resource=row)[:500]
        return answer(present_versions(versions))


class ResourceRestoreView(TenantAPIView):
    required_scope = "write"

    @extend_schema(
        request=None, responses=with_errors(ResourceDetailOut), summary="Restore a version"
    )
    def post(self, request: Request, kind: str, name: str, version: int) -> Response:
        row = selectors.resource_row_get_for_tenant(tenant=self.tenant, kind=kind, name=name)
        services.resource_restore(
            tenant=self.tenant, actor=self.actor, resource=row, version=version
        )
        return _resource(self.tenant, kind, name)
