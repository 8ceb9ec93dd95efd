"""REST endpoints for roles and role resources: CRUD with versions, validate, render, activate.

Built-in roles are read-only here; ``POST /roles/<slug>/copy`` makes a tenant copy to edit.
``DELETE`` of a role archives it (restorable); resources are deleted for good (admin scope).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from base.errors import Conflict, ValidationFailed
from gateway.rest.base import TenantAPIView
from gateway.rest.schema import with_errors
from memory.contracts import present_mind
from roles import selectors, services
from roles.models import Role, RoleResource
from roles.selectors import ResourceSpec, RoleSpec

READ_METHODS = ("GET", "HEAD", "OPTIONS")


def _body(request: Request) -> dict[str, Any]:
    if not isinstance(request.data, dict):
        raise ValidationFailed.field("request", "send a JSON object")
    return request.data


def role_as_dict(spec: RoleSpec, *, source: bool = False) -> dict[str, Any]:
    data: dict[str, Any] = {
        "slug": spec.slug,
        "name": spec.name,
        "description": spec.description,
        "origin": spec.origin,
        "status": spec.status,
        "version": spec.version,
        "based_on": spec.based_on or None,
        "customised": spec.customised,
        "network": spec.network_key,
        "valid": spec.document.ok,
        "errors": [e.as_dict() for e in spec.document.errors],
        "updated_at": spec.updated_at,
    }
    if source:
        data["source"] = spec.source
    return data


def resource_as_dict(spec: ResourceSpec, *, source: bool = False) -> dict[str, Any]:
    data: dict[str, Any] = {
        "uri": spec.uri,
        "kind": spec.kind,
        "name": spec.name,
        "description": spec.description,
        "origin": spec.origin,
        "version": spec.version,
        "updated_at": spec.updated_at,
    }
    if source:
        data["source"] = spec.source
    return data


@extend_schema_serializer(component_name="Role")
class RoleOut(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField()
    origin = serializers.ChoiceField(choices=["builtin", "tenant"])
    status = serializers.ChoiceField(choices=Role.Status.values)
    version = serializers.IntegerField()
    based_on = serializers.CharField(allow_null=True)
    customised = serializers.BooleanField()
    network = serializers.CharField()
    valid = serializers.BooleanField()
    errors = serializers.ListField(child=serializers.DictField())
    updated_at = serializers.DateTimeField(allow_null=True)
    source = serializers.CharField(required=False)


@extend_schema_serializer(component_name="RoleResource")
class ResourceOut(serializers.Serializer):
    uri = serializers.CharField()
    kind = serializers.ChoiceField(choices=RoleResource.Kind.values)
    name = serializers.CharField()
    description = serializers.CharField()
    origin = serializers.ChoiceField(choices=["builtin", "tenant"])
    version = serializers.IntegerField()
    updated_at = serializers.DateTimeField(allow_null=True)
    source = serializers.CharField(required=False)


class VersionOut(serializers.Serializer):
    version = serializers.IntegerField()
    author = serializers.CharField()
    note = serializers.CharField()
    created_at = serializers.DateTimeField()
    source = serializers.CharField()


class RoleIn(serializers.Serializer):
    """Documentation only; the rules live in roles.services."""

    slug = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField(required=False)
    source = serializers.CharField(help_text="DPML: <role> with personality, principle, knowledge")
    status = serializers.ChoiceField(choices=Role.Status.values, required=False)


class ResourceIn(serializers.Serializer):
    kind = serializers.ChoiceField(choices=RoleResource.Kind.values)
    name = serializers.CharField()
    description = serializers.CharField(required=False)
    source = serializers.CharField()


class RoleListView(TenantAPIView):
    """Every role of the workspace: its own and the built-ins."""

    def get_required_scope(self) -> str:
        return "read" if self.request.method in READ_METHODS else "write"

    @extend_schema(
        parameters=[
            OpenApiParameter("q", str, description="words in slug, name or description"),
            OpenApiParameter("origin", str, enum=["builtin", "tenant"]),
            OpenApiParameter("archived", bool),
        ],
        responses=with_errors(RoleOut(many=True)),
        summary="List roles",
    )
    def get(self, request: Request) -> Response:
        params = request.query_params
        origin = params.get("origin", "")
        if origin not in ("", "builtin", "tenant"):
            raise ValidationFailed.field("origin", "builtin or tenant")
        specs = selectors.roles_for_tenant(
            tenant=self.tenant, archived=params.get("archived") in ("1", "true")
        )
        words = params.get("q", "").lower().split()
        specs = [
            s
            for s in specs
            if (not origin or s.origin == origin)
            and all(w in f"{s.slug} {s.name} {s.description}".lower() for w in words)
        ]
        return Response({"roles": [role_as_dict(s) for s in specs]})

    @extend_schema(request=RoleIn, responses=with_errors(RoleOut, 201), summary="Create a role")
    def post(self, request: Request) -> Response:
        role = services.role_create(tenant=self.tenant, actor=self.actor, data=_body(request))
        spec = selectors.role_get_for_tenant(tenant=self.tenant, slug=role.slug)
        return Response(role_as_dict(spec, source=True), status=201)


class RoleDetailView(TenantAPIView):
    def get_required_scope(self) -> str:
        return "read" if self.request.method in READ_METHODS else "write"

    @extend_schema(responses=with_errors(RoleOut), summary="Get a role with its source")
    def get(self, request: Request, slug: str) -> Response:
        spec = selectors.role_get_for_tenant(tenant=self.tenant, slug=slug)
        return Response(role_as_dict(spec, source=True))

    @extend_schema(
        request=RoleIn(partial=True),
        responses=with_errors(RoleOut),
        summary="Edit a role (a new version)",
    )
    def patch(self, request: Request, slug: str) -> Response:
        row = _own_row(self.tenant, slug)
        services.role_update(tenant=self.tenant, actor=self.actor, role=row, changes=_body(request))
        spec = selectors.role_get_for_tenant(tenant=self.tenant, slug=slug)
        return Response(role_as_dict(spec, source=True))

    @extend_schema(responses=with_errors(RoleOut), summary="Archive a role (restorable)")
    def delete(self, request: Request, slug: str) -> Response:
        row = _own_row(self.tenant, slug)
        services.role_archive(tenant=self.tenant, actor=self.actor, role=row)
        spec = selectors.role_get_for_tenant(tenant=self.tenant, slug=slug)
        return Response(role_as_dict(spec))


def _own_row(tenant: Any, slug: str) -> Role:
    spec = selectors.role_get_for_tenant(tenant=tenant, slug=slug)
    if spec.row is None:
        raise Conflict(
            f"“{slug}” is a built-in role and cannot be changed; POST /api/v1/roles/{slug}/copy "
            "makes a copy of it for this workspace."
        )
    return spec.row


class RoleRenderView(TenantAPIView):
    required_scope = "read"

    @extend_schema(summary="The rendered persona of a role, references resolved")
    def get(self, request: Request, slug: str) -> Response:
        spec = selectors.role_get_for_tenant(tenant=self.tenant, slug=slug)
        persona, errors = services.persona_render(tenant=self.tenant, role=spec)
        return Response(
            {
                "slug": spec.slug,
                "persona": persona,
                "valid": not any(e.severity == "error" for e in errors),
                "errors": [e.as_dict() for e in errors],
            }
        )


class RoleActivateView(TenantAPIView):
    """What MCP ``action`` does: the persona plus a prime of the role's memory network."""

    required_scope = "read"

    @extend_schema(summary="Activate a role: persona and primed memory")
    def post(self, request: Request, slug: str) -> Response:
        activation = services.role_activate(tenant=self.tenant, actor=self.actor, slug=slug)
        return Response(
            {
                "role": role_as_dict(activation.role),
                "persona": activation.persona,
                "prime": present_mind(activation.mind).as_json(),
                "warnings": [e.as_dict() for e in activation.warnings],
            }
        )


