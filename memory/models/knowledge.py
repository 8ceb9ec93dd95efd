"""Knowledge from interactions (PlugMem): raw **Episodes** and what is extracted from them —
**Entities** under one canonical name with their aliases, **Facts** with a slot, a validity
window and evidence, **Skills** (procedures that worked) with their runs, and the **Job** that
runs the extraction on a worker.

Foreign keys to the graph's tables are written as strings: this module never imports
``memory.models.graph`` back (``memory.models`` imports both).
"""

from __future__ import annotations

from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.db import models
from django.db.models import F, Q
from django.utils import timezone


class Job(models.Model):
    """Work a client waits on — an ingestion's extraction — with its progress and errors.
    A worker holds it until ``lease_until``; past that, the maintenance sweep queues it again."""

    class Kind(models.TextChoices):
        EPISODES = "episodes"

    class State(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    tenant = models.ForeignKey(
        "tenants.Tenant", on_delete=models.PROTECT, related_name="+", db_index=False
    )
    network = models.ForeignKey(
        "memory.Network", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    kind = models.CharField(max_length=12, choices=Kind.choices, default=Kind.EPISODES)
    state = models.CharField(max_length=8, choices=State.choices, default=State.QUEUED)
    total = models.IntegerField(default=0)
    processed = models.IntegerField(default=0)
    counts = models.JSONField(default=dict, blank=True)  # facts, entities, superseded, ...
    errors = models.JSONField(default=list, blank=True)  # [{"episode": id, "message": "..."}]
    error_count = models.IntegerField(default=0)
    extractor = models.CharField(max_length=60, blank=True)
    tokens = models.IntegerField(default=0)  # an LLM's tokens spent on this job
    attempts = models.IntegerField(default=0)
    message = models.CharField(max_length=300, blank=True)
    actor = models.JSONField(default=dict)  # who asked: the extracted units' audit actor
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    lease_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(F("tenant"), F("created_at").desc(), name="job_tenant_recent"),
            models.Index(
                fields=["tenant", "state"],
                condition=Q(state__in=["queued", "running"]),
                name="job_tenant_open",
            ),
        ]

    def __str__(self) -> str:
        return f"job {self.pk} ({self.state})"

    @property
    def percent(self) -> int:
        if not self.total:
            return 100 if self.state == self.State.DONE else 0
        return min(100, round(100 * self.processed / self.total))


class Episode(models.Model):
    """An immutable raw input: a chat message, a chunk of a document, an agent's step.

    Idempotent by ``external_id``: the same id with the same content is the same episode, with
    other content a conflict. A message or chunk is also remembered as an engram at once
    (``engram``); ``extracted_with`` names the extractor version that has read it, so a
    redelivered job does not read it twice."""

    class Kind(models.TextChoices):
        MESSAGE = "message"
        DOCUMENT = "document"
        STEP = "step"

    tenant = models.ForeignKey(
        "tenants.Tenant", on_delete=models.PROTECT, related_name="+", db_index=False
    )
    network = models.ForeignKey(
        "memory.Network", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    kind = models.CharField(max_length=10, choices=Kind.choices)
    content = models.TextField()
    speaker = models.CharField(max_length=200, blank=True)
    occurred_at = models.DateTimeField(null=True, blank=True)
    external_id = models.CharField(max_length=200, null=True, blank=True)  # noqa: DJ001
    metadata = models.JSONField(default=dict, blank=True)
    # a document's chunks: the document's key, the chunk's index and its place in the text
    document = models.CharField(max_length=200, blank=True)
    position = models.IntegerField(default=0)
    span_start = models.IntegerField(default=0)
    span_end = models.IntegerField(default=0)
    content_hash = models.CharField(max_length=64)
    engram = models.ForeignKey(
        "memory.Engram", on_delete=models.SET_NULL, null=True, related_name="+", db_index=False
    )
    job = models.ForeignKey(
        Job, on_delete=models.SET_NULL, null=True, related_name="+", db_index=False
    )
    extracted_with = models.CharField(max_length=60, blank=True)
    extracted_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "network", "external_id"],
                condition=Q(external_id__isnull=False),
                name="episode_tenant_external_uniq",
            )
        ]
        indexes = [
            models.Index(
                F("tenant"),
                F("network"),
                F("created_at").desc(),
                F("id").desc(),
                name="episode_tenant_recent",
            ),
            models.Index(fields=["tenant", "job"], name="episode_tenant_job"),
            models.Index(fields=["tenant", "engram"], name="episode_tenant_engram"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk}"


class Entity(models.Model):
    """A person, organisation, place, project or thing a network knows, under one canonical
    name; every way it was written is an ``EntityAlias``. A merged entity points at the one
    that absorbed it and is no longer used."""

    tenant = models.ForeignKey(
        "tenants.Tenant", on_delete=models.PROTECT, related_name="+", db_index=False
    )
    network = models.ForeignKey(
        "memory.Network", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=20, default="thing")
    mentions = models.IntegerField(default=0)
    merged_into = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+", db_index=False
    )
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name_plural = "entities"
        indexes = [
            models.Index(
                F("tenant"),
                F("network"),
                F("mentions").desc(),
                F("id").desc(),
                name="entity_tenant_mentions",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class EntityAlias(models.Model):
    """One way an entity is written ("Maya", "Project Falcon"); ``key`` is what resolution
    looks up (``memory.core.knowledge.entity_key``: "Project Falcon" and "Falcon" share one)."""

    tenant = models.ForeignKey(
        "tenants.Tenant", on_delete=models.PROTECT, related_name="+", db_index=False
    )
    network = models.ForeignKey(
        "memory.Network", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    entity = models.ForeignKey(
        Entity, on_delete=models.CASCADE, related_name="aliases", db_index=False
    )
    alias = models.CharField(max_length=200)
    key = models.CharField(max_length=200)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "network", "alias"], name="entityalias_tenant_alias_uniq"
            )
        ]
        indexes = [
            models.Index(fields=["tenant", "network", "key"], name="entityalias_tenant_key"),
            models.Index(fields=["tenant", "entity"], name="entityalias_tenant_entity"),
        ]

    def __str__(self) -> str:
        return self.alias


