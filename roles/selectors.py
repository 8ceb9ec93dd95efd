"""Reading roles and resources: a tenant's rows merged with the built-ins, and the batched
resource loader that reference resolution uses.

Precedence, per slug (or resource name): the tenant's **active** row, else the built-in. A
tenant's draft or archived copy of a built-in never hides the built-in from agents, so editing a
copy cannot take an expert away mid-work.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal, cast

from django.db.models import QuerySet

from base.errors import NotFound
from roles.builtin import BuiltinResource, registry
from roles.dpml import Document
from roles.dpml.resolve import Key, Loader
from roles.dpml.tree import ResourceKind
from roles.models import ResourceVersion, Role, RoleResource, RoleVersion
from tenants.models import Tenant

Origin = Literal["builtin", "tenant"]


@dataclass(frozen=True)
class RoleSpec:
    """A role as people and agents see it, wherever it comes from."""

    slug: str
    name: str
    description: str
    source: str
    document: Document
    origin: Origin
    status: str
    version: int
    based_on: str = ""
    updated_at: datetime | None = None
    row: Role | None = None
    customised: bool = False  # a built-in the tenant also has a row for

    @property
    def network_key(self) -> str:
        return f"role:{self.slug}"


@dataclass(frozen=True)
class ResourceSpec:
    kind: str
    name: str
    description: str
    source: str
    document: Document
    origin: Origin
    version: int
    updated_at: datetime | None = None
    row: RoleResource | None = None

    @property
    def uri(self) -> str:
        return f"{self.kind}://{self.name}"


_PARSED: dict[tuple[int, int], Document] = {}  # (row id, version) → tree; rows never change
_PARSED_MAX = 2000


def stored_document(row: Role | RoleResource) -> Document:
    """The tree saved with the row (parsed on write), rebuilt once per version per process."""
    key = (row.pk, row.version) if isinstance(row, RoleResource) else (-row.pk, row.version)
    document = _PARSED.get(key)
    if document is None:
        if len(_PARSED) >= _PARSED_MAX:
            _PARSED.clear()
        document = _PARSED[key] = Document.from_dict(row.tree)
    return document


def _role_spec(row: Role, customised: bool = False) -> RoleSpec:
    return RoleSpec(
        slug=row.slug,
        name=row.name,
        description=row.description,
        source=row.source,
        document=stored_document(row),
        origin="tenant",
        status=row.status,
        version=row.version,
        based_on=row.based_on,
        updated_at=row.updated_at,
        row=row,
        customised=customised,
    )


def _builtin_spec(slug: str, customised: bool = False) -> RoleSpec:
    b = registry().roles[slug]
    return RoleSpec(
        slug=b.slug,
        name=b.name,
        description=b.description,
        source=b.source,
        document=b.document,
        origin="builtin",
        status=Role.Status.ACTIVE,
        version=1,
        customised=customised,
    )


def roles_for_tenant(*, tenant: Tenant, archived: bool = False) -> list[RoleSpec]:
    """Every role of the tenant (its rows, any status but archived unless asked) and every
    built-in, sorted by name; a built-in the tenant has a row for is marked ``customised``."""
    rows = Role.objects.filter(tenant=tenant).order_by("name", "slug")
    if not archived:
        rows = rows.exclude(status=Role.Status.ARCHIVED)
    own = list(rows)
    slugs = {r.slug for r in own}
    specs = [_role_spec(r, customised=r.slug in registry().roles) for r in own]
    specs += [_builtin_spec(s, customised=s in slugs) for s in registry().roles]
    return sorted(specs, key=lambda s: (s.name.lower(), s.origin))


def roles_for_agents(*, tenant: Tenant, q: str = "") -> list[RoleSpec]:
    """What ``discover`` offers: one role per slug, the tenant's active row over the built-in."""
    active = {
        r.slug: _role_spec(r) for r in Role.objects.filter(tenant=tenant, status=Role.Status.ACTIVE)
    }
    specs = list(active.values())
    specs += [_builtin_spec(s) for s in registry().roles if s not in active]
    words = q.lower().split()
    if words:
        specs = [
            s
            for s in specs
            if all(w in f"{s.slug} {s.name} {s.description}".lower() for w in words)
        ]
    return sorted(specs, key=lambda s: s.name.lower())


