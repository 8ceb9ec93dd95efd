"""The cognitive memory network, per tenant and per network: cues, weighted edges, engrams.

A **Network** is a memory space (``default``, ``role:writer``, ``user:42``). Its **Cues** are
concepts, joined by directed, typed, weighted **Edges** that Hebbian reinforcement strengthens.
An **Engram** is the memory a person sees: content, the ordered schema of cue words it was filed
under (``EngramCue``), type, strength, importance, and the bookkeeping recall needs.
"""

from __future__ import annotations

from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex, GistIndex, OpClass
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from pgvector.django import HnswIndex, VectorField

EMBEDDING_DIMENSIONS = 384
# Foreign keys carry no index of their own: composite indexes leading with tenant_id cover them.
SEARCH_CONFIG = "english"


class WritePolicy(models.TextChoices):
    """What happens to an agent's write (memory.services.moderation): kept at once, kept and
    queued for a person to confirm, or held out of every agent's sight until a person approves.
    Blank on a key or a network: the next level decides (network, then key, then tenant)."""

    AUTO = "auto"
    REVIEW = "review"
    QUARANTINE = "quarantine"


class Network(models.Model):
    """A memory space inside a tenant, created on first write."""

    tenant = models.ForeignKey("tenants.Tenant", on_delete=models.PROTECT, related_name="+")
    key = models.CharField(max_length=100)
    # a database default too: networks are created by a raw upsert (network_for_write)
    write_policy = models.CharField(
        max_length=12, choices=WritePolicy.choices, blank=True, default="", db_default=""
    )
    # memories older than this many days are deleted by the hourly retention run; null: kept
    retention_days = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "key"], name="network_tenant_key_uniq")
        ]

    def __str__(self) -> str:
        return self.key


# Cues that get an embedding: those with something besides digits, punctuation and spaces. A
# number, a date or a time ("8985", "2026-08-17", "10:00") matches exactly or not at all (no
# fuzzy match either): its vector would only seed semantic noise, and in chat data they are a
# large share of all cues. (Said by what is left out: [[:alpha:]] misses "Москва" and "东京"
# in a database whose ctype is plain C.)
EMBEDDABLE_CUE = Q(lemma__regex=r"[^0-9[:punct:][:space:]]")


class Cue(models.Model):
    """A concept: normalised lemma plus display word, with access statistics for ACT-R."""

    # db_index=False: every index of the table starts with the tenant; a lone tenant index only
    # misleads the planner for a new tenant without statistics (and costs every write)
    tenant = models.ForeignKey(
        "tenants.Tenant", on_delete=models.PROTECT, related_name="+", db_index=False
    )
    network = models.ForeignKey(
        Network, on_delete=models.CASCADE, related_name="cues", db_index=False
    )
    lemma = models.CharField(max_length=200)
    word = models.CharField(max_length=200)
    # its embedding lives in CueVector: a row here is ~100 bytes instead of ~1.6 KB
    engram_count = models.IntegerField(default=0)  # active engrams filed under it
    out_degree = models.IntegerField(default=0)  # its out-edges, kept ≤ the bound on write
    recall_count = models.IntegerField(default=0)
    last_recalled_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "network", "lemma"], name="cue_tenant_network_lemma_uniq"
            )
        ]
        indexes = [
            # GiST, not GIN: nearest-trigram lookups (ORDER BY lemma <-> word LIMIT n) walk the
            # tree instead of scoring every cue that shares a trigram.
            GistIndex(
                "tenant", "network", OpClass("lemma", name="gist_trgm_ops"), name="cue_lemma_trgm"
            ),
            # Multi-word names: "falcon" finds "project falcon" (recall's aliases). A btree,
            # not a GIN over the words: under row-level security only leakproof operators
            # become index conditions, and array containment is not one. No index holds
            # engram_count (nor recall_count, out_degree): every remember raises the counts of
            # its cues, and an update that changes no indexed column is HOT, where any other
            # re-inserts the cue into every index (when the embedding was inline, its HNSW
            # graph too: ~2,000 pages read, 6-28 ms of each remember at 100k engrams).
            models.Index(
                F("tenant"), F("network"), condition=Q(lemma__contains=" "), name="cue_names"
            ),
        ]

    def __str__(self) -> str:
        return self.word