class EntityMention(models.Model):
    """Where an entity is named: an engram (and the episode it came from), with the span."""

    tenant = models.ForeignKey(
        "tenants.Tenant", on_delete=models.PROTECT, related_name="+", db_index=False
    )
    entity = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="+", db_index=False)
    engram = models.ForeignKey(
        "memory.Engram", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    episode = models.ForeignKey(
        Episode, on_delete=models.CASCADE, null=True, related_name="+", db_index=False
    )
    name = models.CharField(max_length=200)  # as written: a split moves it with its alias
    start = models.IntegerField()
    end = models.IntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "engram", "start", "end"], name="mention_tenant_uniq"
            )
        ]
        indexes = [models.Index(fields=["tenant", "entity"], name="mention_tenant_entity")]

    def __str__(self) -> str:
        return f"{self.entity_id}@{self.engram_id}"


class Fact(models.Model):
    """subject / predicate / object, the slot it fills, how sure, and when it held.

    One current fact per subject and slot: a new value **supersedes** the old one (its
    ``valid_to`` closed, the new one's ``supersedes`` pointing back), and both are kept; the
    same value again adds evidence and confidence. ``FactEvidence`` rows say where it was
    said."""

    class Status(models.TextChoices):
        CURRENT = "current"
        SUPERSEDED = "superseded"

    tenant = models.ForeignKey(
        "tenants.Tenant", on_delete=models.PROTECT, related_name="+", db_index=False
    )
    network = models.ForeignKey(
        "memory.Network", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    subject = models.ForeignKey(Entity, on_delete=models.PROTECT, related_name="+", db_index=False)
    subject_name = models.CharField(max_length=200)  # as written (a split follows it)
    predicate = models.CharField(max_length=120)
    object = models.CharField(max_length=500)
    object_key = models.CharField(max_length=500)
    object_entity = models.ForeignKey(
        Entity, on_delete=models.SET_NULL, null=True, blank=True, related_name="+", db_index=False
    )
    slot = models.CharField(max_length=300)
    confidence = models.FloatField(default=0.5)
    valid_from = models.DateTimeField(null=True, blank=True)
    valid_to = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.CURRENT)
    supersedes = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+", db_index=False
    )
    extractor = models.CharField(max_length=60, blank=True)
    evidence_count = models.IntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "network", "subject", "slot"],
                condition=Q(status="current"),
                name="fact_tenant_current_uniq",
            ),
            models.CheckConstraint(
                condition=Q(confidence__gte=0, confidence__lte=1), name="fact_confidence_range"
            ),
        ]
        indexes = [
            models.Index(
                fields=["tenant", "network", "subject", "slot", "status"],
                name="fact_tenant_subject_slot",
            ),
            models.Index(
                F("tenant"),
                F("network"),
                F("status"),
                F("updated_at").desc(),
                F("id").desc(),
                name="fact_tenant_recent",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.subject_id} {self.predicate} {self.object}"


class FactEvidence(models.Model):
    """Where a fact was said: the episode, the engram it became, and the span."""

    tenant = models.ForeignKey(
        "tenants.Tenant", on_delete=models.PROTECT, related_name="+", db_index=False
    )
    fact = models.ForeignKey(Fact, on_delete=models.CASCADE, related_name="+", db_index=False)
    episode = models.ForeignKey(
        Episode, on_delete=models.CASCADE, null=True, related_name="+", db_index=False
    )
    engram = models.ForeignKey(
        "memory.Engram", on_delete=models.SET_NULL, null=True, related_name="+", db_index=False
    )
    start = models.IntegerField(default=0)
    end = models.IntegerField(default=0)
    extractor = models.CharField(max_length=60, blank=True)
    said_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "fact", "episode", "start"], name="factevidence_tenant_uniq"
            )
        ]
        indexes = [
            models.Index(fields=["tenant", "fact"], name="factevidence_tenant_fact"),
            models.Index(fields=["tenant", "episode"], name="factevidence_tenant_episode"),
            # recall reaches facts through the memories it found
            models.Index(fields=["tenant", "engram"], name="factevidence_tenant_engram"),
        ]

    def __str__(self) -> str:
        return f"fact {self.fact_id} from episode {self.episode_id}"


