"""Skills: learned from a task's steps when it succeeded, from a PATTERN memory that writes a
procedure down, and told how they fare (``skill_outcome``).

The drafts come from the pure ``memory.core.skills``; here they meet what is known. One current
version per goal key: the same steps again count a success and add evidence; other steps make
a new version (the old one superseded, kept, and pointed at); a failed task counts against the
skill it used (named by its steps' ``metadata.skill``, else the current skill of its goal) and
adds its failed steps as pitfalls. Every run counts once (``SkillEvidence.run``): a redelivered
job, an edit that did not change a procedure, or an outcome reported twice for one task change
nothing.

A task's steps are step episodes sharing ``metadata.task``; the step carrying
``metadata.task_outcome`` ("success" | "failure") ends it and has it learned from. A step whose
``metadata.outcome`` is "failure" (or ``metadata.failed`` true) failed; ``metadata.goal``,
``metadata.preconditions`` (a list) and ``metadata.observation`` say the rest.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from django.db.models import F, Q
from django.utils import timezone

from audit.actors import Actor
from audit.services import audit_record
from base.db import atomic_with_retry
from base.errors import PermissionDenied
from memory.core.skills import SkillDraft, StepSeen, from_pattern, from_trajectory, parent_of
from memory.models import Engram, Episode, Network, Skill, SkillEvidence
from tenants import rls
from tenants.permissions import Capability, actor_allows

OUTCOMES = ("success", "failure")
FAILED = ("failure", "failed", "error")
MAX_PITFALLS = 12


@dataclass(frozen=True)
class Run:
    """One run a skill is learned from or told about."""

    key: str  # SkillEvidence.run: counted once per network
    outcome: str  # success | failure | "" (a written procedure)
    episodes: tuple[int, ...] = ()
    engrams: tuple[int, ...] = ()
    used: int | None = None  # the skill the run says it followed
    actor: dict[str, Any] | None = None
    note: str = ""


def _merged(old: Sequence[str], new: Sequence[str], limit: int = MAX_PITFALLS) -> list[str]:
    return list(dict.fromkeys([*old, *new]))[:limit]


def _evidence(skill: Skill, run: Run) -> None:
    SkillEvidence.objects.create(
        tenant_id=skill.tenant_id,
        network_id=skill.network_id,
        skill=skill,
        run=run.key[:300],
        outcome=run.outcome,
        episodes=list(run.episodes),
        engrams=list(run.engrams),
        note=run.note[:500],
        actor=run.actor or {},
    )


def _counted(network: Network, run: Run) -> bool:
    return bool(run.key) and (
        SkillEvidence.objects.filter(tenant_id=network.tenant_id, network=network, run=run.key)
        .only("pk")
        .exists()
    )


def skill_learn(
    *, network: Network, draft: SkillDraft | None, source: str, run: Run
) -> tuple[Skill | None, str]:
    """Apply one run to the network's skills, inside the caller's transaction. Returns the
    skill it touched and what it did: create | confirm | revise | failure | seen | nothing."""
    if _counted(network, run):
        return None, "seen"
    tenant_id = network.tenant_id
    current = None
    if draft is not None:
        current = (
            Skill.objects.select_for_update()
            .filter(tenant_id=tenant_id, network=network, key=draft.key, status="current")
            .first()
        )
    now = timezone.now()
    if run.outcome == "failure":
        used = None
        if run.used is not None:
            used = (
                Skill.objects.select_for_update()
                .filter(tenant_id=tenant_id, network=network, pk=run.used)
                .first()
            )
        used = used or current
        if used is None:
            return None, "nothing"  # a failure of nothing known teaches no procedure
        pitfalls = _merged(used.pitfalls, draft.pitfalls if draft else ())
        Skill.objects.filter(pk=used.pk).update(
            failures=F("failures") + 1, pitfalls=pitfalls, updated_at=now
        )
        _evidence(used, run)
        used.refresh_from_db()
        return used, "failure"
    if draft is None:
        return None, "nothing"
    won = 1 if run.outcome == "success" else 0
    if current is not None and list(current.steps) == list(draft.steps):
        Skill.objects.filter(pk=current.pk).update(
            successes=F("successes") + won,
            preconditions=_merged(current.preconditions, draft.preconditions, 20),
            pitfalls=_merged(current.pitfalls, draft.pitfalls),
            updated_at=now,
        )
        _evidence(current, run)
        current.refresh_from_db()
        return current, "confirm"
    if current is not None:
        Skill.objects.filter(pk=current.pk).update(status=Skill.Status.SUPERSEDED, updated_at=now)
        parent_id = current.parent_id
    else:
        others = Skill.objects.filter(tenant_id=tenant_id, network=network, status="current")
        parent_id = parent_of(draft.key, others.values_list("pk", "key"))
    skill = Skill.objects.create(
        tenant_id=tenant_id,
        network=network,
        goal=draft.goal[:200],
        key=draft.key,
        preconditions=list(draft.preconditions),
        steps=list(draft.steps),
        placeholders=draft.placeholders,
        pitfalls=_merged(current.pitfalls if current else (), draft.pitfalls),
        terms=draft.terms,
        successes=won,
        version=current.version + 1 if current else 1,
        previous=current,
        parent_id=parent_id,
        source=source,
    )
    _evidence(skill, run)
    return skill, "revise" if current else "create"


# --- from a task's steps -----------------------------------------------------------------


def _text(value: object, limit: int = 500) -> str:
    return str(value).strip()[:limit] if isinstance(value, str | int | float) else ""


def task_of(episode: Episode) -> str:
    """The task a step episode belongs to ("" for none)."""
    return _text(episode.metadata.get("task"), 200) if episode.kind == Episode.Kind.STEP else ""


def task_ended(episode: Episode) -> bool:
    """This step ends its task: it says how the task went."""
    return bool(task_of(episode)) and episode.metadata.get("task_outcome") in OUTCOMES


def skills_from_task(
    *, network: Network, task: str, outcome: str | None = None
) -> tuple[Skill | None, str]:
    """Learn from the step episodes of ``task`` (inside the caller's transaction): the task's
    outcome is ``outcome`` (a task ended through the tasks API), else its steps' last
    ``task_outcome``; held or deleted steps are not read."""
    named = Q(metadata__task=task)
    if task.isdigit():  # a task id sent as a number
        named |= Q(metadata__task=int(task))
    steps = list(
        Episode.objects.filter(tenant_id=network.tenant_id, network=network, kind=Episode.Kind.STEP)
        .filter(named)
        .order_by(F("occurred_at").asc(nulls_last=True), "pk")
    )
    active = set(
        Engram.objects.filter(
            tenant_id=network.tenant_id,
            pk__in=[s.engram_id for s in steps if s.engram_id],
            status=Engram.Status.ACTIVE,
        ).values_list("pk", flat=True)
    )
    steps = [s for s in steps if s.engram_id in active]
    ends = [s for s in steps if s.metadata.get("task_outcome") in OUTCOMES]
    if outcome is None and ends:
        outcome = str(ends[-1].metadata["task_outcome"])
    if outcome not in OUTCOMES or not steps:
        return None, "nothing"
    goal = next(
        (g for s in reversed(steps) if (g := _text(s.metadata.get("goal"), 200))),
        task.replace("-", " ").replace("_", " "),
    )
    needs: list[str] = []
    used: int | None = None
    seen: list[StepSeen] = []
    for step in steps:
        listed = step.metadata.get("preconditions")
        if isinstance(listed, list):
            needs.extend(t for item in listed if (t := _text(item, 240)))
        named = step.metadata.get("skill")
        if isinstance(named, int) and not isinstance(named, bool):
            used = named
        failed = step.metadata.get("failed") is True or step.metadata.get("outcome") in FAILED
        observation = _text(step.metadata.get("observation"), 300)
        action = _text(step.metadata.get("action"), 500) or step.content  # a recorded step's
        seen.append(StepSeen(action, failed=failed, observation=observation))
    draft = from_trajectory(goal, seen, needs)
    run = Run(
        key=f"task:{task}",
        outcome=str(outcome),
        episodes=tuple(s.pk for s in steps),
        engrams=tuple(s.engram_id for s in steps if s.engram_id),
        used=used,
    )
    return skill_learn(network=network, draft=draft, source=Skill.Source.TRAJECTORY, run=run)


# --- from PATTERN memories ---------------------------------------------------------------


def skills_from_patterns(
    *, tenant_id: int, network_id: int, engram_ids: list[int], actor: dict[str, Any] | None = None
) -> int:
    """Learn the procedures these PATTERN memories write down (a Celery task runs it after
    they are remembered or edited, ``actor`` the writer). Returns the skills created or
    revised."""
    learned = 0
    who = Actor.from_json(actor, default="skills")
    for engram_id in engram_ids:
        with rls.tenant_scope(tenant_id):
            learned += atomic_with_retry(partial(_pattern, tenant_id, network_id, engram_id, who))
    return learned


def _pattern(tenant_id: int, network_id: int, engram_id: int, actor: Actor) -> int:
    engram = (
        Engram.objects.filter(
            tenant_id=tenant_id,
            network_id=network_id,
            pk=engram_id,
            type=Engram.Type.PATTERN,
            status=Engram.Status.ACTIVE,
        )
        .select_related("network")
        .first()
    )
    if engram is None:
        return 0
    draft = from_pattern(engram.content)
    if draft is None:
        return 0
    digest = hashlib.sha256(engram.content.encode()).hexdigest()[:16]
    run = Run(
        key=f"engram:{engram.pk}:{digest}",
        outcome="",
        engrams=(engram.pk,),
        actor=actor.as_json(),
    )
    skill, action = skill_learn(
        network=engram.network, draft=draft, source=Skill.Source.PATTERN, run=run
    )
    if skill is None or action not in ("create", "revise"):
        return 0
    audit_record(
        tenant_id=tenant_id,
        actor=actor,
        verb=f"skill.{action}",
        target=skill,
        target_label=skill.goal,
        after={"from_engram": engram.pk, "version": skill.version, "steps": skill.steps},
    )
    return 1


# --- outcomes people and agents report ---------------------------------------------------


def skill_outcome(
    *, actor: Actor, skill: Skill, outcome: str, note: str = "", task: str = ""
) -> tuple[Skill, bool]:
    """Count a success or a failure of ``skill`` (audited). With ``task``, once per task: a
    second report for it changes nothing (False)."""
    if not actor_allows(actor, Capability.MEMORY_EDIT):
        raise PermissionDenied("reporting an outcome needs a write key or a member's account")
    run = Run(
        key=f"outcome:{task}" if task else "",
        outcome=outcome,
        actor=actor.as_json(),
        note=note,
    )

    def work() -> tuple[Skill, bool]:
        locked = Skill.objects.select_for_update().select_related("network").get(pk=skill.pk)
        if _counted(locked.network, run):
            return locked, False
        before = {"successes": locked.successes, "failures": locked.failures}
        field = "successes" if outcome == "success" else "failures"
        Skill.objects.filter(pk=locked.pk).update(
            **{field: F(field) + 1}, updated_at=timezone.now()
        )
        _evidence(locked, run)
        locked.refresh_from_db()
        audit_record(
            tenant_id=locked.tenant_id,
            actor=actor,
            verb="skill.outcome",
            target=locked,
            target_label=locked.goal,
            before=before,
            after={
                "successes": locked.successes,
                "failures": locked.failures,
                "outcome": outcome,
                "task": task,
                "note": note,
            },
        )
        return locked, True

    return atomic_with_retry(work)
