"""Writing roles and resources (versioned and audited), validating and rendering DPML, and
activating a role for an agent (persona plus a prime of the role's memory network)."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.utils import timezone

from audit.actors import Actor
from audit.services import audit_record
from base.errors import Conflict, NotFound, PermissionDenied, ValidationFailed
from memory.core.mind import Mind
from memory.services.recall import network_prime
from roles import selectors
from roles.builtin import registry
from roles.dpml import (
    Document,
    DpmlError,
    Element,
    Reference,
    parse,
    render_resource,
    render_role,
    resolve,
)
from roles.dpml.parser import MAX_SOURCE_CHARS
from roles.dpml.resolve import Key
from roles.models import ResourceVersion, Role, RoleResource, RoleVersion
from roles.selectors import ResourceSpec, RoleSpec
from tenants.models import Tenant
from tenants.permissions import Capability, actor_allows

SLUG = re.compile(r"[a-z0-9][a-z0-9-]{0,59}")
RESERVED_SLUGS = frozenset({"new", "check"})  # dashboard paths under /roles/
RESOURCE_NAME = re.compile(r"[a-z0-9](?:[a-z0-9._-]{0,98}[a-z0-9_-])?")  # as references allow
ROLE_FIELDS = ("name", "description", "source", "status")
RESOURCE_FIELDS = ("description", "source")
PERSONA_TTL = 24 * 3600


class DpmlInvalid(ValidationFailed):
    """The source does not parse or resolve; ``errors`` places each problem."""

    code = "dpml_invalid"

    def __init__(self, errors: list[DpmlError]) -> None:
        first = errors[0]
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        super().__init__(
            f"The DPML has errors: {first}{more}. Fix them, or save as a draft.",
            fields={"source": str(first)},
        )
        self.errors = errors

    def as_dict(self) -> dict[str, object]:
        return {**super().as_dict(), "errors": [e.as_dict() for e in self.errors]}


@dataclass
class Validation:
    document: Document
    errors: list[DpmlError]  # parse errors, then resolution errors (warnings included)
    preview: str

    @property
    def ok(self) -> bool:
        return not any(e.severity == "error" for e in self.errors)


@dataclass
class Activation:
    role: RoleSpec
    persona: str
    mind: Mind
    warnings: list[DpmlError] = field(default_factory=list)


# --- validating and rendering --------------------------------------------------------------


def dpml_validate(
    *, tenant: Tenant, source: str, kind: str = "role", title: str = "", name: str = "preview"
) -> Validation:
    """Parse, resolve against the tenant's resources and built-ins, and render a preview."""
    if kind not in ("role", *RoleResource.Kind.values):
        raise ValidationFailed.field("kind", "one of role, thought, execution, knowledge")
    document = parse(source, kind)  # type: ignore[arg-type]
    resolution = resolve(document, selectors.resource_loader(tenant=tenant))
    errors = document.errors + resolution.errors
    if not document.ok:
        preview = ""
    elif kind == "role":
        preview = render_role(document, resolution, title=title or "Role")
    else:
        preview = render_resource(document, resolution, kind=kind, name=name)
    return Validation(document=document, errors=errors, preview=preview)


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


# --- input checks ---------------------------------------------------------------------------


def _require(actor: Actor, capability: Capability) -> None:
    if not actor_allows(actor, capability):
        raise PermissionDenied("Your role or key cannot change roles here.")


def _slug(raw: object) -> str:
    slug = str(raw or "").strip().lower()
    if slug in RESERVED_SLUGS:
        raise ValidationFailed.field("slug", f"“{slug}” is reserved; choose another")
    if not SLUG.fullmatch(slug):
        raise ValidationFailed.field(
            "slug", "1–60 lower-case letters, digits and '-', starting with a letter or digit"
        )
    return slug


def _text(changes: dict[str, Any], name: str, limit: int, *, required: bool) -> str:
    value = changes.get(name)
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise ValidationFailed.field(name, "must be a string")
    value = value.strip() if name != "source" else value
    if "\x00" in value:
        raise ValidationFailed.field(name, "must not contain NUL characters")
    if required and not value.strip():
        raise ValidationFailed.field(name, "is required")
    if len(value) > limit:
        raise ValidationFailed.field(name, f"at most {limit:,} characters")
    return value