class Skill(models.Model):
    """A procedure that worked (PlugMem's procedural memory): a goal, what it needs, the steps
    with placeholders for one run's literals, what failed on the way (pitfalls), and how often
    it worked since.

    One current version per goal key: a run of the same goal with other steps is a new version
    (``previous`` points back, the old one is superseded and kept). ``parent`` is the more
    general skill this one refines. ``SkillEvidence`` rows are the runs and memories it was
    learned from, and the outcomes reported since."""

    class Status(models.TextChoices):
        CURRENT = "current"
        SUPERSEDED = "superseded"

    class Source(models.TextChoices):
        TRAJECTORY = "trajectory"  # step episodes of a task that succeeded
        PATTERN = "pattern"  # a PATTERN memory that writes a procedure down

    tenant = models.ForeignKey(
        "tenants.Tenant", on_delete=models.PROTECT, related_name="+", db_index=False
    )
    network = models.ForeignKey(
        "memory.Network", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    goal = models.CharField(max_length=200)
    key = models.CharField(max_length=300)
    preconditions = models.JSONField(default=list, blank=True)
    steps = models.JSONField(default=list)
    placeholders = models.JSONField(default=dict, blank=True)  # name -> a literal one run used
    pitfalls = models.JSONField(default=list, blank=True)
    terms = ArrayField(models.CharField(max_length=200), default=list, blank=True)
    successes = models.IntegerField(default=0)
    failures = models.IntegerField(default=0)
    version = models.IntegerField(default=1)
    previous = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+", db_index=False
    )
    parent = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+", db_index=False
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.CURRENT)
    source = models.CharField(max_length=10, choices=Source.choices)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "network", "key"],
                condition=Q(status="current"),
                name="skill_tenant_current_uniq",
            ),
            models.CheckConstraint(
                condition=Q(successes__gte=0, failures__gte=0), name="skill_counts_positive"
            ),
        ]
        indexes = [
            models.Index(
                F("tenant"),
                F("network"),
                F("status"),
                F("updated_at").desc(),
                F("id").desc(),
                name="skill_tenant_recent",
            ),
            models.Index(fields=["tenant", "network", "key"], name="skill_tenant_key"),
        ]

    def __str__(self) -> str:
        return f"{self.goal} (v{self.version})"

    @property
    def runs(self) -> int:
        return self.successes + self.failures

    @property
    def success_rate(self) -> float | None:
        return self.successes / self.runs if self.runs else None


class SkillEvidence(models.Model):
    """What a skill was learned from or told since: a task's run (its steps' episodes and
    engrams), a PATTERN memory, or an outcome someone reported. ``run`` names the run once per
    network ("task:<name>", "engram:<id>:<digest>", "outcome:<task>"), so a redelivered job or
    a repeated report counts once."""

    class Outcome(models.TextChoices):
        SUCCESS = "success"
        FAILURE = "failure"
        NONE = ""  # a written procedure: no run

    tenant = models.ForeignKey(
        "tenants.Tenant", on_delete=models.PROTECT, related_name="+", db_index=False
    )
    network = models.ForeignKey(
        "memory.Network", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    skill = models.ForeignKey(Skill, on_delete=models.CASCADE, related_name="+", db_index=False)
    run = models.CharField(max_length=300, blank=True)
    outcome = models.CharField(max_length=8, choices=Outcome.choices, blank=True)
    episodes = ArrayField(models.BigIntegerField(), default=list, blank=True)
    engrams = ArrayField(models.BigIntegerField(), default=list, blank=True)
    note = models.CharField(max_length=500, blank=True)
    actor = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "network", "run"],
                condition=~Q(run=""),
                name="skillevidence_tenant_run_uniq",
            )
        ]
        indexes = [
            models.Index(fields=["tenant", "skill"], name="skillevidence_tenant_skill"),
            GinIndex(F("tenant"), F("engrams"), name="skillevidence_engrams_gin"),
        ]

    def __str__(self) -> str:
        return f"skill {self.skill_id} {self.run or 'evidence'}"
