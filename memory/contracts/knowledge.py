"""The contracts of knowledge (PlugMem): what ingesting episodes takes, what a job reports,
how facts and entities are listed, shown, merged and split, and how skills are listed, shown
and told their outcomes."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal, cast

from pydantic import AfterValidator, BeforeValidator, Field, StrictBool, model_validator

from base.contracts import (
    NOT_BLANK,
    SPACE,
    Contract,
    Instant,
    Output,
    PageSize,
    QueryContract,
    Text,
    refuse,
    whole,
)
from memory.contracts import (
    MAX_CONTENT_CHARS,
    ExternalId,
    MemoryTarget,
    Metadata,
    NetworkKey,
    RowId,
    Speaker,
)
from memory.core.guide import MAX_BUDGET as MAX_GUIDE_TOKENS
from memory.core.guide import Guide
from memory.core.skills import reliability
from memory.models import Entity, EntityAlias, Episode, Fact, Job, Skill, SkillEvidence

MAX_EPISODES = 500
MAX_DOCUMENT_CHARS = 200_000  # a document is chunked; each chunk is one engram
EpisodeKind = Literal["message", "document", "step"]


def _not_blank(value: str) -> str:
    if not value.strip(SPACE):
        raise refuse("is required and may not be empty")
    return value.strip(SPACE)


EpisodeText = Annotated[
    Text,
    Field(max_length=MAX_DOCUMENT_CHARS, json_schema_extra={"pattern": NOT_BLANK}),
    AfterValidator(_not_blank),
]


class EpisodeIn(Contract):
    kind: EpisodeKind = "message"
    content: EpisodeText = Field(
        description=f"a message or step (≤ {MAX_CONTENT_CHARS:,} characters), or a document "
        f"(≤ {MAX_DOCUMENT_CHARS:,}, chunked)"
    )
    speaker: Speaker | None = Field(None, description="who said it; first person means them")
    occurred_at: Instant | None = Field(None, description="when it was said (ISO 8601, zone)")
    external_id: ExternalId | None = Field(
        None, description="idempotency key: sent twice, kept once"
    )
    metadata: Metadata = Field(default_factory=dict)
    null_means_absent = ("speaker", "occurred_at", "external_id")

    @model_validator(mode="after")
    def _short_unless_document(self) -> EpisodeIn:
        if self.kind != "document" and len(self.content) > MAX_CONTENT_CHARS:
            raise refuse(
                f"content: a {self.kind} holds at most {MAX_CONTENT_CHARS:,} characters "
                '(send long text as kind "document": it is chunked)'
            )
        return self


class EpisodesIn(MemoryTarget):
    episodes: list[EpisodeIn] = Field(min_length=1, max_length=MAX_EPISODES)


class JobOut(Output):
    id: int
    kind: str
    network: str
    state: Literal["queued", "running", "done", "failed"]
    total: int
    processed: int
    percent: int
    counts: dict[str, int]
    errors: list[dict[str, Any]]
    error_count: int
    extractor: str
    tokens: int
    message: str
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None


def present_job(job: Job, network_key: str) -> JobOut:
    return JobOut(
        id=job.pk,
        kind=job.kind,
        network=network_key,
        state=job.state,
        total=job.total,
        processed=job.processed,
        percent=job.percent,
        counts={k: v for k, v in job.counts.items() if not k.startswith("_")},
        errors=job.errors,
        error_count=job.error_count,
        extractor=job.extractor,
        tokens=job.tokens,
        message=job.message,
        created_at=job.created_at,
        started_at=job.started_at,
        finished_at=job.finished_at,
    )


class EpisodeOut(Output):
    index: int = Field(description="position in the request's episodes")
    id: int
    kind: str
    external_id: str | None
    status: Literal["created", "existing"]
    engram: int | None = Field(description="the engram it was remembered as (recallable now)")
    chunk: int = Field(0, description="a document's chunk number")
    span: tuple[int, int] = Field(description="where the chunk sits in the document")


class IngestedOut(Output):
    network: str
    job: JobOut
    episodes: list[EpisodeOut]


def present_episode(index: int, episode: Episode, created: bool) -> EpisodeOut:
    return EpisodeOut(
        index=index,
        id=episode.pk,
        kind=episode.kind,
        external_id=episode.external_id,
        status="created" if created else "existing",
        engram=episode.engram_id,
        chunk=episode.position,
        span=(episode.span_start, episode.span_end),
    )


# --- facts -------------------------------------------------------------------------------


class FactFilters(QueryContract):
    network: NetworkKey | None = None
    subject: Annotated[Text, Field(max_length=200)] = ""
    slot: Annotated[Text, Field(max_length=300)] = ""
    at: Instant | None = Field(None, description="the facts that held at this time")
    status: Literal["current", "superseded", "any"] = "current"
    cursor: Text = ""
    limit: PageSize = 50


class FactOut(Output):
    id: int
    network: str
    subject: str
    subject_id: int
    predicate: str
    object: str
    slot: str
    confidence: float
    valid_from: datetime | None
    valid_to: datetime | None
    status: str
    supersedes: int | None
    evidence_count: int
    extractor: str
    created_at: datetime


def present_fact(fact: Fact, network_key: str, subject: str) -> FactOut:
    return FactOut(
        id=fact.pk,
        network=network_key,
        subject=subject,
        subject_id=fact.subject_id,
        predicate=fact.predicate,
        object=fact.object,
        slot=fact.slot,
        confidence=round(fact.confidence, 3),
        valid_from=fact.valid_from,
        valid_to=fact.valid_to,
        status=fact.status,
        supersedes=fact.supersedes_id,
        evidence_count=fact.evidence_count,
        extractor=fact.extractor,
        created_at=fact.created_at,
    )


class FactPage(Output):
    facts: list[FactOut]
    next_cursor: str | None


class EvidenceOut(Output):
    episode: int | None
    engram: int | None
    span: tuple[int, int]
    quote: str = Field(description="the words the fact was read from")
    said_at: datetime | None
    extractor: str


class FactDetailOut(Output):
    fact: FactOut
    evidence: list[EvidenceOut]
    chain: list[FactOut] = Field(description="every value of this slot, oldest first")


# --- entities ----------------------------------------------------------------------------


class EntityFilters(QueryContract):
    network: NetworkKey | None = None
    q: Annotated[Text, Field(max_length=200)] = ""
    cursor: Text = ""
    limit: PageSize = 50


class EntityOut(Output):
    id: int
    network: str
    name: str
    kind: str
    aliases: list[str]
    mentions: int
    merged_into: int | None
    created_at: datetime


def present_entity(entity: Entity, network_key: str, aliases: list[EntityAlias]) -> EntityOut:
    return EntityOut(
        id=entity.pk,
        network=network_key,
        name=entity.name,
        kind=entity.kind,
        aliases=sorted(a.alias for a in aliases),
        mentions=entity.mentions,
        merged_into=entity.merged_into_id,
        created_at=entity.created_at,
    )


class EntityPage(Output):
    entities: list[EntityOut]
    next_cursor: str | None


class EntityMergeIn(Contract):
    into: RowId = Field(description="the entity that absorbs this one")


class EntitySplitIn(Contract):
    aliases: list[Annotated[Text, Field(min_length=1, max_length=200)]] = Field(
        min_length=1, max_length=100, description="the written forms that become a new entity"
    )
    name: Annotated[Text, Field(min_length=1, max_length=200)] | None = None
    null_means_absent = ("name",)


# --- the guide -----------------------------------------------------------------------------

TaskText = Annotated[
    Text,
    Field(max_length=2000, json_schema_extra={"pattern": NOT_BLANK}),
    AfterValidator(_not_blank),
]
GuideBudget = Annotated[int, Field(strict=True, ge=30, le=MAX_GUIDE_TOKENS), BeforeValidator(whole)]


class GuideIn(MemoryTarget):
    task: TaskText = Field(description="what the agent is about to do, in its words")
    token_budget: GuideBudget = Field(
        MAX_GUIDE_TOKENS, description=f"the guide's tokens at most (30 to {MAX_GUIDE_TOKENS})"
    )
    record: StrictBool = Field(True, description="false: look without counting an access")
    task_key: Annotated[Text, Field(max_length=200)] | None = Field(
        None,
        description="the recorded task this is for (its key): where it stands, from its "
        "steps and causes, is a section of the guide",
    )

    blank_means_absent = ("token_budget", "record", "task_key")


CiteKind = Literal["fact", "skill", "engram"]
Section = Literal["facts", "conflicts", "work", "warnings", "steps", "memories"]


class CiteOut(Output):
    kind: CiteKind
    id: int


class GuideLineOut(Output):
    section: Section
    text: str
    cites: list[CiteOut]


class GuideOut(Output):
    network: str
    task: str
    guide: str = Field(description="the lines, rendered as quoted data within the budget")
    tokens: int
    lines: list[GuideLineOut]
    made_by: str = Field(
        description="template (deterministic), or llm-guide/1:<model> when the workspace's "
        "language model wrote it from the template's cited notes"
    )
    took_ms: float
    notice: str | None = None


def present_guide(
    network: str, task: str, guide: Guide, took_ms: float, notice: str, made_by: str = "template"
) -> GuideOut:
    return GuideOut(
        network=network,
        task=task,
        guide=guide.text,
        tokens=guide.tokens,
        lines=[
            GuideLineOut(
                section=cast(Section, line.section),
                text=line.text,
                cites=[CiteOut(kind=cast(CiteKind, c.kind), id=c.id) for c in line.cites],
            )
            for line in guide.lines
        ],
        made_by=made_by,
        took_ms=took_ms,
        notice=notice or None,
    )


# --- skills ------------------------------------------------------------------------------


class SkillFilters(QueryContract):
    network: NetworkKey | None = None
    q: Annotated[Text, Field(max_length=200)] = Field(
        "", description="skills whose goal or steps name all of these words"
    )
    status: Literal["current", "superseded", "any"] = "current"
    cursor: Text = ""
    limit: PageSize = 50


class SkillOut(Output):
    id: int
    network: str
    goal: str
    preconditions: list[str]
    steps: list[str] = Field(description="in order; {placeholders} stand for one run's literals")
    placeholders: dict[str, str] = Field(description="each placeholder and the literal a run used")
    pitfalls: list[str] = Field(description="steps that failed on the way, and why")
    successes: int
    failures: int
    success_rate: float | None = Field(description="successes / runs; null before any run")
    reliability: float = Field(description="(successes + 1) / (runs + 2): what ranking uses")
    version: int
    previous: int | None = Field(description="the version this one revised")
    parent: int | None = Field(description="the more general skill this one refines")
    status: Literal["current", "superseded"]
    source: Literal["trajectory", "pattern"]
    created_at: datetime
    updated_at: datetime


def present_skill(skill: Skill, network_key: str) -> SkillOut:
    rate = skill.success_rate
    return SkillOut(
        id=skill.pk,
        network=network_key,
        goal=skill.goal,
        preconditions=list(skill.preconditions),
        steps=list(skill.steps),
        placeholders=dict(skill.placeholders),
        pitfalls=list(skill.pitfalls),
        successes=skill.successes,
        failures=skill.failures,
        success_rate=round(rate, 3) if rate is not None else None,
        reliability=round(reliability(skill.successes, skill.failures), 3),
        version=skill.version,
        previous=skill.previous_id,
        parent=skill.parent_id,
        status=cast(Literal["current", "superseded"], skill.status),
        source=cast(Literal["trajectory", "pattern"], skill.source),
        created_at=skill.created_at,
        updated_at=skill.updated_at,
    )


class SkillPage(Output):
    skills: list[SkillOut]
    next_cursor: str | None


class SkillRunOut(Output):
    run: str = Field(description='task:<name>, engram:<id>:<digest>, outcome:<task>, or ""')
    outcome: Literal["success", "failure", ""]
    episodes: list[int]
    engrams: list[int]
    note: str
    created_at: datetime


def present_run(row: SkillEvidence) -> SkillRunOut:
    return SkillRunOut(
        run=row.run,
        outcome=cast(Literal["success", "failure", ""], row.outcome),
        episodes=list(row.episodes),
        engrams=list(row.engrams),
        note=row.note,
        created_at=row.created_at,
    )


class SkillDetailOut(Output):
    skill: SkillOut
    versions: list[SkillOut] = Field(description="every version of this goal, oldest first")
    children: list[SkillOut] = Field(description="the current skills that refine this one")
    evidence: list[SkillRunOut] = Field(description="runs, memories and reports, newest first")


class SkillOutcomeIn(Contract):
    outcome: Literal["success", "failure"]
    note: Annotated[Text, Field(max_length=500)] = ""
    task: Annotated[Text, Field(max_length=200)] = Field(
        "", description="the task this run was: reported once per task"
    )
    blank_means_absent = ("note", "task")


class SkillOutcomeOut(Output):
    skill: SkillOut
    counted: bool = Field(description="false: this task's outcome was reported already")