class RoleCopyView(TenantAPIView):
    required_scope = "write"

    class Input(serializers.Serializer):
        slug = serializers.CharField(required=False, help_text="slug of the copy")
        name = serializers.CharField(required=False)

    @extend_schema(request=Input, responses=with_errors(RoleOut, 201), summary="Copy a role")
    def post(self, request: Request, slug: str) -> Response:
        body = _body(request)
        role = services.role_copy(
            tenant=self.tenant,
            actor=self.actor,
            slug=slug,
            new_slug=str(body.get("slug") or ""),
            name=str(body.get("name") or ""),
        )
        spec = selectors.role_get_for_tenant(tenant=self.tenant, slug=role.slug)
        return Response(role_as_dict(spec, source=True), status=201)


class RoleVersionsView(TenantAPIView):
    required_scope = "read"

    @extend_schema(responses=with_errors(VersionOut(many=True)), summary="Versions of a role")
    def get(self, request: Request, slug: str) -> Response:
        row = selectors.role_row_get_for_tenant(tenant=self.tenant, slug=slug)
        versions = selectors.role_versions(tenant=self.tenant, role=row)[:500]
        return Response({"versions": VersionOut(versions, many=True).data})


class RoleRestoreView(TenantAPIView):
    required_scope = "write"

    @extend_schema(request=None, responses=with_errors(RoleOut), summary="Restore a version")
    def post(self, request: Request, slug: str, version: int) -> Response:
        row = selectors.role_row_get_for_tenant(tenant=self.tenant, slug=slug)
        services.role_restore(tenant=self.tenant, actor=self.actor, role=row, version=version)
        spec = selectors.role_get_for_tenant(tenant=self.tenant, slug=slug)
        return Response(role_as_dict(spec, source=True))


