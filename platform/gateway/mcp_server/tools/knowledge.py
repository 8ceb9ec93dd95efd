"""``guide``: the task at hand distilled from memory (key facts, what changed, warnings, the
steps that worked), the same service and presenter as REST's ``POST /api/v1/guide``."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import Context
from pydantic import Field

from base.contracts import validated
from gateway.mcp_server.principal import principal_from
from gateway.mcp_server.tools.common import (
    in_tenant,
    next_steps,
    state_of,
    target_for,
    tenant_of,
    tool,
)
from memory.contracts import MaybeNetworkKey, MaybeRoleName
from memory.contracts.knowledge import GuideIn, GuideOut, present_guide
from memory.core.guide import MAX_BUDGET as MAX_GUIDE_TOKENS
from memory.services.guide import network_guide


@tool(
    name="guide",
    description=(
        "Before a task, get a short guide distilled from memory: the key facts (current "
        "values), what changed, warnings, the steps that worked before, each line citing "
        "its source. Give the task in your own words."
    ),
)
async def guide(
    ctx: Context,
    task: Annotated[str, Field(description="what you are about to do")],
    role: MaybeRoleName = None,
    network: MaybeNetworkKey = None,
    token_budget: Annotated[int, Field(ge=30, le=MAX_GUIDE_TOKENS)] = MAX_GUIDE_TOKENS,
    task_key: Annotated[
        str | None, Field(description="the recorded task (record_step's task) this is for")
    ] = None,
) -> str:
    principal = principal_from(ctx)
    principal.require("read")
    arguments = {
        "task": task,
        "role": role,
        "network": network,
        "token_budget": token_budget,
        "task_key": task_key,
    }

    def work() -> tuple[GuideOut, str]:
        request = validated(GuideIn, arguments)
        tenant = tenant_of(principal)
        target = target_for(principal, tenant, request)
        mind, made, took_ms, made_by = network_guide(
            tenant=tenant,
            actor=principal.actor,
            network_key=target.key,
            task=request.task,
            token_budget=request.token_budget,
            source="mcp",
            missing_ok=target.missing_ok,
            task_key=request.task_key,
        )
        out = present_guide(target.key, request.task, made, took_ms, mind.notice, made_by)
        return out, state_of(principal)

    out, state = await in_tenant(principal, work)
    if not out.lines:
        text = f"Guide: nothing in network `{out.network}` bears on this task."
        text += f"\n{out.notice}" if out.notice else ""
    else:
        text = f"Guide from network `{out.network}` ({out.tokens} tokens):\n{out.guide}"
    return text + next_steps(
        "Rely on the current values; cite facts and memories by #id.",
        "`recall` for more detail on any line.",
        state=state,
    )
