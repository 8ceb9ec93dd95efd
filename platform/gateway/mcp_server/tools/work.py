"""``record_step`` and ``trace``: the memory of work over MCP, the same services and presenters
as REST's ``/api/v1/tasks`` and ``/api/v1/trace``."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context
from pydantic import Field

from base.contracts import validated
from gateway.mcp_server.principal import principal_from
from gateway.mcp_server.tools.common import in_tenant, next_steps, target_for, tenant_of, tool
from memory.contracts import MaybeNetworkKey, MaybeRoleName
from memory.contracts.work import (
    StepRecordedOut,
    StepRecordIn,
    TraceIn,
    TraceOut,
    present_recorded,
    present_trace,
)
from memory.core.packing import defang, render
from memory.selectors import work
from memory.services.tasks import step_record, task_end, task_open

Keys = list[Annotated[str, Field(max_length=100)]]


@tool(
    name="record_step",
    description=(
        "Record one step of a task you are working on: what you did (action), what you saw "
        "(observation), how it went (outcome). The task is opened on first use. Name the "
        "steps that led to this one in caused_by (else Mnemo infers links from shared "
        "files, ids and names). Set task_outcome on the last step: a success teaches a "
        "reusable skill, a failure warns the next agent."
    ),
)
async def record_step(
    ctx: Context,
    task: Annotated[str, Field(description="your name for the task, e.g. deploy-api-42")],
    action: Annotated[str, Field(description="what you did")],
    observation: Annotated[str, Field(description="what you saw as a result")] = "",
    outcome: Literal["success", "failure"] | None = None,
    step: Annotated[str | None, Field(description="your name for the step")] = None,
    parent_step: str | None = None,
    action_type: Annotated[str, Field(description="search, read, edit, run, ...")] = "",
    intents: Keys | None = None,
    entities: list[str] | None = None,
    caused_by: Annotated[Keys | None, Field(description="earlier steps that led here")] = None,
    goal: Annotated[str, Field(description="what the task is for (first step)")] = "",
    task_outcome: Annotated[
        Literal["success", "failure"] | None, Field(description="set on the task's last step")
    ] = None,
    role: MaybeRoleName = None,
    network: MaybeNetworkKey = None,
) -> str:
    principal = principal_from(ctx)
    principal.require("write")
    arguments: dict[str, Any] = {
        "task": task,
        "action": action,
        "observation": observation,
        "outcome": outcome,
        "step": step,
        "parent_step": parent_step,
        "action_type": action_type,
        "intents": intents or [],
        "entities": entities or [],
        "caused_by": caused_by or [],
        "goal": goal,
        "role": role,
        "network": network,
    }

    def work_() -> tuple[StepRecordedOut, str]:
        request = validated(StepRecordIn, arguments)
        tenant = tenant_of(principal)
        target = target_for(principal, tenant, request)
        opened, _ = task_open(
            tenant=tenant,
            actor=principal.actor,
            network_key=target.key,
            key=request.task,
            goal=request.goal,
        )
        done = step_record(tenant=tenant, actor=principal.actor, task=opened, item=request)
        learned = ""
        current = done.task
        if task_outcome:
            ended = task_end(actor=principal.actor, task=current, outcome=task_outcome)
            current = ended.task
            if ended.skill is not None:
                learned = f"skill #{ended.skill.pk} ({ended.learned})"
        steps, links = work.task_steps(task=current), work.task_links(task=current)
        return present_recorded(current, done.step, done.created, done.job, steps, links), learned

    out, learned = await in_tenant(principal, work_)
    s = out.step
    said = "Recorded" if out.created else "Already recorded"
    text = f"{said} step `{s.key}` (#{s.index}) of task `{out.task.key}` [{out.task.state}]"
    text += f" as memory #{s.engram}." if s.engram else "."
    if s.caused_by:
        links = ", ".join(
            f"`{c.cause}`" + (f" (inferred: {c.reason})" if c.inferred else "") for c in s.caused_by
        )
        text += f"\nCaused by: {links}."
    if out.task.state != "open":
        text += f"\nTask ended: {out.task.state}." + (f" Skills: {learned}." if learned else "")
    return text + next_steps(
        "Record the next step with `record_step` (name what caused it in caused_by).",
        f'`trace` kind="step" id={s.id} shows how this step came about.',
        "Set task_outcome on the last step.",
    )


@tool(
    name="trace",
    description=(
        "How was this obtained? Walk a fact, step, memory (engram), skill or episode back "
        "to the episodes and steps that produced it and the causal links before them."
    ),
)
async def trace(
    ctx: Context,
    kind: Literal["fact", "step", "engram", "skill", "episode"],
    id: Annotated[int, Field(gt=0)],
) -> str:
    principal = principal_from(ctx)
    principal.require("read")

    def work_() -> TraceOut:
        request = validated(TraceIn, {"kind": kind, "id": id})
        found = work.trace_of(tenant=tenant_of(principal), kind=request.kind, id=request.id)
        return present_trace(found)

    out = await in_tenant(principal, work_)
    lines = [f"- {out.unit}: {defang(out.label)}"]
    for node in out.nodes:
        indent = "  " * max(node.depth, 1)
        lines.append(f"{indent}← {node.via}: {node.kind} #{node.id} {defang(node.label)}")
    text = f"Trace of {out.unit}, nearest causes first.\n" + render(lines)
    if not out.nodes:
        text += "\nIt was written directly: nothing produced it."
    return text + next_steps(
        "`trace` any step or episode above for its own provenance.",
        "`recall` with the task's key words for related memories.",
    )
