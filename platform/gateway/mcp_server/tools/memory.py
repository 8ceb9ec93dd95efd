"""``recall``, ``remember``, ``prime`` with PromptX-compatible arguments (``role``, ``query``,
``mode``, ``engrams[{content, schema, strength, type}]``). ``role`` picks the network
``role:<role>`` unless ``network`` is given; with neither, the role activated in this MCP session
(``action``), and without one the agent is told to pass ``role`` or ``network``."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

from mcp.server.mcpserver import Context, MCPServer

from gateway.mcp_server.principal import principal_from
from gateway.mcp_server.tools.common import (
    in_tenant,
    network_for,
    next_steps,
    state_of,
    tenant_of,
)
from memory.core.mind import Mind
from memory.services import inputs
from memory.services.recall import RecallOptions, network_prime, network_recall
from memory.services.remember import engrams_remember


class EngramArg(TypedDict):
    content: str
    schema: NotRequired[str | list[str]]
    strength: NotRequired[float]
    type: NotRequired[Literal["ATOMIC", "LINK", "PATTERN"]]
    importance: NotRequired[float]
    external_id: NotRequired[str]
    occurred_at: NotRequired[str]
    metadata: NotRequired[dict[str, Any]]


def render_mind(mind: Mind, *, title: str) -> str:
    """The memories that fit the token budget, most relevant first, each with why it came."""
    shown = [e for e in mind.engrams if e.id in set(mind.context_ids)]
    if not shown:
        return f"{title}: nothing found in network `{mind.network}`."
    lines = [
        f"{title}: {len(shown)} memories from network `{mind.network}` "
        f"({mind.context_tokens} tokens), {len(mind.cues)} concepts activated, "
        f"{mind.took_ms:.0f} ms."
    ]
    for rank, engram in enumerate(shown, 1):
        why = "+".join(engram.why.channels)
        path = f"; via {' → '.join(engram.why.path)}" if len(engram.why.path) > 1 else ""
        lines.append(
            f"{rank}. [{engram.type} #{engram.id}, score {engram.score:.2f}, {why}{path}] "
            f"{engram.content}"
        )
    left_out = len(mind.engrams) - len(shown)
    if left_out:
        lines.append(f"({left_out} more did not fit the token budget.)")
    hubs = ", ".join(cue.word for cue in mind.cues[:8] if cue.word)
    if hubs:
        lines.append(f"Active concepts: {hubs}")
    return "\n".join(lines)


def register(server: MCPServer) -> None:
    @server.tool(
        name="recall",
        description=(
            "Search long-term memory before answering. Give the key words of what you need "
            "(several words are fine, and words that are not stored still find related memories); "
            "leave query empty to see what this memory is mostly about. mode: balanced (default), "
            "focused (precise), creative (wider associations)."
        ),
    )
    async def recall(
        ctx: Context,
        query: str | None = None,
        role: str | None = None,
        mode: Literal["balanced", "focused", "creative"] = "balanced",
        network: str | None = None,
        k: int = 8,
        token_budget: int = 1500,
    ) -> str:
        principal = principal_from(ctx)
        principal.require("read")

        def work() -> tuple[Mind, str]:
            options = RecallOptions(
                **inputs.recall_options(mode=mode, k=k, token_budget=token_budget), source="mcp"
            )
            mind = network_recall(
                tenant=tenant_of(principal),
                actor=principal.actor,
                network_key=network_for(principal, network=network, role=role),
                query=inputs.recall_query(query),
                options=options,
            )
            return mind, state_of(principal)

        mind, state = await in_tenant(principal, work)
        text = render_mind(mind, title=f"Recall “{query}”" if query else "Recall (no query)")
        return text + next_steps(
            "Use what is relevant; cite memories by #id when you rely on them.",
            "Nothing useful? Try other words, or mode=creative for wider associations.",
            "`remember` new facts, relations (LINK) or procedures (PATTERN) before you finish.",
            state=state,
        )

    @server.tool(
        name="remember",
        description=(
            "Save what is worth keeping past this conversation. Each engram: content (one "
            "self-contained insight, essentials only), schema (its key words in order, optional: "
            "derived when missing), type ATOMIC (fact) / LINK (relation) / PATTERN (procedure), "
            "strength 0-1 (how sure or important). Up to 1000 at once; external_id makes it "
            "idempotent."
        ),
    )
    async def remember(
        ctx: Context,
        engrams: list[EngramArg],
        role: str | None = None,
        network: str | None = None,
    ) -> str:
        principal = principal_from(ctx)
        principal.require("write")

        def work():  # type: ignore[no-untyped-def]
            items = inputs.engram_batch([dict(e) for e in engrams])
            result = engrams_remember(
                tenant=tenant_of(principal),
                actor=principal.actor,
                network_key=network_for(principal, network=network, role=role),
                items=items,
                source="mcp",
            )
            return result, state_of(principal)

        result, state = await in_tenant(principal, work)
        statuses = ("created", "updated", "unchanged", "reinforced")
        counts = ", ".join(f"{result.count(s)} {s}" for s in statuses if result.count(s))
        ids = ", ".join(f"#{o.id}" for o in result.outcomes[:20])
        return (
            f"Remembered in network `{result.network.key}`: {counts}; {result.edges} associations "
            f"strengthened. Ids: {ids}{' …' if len(result.outcomes) > 20 else ''}"
            + next_steps(
                "`recall` finds these at once by words and associations (by meaning shortly).",
                "Keep going; remember again when you learn something new.",
                state=state,
            )
        )

    @server.tool(
        name="prime",
        description=(
            "Warm up memory at the start of a session: the concepts this memory is most about "
            "(frequent and recent) and their strongest memories. The next recall builds on it."
        ),
    )
    async def prime(ctx: Context, role: str | None = None, network: str | None = None) -> str:
        principal = principal_from(ctx)
        principal.require("read")

        def work() -> tuple[Mind, str]:
            mind = network_prime(
                source="mcp",
                tenant=tenant_of(principal),
                actor=principal.actor,
                network_key=network_for(principal, network=network, role=role),
            )
            return mind, state_of(principal)

        mind, state = await in_tenant(principal, work)
        return render_mind(mind, title="Primed") + next_steps(
            "`recall` with the words of the task at hand.",
            "`remember` what you learn as you go.",
            state=state,
        )