class CueVector(models.Model):
    """A cue's embedding (semantic cue matches), in a narrow table of its own. Inline in the
    cue's row it made every cue ~1.6 KB: each count update of remember rewrote that much, a
    page held three cues, and the exact nearest-cue scan of a network of 14.8k vectors read
    ~22,800 buffers in index order (~19 ms). Here a network's vectors are written together
    (the embedder inserts them by the batch), so the same scan reads ~3,000 (12-13 ms), and
    writing a vector inserts a row instead of re-indexing its cue in every index of the cue
    table. Deleted with its cue or network through the ORM (Django's CASCADE; the database's
    foreign key only checks)."""

    cue = models.OneToOneField(
        Cue, on_delete=models.CASCADE, primary_key=True, related_name="vector"
    )
    tenant = models.ForeignKey(
        "tenants.Tenant", on_delete=models.PROTECT, related_name="+", db_index=False
    )
    network = models.ForeignKey(Network, on_delete=models.CASCADE, related_name="+", db_index=False)
    embedding = VectorField(dimensions=EMBEDDING_DIMENSIONS)
    # the model that made it: the embedder replaces a vector of another model (as it does an
    # engram's); blank for the vectors migration 0028 moved here, whose model nobody recorded
    model = models.CharField(max_length=80, blank=True, default="", db_default="")

    class Meta:
        indexes = [
            models.Index(fields=["tenant", "network"], name="cuevector_network"),
            HnswIndex(
                name="cuevector_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            ),
        ]

    def __str__(self) -> str:
        return f"vector of cue {self.cue_id}"


class Edge(models.Model):
    """A directed, typed association between two cues; its weight in (0, 1] is learned."""

    class Kind(models.TextChoices):
        SEQUENCE = "sequence"
        COOCCUR = "cooccur"
        SYNONYM = "synonym"
        CAUSAL = "causal"
        TEMPORAL = "temporal"
        SUPERSEDES = "supersedes"

    # db_index=False: every index of the table starts with the tenant; a lone tenant index only
    # misleads the planner for a new tenant without statistics (and costs every write)
    tenant = models.ForeignKey(
        "tenants.Tenant", on_delete=models.PROTECT, related_name="+", db_index=False
    )
    network = models.ForeignKey(
        Network, on_delete=models.CASCADE, related_name="edges", db_index=False
    )
    source = models.ForeignKey(
        Cue, on_delete=models.CASCADE, related_name="out_edges", db_index=False
    )
    target = models.ForeignKey(
        Cue, on_delete=models.CASCADE, related_name="in_edges", db_index=False
    )
    kind = models.CharField(max_length=12, choices=Kind.choices)
    weight = models.FloatField()
    count = models.IntegerField(default=1)
    last_reinforced_at = models.DateTimeField(default=timezone.now)
    decayed_at = models.DateTimeField(default=timezone.now)  # decay applied up to here

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "network", "source", "target", "kind"],
                name="edge_tenant_key_uniq",
            ),
            models.CheckConstraint(
                condition=Q(weight__gt=0) & Q(weight__lte=1), name="edge_weight_range"
            ),
        ]
        # Out-edges are read through the unique index (tenant, network, source, ...): no index
        # holds the weight, so reinforcement is a HOT update that rewrites no index.
        indexes = [
            models.Index(fields=["tenant", "network", "target"], name="edge_tenant_in"),
        ]

    def __str__(self) -> str:
        return f"{self.source_id}->{self.target_id} {self.kind} {self.weight:.2f}"