def _status(raw: object) -> str:
    if raw not in Role.Status.values:
        raise ValidationFailed.field("status", f"one of {', '.join(Role.Status.values)}")
    return str(raw)


def _checked_tree(tenant: Tenant, source: str, kind: str, *, strict: bool) -> Document:
    """Parse ``source``; with ``strict`` (an active role, any resource), every parse or
    resolution error refuses the write."""
    check = dpml_validate(tenant=tenant, source=source, kind=kind)
    errors = [e for e in check.errors if e.severity == "error"]
    if strict and errors:
        raise DpmlInvalid(errors)
    return check.document


# --- roles ----------------------------------------------------------------------------------


def _role_state(role: Role) -> dict[str, Any]:
    return {
        "slug": role.slug,
        "name": role.name,
        "description": role.description,
        "status": role.status,
        "version": role.version,
        "source_chars": len(role.source),
        "source_sha": hashlib.sha256(role.source.encode()).hexdigest()[:12],
    }


def _version(role: Role, actor: Actor, note: str) -> None:
    RoleVersion.objects.create(
        tenant_id=role.tenant_id,
        role=role,
        version=role.version,
        name=role.name,
        description=role.description,
        source=role.source,
        status=role.status,
        author=actor.label[:200],
        note=note[:200],
    )


def role_create(
    *, tenant: Tenant, actor: Actor, data: dict[str, Any], based_on: str = "", note: str = ""
) -> Role:
    """A new tenant role (an active one must parse and resolve cleanly; a draft may not)."""
    _require(actor, Capability.ROLES_EDIT)
    unknown = sorted(set(data) - {"slug", *ROLE_FIELDS})
    if unknown:
        raise ValidationFailed.field(unknown[0], "is not a field of a role")
    slug = _slug(data.get("slug"))
    name = _text(data, "name", 120, required=True)
    description = _text(data, "description", 300, required=False)
    source = _text(data, "source", MAX_SOURCE_CHARS, required=True)
    status = _status(data.get("status", Role.Status.ACTIVE))
    tree = _checked_tree(tenant, source, "role", strict=status == Role.Status.ACTIVE)
    with transaction.atomic():
        try:
            with transaction.atomic():
                role = Role.objects.create(
                    tenant=tenant,
                    slug=slug,
                    name=name,
                    description=description,
                    source=source,
                    tree=tree.to_dict(),
                    status=status,
                    based_on=based_on,
                )
        except IntegrityError:
            raise Conflict(
                f"A role “{slug}” already exists here; pick another slug.", fields={"slug": "taken"}
            ) from None
        _version(role, actor, note or "created")
        audit_record(
            tenant_id=tenant.pk,
            actor=actor,
            verb="role.create",
            target=role,
            after=_role_state(role),
        )
    return role


def role_update(
    *, tenant: Tenant, actor: Actor, role: Role, changes: dict[str, Any], note: str = ""
) -> Role:
    """Change name, description, source or status; a new version when anything changed."""
    _require(actor, Capability.ROLES_EDIT)
    unknown = sorted(set(changes) - set(ROLE_FIELDS))
    if unknown:
        raise ValidationFailed.field(unknown[0], "cannot be changed (or is not a field)")
    with transaction.atomic():
        row = Role.objects.select_for_update().get(tenant=tenant, pk=role.pk)
        before = _role_state(row)
        new = {
            "name": _text(changes, "name", 120, required=True) if "name" in changes else row.name,
            "description": _text(changes, "description", 300, required=False)
            if "description" in changes
            else row.description,
            "source": _text(changes, "source", MAX_SOURCE_CHARS, required=True)
            if "source" in changes
            else row.source,
            "status": _status(changes["status"]) if "status" in changes else row.status,
        }
        if all(getattr(row, k) == v for k, v in new.items()):
            return row
        tree = _checked_tree(
            tenant, new["source"], "role", strict=new["status"] == Role.Status.ACTIVE
        )
        for k, v in new.items():
            setattr(row, k, v)
        row.tree = tree.to_dict()
        row.version += 1
        row.updated_at = timezone.now()
        row.save()
        _version(row, actor, note or _describe(before, row))
        audit_record(
            tenant_id=tenant.pk,
            actor=actor,
            verb="role.update",
            target=row,
            before=before,
            after=_role_state(row),
        )
    return row


