"""Test data made through the real services (so audit rows and RLS are exercised too)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from audit.actors import Actor
from tenants import rls, services
from tenants.models import ApiKey, Membership, Tenant, User

PASSWORD = "correct-horse-battery-staple"
_seq = itertools.count(1)


def make_user(email: str | None = None, *, name: str = "") -> User:
    email = email or f"user{next(_seq)}@example.com"
    return services.user_create(email=email, password=PASSWORD, name=name)


def make_tenant(slug: str | None = None, *, owner: User | None = None, name: str = "") -> Tenant:
    owner = owner or make_user()
    slug = slug or f"team-{next(_seq)}"
    return services.tenant_create(name=name or slug.title(), slug=slug, owner=owner)


def add_member(tenant: Tenant, user: User, role: str) -> Membership:
    with rls.tenant_scope(tenant.pk):
        return Membership.objects.create(tenant=tenant, user=user, role=role)


def make_key(
    tenant: Tenant, *, scopes: tuple[str, ...] = ("read", "write"), name: str = "agent"
) -> tuple[ApiKey, str]:
    with rls.tenant_scope(tenant.pk):
        return services.apikey_create(
            tenant=tenant, actor=Actor.system("tests"), name=name, scopes=scopes
        )


@dataclass
class Cast:
    """A tenant with its fixed cast, plus an outsider who owns another tenant."""

    tenant: Tenant
    owner: User
    admin: User
    member: User
    viewer: User
    outsider: User
    other: Tenant


def make_cast(slug: str = "acme", other_slug: str = "globex") -> Cast:
    owner = make_user(f"owner@{slug}.test", name="Olga Owner")
    tenant = make_tenant(slug, owner=owner, name=slug.title())
    admin = make_user(f"admin@{slug}.test")
    member = make_user(f"member@{slug}.test")
    viewer = make_user(f"viewer@{slug}.test")
    add_member(tenant, admin, Membership.Role.ADMIN)
    add_member(tenant, member, Membership.Role.MEMBER)
    add_member(tenant, viewer, Membership.Role.VIEWER)
    outsider = make_user(f"outsider@{other_slug}.test")
    other = make_tenant(other_slug, owner=outsider, name=other_slug.title())
    return Cast(tenant, owner, admin, member, viewer, outsider, other)
