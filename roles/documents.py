"""Versioned documents: roles and resources are created, edited and restored the same way.

A write checks the DPML (strictly where the kind says so), saves the row with its parsed tree,
bumps the version, keeps a version row with the fields an edit may change, and audits the
document's state before and after — all in one transaction. What differs between roles and
resources (their key, their fields, when they must be valid, what else a write must check or
refresh) is a ``DocumentKind``; roles.services defines the two.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from audit.actors import Actor
from audit.services import audit_record
from base.errors import Conflict, NotFound
from roles.dpml import Document
from roles.models import DocumentVersion, VersionedDocument
from roles.validation import checked_tree
from tenants.models import Tenant

Values = Mapping[str, Any]


def _nothing(*_: object) -> None:
    return None


@dataclass(frozen=True)
class DocumentKind[D: VersionedDocument]:
    model: type[D]
    version_model: type[DocumentVersion]
    parent: str  # the version row's foreign key to the document
    verb: str  # audit verbs: <verb>.create, <verb>.update
    key_fields: tuple[str, ...]  # unique within the tenant, never edited
    fields: tuple[str, ...]  # what an edit may change; each version keeps them
    identity: Callable[[Values], dict[str, Any]]  # how the audit names one
    dpml_kind: Callable[[Values], str]  # what its source must be: role, thought, ...
    strict: Callable[[Values], bool]  # must it parse and resolve cleanly?
    taken: Callable[[Values], str]  # the message when its key is taken
    check: Callable[[Tenant, Values, Document], None] = _nothing  # more refusals (cycles)
    changed: Callable[[Tenant], None] = _nothing  # after every write (persona caches)

    def values(self, row: D) -> dict[str, Any]:
        return {name: getattr(row, name) for name in (*self.key_fields, *self.fields)}

    def state(self, row: D) -> dict[str, Any]:
        """What the audit trail keeps of a document: not its source, a fingerprint of it."""
        values = self.values(row)
        return {
            **self.identity(values),
            **{name: values[name] for name in self.fields if name != "source"},
            "version": row.version,
            "source_chars": len(row.source),
            "source_sha": hashlib.sha256(row.source.encode()).hexdigest()[:12],
        }


def _tree(kind: DocumentKind[Any], tenant: Tenant, values: Values) -> Document:
    document = checked_tree(
        tenant, values["source"], kind.dpml_kind(values), strict=kind.strict(values)
    )
    kind.check(tenant, values, document)
    return document


def _keep_version[D: VersionedDocument](
    kind: DocumentKind[D], row: D, actor: Actor, note: str
) -> None:
    kind.version_model._default_manager.create(
        tenant_id=row.tenant_id,
        **{kind.parent: row},
        version=row.version,
        **{name: getattr(row, name) for name in kind.fields},
        author=actor.label[:200],
        note=note[:200],
    )


def document_create[D: VersionedDocument](
    kind: DocumentKind[D],
    *,
    tenant: Tenant,
    actor: Actor,
    values: Values,
    note: str = "",
    extra: Values | None = None,
) -> D:
    """A new document: ``values`` holds its key fields and fields; ``extra`` other columns."""
    tree = _tree(kind, tenant, values)
    with transaction.atomic():
        try:
            with transaction.atomic():
                row = kind.model._default_manager.create(
                    tenant=tenant, **values, **(extra or {}), tree=tree.to_dict()
                )
        except IntegrityError:
            key = kind.key_fields[-1]
            raise Conflict(kind.taken(values), fields={key: "taken"}) from None
        _keep_version(kind, row, actor, note or "created")
        audit_record(
            tenant_id=tenant.pk,
            actor=actor,
            verb=f"{kind.verb}.create",
            target=row,
            after=kind.state(row),
        )
        kind.changed(tenant)
    return row


def document_update[D: VersionedDocument](
    kind: DocumentKind[D],
    *,
    tenant: Tenant,
    actor: Actor,
    row: D,
    changes: Values,
    note: str = "",
) -> D:
    """Apply ``changes`` (a subset of the kind's fields): a new version when anything changed,
    else the row as it is."""
    with transaction.atomic():
        locked = kind.model._default_manager.select_for_update().get(tenant=tenant, pk=row.pk)
        before = kind.state(locked)
        current = kind.values(locked)
        new = {name: changes.get(name, current[name]) for name in kind.fields}
        edited = [name for name in kind.fields if new[name] != current[name]]
        if not edited:
            return locked
        tree = _tree(kind, tenant, {**current, **new})
        for name, value in new.items():
            setattr(locked, name, value)
        locked.tree = tree.to_dict()
        locked.version += 1
        locked.updated_at = timezone.now()
        locked.save()
        edited.sort(key=lambda name: name != "source")  # the source first, as people read it
        _keep_version(kind, locked, actor, note or "changed " + ", ".join(edited))
        audit_record(
            tenant_id=tenant.pk,
            actor=actor,
            verb=f"{kind.verb}.update",
            target=locked,
            before=before,
            after=kind.state(locked),
        )
        kind.changed(tenant)
    return locked


def document_version[D: VersionedDocument](
    kind: DocumentKind[D], *, tenant: Tenant, row: D, version: int
) -> dict[str, Any]:
    """The fields a document had at ``version`` (what a restore writes back)."""
    old = kind.version_model._default_manager.filter(
        tenant=tenant, **{kind.parent: row}, version=version
    ).first()
    if old is None:
        raise NotFound(f"{row} has no version {version}.")
    return {name: getattr(old, name) for name in kind.fields}
