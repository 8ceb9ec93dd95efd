"""REST endpoints of the foundation: who am I, API keys, audit log.

One small view per operation: input serializer -> one service or selector call -> output serializer.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from audit.selectors import audit_events_for_tenant
from base.pagination import page_of, parse_limit
from gateway.rest.base import TenantAPIView
from gateway.rest.schema import with_errors
from tenants import services
from tenants.models import ApiKey
from tenants.selectors import apikey_get_for_tenant, apikeys_for_tenant


@extend_schema_serializer(component_name="Key")
class KeyOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    prefix = serializers.CharField()
    scopes = serializers.ListField(child=serializers.CharField())
    status = serializers.CharField()
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(allow_null=True)
    last_used_at = serializers.DateTimeField(allow_null=True)
    revoked_at = serializers.DateTimeField(allow_null=True)


class WhoAmIView(TenantAPIView):
    """The tenant and key behind the bearer token."""

    required_scope = None

    @extend_schema_serializer(component_name="WhoAmI")
    class Output(serializers.Serializer):
        @extend_schema_serializer(component_name="TenantSummary")
        class TenantOut(serializers.Serializer):
            slug = serializers.CharField()
            name = serializers.CharField()
            plan = serializers.CharField()

        tenant = TenantOut()
        key = KeyOut()
        mcp_url = serializers.CharField()

    @extend_schema(responses=with_errors(Output), summary="Who am I: tenant, key name and scopes")
    def get(self, request: Request) -> Response:
        data = {"tenant": self.tenant, "key": self.key, "mcp_url": self.tenant.mcp_url}
        return Response(self.Output(data).data)


class KeyListCreateView(TenantAPIView):
    """List the tenant's API keys, or create one (the secret is in the answer, once)."""

    required_scope = "admin"

    @extend_schema_serializer(component_name="KeyCreate")
    class Input(serializers.Serializer):
        name = serializers.CharField(max_length=100)
        scopes = serializers.ListField(
            child=serializers.ChoiceField(choices=ApiKey.Scope.values), min_length=1
        )
        expires_at = serializers.DateTimeField(required=False, allow_null=True)

    @extend_schema_serializer(component_name="KeyCreated")
    class Created(KeyOut):
        secret = serializers.CharField(help_text="Shown once; store it now.")

    @extend_schema_serializer(component_name="KeyList")
    class ListOut(serializers.Serializer):
        keys = KeyOut(many=True)

    @extend_schema(
        responses=with_errors(ListOut), summary="List API keys", operation_id="keys_list"
    )
    def get(self, request: Request) -> Response:
        return Response({"keys": KeyOut(apikeys_for_tenant(tenant=self.tenant), many=True).data})

    @extend_schema(request=Input, responses=with_errors(Created, 201), summary="Create an API key")
    def post(self, request: Request) -> Response:
        data = self.Input(data=request.data)
        data.is_valid(raise_exception=True)
        key, secret = services.apikey_create(
            tenant=self.tenant, actor=self.actor, **data.validated_data
        )
        return Response({**KeyOut(key).data, "secret": secret}, status=201)


class KeyDetailView(TenantAPIView):
    """One API key; DELETE revokes it (it stays listed, as revoked)."""

    required_scope = "admin"

    @extend_schema(responses=with_errors(KeyOut), summary="Get an API key")
    def get(self, request: Request, key_id: int) -> Response:
        return Response(KeyOut(apikey_get_for_tenant(tenant=self.tenant, id=key_id)).data)

    @extend_schema(responses=with_errors(KeyOut), summary="Revoke an API key")
    def delete(self, request: Request, key_id: int) -> Response:
        key = apikey_get_for_tenant(tenant=self.tenant, id=key_id)
        key = services.apikey_revoke(tenant=self.tenant, actor=self.actor, key=key)
        return Response(KeyOut(key).data)


@extend_schema_serializer(component_name="AuditActor")
class AuditActorOut(serializers.Serializer):
    kind = serializers.CharField(source="actor_kind")
    id = serializers.IntegerField(source="actor_id", allow_null=True)
    label = serializers.CharField(source="actor_label")


@extend_schema_serializer(component_name="AuditTarget")
class AuditTargetOut(serializers.Serializer):
    type = serializers.CharField(source="target_type")
    id = serializers.CharField(source="target_id")
    label = serializers.CharField(source="target_label")


@extend_schema_serializer(component_name="AuditEvent")
class EventOut(serializers.Serializer):
    id = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    actor = AuditActorOut(source="*")
    verb = serializers.CharField()
    target = AuditTargetOut(source="*")
    before = serializers.JSONField()
    after = serializers.JSONField()
    request_id = serializers.CharField()
    ip = serializers.CharField(allow_null=True)


class AuditListView(TenantAPIView):
    """The tenant's audit events, newest first, cursor-paginated."""

    required_scope = "admin"

    @extend_schema_serializer(component_name="AuditFilters")
    class Filters(serializers.Serializer):
        actor = serializers.CharField(required=False, default="")
        verb = serializers.CharField(required=False, default="")
        since = serializers.DateField(required=False, allow_null=True, default=None)
        until = serializers.DateField(required=False, allow_null=True, default=None)
        target_type = serializers.CharField(required=False, default="")
        target_id = serializers.CharField(required=False, default="")

    @extend_schema_serializer(component_name="AuditPage")
    class PageOut(serializers.Serializer):
        events = EventOut(many=True)
        next_cursor = serializers.CharField(allow_null=True)

    @extend_schema(
        parameters=[Filters, OpenApiParameter("cursor", str), OpenApiParameter("limit", int)],
        responses=with_errors(PageOut),
        summary="List audit events",
    )
    def get(self, request: Request) -> Response:
        filters = self.Filters(data=request.query_params)
        filters.is_valid(raise_exception=True)
        events = audit_events_for_tenant(tenant_id=self.tenant.pk, **filters.validated_data)
        rows, cursor = page_of(
            events,
            cursor=request.query_params.get("cursor", ""),
            limit=parse_limit(request.query_params.get("limit")),
        )
        return Response({"events": EventOut(rows, many=True).data, "next_cursor": cursor})
