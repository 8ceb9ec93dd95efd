"""Roles a tenant writes in DPML, the resources they reference, and every version of both.

Both are *versioned documents* (``VersionedDocument``): DPML source, its parsed tree (stored so
it is parsed once per edit), a version number, and one ``DocumentVersion`` row per edit.
roles.documents writes them the same way.

Built-in roles and resources are not rows: they ship as files in ``roles/builtin`` and are read
by ``roles.builtin``. A tenant customises one by copying it into a ``Role`` row; a tenant row with
a built-in's slug (or a resource with a built-in's name) takes its place for that tenant.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone


class VersionedDocument(models.Model):
    """DPML source with its parsed tree and version number (abstract)."""

    tenant = models.ForeignKey("tenants.Tenant", on_delete=models.PROTECT, related_name="+")
    description = models.CharField(max_length=300, blank=True)
    source = models.TextField()
    tree = models.JSONField(default=dict)
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        abstract = True


class DocumentVersion(models.Model):
    """The state of a document after one edit (version 1 is its creation; abstract)."""

    tenant = models.ForeignKey("tenants.Tenant", on_delete=models.PROTECT, related_name="+")
    version = models.PositiveIntegerField()
    description = models.CharField(max_length=300, blank=True)
    source = models.TextField()
    author = models.CharField(max_length=200)
    note = models.CharField(max_length=200, blank=True)  # "restored version 3", "copied from …"
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        abstract = True


class Role(VersionedDocument):
    """A tenant's role, and its memory network ``role:<slug>``."""

    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"  # saved, not offered to agents (may still have errors)
        ACTIVE = "active", "Active"  # discoverable and activatable (parses cleanly)
        ARCHIVED = "archived", "Archived"  # deleted from view; versions kept, restorable

    slug = models.SlugField(max_length=60, db_index=False)  # the unique constraint covers it
    name = models.CharField(max_length=120)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACTIVE)
    based_on = models.CharField(max_length=60, blank=True)  # built-in slug it was copied from

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "slug"], name="role_tenant_slug_uniq")
        ]

    def __str__(self) -> str:
        return self.slug

    @property
    def network_key(self) -> str:
        return f"role:{self.slug}"


class RoleResource(VersionedDocument):
    """A reusable thought, execution or knowledge document that roles reference by URI."""

    class Kind(models.TextChoices):
        THOUGHT = "thought", "Thought"
        EXECUTION = "execution", "Execution"
        KNOWLEDGE = "knowledge", "Knowledge"

    kind = models.CharField(max_length=10, choices=Kind.choices)
    name = models.CharField(max_length=100)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "kind", "name"], name="roleresource_tenant_kind_name_uniq"
            )
        ]

    def __str__(self) -> str:
        return f"{self.kind}://{self.name}"

    @property
    def uri(self) -> str:
        return f"{self.kind}://{self.name}"


class RoleVersion(DocumentVersion):
    """A role after one edit."""

    role = models.ForeignKey(
        Role, on_delete=models.CASCADE, related_name="versions", db_index=False
    )
    name = models.CharField(max_length=120)
    status = models.CharField(max_length=10, choices=Role.Status.choices)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "role", "version"], name="roleversion_tenant_role_version_uniq"
            )
        ]

    def __str__(self) -> str:
        return f"{self.role_id} v{self.version}"


class ResourceVersion(DocumentVersion):
    """A resource after one edit."""

    resource = models.ForeignKey(
        RoleResource, on_delete=models.CASCADE, related_name="versions", db_index=False
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "resource", "version"],
                name="resourceversion_tenant_res_version_uniq",
            )
        ]

    def __str__(self) -> str:
        return f"{self.resource_id} v{self.version}"
