"""Tenant-scoped reads of the memory of work: tasks, a task's steps and causal links (its DAG),
and **trace** — "how was this obtained?" — walked back from a fact, step, engram, skill or
episode to the episodes and steps that produced it, and along the causal links before them."""

from __future__ import annotations

from collections import deque

from django.db.models import QuerySet

from base.errors import NotFound
from memory.core.tasks import Dag, Node, Trace, ancestry
from memory.models import (
    Engram,
    Episode,
    Fact,
    FactEvidence,
    Network,
    Skill,
    SkillEvidence,
    Step,
    StepLink,
    Task,
)
from tenants.models import Tenant

TRACE_NODES = 80


def task_get_for_tenant(*, tenant: Tenant, id: int) -> Task:
    task = Task.objects.filter(tenant=tenant, pk=id).select_related("network").first()
    if task is None:
        raise NotFound(f"no task {id} in this workspace")
    return task


def task_by_key(*, tenant: Tenant, network: Network, key: str) -> Task | None:
    return Task.objects.filter(tenant=tenant, network=network, key=key).first()


def tasks_for_tenant(
    *, tenant: Tenant, network: Network | None, state: str = "any"
) -> QuerySet[Task]:
    """Tasks, most recently worked on first."""
    rows = Task.objects.filter(tenant=tenant).select_related("network")
    if network is not None:
        rows = rows.filter(network=network)
    if state != "any":
        rows = rows.filter(state=state)
    return rows.order_by("-updated_at", "-id")


def task_steps(*, task: Task) -> list[Step]:
    return list(Step.objects.filter(tenant_id=task.tenant_id, task=task).order_by("index", "id"))


def task_links(*, task: Task) -> list[StepLink]:
    return list(
        StepLink.objects.filter(tenant_id=task.tenant_id, task=task).order_by("effect_id", "id")
    )


def step_get_for_tenant(*, tenant: Tenant, id: int) -> Step:
    step = Step.objects.filter(tenant=tenant, pk=id).select_related("task__network").first()
    if step is None:
        raise NotFound(f"no step {id} in this workspace")
    return step


def task_dag(task: Task, steps: list[Step], links: list[StepLink]) -> Dag:
    dag = Dag(parent={s.pk: s.parent_id for s in steps})
    for link in links:
        dag.causes.setdefault(link.effect_id, set()).add(link.cause_id)
    return dag


def open_tasks(*, network: Network, limit: int = 3) -> list[tuple[Task, list[Step]]]:
    """The network's open tasks, most recent first, each with its last two steps."""
    tasks = list(
        Task.objects.filter(tenant_id=network.tenant_id, network=network, state="open").order_by(
            "-updated_at", "-id"
        )[:limit]
    )
    out = []
    for task in tasks:
        last = list(
            Step.objects.filter(tenant_id=network.tenant_id, task=task).order_by("-index")[:2]
        )
        out.append((task, last[::-1]))
    return out


# --- trace ---------------------------------------------------------------------------------