def _describe(before: dict[str, Any], role: Role) -> str:
    changed = [k for k in ("name", "description", "status") if before[k] != getattr(role, k)]
    if before["source_sha"] != _role_state(role)["source_sha"]:
        changed.insert(0, "source")
    return "changed " + ", ".join(changed)


def role_archive(*, tenant: Tenant, actor: Actor, role: Role) -> Role:
    """Hide a role from agents and lists; its versions stay and it can be restored."""
    return role_update(
        tenant=tenant,
        actor=actor,
        role=role,
        changes={"status": Role.Status.ARCHIVED},
        note="archived",
    )


def role_restore(*, tenant: Tenant, actor: Actor, role: Role, version: int) -> Role:
    """Make an old version current again (as a new version; nothing is rewritten)."""
    old = selectors.role_version_get(tenant=tenant, role=role, version=version)
    status = role.status if role.status != Role.Status.ARCHIVED else old.status
    changes = {
        "name": old.name,
        "description": old.description,
        "source": old.source,
        "status": status,
    }
    try:
        return role_update(
            tenant=tenant,
            actor=actor,
            role=role,
            changes=changes,
            note=f"restored version {version}",
        )
    except DpmlInvalid:  # it resolved then; a resource it needs has changed since
        changes["status"] = Role.Status.DRAFT
        return role_update(
            tenant=tenant,
            actor=actor,
            role=role,
            changes=changes,
            note=f"restored version {version} as a draft (it has errors now)",
        )


