"""Writing roles and resources (versioned documents, see roles.documents), rendering personas,
and activating a role for an agent (persona plus a prime of the role's memory network)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from django.core.cache import cache
from django.db import transaction

from audit.actors import Actor
from audit.services import audit_record
from base.contracts import validated
from base.errors import Conflict, PermissionDenied
from memory.core.mind import Mind
from memory.services.recall import network_prime
from roles import selectors
from roles.builtin import registry
from roles.contracts import (
    ResourceCreateIn,
    ResourcePatch,
    RoleCopyIn,
    RoleCreateIn,
    RolePatch,
)
from roles.documents import (
    DocumentKind,
    Values,
    document_create,
    document_update,
    document_version,
)
from roles.dpml import Document, DpmlError, Element, Reference, render_role, resolve
from roles.dpml.resolve import Key
from roles.models import ResourceVersion, Role, RoleResource, RoleVersion
from roles.selectors import RoleSpec
from roles.validation import DpmlInvalid
from tenants.models import Tenant
from tenants.permissions import Capability, actor_allows

PERSONA_TTL = 24 * 3600


@dataclass
class Activation:
    role: RoleSpec
    persona: str
    mind: Mind
    warnings: list[DpmlError] = field(default_factory=list)


# --- rendering and activating --------------------------------------------------------------


def _generation(tenant: Tenant) -> int:
    return int(cache.get(f"roles:gen:{tenant.pk}") or 0)


def _bump_generation(tenant: Tenant) -> None:
    """Any resource change can change any persona of the tenant: new generation, new keys."""
    key = f"roles:gen:{tenant.pk}"

    def bump() -> None:
        if not cache.add(key, 1, timeout=None):
            cache.incr(key)

    # Now (this transaction's own later reads miss the cache) and again after commit (a
    # concurrent render of the old state cached in between is left behind).
    bump()
    transaction.on_commit(bump)


def persona_render(*, tenant: Tenant, role: RoleSpec) -> tuple[str, list[DpmlError]]:
    """The rendered persona and its resolution problems, cached per role version, tenant
    resource generation and built-in bundle: a hit touches no table."""
    source_hash = hashlib.sha256(role.source.encode()).hexdigest()[:12]
    key = (
        f"roles:persona:{tenant.pk}:{role.origin}:{role.slug}:{role.version}:{source_hash}:"
        f"{_generation(tenant)}:{registry().fingerprint}"
    )
    hit = cache.get(key)
    if hit is not None:
        return hit["persona"], [DpmlError(**e) for e in hit["errors"]]
    resolution = resolve(role.document, selectors.resource_loader(tenant=tenant))
    persona = render_role(role.document, resolution, title=role.name)
    errors = role.document.errors + resolution.errors
    cache.set(key, {"persona": persona, "errors": [e.as_dict() for e in errors]}, PERSONA_TTL)
    return persona, errors


def role_activate(*, tenant: Tenant, actor: Actor, slug: str, source: str = "api") -> Activation:
    """What ``action`` gives an agent: the persona, and a prime of ``role:<slug>`` (which also
    carries into the agent's next recall there)."""
    role = selectors.role_for_agents(tenant=tenant, slug=slug)
    persona, problems = persona_render(tenant=tenant, role=role)
    errors = [e for e in problems if e.severity == "error"]
    if errors:
        raise DpmlInvalid(errors)
    mind = network_prime(
        tenant=tenant, actor=actor, network_key=role.network_key, source=source, missing_ok=True
    )
    return Activation(role=role, persona=persona, mind=mind, warnings=problems)


def _require(actor: Actor, capability: Capability) -> None:
    if not actor_allows(actor, capability):
        raise PermissionDenied("Your role or key cannot change roles here.")


# --- roles ----------------------------------------------------------------------------------

ROLE = DocumentKind(
    model=Role,
    version_model=RoleVersion,
    parent="role",
    verb="role",
    key_fields=("slug",),
    fields=("name", "description", "source", "status"),
    identity=lambda v: {"slug": v["slug"]},
    dpml_kind=lambda v: "role",
    strict=lambda v: v["status"] == Role.Status.ACTIVE,  # drafts may hold errors
    taken=lambda v: f"A role “{v['slug']}” already exists here; pick another slug.",
)


def role_create(
    *, tenant: Tenant, actor: Actor, data: RoleCreateIn, based_on: str = "", note: str = ""
) -> Role:
    """A new tenant role (an active one must parse and resolve cleanly; a draft may not)."""
    _require(actor, Capability.ROLES_EDIT)
    return document_create(
        ROLE,
        tenant=tenant,
        actor=actor,
        values=data.model_dump(),
        note=note,
        extra={"based_on": based_on},
    )


def role_update(
    *, tenant: Tenant, actor: Actor, role: Role, changes: RolePatch, note: str = ""
) -> Role:
    """Change name, description, source or status; a new version when anything changed."""
    _require(actor, Capability.ROLES_EDIT)
    return document_update(
        ROLE, tenant=tenant, actor=actor, row=role, changes=changes.changes, note=note
    )


def role_archive(*, tenant: Tenant, actor: Actor, role: Role) -> Role:
    """Hide a role from agents and lists; its versions stay and it can be restored."""
    changes = RolePatch(status="archived")
    return role_update(tenant=tenant, actor=actor, role=role, changes=changes, note="archived")


def role_restore(*, tenant: Tenant, actor: Actor, role: Role, version: int) -> Role:
    """Make an old version current again (as a new version; nothing is rewritten). An archived
    role comes back with the old version's status; otherwise the status stays."""
    old = document_version(ROLE, tenant=tenant, row=role, version=version)
    if role.status != Role.Status.ARCHIVED:
        old["status"] = role.status
    note = f"restored version {version}"
    try:
        return role_update(
            tenant=tenant, actor=actor, role=role, changes=validated(RolePatch, old), note=note
        )
    except DpmlInvalid:  # it resolved then; a resource it needs has changed since
        old["status"] = Role.Status.DRAFT
        note += " as a draft (it has errors now)"
        return role_update(
            tenant=tenant, actor=actor, role=role, changes=validated(RolePatch, old), note=note
        )


def role_copy(*, tenant: Tenant, actor: Actor, slug: str, data: RoleCopyIn) -> Role:
    """Copy a role into a new tenant row: a built-in (to customise it) or one of the tenant's.
    A built-in copied without a new slug keeps its slug, so the copy takes its place (and its
    memory network) once it is active; it starts as a draft so nothing changes until then. A
    copy of a tenant role keeps its status (a draft stays a draft; archived comes back as one)."""
    original = selectors.role_get_for_tenant(tenant=tenant, slug=slug)
    if original.origin == "builtin":
        target = data.slug or slug
        status = Role.Status.DRAFT if target == slug else Role.Status.ACTIVE
    else:
        target = data.slug or _free_slug(tenant, slug)
        status = Role.Status.ACTIVE if original.status == Role.Status.ACTIVE else Role.Status.DRAFT
    fields = {
        "slug": target,
        "name": data.name or original.name,
        "description": original.description,
        "source": original.source,
        "status": status,
    }
    copy = validated(RoleCreateIn, fields)
    return role_create(
        tenant=tenant,
        actor=actor,
        data=copy,
        based_on=original.based_on or (slug if original.origin == "builtin" else ""),
        note=f"copied from {original.origin} role {slug}",
    )


def _free_slug(tenant: Tenant, slug: str) -> str:
    base = slug[:48].rstrip("-")  # room for "-copy-999"
    taken = set(
        Role.objects.filter(tenant=tenant, slug__startswith=base).values_list("slug", flat=True)
    )
    for n in range(1, 1000):
        candidate = f"{base}-copy" if n == 1 else f"{base}-copy-{n}"
        if candidate not in taken and candidate not in registry().roles:
            return candidate
    raise Conflict("Too many copies of this role; give the copy a slug.")


# --- resources ------------------------------------------------------------------------------


def _refuse_cycle_through(tenant: Tenant, values: Values, tree: Document) -> None:
    """With ``tree`` as the new content of this resource, resolving it must not lead back."""
    me: Key = (values["kind"], values["name"])
    load = selectors.resource_loader(tenant=tenant)

    def patched(keys: set[Key]) -> dict[Key, Document]:
        found = load(keys - {me})
        if me in keys:
            found[me] = tree
        return found

    probe = Document(
        kind="knowledge",
        root=Element(
            tag="knowledge", line=1, column=1, children=[Reference(me[0], me[1], "required", 1, 1)]
        ),
    )
    cycles = [e for e in resolve(probe, patched).errors if e.code == "reference_cycle"]
    if cycles:
        raise DpmlInvalid(cycles)


RESOURCE = DocumentKind(
    model=RoleResource,
    version_model=ResourceVersion,
    parent="resource",
    verb="role_resource",
    key_fields=("kind", "name"),
    fields=("description", "source"),
    identity=lambda v: {"uri": f"{v['kind']}://{v['name']}"},
    dpml_kind=lambda v: str(v["kind"]),
    strict=lambda v: True,  # a broken resource would break every role that uses it
    taken=lambda v: f"{v['kind']}://{v['name']} already exists here.",
    check=_refuse_cycle_through,
    changed=_bump_generation,
)


def resource_create(*, tenant: Tenant, actor: Actor, data: ResourceCreateIn) -> RoleResource:
    """A new thought, execution or knowledge resource; it must parse and resolve cleanly."""
    _require(actor, Capability.ROLES_EDIT)
    return document_create(RESOURCE, tenant=tenant, actor=actor, values=data.model_dump())


def resource_update(
    *,
    tenant: Tenant,
    actor: Actor,
    resource: RoleResource,
    changes: ResourcePatch,
    note: str = "",
) -> RoleResource:
    _require(actor, Capability.ROLES_EDIT)
    return document_update(
        RESOURCE, tenant=tenant, actor=actor, row=resource, changes=changes.changes, note=note
    )


def resource_restore(
    *, tenant: Tenant, actor: Actor, resource: RoleResource, version: int
) -> RoleResource:
    old = document_version(RESOURCE, tenant=tenant, row=resource, version=version)
    return resource_update(
        tenant=tenant,
        actor=actor,
        resource=resource,
        changes=validated(ResourcePatch, old),
        note=f"restored version {version}",
    )


def resource_delete(*, tenant: Tenant, actor: Actor, resource: RoleResource) -> None:
    """Delete for good (admins); refused while an active role or another resource needs it,
    directly or through other resources, unless a built-in of the same name takes over."""
    _require(actor, Capability.ROLES_MANAGE)
    with transaction.atomic():
        row = RoleResource.objects.select_for_update().get(tenant=tenant, pk=resource.pk)
        key: Key = (row.kind, row.name)  # type: ignore[assignment]  # kind is a ResourceKind
        if key not in registry().resources:
            users = _dependents(tenant, key)
            if users:
                raise Conflict(f"{row.uri} is required by {', '.join(users)}; change them first.")
        audit_record(
            tenant_id=tenant.pk,
            actor=actor,
            verb="role_resource.delete",
            target=row,
            before=RESOURCE.state(row),
        )
        row.delete()
        _bump_generation(tenant)


def _dependents(tenant: Tenant, key: Key) -> list[str]:
    """The active roles and the resources that would stop resolving without ``key``."""
    load = selectors.resource_loader(tenant=tenant)

    def without(keys: set[Key]) -> dict[Key, Document]:
        return load(keys - {key})

    def breaks(document: Document) -> bool:
        return any(
            e.code in ("missing_reference", "broken_reference")
            for e in resolve(document, without).errors
        )

    users = [
        f"the role {r.slug}"
        for r in Role.objects.filter(tenant=tenant, status=Role.Status.ACTIVE).order_by("slug")
        if breaks(selectors.stored_document(r))
    ]
    users += [
        f"the resource {r.uri}"
        for r in RoleResource.objects.filter(tenant=tenant).order_by("kind", "name")
        if (r.kind, r.name) != key and breaks(selectors.stored_document(r))
    ]
    return users
