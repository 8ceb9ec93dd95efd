"""REST endpoints for the memory of work (PRISM): tasks, their steps and causal DAG, a task's
end (which tells its skills), and trace — how a fact, step, memory, skill or episode was
obtained."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from base.contracts import validated
from base.pagination import page_of
from gateway.rest.base import TenantAPIView, answer
from gateway.rest.memory import MemoryAPIView
from gateway.rest.schema import query_parameters, with_errors
from memory import selectors
from memory.contracts.work import (
    IntentIn,
    IntentList,
    IntentNameIn,
    StepIn,
    StepRecordedOut,
    TaskDetailOut,
    TaskEndedOut,
    TaskEndIn,
    TaskFilters,
    TaskIn,
    TaskOut,
    TaskPage,
    TraceIn,
    TraceOut,
    VocabularyIntentOut,
    present_intent,
    present_recorded,
    present_task,
    present_task_detail,
    present_trace,
)
from memory.selectors import work
from memory.services import intents
from memory.services.tasks import step_record, task_end, task_open


class TaskListView(MemoryAPIView):
    """Tasks agents worked on, most recent first; POST opens one (or returns it by ``key``)."""

    method_scopes = {"POST": "write"}

    @extend_schema(
        parameters=query_parameters(TaskFilters),
        responses=with_errors(TaskPage),
        summary="List tasks",
        operation_id="tasks_list",
    )
    def get(self, request: Request) -> Response:
        filters = self.params(TaskFilters)
        network = (
            selectors.network_get_for_tenant(tenant=self.tenant, key=filters.network)
            if filters.network
            else None
        )
        rows, cursor = page_of(
            work.tasks_for_tenant(tenant=self.tenant, network=network, state=filters.state),
            cursor=filters.cursor,
            limit=filters.limit,
        )
        return answer(
            TaskPage(tasks=[present_task(t, t.network.key) for t in rows], next_cursor=cursor)
        )

    @extend_schema(request=TaskIn, responses=with_errors(TaskOut, 201), summary="Open a task")
    def post(self, request: Request) -> Response:
        data = self.body(TaskIn)
        target = self.target(data)
        task, created = task_open(
            tenant=self.tenant,
            actor=self.actor,
            network_key=target.key,
            key=data.key,
            goal=data.goal,
        )
        return answer(present_task(task, target.key), status=201 if created else 200)


class TaskDetailView(TenantAPIView):
    """A task with its steps and causal links (the DAG); PATCH ends it."""

    method_scopes = {"PATCH": "write"}

    @extend_schema(responses=with_errors(TaskDetailOut), summary="Get a task and its DAG")
    def get(self, request: Request, task_id: int) -> Response:
        task = work.task_get_for_tenant(tenant=self.tenant, id=task_id)
        return answer(
            present_task_detail(task, work.task_steps(task=task), work.task_links(task=task))
        )

    @extend_schema(request=TaskEndIn, responses=with_errors(TaskEndedOut), summary="End a task")
    def patch(self, request: Request, task_id: int) -> Response:
        data = self.body(TaskEndIn)
        task = work.task_get_for_tenant(tenant=self.tenant, id=task_id)
        ended = task_end(actor=self.actor, task=task, outcome=data.outcome, summary=data.summary)
        return answer(
            TaskEndedOut(
                task=present_task(ended.task, task.network.key),
                skill=ended.skill.pk if ended.skill else None,
                learned=ended.learned,
            )
        )


class TaskStepsView(TenantAPIView):
    """Record a step of the task: also remembered as an engram (recallable at once) and an
    episode for the knowledge extractor; causal links given or inferred."""

    required_scope = "write"

    @extend_schema(
        request=StepIn, responses=with_errors(StepRecordedOut, 201), summary="Record a step"
    )
    def post(self, request: Request, task_id: int) -> Response:
        data = self.body(StepIn)
        task = work.task_get_for_tenant(tenant=self.tenant, id=task_id)
        done = step_record(tenant=self.tenant, actor=self.actor, task=task, item=data)
        steps, links = work.task_steps(task=done.task), work.task_links(task=done.task)
        out = present_recorded(done.task, done.step, done.created, done.job, steps, links)
        return answer(out, status=201 if done.created else 200)


class TraceView(TenantAPIView):
    """How a unit was obtained: its evidence, the episodes and steps that produced it, and the
    causal links before them, nearest first."""

    @extend_schema(responses=with_errors(TraceOut), summary="Trace a unit's provenance")
    def get(self, request: Request, unit_kind: str, unit_id: int) -> Response:
        data = validated(TraceIn, {"kind": unit_kind, "id": max(unit_id, 1)})
        return answer(present_trace(work.trace_of(tenant=self.tenant, kind=data.kind, id=unit_id)))


class IntentListView(TenantAPIView):
    """The workspace's intent vocabulary: the shipped intents (as changed here) and its own."""

    @extend_schema(responses=with_errors(IntentList), summary="List intents")
    def get(self, request: Request) -> Response:
        listed = intents.intents_listed(tenant=self.tenant)
        return answer(IntentList(intents=[present_intent(*item) for item in listed]))


class IntentDetailView(TenantAPIView):
    """PUT adds an intent or changes one (keywords become rules, examples its prototypes,
    ``enabled: false`` stops routing to it); DELETE undoes the workspace's change."""

    required_scope = "admin"

    @extend_schema(
        request=IntentIn, responses=with_errors(VocabularyIntentOut), summary="Set an intent"
    )
    def put(self, request: Request, intent: str) -> Response:
        name = validated(IntentNameIn, {"name": intent}).name
        data = self.body(IntentIn)
        intents.intent_set(tenant=self.tenant, actor=self.actor, name=name, **data.model_dump())
        listed = intents.intents_listed(tenant=self.tenant)
        return answer(present_intent(*next(item for item in listed if item[0].name == name)))

    @extend_schema(responses=with_errors(None, 204), summary="Reset an intent")
    def delete(self, request: Request, intent: str) -> Response:
        name = validated(IntentNameIn, {"name": intent}).name
        intents.intent_reset(tenant=self.tenant, actor=self.actor, name=name)
        return Response(status=204)
