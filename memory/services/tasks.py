"""The memory of work (PRISM): tasks, the steps recorded in them, their causal links, and a
task's end — which teaches a skill (success) or counts against the one it used (failure).

A step is written three ways in one transaction: a ``Step`` row (the DAG's node), a step
**episode** through ``episodes_ingest`` — which remembers it as an **engram** at once (firewall,
write policy, cues, audit: recallable before anything else happens) and queues the knowledge
extractor — and its **links**: the ``caused_by`` steps the agent named, else the earlier steps
whose observations hold what its action uses (``memory.core.tasks.inferred_causes``, marked
inferred). Recording the same step key again is idempotent.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.db.models import F
from django.utils import timezone

from audit.actors import Actor
from audit.services import audit_record
from base.db import atomic_with_retry
from base.errors import Conflict, NotFound, PermissionDenied
from memory.contracts.knowledge import EpisodeIn
from memory.contracts.work import StepIn
from memory.core.intents import DEFAULT_NAMES, DEFAULTS, clean_names, tag
from memory.core.tasks import StepView, inferred_causes, step_text
from memory.models import Network, Skill, Step, StepLink, Task
from memory.services.episodes import episodes_ingest
from memory.services.networks import network_for_write
from memory.services.skills import skills_from_task
from tenants.models import Tenant
from tenants.permissions import Capability, actor_allows


@dataclass(frozen=True)
class Recorded:
    task: Task
    step: Step
    created: bool
    job: int | None


@dataclass(frozen=True)
class Ended:
    task: Task
    skill: Skill | None
    learned: str


def _may_write(actor: Actor) -> None:
    if not actor_allows(actor, Capability.MEMORY_EDIT):
        raise PermissionDenied("recording work needs a write key or a member's account")


def task_open(
    *, tenant: Tenant, actor: Actor, network_key: str, key: str | None, goal: str = ""
) -> tuple[Task, bool]:
    """The task ``key`` in the network, opened if new (a goal given later fills an empty one).
    Returns it and whether it was created."""
    _may_write(actor)
    return atomic_with_retry(lambda: _open(tenant, actor, network_key, key, goal))


def _open(
    tenant: Tenant, actor: Actor, network_key: str, key: str | None, goal: str
) -> tuple[Task, bool]:
    network = network_for_write(tenant=tenant, key=network_key)
    key = key or f"task-{uuid.uuid4().hex[:12]}"
    task, created = Task.objects.get_or_create(
        tenant=tenant,
        network=network,
        key=key,
        defaults={"goal": goal[:500], "actor": actor.as_json()},
    )
    if created:
        audit_record(
            tenant_id=tenant.pk,
            actor=actor,
            verb="task.open",
            target=task,
            target_label=task.key,
            after={"key": task.key, "goal": task.goal, "network": network.key},
        )
    elif goal and not task.goal:
        Task.objects.filter(pk=task.pk).update(goal=goal[:500], updated_at=timezone.now())
        task.refresh_from_db()
    task.network = network
    return task, created


def step_record(*, tenant: Tenant, actor: Actor, task: Task, item: StepIn) -> Recorded:
    """Record one step of ``task`` (see the module's docstring)."""
    _may_write(actor)
    return atomic_with_retry(lambda: _record(tenant, actor, task, item))


def _record(tenant: Tenant, actor: Actor, task: Task, item: StepIn) -> Recorded:
    locked = Task.objects.select_for_update().select_related("network").get(pk=task.pk)
    network = locked.network
    if locked.state != Task.State.OPEN:
        raise Conflict(
            f"task {locked.key!r} ended ({locked.state}): record steps of new work in a new task",
            fields={"task": f"ended as {locked.state}"},
        )
    steps = {s.key: s for s in Step.objects.filter(tenant=tenant, task=locked)}
    key = item.step or str(locked.step_count + 1)
    if key in steps:
        old = steps[key]
        if old.action != item.action or old.observation != item.observation:
            raise Conflict(
                f"step: step {key!r} of task {locked.key!r} is recorded with another action or "
                "observation (steps are immutable: record a new step)",
                fields={"step": "differs from the recorded step"},
            )
        return Recorded(locked, old, False, None)
    parent = None
    if item.parent_step is not None:
        parent = steps.get(item.parent_step)
        if parent is None:
            raise _unknown("parent_step", item.parent_step, locked)
    causes: list[tuple[Step, bool, str]] = []
    for name in dict.fromkeys(item.caused_by):
        cause = steps.get(name)
        if cause is None:
            raise _unknown("caused_by", name, locked)
        causes.append((cause, False, "said by the agent"))
    index = locked.step_count + 1
    if not causes:
        earlier = [
            StepView(s.key, s.index, s.action, s.observation, tuple(s.entities), s.outcome)
            for s in steps.values()
        ]
        new = StepView(key, index, item.action, item.observation, tuple(item.entities))
        for found in inferred_causes(new, earlier):
            causes.append((steps[found.key], True, found.reason))
    text = step_text(item.action, item.observation, item.outcome or "", item.action_type)
    named = clean_names(item.intents, DEFAULT_NAMES)
    intents = list(dict.fromkeys([*named, *tag(text, DEFAULTS)]))[:4]
    when = item.occurred_at or timezone.now()
    ingested = episodes_ingest(
        tenant=tenant,
        actor=actor,
        network_key=network.key,
        items=[
            EpisodeIn(
                kind="step",
                content=text,
                occurred_at=when,
                external_id=f"task:{locked.pk}:step:{key}"[:200],
                metadata={
                    **item.metadata,
                    "task": locked.key,
                    "step": key,
                    "action": item.action,
                    "action_type": item.action_type,
                    "observation": item.observation[:500],
                    **({"outcome": item.outcome} if item.outcome else {}),
                    **({"goal": locked.goal} if locked.goal else {}),
                    "intents": intents,
                    "entities": list(item.entities),
                },
            )
        ],
    )
    _, episode, _ = ingested.episodes[0]
    step = Step.objects.create(
        tenant=tenant,
        network=network,
        task=locked,
        key=key,
        index=index,
        parent=parent,
        action=item.action,
        action_type=item.action_type,
        observation=item.observation,
        outcome=item.outcome or "",
        intents=list(dict.fromkeys([*item.intents, *intents])),
        entities=list(dict.fromkeys(item.entities)),
        engram_id=episode.engram_id,
        episode=episode,
        occurred_at=when,
    )
    StepLink.objects.bulk_create(
        [
            StepLink(
                tenant=tenant, task=locked, cause=c, effect=step, inferred=inf, reason=why[:300]
            )
            for c, inf, why in causes
        ]
    )
    Task.objects.filter(pk=locked.pk).update(
        step_count=F("step_count") + 1, updated_at=timezone.now()
    )
    locked.refresh_from_db()
    audit_record(
        tenant_id=tenant.pk,
        actor=actor,
        verb="task.step",
        target=step,
        target_label=f"{locked.key} · {key}",
        after={
            "task": locked.key,
            "step": key,
            "action": item.action[:300],
            "outcome": item.outcome or "",
            "engram": episode.engram_id,
            "caused_by": [{"step": c.key, "inferred": inf} for c, inf, _ in causes],
        },
    )
    return Recorded(locked, step, True, ingested.job.pk if ingested.job.total else None)


def _unknown(field: str, name: str, task: Task) -> NotFound:
    return NotFound(
        f"{field}: {name!r} is not a step of task {task.key!r} (record it first)",
        fields={field: "unknown step"},
    )


def task_end(*, actor: Actor, task: Task, outcome: str, summary: str = "") -> Ended:
    """End ``task`` as a success or a failure, and tell its skills: a success teaches (or
    confirms) the procedure its steps followed, a failure counts against the skill it used.
    Ending it again the same way changes nothing; the other way is a conflict."""
    _may_write(actor)
    return atomic_with_retry(lambda: _end(actor, task, outcome, summary))


def _end(actor: Actor, task: Task, outcome: str, summary: str) -> Ended:
    locked = (
        Task.objects.select_for_update(of=("self",))
        .select_related("network", "skill")
        .get(pk=task.pk)
    )
    if locked.state == outcome:
        return Ended(locked, locked.skill, "seen")
    if locked.state != Task.State.OPEN:
        raise Conflict(
            f"outcome: task {locked.key!r} already ended as {locked.state}",
            fields={"outcome": f"the task ended as {locked.state}"},
        )
    network: Network = locked.network
    skill, learned = skills_from_task(network=network, task=locked.key, outcome=outcome)
    now = timezone.now()
    Task.objects.filter(pk=locked.pk).update(
        state=outcome,
        summary=summary or locked.summary,
        skill=skill,
        ended_at=now,
        updated_at=now,
    )
    locked.refresh_from_db()
    audit_record(
        tenant_id=network.tenant_id,
        actor=actor,
        verb="task.end",
        target=locked,
        target_label=locked.key,
        before={"state": "open"},
        after={
            "state": outcome,
            "summary": summary[:500],
            "skill": skill.pk if skill else None,
            "learned": learned,
        },
    )
    return Ended(locked, skill, learned)
