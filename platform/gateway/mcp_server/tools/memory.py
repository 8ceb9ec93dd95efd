"""``recall``, ``remember``, ``prime`` with PromptX-compatible arguments (``role``, ``query``,
``mode``, ``engrams[{content, schema, strength, type}]``). ``role`` picks the network
``role:<role>`` unless ``network`` is given; with neither, the workspace's ``default`` network."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

from mcp.server.mcpserver import Context, MCPServer

from gateway.mcp_server.principal import Principal, principal_from
from gateway.mcp_server.tools.common import in_tenant, next_steps
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


def _network(network: str | None, role: str | None) -> str:
    return inputs.network_from(network=network, role=role)


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

        def work() -> Mind:
            options = RecallOptions(
                **inputs.recall_options(mode=mode, k=k, token_budget=token_budget)
            )
            return network_recall(
                tenant=_tenant(principal),
                actor=principal.actor,
                network_key=_network(network, role),
                query=inputs.recall_query(query),
                options=options,
            )

        mind = await in_tenant(principal, work)
        text = render_mind(mind, title=f"Recall “{query}”" if query else "Recall (no query)")
        return text + next_steps(
            "Use what is relevant; cite memories by #id when you rely on them.",
            "Nothing useful? Try other words, or mode=creative for wider associations.",
            "`remember` new facts, relations (LINK) or procedures (PATTERN) before you finish.",
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
            return engrams_remember(
                tenant=_tenant(principal),
                actor=principal.actor,
                network_key=_network(network, role),
                items=items,
                source="mcp",
            )

        result = await in_tenant(principal, work)
        statuses = ("created", "updated", "unchanged", "reinforced")
        counts = ", ".join(f"{result.count(s)} {s}" for s in statuses if result.count(s))
        ids = ", ".join(f"#{o.id}" for o in result.outcomes[:20])
        return (
            f"Remembered in network `{result.network.key}`: {counts}; {result.edges} associations "
            f"strengthened. Ids: {ids}{' …' if len(result.outcomes) > 20 else ''}"
            + next_steps(
                "`recall` finds these at once by words and associations (by meaning shortly).",
                "Keep going; remember again when you learn something new.",
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

        def work() -> Mind:
            return network_prime(
                tenant=_tenant(principal),
                actor=principal.actor,
                network_key=_network(network, role),
            )

        mind = await in_tenant(principal, work)
        return render_mind(mind, title="Primed") + next_steps(
            "`recall` with the words of the task at hand.",
            "`remember` what you learn as you go.",
        )


def _tenant(principal: Principal):  # type: ignore[no-untyped-def]
    from tenants.models import Tenant

    return Tenant.objects.get(pk=principal.tenant_id)