def role_get_for_tenant(*, tenant: Tenant, slug: str) -> RoleSpec:
    """The tenant's row for ``slug`` (any status) if there is one, else the built-in; 404."""
    row = Role.objects.filter(tenant=tenant, slug=slug).first()
    if row is not None:
        return _role_spec(row, customised=slug in registry().roles)
    if slug in registry().roles:
        return _builtin_spec(slug)
    raise NotFound(f"There is no role “{slug}” in this workspace.")


def role_for_agents(*, tenant: Tenant, slug: str) -> RoleSpec:
    """The role an agent gets for ``slug``: the active row, else the built-in, else 404."""
    row = Role.objects.filter(tenant=tenant, slug=slug, status=Role.Status.ACTIVE).first()
    if row is not None:
        return _role_spec(row)
    if slug in registry().roles:
        return _builtin_spec(slug)
    if Role.objects.filter(tenant=tenant, slug=slug).exists():
        raise NotFound(
            f"The role “{slug}” is a draft or archived: set it active in the dashboard first."
        )
    raise NotFound(f"There is no role “{slug}”; `discover` lists the roles of this workspace.")


def role_row_get_for_tenant(*, tenant: Tenant, slug: str) -> Role:
    row = Role.objects.filter(tenant=tenant, slug=slug).first()
    if row is None:
        raise NotFound(f"There is no role “{slug}” of this workspace (built-ins: copy one first).")
    return row


def role_versions(*, tenant: Tenant, role: Role) -> QuerySet[RoleVersion]:
    return RoleVersion.objects.filter(tenant=tenant, role=role).order_by("-version")


def _resource_spec(row: RoleResource) -> ResourceSpec:
    return ResourceSpec(
        kind=row.kind,
        name=row.name,
        description=row.description,
        source=row.source,
        document=stored_document(row),
        origin="tenant",
        version=row.version,
        updated_at=row.updated_at,
        row=row,
    )


def _builtin_resource_spec(b: BuiltinResource) -> ResourceSpec:
    return ResourceSpec(
        kind=b.kind,
        name=b.name,
        description="",
        source=b.source,
        document=b.document,
        origin="builtin",
        version=1,
    )


def resources_for_tenant(*, tenant: Tenant) -> list[ResourceSpec]:
    own = {(r.kind, r.name): _resource_spec(r) for r in RoleResource.objects.filter(tenant=tenant)}
    for key, b in registry().resources.items():
        if key not in own:
            own[key] = _builtin_resource_spec(b)
    return sorted(own.values(), key=lambda r: (r.kind, r.name))


def resource_get_for_tenant(*, tenant: Tenant, kind: str, name: str) -> ResourceSpec:
    row = RoleResource.objects.filter(tenant=tenant, kind=kind, name=name).first()
    if row is not None:
        return _resource_spec(row)
    b = registry().resources.get((cast(ResourceKind, kind), name))
    if b is None:
        raise NotFound(f"There is no resource {kind}://{name} in this workspace.")
    return _builtin_resource_spec(b)


def resource_row_get_for_tenant(*, tenant: Tenant, kind: str, name: str) -> RoleResource:
    row = RoleResource.objects.filter(tenant=tenant, kind=kind, name=name).first()
    if row is None:
        raise NotFound(f"There is no resource {kind}://{name} of this workspace.")
    return row


def resource_versions(*, tenant: Tenant, resource: RoleResource) -> QuerySet[ResourceVersion]:
    return ResourceVersion.objects.filter(tenant=tenant, resource=resource).order_by("-version")


def resource_loader(*, tenant: Tenant) -> Loader:
    """A loader for ``roles.dpml.resolve``: one query for a whole level of references, the
    tenant's resources first, built-ins for the rest."""

    def load(keys: set[Key]) -> dict[Key, Document]:
        kinds = {k for k, _ in keys}
        names = {n for _, n in keys}
        rows = RoleResource.objects.filter(tenant=tenant, kind__in=kinds, name__in=names).only(
            "id", "kind", "name", "version", "tree"
        )
        found: dict[Key, Document] = {}
        for row in rows:
            key = (row.kind, row.name)
            if key in keys:
                found[key] = stored_document(row)
        builtins = registry().resources
        for key in keys - found.keys():
            if key in builtins:
                found[key] = builtins[key].document
        return found

    return load