class DpmlValidateView(TenantAPIView):
    """Parse and resolve DPML without saving: errors with line and column, and a preview."""

    required_scope = "read"

    class Input(serializers.Serializer):
        source = serializers.CharField()
        kind = serializers.ChoiceField(choices=["role", *RoleResource.Kind.values], required=False)
        name = serializers.CharField(required=False, help_text="title of the preview")

    @extend_schema(request=Input, summary="Validate DPML")
    def post(self, request: Request) -> Response:
        body = _body(request)
        source = body.get("source")
        if not isinstance(source, str):
            raise ValidationFailed.field("source", "send the DPML text as a string")
        check = services.dpml_validate(
            tenant=self.tenant,
            source=source,
            kind=str(body.get("kind") or "role"),
            title=str(body.get("name") or ""),
            name=str(body.get("name") or "preview"),
        )
        return Response(
            {
                "valid": check.ok,
                "errors": [e.as_dict() for e in check.errors],
                "references": sorted({r.uri for r in check.document.references()}),
                "preview": check.preview,
            }
        )


class ResourceListView(TenantAPIView):
    def get_required_scope(self) -> str:
        return "read" if self.request.method in READ_METHODS else "write"

    @extend_schema(
        parameters=[OpenApiParameter("kind", str, enum=RoleResource.Kind.values)],
        responses=with_errors(ResourceOut(many=True)),
        summary="List role resources",
    )
    def get(self, request: Request) -> Response:
        kind = request.query_params.get("kind", "")
        if kind and kind not in RoleResource.Kind.values:
            raise ValidationFailed.field("kind", "one of thought, execution, knowledge")
        specs = selectors.resources_for_tenant(tenant=self.tenant)
        return Response(
            {"resources": [resource_as_dict(s) for s in specs if not kind or s.kind == kind]}
        )

    @extend_schema(
        request=ResourceIn,
        responses=with_errors(ResourceOut, 201),
        summary="Create a role resource",
    )
    def post(self, request: Request) -> Response:
        row = services.resource_create(tenant=self.tenant, actor=self.actor, data=_body(request))
        spec = selectors.resource_get_for_tenant(tenant=self.tenant, kind=row.kind, name=row.name)
        return Response(resource_as_dict(spec, source=True), status=201)


class ResourceDetailView(TenantAPIView):
    def get_required_scope(self) -> str:
        if self.request.method in READ_METHODS:
            return "read"
        return "admin" if self.request.method == "DELETE" else "write"

    @extend_schema(responses=with_errors(ResourceOut), summary="Get a role resource")
    def get(self, request: Request, kind: str, name: str) -> Response:
        spec = services.resource_spec_for(tenant=self.tenant, kind=kind, name=name)
        return Response(resource_as_dict(spec, source=True))

    @extend_schema(
        request=ResourceIn(partial=True),
        responses=with_errors(ResourceOut),
        summary="Edit a role resource (a new version)",
    )
    def patch(self, request: Request, kind: str, name: str) -> Response:
        row = selectors.resource_row_get_for_tenant(tenant=self.tenant, kind=kind, name=name)
        services.resource_update(
            tenant=self.tenant, actor=self.actor, resource=row, changes=_body(request)
        )
        spec = selectors.resource_get_for_tenant(tenant=self.tenant, kind=kind, name=name)
        return Response(resource_as_dict(spec, source=True))

    @extend_schema(responses={204: None}, summary="Delete a role resource for good")
    def delete(self, request: Request, kind: str, name: str) -> Response:
        row = selectors.resource_row_get_for_tenant(tenant=self.tenant, kind=kind, name=name)
        services.resource_delete(tenant=self.tenant, actor=self.actor, resource=row)
        return Response(status=204)


class ResourceVersionsView(TenantAPIView):
    required_scope = "read"

    @extend_schema(responses=with_errors(VersionOut(many=True)), summary="Versions of a resource")
    def get(self, request: Request, kind: str, name: str) -> Response:
        row = selectors.resource_row_get_for_tenant(tenant=self.tenant, kind=kind, name=name)
        versions = selectors.resource_versions(tenant=self.tenant, resource=row)[:500]
        return Response({"versions": VersionOut(versions, many=True).data})


class ResourceRestoreView(TenantAPIView):
    required_scope = "write"

    @extend_schema(request=None, responses=with_errors(ResourceOut), summary="Restore a version")
    def post(self, request: Request, kind: str, name: str, version: int) -> Response:
        row = selectors.resource_row_get_for_tenant(tenant=self.tenant, kind=kind, name=name)
        services.resource_restore(
            tenant=self.tenant, actor=self.actor, resource=row, version=version
        )
        spec = selectors.resource_get_for_tenant(tenant=self.tenant, kind=kind, name=name)
        return Response(resource_as_dict(spec, source=True))
