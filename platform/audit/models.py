"""The audit trail. Rows are written by services in the same transaction as the change."""

from __future__ import annotations

from django.db import models
from django.utils import timezone


class AuditEvent(models.Model):
    """One change: actor, verb, target, state before and after. UPDATE and DELETE are refused."""

    class ActorKind(models.TextChoices):
        USER = "user", "User"
        API_KEY = "api_key", "API key"
        SYSTEM = "system", "System"

    tenant = models.ForeignKey("tenants.Tenant", on_delete=models.PROTECT, related_name="+")
    actor_kind = models.CharField(max_length=10, choices=ActorKind.choices)
    # Ids, not foreign keys: the log outlives the users and keys it mentions.
    actor_id = models.BigIntegerField(null=True)
    actor_label = models.CharField(max_length=200)
    verb = models.CharField(max_length=60)
    target_type = models.CharField(max_length=60, blank=True)
    target_id = models.CharField(max_length=64, blank=True)
    target_label = models.CharField(max_length=200, blank=True)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    request_id = models.CharField(max_length=64, blank=True)
    ip = models.GenericIPAddressField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [
            models.Index(fields=["tenant", "-created_at", "-id"], name="audit_tenant_recent"),
            models.Index(fields=["tenant", "verb", "-created_at"], name="audit_tenant_verb"),
            models.Index(
                fields=["tenant", "actor_kind", "actor_id", "-created_at"],
                name="audit_tenant_actor",
            ),
            models.Index(
                fields=["tenant", "target_type", "target_id", "-created_at"],
                name="audit_tenant_target",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M:%S} {self.actor_label} {self.verb}"


class SealKey(models.Model):
    """The key that seals a subject's audit payloads (a memory's content, before and after).
    Destroying it is how the right to be forgotten and the append-only log both hold: the
    events stay, with who, what and when; what they said cannot be read again."""

    tenant = models.ForeignKey(
        "tenants.Tenant", on_delete=models.PROTECT, related_name="+", db_index=False
    )
    subject = models.CharField(max_length=80)  # e.g. "engram:42"
    key = models.BinaryField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "subject"], name="sealkey_tenant_subject")
        ]

    def __str__(self) -> str:
        return self.subject
