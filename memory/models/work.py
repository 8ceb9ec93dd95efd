"""Memory of work (PRISM): **Tasks** an agent works on, their **Steps** (action, observation,
outcome, intents, entities; a parent step), the **StepLinks** that say which step caused which
(given by the agent, or inferred and marked so), and the tenant's own **Intents** (the shipped
vocabulary lives in ``memory.core.intents``; a row here adds one or changes a default).

A step is also an engram (recallable at once) and a step episode (read by the knowledge
extractor; ``metadata.task`` is the task's key), so both are linked from it.
"""

from __future__ import annotations

from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import F, Q
from django.utils import timezone


class Task(models.Model):
    class State(models.TextChoices):
        OPEN = "open"
        SUCCESS = "success"
        FAILURE = "failure"

    tenant = models.ForeignKey(
        "tenants.Tenant", on_delete=models.PROTECT, related_name="+", db_index=False
    )
    network = models.ForeignKey(
        "memory.Network", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    key = models.CharField(max_length=200)  # the agent's name for it, unique in the network
    goal = models.CharField(max_length=500, blank=True)
    state = models.CharField(max_length=8, choices=State.choices, default=State.OPEN)
    summary = models.TextField(blank=True)
    step_count = models.IntegerField(default=0)
    skill = models.ForeignKey(
        "memory.Skill",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        db_index=False,
    )
    actor = models.JSONField(default=dict, blank=True)  # who opened it
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "network", "key"], name="task_tenant_network_key_uniq"
            )
        ]
        indexes = [
            models.Index(
                F("tenant"),
                F("network"),
                F("updated_at").desc(),
                F("id").desc(),
                name="task_tenant_recent",
            ),
            models.Index(
                fields=["tenant", "network", "state"],
                condition=Q(state="open"),
                name="task_tenant_open",
            ),
        ]

    def __str__(self) -> str:
        return f"task {self.key} ({self.state})"


class Step(models.Model):
    class Outcome(models.TextChoices):
        NONE = ""
        SUCCESS = "success"
        FAILURE = "failure"

    tenant = models.ForeignKey(
        "tenants.Tenant", on_delete=models.PROTECT, related_name="+", db_index=False
    )
    network = models.ForeignKey(
        "memory.Network", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="+", db_index=False)
    key = models.CharField(max_length=100)  # the agent's name for it, unique in the task
    index = models.IntegerField()  # 1, 2, ... in the order recorded
    parent = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        db_index=False,
    )
    action = models.TextField()
    action_type = models.CharField(max_length=40, blank=True)
    observation = models.TextField(blank=True)
    outcome = models.CharField(max_length=8, choices=Outcome.choices, blank=True)
    intents = ArrayField(models.CharField(max_length=60), default=list, blank=True)
    entities = ArrayField(models.CharField(max_length=200), default=list, blank=True)
    engram = models.ForeignKey(
        "memory.Engram",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        db_index=False,
    )
    episode = models.ForeignKey(
        "memory.Episode",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        db_index=False,
    )
    occurred_at = models.DateTimeField(default=timezone.now)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "task", "key"], name="step_tenant_task_key")
        ]
        indexes = [
            models.Index(fields=["tenant", "task", "index"], name="step_tenant_task_index"),
            models.Index(fields=["tenant", "engram"], name="step_tenant_engram"),
            models.Index(fields=["tenant", "episode"], name="step_tenant_episode"),
        ]

    def __str__(self) -> str:
        return f"step {self.key} of task {self.task_id}"


class StepLink(models.Model):
    """``cause`` led to ``effect`` (both steps of one task)."""

    tenant = models.ForeignKey(
        "tenants.Tenant", on_delete=models.PROTECT, related_name="+", db_index=False
    )
    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="+", db_index=False)
    cause = models.ForeignKey(Step, on_delete=models.CASCADE, related_name="+", db_index=False)
    effect = models.ForeignKey(Step, on_delete=models.CASCADE, related_name="+", db_index=False)
    inferred = models.BooleanField(default=False)
    reason = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "effect", "cause"], name="steplink_tenant_effect_cause"
            )
        ]
        indexes = [models.Index(fields=["tenant", "task"], name="steplink_tenant_task")]

    def __str__(self) -> str:
        return f"{self.cause_id} -> {self.effect_id}"


class Intent(models.Model):
    """A tenant's intent: a new one, or a default's description, keywords and examples
    changed; ``enabled`` false leaves a default out of routing. Its examples' embeddings are
    computed when routing needs them (``memory.services.intents``), not stored."""

    tenant = models.ForeignKey(
        "tenants.Tenant", on_delete=models.PROTECT, related_name="+", db_index=False
    )
    name = models.CharField(max_length=40)
    description = models.CharField(max_length=300, blank=True)
    keywords = ArrayField(models.CharField(max_length=80), default=list, blank=True)
    examples = ArrayField(models.CharField(max_length=300), default=list, blank=True)
    enabled = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "name"], name="intent_tenant_name_uniq")
        ]

    def __str__(self) -> str:
        return self.name
