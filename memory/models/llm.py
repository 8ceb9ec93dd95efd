"""A tenant's language model: the OpenAI-compatible provider its extraction may call (the key
sealed at rest, never shown again), its daily token budget and circuit breaker, and the
**LlmUsage** meter (tokens per day and per job)."""

from __future__ import annotations

from django.db import models
from django.db.models import F
from django.utils import timezone


class LlmProvider(models.Model):
    """One per tenant. ``key_sealed`` is AES-256-GCM under a key derived from SECRET_KEY and
    bound to the tenant (memory.services.llm); ``key_hint`` (its last four characters) is all
    that is ever shown. ``failures`` counts calls that failed in a row; at three the circuit
    opens until ``open_until`` and extraction uses the rules meanwhile."""

    tenant = models.ForeignKey(
        "tenants.Tenant", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    base_url = models.CharField(max_length=500)
    model = models.CharField(max_length=120)
    key_sealed = models.BinaryField(default=b"")
    key_hint = models.CharField(max_length=8, blank=True)
    daily_tokens = models.IntegerField(default=200_000)
    enabled = models.BooleanField(default=True)
    failures = models.IntegerField(default=0)
    open_until = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant"], name="llmprovider_one_per_tenant")
        ]

    def __str__(self) -> str:
        return f"{self.model} at {self.base_url}"


class LlmUsage(models.Model):
    """What a tenant's provider was asked for on one day by one job (``job`` null when no job
    asked): calls, tokens, failed calls, and episodes the rules read instead."""

    tenant = models.ForeignKey(
        "tenants.Tenant", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    day = models.DateField()
    job = models.ForeignKey(
        "memory.Job", on_delete=models.SET_NULL, null=True, related_name="+", db_index=False
    )
    calls = models.IntegerField(default=0)
    prompt_tokens = models.IntegerField(default=0)
    completion_tokens = models.IntegerField(default=0)
    failures = models.IntegerField(default=0)
    fallbacks = models.IntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "day", "job"], name="llmusage_per_day_job", nulls_distinct=False
            )
        ]
        indexes = [models.Index(F("tenant"), F("job"), name="llmusage_tenant_job")]

    def __str__(self) -> str:
        return f"{self.day}: {self.prompt_tokens + self.completion_tokens} tokens"