def _short(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _step_label(step: Step) -> str:
    told = f" → {step.observation}" if step.observation else ""
    done = f" ({step.outcome})" if step.outcome else ""
    return _short(f"{step.key}: {step.action}{told}{done}")


class _Walk:
    """Breadth-first provenance, each unit once, at most ``TRACE_NODES``."""

    def __init__(self, tenant: Tenant, unit: str) -> None:
        self.tenant = tenant
        self.seen = {unit}
        self.queue: deque[tuple[str, int, int]] = deque()
        self.trace = Trace(unit, "")

    def add(
        self,
        kind: str,
        id: int,
        label: str,
        depth: int,
        via: str,
        parent: str,
        *,
        expand: bool = True,
    ) -> None:
        """A node of the trace; ``expand``: walk on from it too."""
        name = f"{kind}:{id}"
        if name in self.seen or len(self.trace.nodes) >= TRACE_NODES:
            return
        self.seen.add(name)
        self.trace.nodes.append(Node(kind, id, label, depth, via, parent))
        if expand:
            self.queue.append((kind, id, depth))

    def run(self, kind: str, id: int) -> Trace:
        self.queue.append((kind, id, 0))
        while self.queue:
            kind, id, depth = self.queue.popleft()
            getattr(self, f"_{kind}")(id, depth)
        return self.trace

    def _fact(self, id: int, depth: int) -> None:
        here = f"fact:{id}"
        fact = Fact.objects.filter(tenant=self.tenant, pk=id).first()
        if fact is None:
            return
        for ev in FactEvidence.objects.filter(tenant=self.tenant, fact_id=id).order_by("id")[:20]:
            if ev.episode_id:
                self._episode_node(ev.episode_id, depth + 1, "evidence", here)
            elif ev.engram_id:
                self._engram_node(ev.engram_id, depth + 1, "evidence", here)
        if fact.supersedes_id:
            old = Fact.objects.filter(tenant=self.tenant, pk=fact.supersedes_id).first()
            if old is not None:
                label = _short(f"{old.subject_name} {old.predicate} {old.object}")
                self.add("fact", old.pk, label, depth + 1, "supersedes", here)

    def _episode_node(self, id: int, depth: int, via: str, parent: str) -> None:
        episode = Episode.objects.filter(tenant=self.tenant, pk=id).first()
        if episode is not None:
            label = _short(f"{episode.kind}: {episode.content}")
            self.add("episode", episode.pk, label, depth, via, parent)

    def _engram_node(self, id: int, depth: int, via: str, parent: str) -> None:
        engram = Engram.objects.filter(tenant=self.tenant, pk=id).only("pk", "content").first()
        if engram is not None:
            self.add("engram", engram.pk, _short(engram.content), depth, via, parent)

    def _episode(self, id: int, depth: int) -> None:
        step = Step.objects.filter(tenant=self.tenant, episode_id=id).first()
        if step is not None:
            self.add("step", step.pk, _step_label(step), depth + 1, "recorded as", f"episode:{id}")

    def _engram(self, id: int, depth: int) -> None:
        here = f"engram:{id}"
        step = Step.objects.filter(tenant=self.tenant, engram_id=id).first()
        if step is not None:
            self.add("step", step.pk, _step_label(step), depth + 1, "recorded as", here)
            return
        episode = Episode.objects.filter(tenant=self.tenant, engram_id=id).first()
        if episode is not None:
            self._episode_node(episode.pk, depth + 1, "remembered from", here)

    def _step(self, id: int, depth: int) -> None:
        step = Step.objects.filter(tenant=self.tenant, pk=id).select_related("task").first()
        if step is None:
            return
        task = step.task
        steps = {s.pk: s for s in task_steps(task=task)}
        rows = task_links(task=task)
        dag = task_dag(task, list(steps.values()), rows)
        links = {(link.cause_id, link.effect_id): link for link in rows}
        for node, hops, how, effect in ancestry(dag, step.pk):
            link = links.get((node, effect))
            via = how
            if link is not None:
                via = f"caused (inferred: {link.reason})" if link.inferred else "caused"
            label = _step_label(steps[node])
            self.add("step", node, label, depth + hops, via, f"step:{effect}", expand=False)
        label = _short(f"{task.key}: {task.goal}" if task.goal else task.key)
        self.add("task", task.pk, label, depth + 1, "part of", f"step:{id}", expand=False)

    def _skill(self, id: int, depth: int) -> None:
        here = f"skill:{id}"
        skill = Skill.objects.filter(tenant=self.tenant, pk=id).first()
        if skill is None:
            return
        runs = SkillEvidence.objects.filter(tenant=self.tenant, skill_id=id).order_by("-id")[:10]
        for run in runs:
            for step in Step.objects.filter(tenant=self.tenant, episode_id__in=run.episodes)[:20]:
                via = f"learned from ({run.outcome or 'written'})"
                self.add("step", step.pk, _step_label(step), depth + 1, via, here, expand=False)
            for engram_id in run.engrams[:5] if not run.episodes else []:
                self._engram_node(engram_id, depth + 1, "written in", here)
        if skill.previous_id:
            label = f"version {skill.version - 1} of {_short(skill.goal, 80)}"
            self.add("skill", skill.previous_id, label, depth + 1, "revises", here, expand=False)


TRACEABLE = {
    "fact": Fact,
    "step": Step,
    "engram": Engram,
    "skill": Skill,
    "episode": Episode,
}


def trace_of(*, tenant: Tenant, kind: str, id: int) -> Trace:
    """The provenance of unit ``kind:id`` (NotFound when the workspace has no such unit)."""
    model = TRACEABLE[kind]
    unit = model.objects.filter(tenant=tenant, pk=id).first()  # type: ignore[attr-defined]
    if unit is None:
        raise NotFound(f"no {kind} {id} in this workspace")
    walk = _Walk(tenant, f"{kind}:{id}")
    trace = walk.run(kind, id)
    trace.label = _label(kind, unit)
    return trace


def _label(kind: str, unit: object) -> str:
    if isinstance(unit, Fact):
        return _short(f"{unit.subject_name} {unit.predicate} {unit.object}")
    if isinstance(unit, Step):
        return _step_label(unit)
    if isinstance(unit, Skill):
        return _short(unit.goal)
    if isinstance(unit, Engram | Episode):
        return _short(unit.content)
    return kind