def role_copy(
    *, tenant: Tenant, actor: Actor, slug: str, new_slug: str = "", name: str = ""
) -> Role:
    """Copy a role into a new tenant row: a built-in (to customise it) or one of the tenant's.
    A built-in copied without a new slug keeps its slug, so the copy takes its place (and its
    memory network) once it is active; it starts as a draft so nothing changes until then. A
    copy of a tenant role keeps its status (a draft stays a draft; archived comes back as one)."""
    original = selectors.role_get_for_tenant(tenant=tenant, slug=slug)
    if original.origin == "builtin":
        target = new_slug or slug
        status = Role.Status.DRAFT if target == slug else Role.Status.ACTIVE
    else:
        target = new_slug or _free_slug(tenant, slug)
        status = Role.Status.ACTIVE if original.status == Role.Status.ACTIVE else Role.Status.DRAFT
    return role_create(
        tenant=tenant,
        actor=actor,
        data={
            "slug": target,
            "name": name or original.name,
            "description": original.description,
            "source": original.source,
            "status": status,
        },
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


def _kind(raw: object) -> str:
    if raw not in RoleResource.Kind.values:
        raise ValidationFailed.field("kind", "one of thought, execution, knowledge")
    return str(raw)


def _resource_name(raw: object) -> str:
    name = str(raw or "").strip().lower()
    if not RESOURCE_NAME.fullmatch(name):
        raise ValidationFailed.field(
            "name",
            "1–100 lower-case letters, digits, '-', '_' and '.', starting with a letter or digit",
        )
    return name


def _resource_state(r: RoleResource) -> dict[str, Any]:
    return {
        "uri": r.uri,
        "description": r.description,
        "version": r.version,
        "source_chars": len(r.source),
        "source_sha": hashlib.sha256(r.source.encode()).hexdigest()[:12],
    }


def _resource_version(r: RoleResource, actor: Actor, note: str) -> None:
    ResourceVersion.objects.create(
        tenant_id=r.tenant_id,
        resource=r,
        version=r.version,
        description=r.description,
        source=r.source,
        author=actor.label[:200],
        note=note[:200],
    )


def resource_create(*, tenant: Tenant, actor: Actor, data: dict[str, Any]) -> RoleResource:
    """A new thought, execution or knowledge resource; it must parse and resolve cleanly (a
    broken resource would break every role that uses it)."""
    _require(actor, Capability.ROLES_EDIT)
    unknown = sorted(set(data) - {"kind", "name", *RESOURCE_FIELDS})
    if unknown:
        raise ValidationFailed.field(unknown[0], "is not a field of a resource")
    kind = _kind(data.get("kind"))
    name = _resource_name(data.get("name"))
    description = _text(data, "description", 300, required=False)
    source = _text(data, "source", MAX_SOURCE_CHARS, required=True)
    tree = _checked_tree(tenant, source, kind, strict=True)
    _refuse_cycle_through(tenant, (kind, name), tree)  # type: ignore[arg-type]
    with transaction.atomic():
        try:
            with transaction.atomic():
                resource = RoleResource.objects.create(
                    tenant=tenant,
                    kind=kind,
                    name=name,
                    description=description,
                    source=source,
                    tree=tree.to_dict(),
                )
        except IntegrityError:
            raise Conflict(
                f"{kind}://{name} already exists here.", fields={"name": "taken"}
            ) from None
        _resource_version(resource, actor, "created")
        audit_record(
            tenant_id=tenant.pk,
            actor=actor,
            verb="role_resource.create",
            target=resource,
            after=_resource_state(resource),
        )
        _bump_generation(tenant)
    return resource


def resource_update(
    *, tenant: Tenant, actor: Actor, resource: RoleResource, changes: dict[str, Any], note: str = ""
) -> RoleResource:
    _require(actor, Capability.ROLES_EDIT)
    unknown = sorted(set(changes) - set(RESOURCE_FIELDS))
    if unknown:
        raise ValidationFailed.field(unknown[0], "cannot be changed (or is not a field)")
    with transaction.atomic():
        row = RoleResource.objects.select_for_update().get(tenant=tenant, pk=resource.pk)
        before = _resource_state(row)
        description = (
            _text(changes, "description", 300, required=False)
            if "description" in changes
            else row.description
        )
        source = (
            _text(changes, "source", MAX_SOURCE_CHARS, required=True)
            if "source" in changes
            else row.source
        )
        if (description, source) == (row.description, row.source):
            return row
        tree = _checked_tree(tenant, source, row.kind, strict=True)
        _refuse_cycle_through(tenant, (row.kind, row.name), tree)  # type: ignore[arg-type]
        row.description, row.source, row.tree = description, source, tree.to_dict()
        row.version += 1
        row.updated_at = timezone.now()
        row.save()
        _resource_version(row, actor, note or "edited")
        audit_record(
            tenant_id=tenant.pk,
            actor=actor,
            verb="role_resource.update",
            target=row,
            before=before,
            after=_resource_state(row),
        )
        _bump_generation(tenant)
    return row


def _refuse_cycle_through(tenant: Tenant, me: Key, tree: Document) -> None:
    """With ``tree`` as the new content of ``me``, resolving ``me`` must not lead back to it."""
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


def resource_restore(
    *, tenant: Tenant, actor: Actor, resource: RoleResource, version: int
) -> RoleResource:
    old = ResourceVersion.objects.filter(tenant=tenant, resource=resource, version=version).first()
    if old is None:
        raise NotFound(f"{resource.uri} has no version {version}.")
    return resource_update(
        tenant=tenant,
        actor=actor,
        resource=resource,
        changes={"description": old.description, "source": old.source},
        note=f"restored version {version}",
    )


def resource_delete(*, tenant: Tenant, actor: Actor, resource: RoleResource) -> None:
    """Delete for good (admins); refused while an active role or another resource needs it,
    directly or through other resources, unless a built-in of the same name takes over."""
    _require(actor, Capability.ROLES_MANAGE)
    with transaction.atomic():
        row = RoleResource.objects.select_for_update().get(tenant=tenant, pk=resource.pk)
        key: Key = (row.kind, row.name)  # type: ignore[assignment]
        if key not in registry().resources:
            users = _dependents(tenant, key)
            if users:
                raise Conflict(f"{row.uri} is required by {', '.join(users)}; change them first.")
        audit_record(
            tenant_id=tenant.pk,
            actor=actor,
            verb="role_resource.delete",
            target=row,
            before=_resource_state(row),
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


def resource_spec_for(*, tenant: Tenant, kind: str, name: str) -> ResourceSpec:
    return selectors.resource_get_for_tenant(tenant=tenant, kind=_kind(kind), name=name)
