"""Roles a tenant writes in DPML, the resources they reference, and every version of both.

Built-in roles and resources are not rows: they ship as files in ``roles/builtin`` and are read
by ``roles.builtin``. A tenant customises one by copying it into a ``Role`` row; a tenant row with
a built-in's slug (or a resource with a built-in's name) takes its place for that tenant.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone


class Role(models.Model):
    """A tenant's role: DPML source, its parsed tree (stored so it is parsed once per edit), and
    its memory network ``role:<slug>``."""

    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"  # saved, not offered to agents (may still have errors)
        ACTIVE = "active", "Active"  # discoverable and activatable (parses cleanly)
        ARCHIVED = "archived", "Archived"  # deleted from view; versions kept, restorable

    tenant = models.ForeignKey("tenants.Tenant", on_delete=models.PROTECT, related_name="+")
    slug = models.SlugField(max_length=60, db_index=False)  # the unique constraint covers it
    name = models.CharField(max_length=120)
    description = models.CharField(max_length=300, blank=True)
    source = models.TextField()
    tree = models.JSONField(default=dict)
    version = models.PositiveIntegerField(default=1)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACTIVE)
    based_on = models.CharField(max_length=60, blank=True)  # built-in slug it was copied from
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "slug"], name="role_tenant_slug_uniq")
        ]

    def __str__(self) -> str:
        return self.slug

    @property
    def network_key(self) -> str:
        return f"role:{self.slug}"


class RoleResource(models.Model):
    """A reusable thought, execution or knowledge document that roles reference by URI."""

    class Kind(models.TextChoices):
        THOUGHT = "thought", "Thought"
        EXECUTION = "execution", "Execution"
        KNOWLEDGE = "knowledge", "Knowledge"

    tenant = models.ForeignKey("tenants.Tenant", on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    name = models.CharField(max_length=100)
    description = models.CharField(max_length=300, blank=True)
    source = models.TextField()
    tree = models.JSONField(default=dict)
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

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


class RoleVersion(models.Model):
    """The state of a role after one edit (version 1 is its creation)."""

    tenant = models.ForeignKey("tenants.Tenant", on_delete=models.PROTECT, related_name="+")
    role = models.ForeignKey(
        Role, on_delete=models.CASCADE, related_name="versions", db_index=False
    )
    version = models.PositiveIntegerField()
    name = models.CharField(max_length=120)
    description = models.CharField(max_length=300, blank=True)
    source = models.TextField()
    status = models.CharField(max_length=10, choices=Role.Status.choices)
    author = models.CharField(max_length=200)
    note = models.CharField(max_length=200, blank=True)  # "restored version 3", "copied from …"
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "role", "version"], name="roleversion_tenant_role_version_uniq"
            )
        ]

    def __str__(self) -> str:
        return f"{self.role_id} v{self.version}"


class ResourceVersion(models.Model):
    """The state of a resource after one edit."""

    tenant = models.ForeignKey("tenants.Tenant", on_delete=models.PROTECT, related_name="+")
    resource = models.ForeignKey(
        RoleResource, on_delete=models.CASCADE, related_name="versions", db_index=False
    )
    version = models.PositiveIntegerField()
    description = models.CharField(max_length=300, blank=True)
    source = models.TextField()
    author = models.CharField(max_length=200)
    note = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "resource", "version"],
                name="resourceversion_tenant_res_version_uniq",
            )
        ]

    def __str__(self) -> str:
        return f"{self.resource_id} v{self.version}"
