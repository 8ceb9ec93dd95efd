"""The work at hand, for recall's coherence objective: the task a query is about (named, or
the network's most recent open task when the query's intent is about work in progress), its
steps' engrams (candidates even when no channel found them: structural neighbours), each
step's distance on the task's DAG from the latest step, and the entities and identifiers the
latest steps name. The task's step the query is most relevant to joins the latest ones as
the chain the query is about (``Focus.anchored``)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from base.errors import NotFound
from memory.core.tasks import Dag, ancestry, distances, marks
from memory.models import Network, Step, StepLink, Task

ACTIVE_STEPS = 3  # the latest steps whose chain is "the work at hand"
FOCUS_STEPS = 60  # a long task's most recent steps considered


UNREACHED = 4  # hops counted for a step of the task the DAG does not connect


@dataclass
class Focus:
    task: Task
    engrams: dict[int, int] = field(default_factory=dict)  # engram -> step
    hops: dict[int, int] = field(default_factory=dict)  # step -> hops from the active chain
    marks: frozenset[str] = frozenset()
    active: tuple[int, ...] = ()  # the latest steps
    dag: Dag = field(default_factory=Dag)

    def hops_of(self, engram_id: int) -> int | None:
        step = self.engrams.get(engram_id)
        return self.hops.get(step) if step is not None else None

    def anchored(self, engram_id: int) -> Focus:
        """The focus with the step remembered as ``engram_id`` (the one the query is most
        about) at the centre too: the steps that led to it (its causes and parents, walked
        back) are as near as their hops; what came of it is not (that is its future)."""
        step = self.engrams.get(engram_id)
        if step is None:
            return self
        hops = dict(self.hops)
        hops[step] = 0
        for node, far, _, _ in ancestry(self.dag, step):
            hops[node] = min(hops.get(node, UNREACHED), far)
        return replace(self, hops=hops, active=(*self.active, step))


def focus_for(*, network: Network, task: str | None, scoped: bool) -> Focus | None:
    """The focus for a recall: ``task`` by key (an unknown one is a NotFound naming the field),
    else, if ``scoped``, the network's most recently worked open task, else none."""
    found: Task | None
    if task:
        found = Task.objects.filter(tenant_id=network.tenant_id, network=network, key=task).first()
        if found is None:
            raise NotFound(
                f"task: no task {task!r} in network {network.key!r}",
                fields={"task": "unknown task"},
            )
    elif scoped:
        found = (
            Task.objects.filter(tenant_id=network.tenant_id, network=network, state="open")
            .order_by("-updated_at", "-id")
            .first()
        )
    else:
        found = None
    if found is None:
        return None
    steps = list(
        Step.objects.filter(tenant_id=network.tenant_id, task=found).order_by("-index")[
            :FOCUS_STEPS
        ]
    )
    if not steps:
        return Focus(found)
    ids = [s.pk for s in steps]
    links = StepLink.objects.filter(tenant_id=network.tenant_id, task=found, effect_id__in=ids)
    dag = Dag(parent={s.pk: s.parent_id for s in steps})
    for link in links:
        dag.causes.setdefault(link.effect_id, set()).add(link.cause_id)
    active = steps[:ACTIVE_STEPS]
    hops = distances(dag.neighbours(), [s.pk for s in active])
    for s in steps:  # a step the DAG does not reach is still part of the task
        hops.setdefault(s.pk, UNREACHED)
    named: set[str] = set()
    for s in active:
        named |= marks(f"{s.action} {s.observation}", s.entities)
    return Focus(
        found,
        engrams={s.engram_id: s.pk for s in steps if s.engram_id},
        hops=hops,
        marks=frozenset(named),
        active=tuple(s.pk for s in active),
        dag=dag,
    )
