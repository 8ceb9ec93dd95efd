"""API keys and "who am I" as interfaces take and show them."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Literal

from django.utils.dateparse import parse_datetime
from pydantic import BeforeValidator, Field

from base.contracts import Contract, Instant, Output, Text
from tenants.models import ApiKey, Tenant

Scope = Literal["read", "write", "admin"]


def _utc_if_naive(value: object) -> object:
    """As the API always did: a date-time without a zone is UTC."""
    if isinstance(value, str) and value.strip():
        try:
            parsed = parse_datetime(value.strip())
        except ValueError:  # well-formed but impossible: Instant says so
            return value
        if parsed is not None and parsed.tzinfo is None:
            return parsed.replace(tzinfo=UTC)
    return value


class KeyCreateIn(Contract):
    name: Text = Field(min_length=1, max_length=100)
    scopes: list[Scope] = Field(min_length=1)
    expires_at: Annotated[Instant | None, BeforeValidator(_utc_if_naive)] = None

    blank_means_absent = ("expires_at",)


class KeyOut(Output):
    id: int
    name: str
    prefix: str
    scopes: list[str]
    status: str
    created_at: datetime
    expires_at: datetime | None
    last_used_at: datetime | None
    revoked_at: datetime | None


class KeyCreatedOut(KeyOut):
    secret: str = Field(description="Shown once; store it now.")


class KeyList(Output):
    keys: list[KeyOut]


def present_key(key: ApiKey) -> KeyOut:
    return KeyOut.model_validate(key, from_attributes=True)


class TenantSummaryOut(Output):
    slug: str
    name: str
    plan: str


class WhoAmIOut(Output):
    tenant: TenantSummaryOut
    key: KeyOut
    mcp_url: str


def present_whoami(tenant: Tenant, key: ApiKey) -> WhoAmIOut:
    return WhoAmIOut(
        tenant=TenantSummaryOut(slug=tenant.slug, name=tenant.name, plan=tenant.plan),
        key=present_key(key),
        mcp_url=tenant.mcp_url,
    )
