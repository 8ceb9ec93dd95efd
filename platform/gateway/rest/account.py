"""REST endpoints of the workspace: who am I, API keys, the audit log."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from audit.contracts import AuditFilters, AuditPage, present_event
from audit.sealing import unseal
from audit.selectors import audit_events_for_tenant
from base.pagination import page_of
from gateway.rest.base import TenantAPIView, answer
from gateway.rest.schema import query_parameters, with_errors
from tenants import services
from tenants.contracts import (
    KeyCreatedOut,
    KeyCreateIn,
    KeyList,
    KeyOut,
    WhoAmIOut,
    present_key,
    present_whoami,
)
from tenants.selectors import apikey_get_for_tenant, apikeys_for_tenant


class WhoAmIView(TenantAPIView):
    """The tenant and key behind the bearer token."""

    required_scope = None

    @extend_schema(
        responses=with_errors(WhoAmIOut), summary="Who am I: tenant, key name and scopes"
    )
    def get(self, request: Request) -> Response:
        return answer(present_whoami(self.tenant, self.key))


class KeyListCreateView(TenantAPIView):
    """List the tenant's API keys, or create one (the secret is in the answer, once)."""

    required_scope = "admin"

    @extend_schema(
        responses=with_errors(KeyList), summary="List API keys", operation_id="keys_list"
    )
    def get(self, request: Request) -> Response:
        keys = apikeys_for_tenant(tenant=self.tenant)
        return answer(KeyList(keys=[present_key(k) for k in keys]))

    @extend_schema(
        request=KeyCreateIn, responses=with_errors(KeyCreatedOut, 201), summary="Create an API key"
    )
    def post(self, request: Request) -> Response:
        data = self.body(KeyCreateIn)
        key, secret = services.apikey_create(
            tenant=self.tenant,
            actor=self.actor,
            name=data.name,
            scopes=data.scopes,
            expires_at=data.expires_at,
        )
        created = KeyCreatedOut(**present_key(key).model_dump(), secret=secret)
        return answer(created, status=201)


class KeyDetailView(TenantAPIView):
    """One API key; DELETE revokes it (it stays listed, as revoked)."""

    required_scope = "admin"

    @extend_schema(responses=with_errors(KeyOut), summary="Get an API key")
    def get(self, request: Request, key_id: int) -> Response:
        return answer(present_key(apikey_get_for_tenant(tenant=self.tenant, id=key_id)))

    @extend_schema(responses=with_errors(KeyOut), summary="Revoke an API key")
    def delete(self, request: Request, key_id: int) -> Response:
        key = apikey_get_for_tenant(tenant=self.tenant, id=key_id)
        key = services.apikey_revoke(tenant=self.tenant, actor=self.actor, key=key)
        return answer(present_key(key))


class AuditListView(TenantAPIView):
    """The tenant's audit events, newest first, cursor-paginated."""

    required_scope = "admin"

    @extend_schema(
        parameters=query_parameters(AuditFilters),
        responses=with_errors(AuditPage),
        summary="List audit events",
    )
    def get(self, request: Request) -> Response:
        filters = self.params(AuditFilters)
        events = audit_events_for_tenant(
            tenant_id=self.tenant.pk, **filters.model_dump(exclude={"cursor", "limit"})
        )
        rows, cursor = page_of(events, cursor=filters.cursor, limit=filters.limit)
        rows = list(unseal(rows))
        return answer(AuditPage(events=[present_event(e) for e in rows], next_cursor=cursor))
