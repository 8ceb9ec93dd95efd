"""The contracts of the memory of work (PRISM): opening and ending tasks, recording steps with
their causal links, reading a task's DAG, and tracing a unit back to what produced it."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, ClassVar, Literal, cast

from pydantic import Field, StrictBool

from base.contracts import Contract, Instant, Output, PageSize, QueryContract, Text
from memory.contracts import MAX_CONTENT_CHARS, MemoryTarget, Metadata, NetworkKey, RowId
from memory.core.intents import IntentDef
from memory.core.tasks import Trace
from memory.models import Intent, Step, StepLink, Task

MAX_LINKS = 10
TaskKey = Annotated[Text, Field(strict=True, min_length=1, max_length=200)]
StepKey = Annotated[Text, Field(strict=True, min_length=1, max_length=100)]
Tag = Annotated[Text, Field(strict=True, min_length=1, max_length=60)]
EntityName = Annotated[Text, Field(strict=True, min_length=1, max_length=200)]
Outcome = Literal["success", "failure"]


class TaskIn(MemoryTarget):
    key: TaskKey | None = Field(None, description="your name for the task (default: a new one)")
    goal: Annotated[Text, Field(max_length=500)] = ""
    null_means_absent = ("key", "network", "role")


class StepIn(Contract):
    step: StepKey | None = Field(None, description="your name for the step (default: its number)")
    parent_step: StepKey | None = Field(None, description="the step this one is part of")
    action: Annotated[Text, Field(strict=True, min_length=1, max_length=MAX_CONTENT_CHARS // 2)]
    action_type: Annotated[Text, Field(max_length=40)] = ""
    observation: Annotated[Text, Field(max_length=MAX_CONTENT_CHARS // 2)] = ""
    outcome: Outcome | None = None
    intents: list[Tag] = Field(default_factory=list, max_length=10)
    entities: list[EntityName] = Field(default_factory=list, max_length=30)
    caused_by: list[StepKey] = Field(
        default_factory=list,
        max_length=MAX_LINKS,
        description="earlier steps that led to this one (else inferred from shared entities)",
    )
    occurred_at: Instant | None = None
    metadata: Metadata = Field(default_factory=dict)
    null_means_absent: ClassVar[tuple[str, ...]] = ("step", "parent_step", "outcome", "occurred_at")


class StepRecordIn(StepIn, MemoryTarget):
    """A step with its task named (MCP ``record_step``): the task is opened on first use."""

    task: TaskKey
    goal: Annotated[Text, Field(max_length=500)] = ""
    null_means_absent = ("step", "parent_step", "outcome", "occurred_at", "network", "role")


class TaskEndIn(Contract):
    outcome: Outcome
    summary: Annotated[Text, Field(max_length=4000)] = ""


class TaskFilters(QueryContract):
    network: NetworkKey | None = None
    state: Literal["open", "success", "failure", "any"] = "any"
    cursor: Text = ""
    limit: PageSize = 50


class TaskOut(Output):
    id: int
    key: str
    network: str
    goal: str
    state: Literal["open", "success", "failure"]
    summary: str
    step_count: int
    skill: int | None = Field(description="the skill this task taught or counted against")
    created_at: datetime
    updated_at: datetime
    ended_at: datetime | None


def present_task(task: Task, network_key: str) -> TaskOut:
    return TaskOut(
        id=task.pk,
        key=task.key,
        network=network_key,
        goal=task.goal,
        state=task.state,
        summary=task.summary,
        step_count=task.step_count,
        skill=task.skill_id,
        created_at=task.created_at,
        updated_at=task.updated_at,
        ended_at=task.ended_at,
    )


class TaskPage(Output):
    tasks: list[TaskOut]
    next_cursor: str | None


class LinkOut(Output):
    cause: str = Field(description="the earlier step's key")
    effect: str
    inferred: bool = Field(description="found by shared entities, not said by the agent")
    reason: str


class StepOut(Output):
    id: int
    key: str
    index: int
    parent: str | None = Field(description="the parent step's key")
    action: str
    action_type: str
    observation: str
    outcome: Literal["success", "failure", ""]
    intents: list[str]
    entities: list[str]
    caused_by: list[LinkOut]
    engram: int | None = Field(description="the engram it was remembered as")
    episode: int | None = Field(description="the step episode the extractor reads")
    occurred_at: datetime


def present_link(link: StepLink, keys: dict[int, str]) -> LinkOut:
    return LinkOut(
        cause=keys.get(link.cause_id, str(link.cause_id)),
        effect=keys.get(link.effect_id, str(link.effect_id)),
        inferred=link.inferred,
        reason=link.reason,
    )


def present_step(step: Step, keys: dict[int, str], links: list[StepLink]) -> StepOut:
    return StepOut(
        id=step.pk,
        key=step.key,
        index=step.index,
        parent=keys.get(step.parent_id) if step.parent_id else None,
        action=step.action,
        action_type=step.action_type,
        observation=step.observation,
        outcome=step.outcome,
        intents=list(step.intents),
        entities=list(step.entities),
        caused_by=[present_link(link, keys) for link in links if link.effect_id == step.pk],
        engram=step.engram_id,
        episode=step.episode_id,
        occurred_at=step.occurred_at,
    )


class TaskDetailOut(Output):
    task: TaskOut
    steps: list[StepOut] = Field(description="in the order recorded")
    links: list[LinkOut] = Field(description="the DAG's causal edges, cause → effect")


def present_task_detail(task: Task, steps: list[Step], links: list[StepLink]) -> TaskDetailOut:
    keys = {s.pk: s.key for s in steps}
    return TaskDetailOut(
        task=present_task(task, task.network.key),
        steps=[present_step(s, keys, links) for s in steps],
        links=[present_link(link, keys) for link in links],
    )


class StepRecordedOut(Output):
    task: TaskOut
    step: StepOut
    created: bool = Field(description="false: this step was recorded before (same key)")
    job: int | None = Field(description="the extraction job reading the step's episode")


def present_recorded(
    task: Task, step: Step, created: bool, job: int | None, steps: list[Step], links: list[StepLink]
) -> StepRecordedOut:
    keys = {s.pk: s.key for s in steps}
    return StepRecordedOut(
        task=present_task(task, task.network.key),
        step=present_step(step, keys, links),
        created=created,
        job=job,
    )


class TaskEndedOut(Output):
    task: TaskOut
    skill: int | None
    learned: str = Field(
        description="what the skills made of it: create | confirm | revise | failure | "
        "nothing | seen"
    )


# --- trace ---------------------------------------------------------------------------------

TraceKind = Literal["fact", "step", "engram", "skill", "episode"]


class TraceNode(Output):
    kind: TraceKind | Literal["task", "job"]
    id: int
    label: str
    depth: int = Field(description="hops from the unit traced")
    via: str = Field(description="how it led here: evidence, said, caused, parent, recorded, ...")
    parent: str | None = Field(description="the node it explains, as kind:id")


class TraceOut(Output):
    unit: str = Field(description="kind:id of the unit traced")
    label: str
    nodes: list[TraceNode] = Field(description="breadth first: nearest causes first")
    summary: str = Field(description="the chain in a sentence per hop")


class TraceIn(Contract):
    kind: TraceKind
    id: RowId


def present_trace(trace: Trace) -> TraceOut:
    return TraceOut(
        unit=trace.unit,
        label=trace.label,
        nodes=[
            TraceNode(
                kind=cast(Any, n.kind),
                id=n.id,
                label=n.label,
                depth=n.depth,
                via=n.via,
                parent=n.parent,
            )
            for n in trace.nodes
        ],
        summary=trace.summary(),
    )


# --- intents -------------------------------------------------------------------------------

IntentName = Annotated[
    Text, Field(strict=True, min_length=2, max_length=40, pattern=r"^[a-z][a-z0-9_]{1,39}$")
]


class IntentNameIn(Contract):
    name: IntentName


class IntentIn(Contract):
    description: Annotated[Text, Field(max_length=300)] | None = None
    keywords: list[Annotated[Text, Field(min_length=1, max_length=80)]] | None = Field(
        None, max_length=50, description="words or phrases that route a query to it"
    )
    examples: list[Annotated[Text, Field(min_length=1, max_length=300)]] | None = Field(
        None, max_length=50, description="queries of this intent (its prototypes)"
    )
    enabled: StrictBool | None = None
    null_means_absent: ClassVar[tuple[str, ...]] = (
        "description", "keywords", "examples", "enabled",
    )  # fmt: skip


class VocabularyIntentOut(Output):
    name: str
    description: str
    shipped: bool = Field(description="one of the defaults Mnemo ships")
    enabled: bool
    keywords: list[str] = Field(description="the workspace's own keywords")
    examples: list[str]
    rules: int = Field(description="how many rules route to it")
    past: bool | None = Field(description="reads superseded facts (temporal)")
    task_scope: bool = Field(description="scoped to the open task when none is named")


class IntentList(Output):
    intents: list[VocabularyIntentOut]


def present_intent(intent: IntentDef, row: Intent | None, shipped: bool) -> VocabularyIntentOut:
    return VocabularyIntentOut(
        name=intent.name,
        description=intent.description,
        shipped=shipped,
        enabled=row.enabled if row is not None else True,
        keywords=list(row.keywords) if row is not None else [],
        examples=list(intent.examples),
        rules=len(intent.rules),
        past=intent.profile.past,
        task_scope=intent.profile.task_scope,
    )