class Engram(models.Model):
    """A memory: what was remembered, under which cues, how strongly, from where."""

    class Type(models.TextChoices):
        ATOMIC = "ATOMIC", "Atomic (fact, entity)"
        LINK = "LINK", "Link (relation)"
        PATTERN = "PATTERN", "Pattern (procedure, method)"

    class Status(models.TextChoices):
        ACTIVE = "active"
        QUARANTINED = "quarantined"  # waiting for moderation, never recalled
        HIDDEN = "hidden"
        SUPERSEDED = "superseded"
        ARCHIVED = "archived"  # kept, not a candidate
        DELETED = "deleted"  # soft-deleted by a person or agent; history kept
        ERASED = "erased"  # tombstone: content gone

    # db_index=False: every index of the table starts with the tenant; a lone tenant index only
    # misleads the planner for a new tenant without statistics (and costs every write)
    tenant = models.ForeignKey(
        "tenants.Tenant", on_delete=models.PROTECT, related_name="+", db_index=False
    )
    network = models.ForeignKey(
        Network, on_delete=models.CASCADE, related_name="engrams", db_index=False
    )
    content = models.TextField()
    schema = ArrayField(models.CharField(max_length=200), default=list, blank=True)
    # Lemmas of the content's meaningful words, computed once at write time for ranking.
    terms = ArrayField(models.CharField(max_length=200), default=list, blank=True)
    intents = ArrayField(models.CharField(max_length=40), default=list, blank=True)
    type = models.CharField(max_length=8, choices=Type.choices, default=Type.ATOMIC)
    strength = models.FloatField(default=0.5)
    importance = models.FloatField(default=0.5)
    occurred_at = models.DateTimeField(null=True, blank=True)
    # NULL, not "": unique only where the client gave one.
    external_id = models.CharField(max_length=200, null=True, blank=True)  # noqa: DJ001
    metadata = models.JSONField(default=dict, blank=True)
    source = models.CharField(max_length=20, default="api")
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.ACTIVE)
    embedding = VectorField(dimensions=EMBEDDING_DIMENSIONS, null=True, blank=True)
    embedding_model = models.CharField(max_length=80, blank=True)
    search = models.GeneratedField(
        expression=SearchVector("content", config=SEARCH_CONFIG),
        output_field=SearchVectorField(),
        db_persist=True,
    )
    token_count = models.IntegerField(default=0)
    content_hash = models.CharField(max_length=64)
    recall_count = models.IntegerField(default=0)
    last_recalled_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "network", "external_id"],
                condition=Q(external_id__isnull=False),
                name="engram_tenant_external_uniq",
            ),
            models.CheckConstraint(
                condition=Q(strength__gte=0, strength__lte=1), name="engram_strength_range"
            ),
            models.CheckConstraint(
                condition=Q(importance__gte=0, importance__lte=1), name="engram_importance_range"
            ),
        ]
        indexes = [
            models.Index(
                F("tenant"),
                F("network"),
                F("status"),
                F("created_at").desc(),
                F("id").desc(),
                name="engram_tenant_recent",
            ),
            models.Index(fields=["tenant", "network", "content_hash"], name="engram_tenant_hash"),
            # The memory browser sorts by strength with a keyset cursor.
            models.Index(
                F("tenant"),
                F("network"),
                F("status"),
                F("strength").desc(),
                F("id").desc(),
                name="engram_tenant_strength",
            ),
            # The network, not the tenant: a network is one tenant's, and each key column makes
            # the index read that key's whole posting list (100k entries for a 100k network).
            # New entries wait in a pending list that every search reads through, unsorted,
            # until it is merged (by default at 4 MB: ~18k entries, ~495 pages, +10 ms a
            # query at 100k engrams). At 256 kB the list is merged every ~50 new engrams,
            # by the write that fills it (~5 ms), and a search reads at most 32 pages of it.
            GinIndex("network", "search", name="engram_search_gin", gin_pending_list_limit=256),
            # The few active engrams still waiting for a vector (the maintenance sweep).
            models.Index(
                fields=["tenant", "network", "id"],
                condition=Q(embedding__isnull=True, status="active"),
                name="engram_unembedded",
            ),
            HnswIndex(
                name="engram_embedding_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.content[:60]}"


class EngramCue(models.Model):
    """The engram's schema as rows: which cue, at which position."""

    # db_index=False: every index of the table starts with the tenant; a lone tenant index only
    # misleads the planner for a new tenant without statistics (and costs every write)
    tenant = models.ForeignKey(
        "tenants.Tenant", on_delete=models.PROTECT, related_name="+", db_index=False
    )
    network = models.ForeignKey(Network, on_delete=models.CASCADE, related_name="+", db_index=False)
    engram = models.ForeignKey(
        Engram, on_delete=models.CASCADE, related_name="cue_links", db_index=False
    )
    cue = models.ForeignKey(
        Cue, on_delete=models.CASCADE, related_name="engram_links", db_index=False
    )
    position = models.SmallIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "engram", "position"], name="engramcue_tenant_position_uniq"
            )
        ]
        indexes = [
            # The newest engrams of a cue first: activation reads a bounded number per cue.
            models.Index(
                F("tenant"), F("network"), F("cue"), F("engram").desc(), name="engramcue_tenant_cue"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.engram_id}@{self.position}:{self.cue_id}"


class RecallEvent(models.Model):
    """One recall or prime as it was served: for the dashboard's activity plots and latency
    percentiles (real request timings, not a benchmark). Kept 30 days."""

    class Kind(models.TextChoices):
        RECALL = "recall"
        PRIME = "prime"

    tenant = models.ForeignKey("tenants.Tenant", on_delete=models.PROTECT, related_name="+")
    network = models.ForeignKey(Network, on_delete=models.CASCADE, related_name="+", db_index=False)
    kind = models.CharField(max_length=8, choices=Kind.choices)
    source = models.CharField(max_length=20)  # api, mcp, dashboard
    took_ms = models.FloatField()
    results = models.IntegerField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [
            models.Index(fields=["tenant", "created_at"], name="recallevent_tenant_time"),
            models.Index(fields=["tenant", "network", "created_at"], name="recallevent_net_time"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.took_ms:.0f} ms"


class ImportJob(models.Model):
    """An import of a JSON-lines file into a network, run by a Celery worker in batches; its
    progress and per-line errors are what the dashboard shows while it runs."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    tenant = models.ForeignKey("tenants.Tenant", on_delete=models.PROTECT, related_name="+")
    network_key = models.CharField(max_length=100)
    filename = models.CharField(max_length=200, blank=True)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.QUEUED)
    payload = models.TextField(blank=True)  # the uploaded lines; cleared when the job ends
    total_lines = models.IntegerField(default=0)
    processed_lines = models.IntegerField(default=0)
    counts = models.JSONField(default=dict)  # created / updated / unchanged / reinforced / ...
    errors = models.JSONField(default=list)  # [{"line": n, "message": "..."}], first 500
    error_count = models.IntegerField(default=0)
    message = models.CharField(max_length=300, blank=True)
    created_by = models.CharField(max_length=200)
    actor = models.JSONField(default=dict)  # who started it: the engrams' audit actor
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)
    # A worker holds the job until then, renewing at every batch; past it (the worker died, or
    # the task's message was lost) the maintenance sweep queues the job again.
    lease_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["tenant", "-created_at"], name="importjob_tenant_recent")]

    def __str__(self) -> str:
        return f"import {self.pk} into {self.network_key}"

    @property
    def percent(self) -> int:
        if not self.total_lines:
            return 100 if self.status == self.Status.DONE else 0
        return min(100, round(100 * self.processed_lines / self.total_lines))


class ModerationItem(models.Model):
    """Something waiting for a person's decision, and the decision once made: a memory the
    firewall or the write policy sent to review or held (quarantined), an agent's proposed edit
    or delete, a reader's flag. ``hits`` keep each detector's span and confidence, never the
    matched secret; ``proposed`` the changed fields of an edit."""

    class Kind(models.TextChoices):
        WRITE = "write"  # a new memory
        EDIT = "edit"  # an agent's proposed change to a stored memory
        DELETE = "delete"  # an agent's proposed delete
        FLAG = "flag"  # a reader said something is wrong with it

    class State(models.TextChoices):
        PENDING = "pending"
        APPROVED = "approved"
        REJECTED = "rejected"
        REDACTED = "redacted"
        HIDDEN = "hidden"
        RESTORED = "restored"
        EXPIRED = "expired"

    class Reason(models.TextChoices):
        FIREWALL = "firewall"
        POLICY = "policy"
        FLAG = "flag"

    tenant = models.ForeignKey(
        "tenants.Tenant", on_delete=models.PROTECT, related_name="+", db_index=False
    )
    network = models.ForeignKey(Network, on_delete=models.CASCADE, related_name="+", db_index=False)
    engram = models.ForeignKey(
        Engram, on_delete=models.SET_NULL, null=True, related_name="+", db_index=False
    )
    kind = models.CharField(max_length=8, choices=Kind.choices)
    state = models.CharField(max_length=10, choices=State.choices, default=State.PENDING)
    reason = models.CharField(max_length=10, choices=Reason.choices)
    held = models.BooleanField(default=False)  # the memory is quarantined until decided
    hits = models.JSONField(default=list, blank=True)
    proposed = models.JSONField(default=dict, blank=True)
    note = models.TextField(blank=True)  # the flag's reason, or why the policy queued it
    author = models.JSONField(default=dict)  # the actor who wrote, proposed or flagged
    created_at = models.DateTimeField(default=timezone.now)
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.JSONField(default=dict, blank=True)
    decision_note = models.TextField(blank=True)

    class Meta:
        indexes = [
            models.Index(
                F("tenant"),
                F("state"),
                F("created_at").desc(),
                F("id").desc(),
                name="moderation_tenant_queue",
            ),
            models.Index(fields=["tenant", "engram"], name="moderation_tenant_engram"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.state} #{self.engram_id}"


class Erasure(models.Model):
    """An erasure and its receipt: what was asked (network, ids, or a subject: every memory
    that names it), what was removed from each store, the content hashes of the memories, a
    probe run afterwards, all signed by the service. Run by a Celery worker; the ids and the
    subject are kept only until it has run (the receipt holds the subject's hash)."""

    class State(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    tenant = models.ForeignKey(
        "tenants.Tenant", on_delete=models.PROTECT, related_name="+", db_index=False
    )
    state = models.CharField(max_length=8, choices=State.choices, default=State.QUEUED)
    network_key = models.CharField(max_length=100, blank=True)
    engram_ids = ArrayField(models.BigIntegerField(), default=list, blank=True)
    subject = models.CharField(max_length=200, blank=True)  # cleared once run
    subject_sha256 = models.CharField(max_length=64, blank=True)
    counts = models.JSONField(default=dict, blank=True)
    content_hashes = models.JSONField(default=list, blank=True)
    erased_ids = ArrayField(models.BigIntegerField(), default=list, blank=True)
    probe = models.JSONField(default=dict, blank=True)
    actor = models.JSONField(default=dict)
    requested_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)
    signature = models.CharField(max_length=200, blank=True)
    public_key = models.CharField(max_length=100, blank=True)
    message = models.CharField(max_length=300, blank=True)

    class Meta:
        indexes = [
            models.Index(F("tenant"), F("requested_at").desc(), name="erasure_tenant_recent"),
        ]

    def __str__(self) -> str:
        return f"erasure {self.pk} ({self.state})"
