"""``recall``, ``remember``, ``prime`` with PromptX-compatible arguments (``role``, ``query``,
``mode``, ``engrams[{content, schema, strength, type}]``), typed by the memory contracts.
``role`` picks the network ``role:<role>`` unless ``network`` is given; with neither, the role
activated in this MCP session (``action``), and without one the agent is told to pass ``role``
or ``network``. Answers are text rendered from the same presenters REST answers with."""

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
from memory import selectors
from memory.contracts import (
    EngramIn,
    K,
    MaybeNetworkKey,
    MaybeRoleName,
    MaybeSpeaker,
    MindOut,
    Mode,
    PrimeIn,
    Query,
    RecallIn,
    RememberIn,
    RememberOut,
    TokenBudget,
    present_mind,
)
from memory.core import packing
from memory.core.mind import KnownFact, KnownSkill, OpenTask
from memory.core.packing import defang
from memory.services.engrams import engram_remove
from memory.services.recall import RecallOptions, network_prime, network_recall
from memory.services.remember import engrams_remember, present_remembered


def render_mind(mind: MindOut, *, title: str) -> str:
    """The memories that fit the token budget, most relevant first, each with why it came."""
    shown = [e for e in mind.engrams if e.in_context]
    known = [
        KnownFact(
            id=f.id,
            subject=f.subject,
            predicate=f.predicate,
            object=f.object,
            status=f.status,
            valid_from=f.valid_from,
            valid_to=f.valid_to,
            confidence=f.confidence,
            score=f.score,
        )
        for f in mind.facts
        if f.in_context
    ]
    skills = [
        KnownSkill(
            id=k.id,
            goal=k.goal,
            steps=tuple(k.steps),
            preconditions=tuple(k.preconditions),
            pitfalls=tuple(k.pitfalls),
            placeholders=tuple(sorted(k.placeholders.items())),
            successes=k.successes,
            failures=k.failures,
            version=k.version,
            score=k.score,
        )
        for k in mind.skills
        if k.in_context
    ]
    tasks = [OpenTask(t.id, t.key, t.goal, t.steps, tuple(t.last)) for t in mind.open_tasks]
    if not shown and not known and not skills and not tasks:
        head = f"{title}: nothing found in network `{mind.network}`."
        return head + (f"\n{mind.notice}" if mind.notice else "")
    lines = [
        f"{title}: {len(shown)} memories"
        + (f" and {len(known)} facts they stated" if known else "")
        + (f", {len(skills)} skills" if skills else "")
        + (f", {len(tasks)} open tasks" if tasks else "")
        + f" from network `{mind.network}` "
        f"({mind.context_tokens} tokens), {len(mind.cues)} concepts activated, "
        f"{mind.took_ms:.0f} ms."
        + (
            f" Intent: {mind.intent.name} ({mind.intent.via})."
            if mind.intent and mind.intent.name
            else ""
        )
        + (f" Task: `{mind.task}`." if mind.task else "")
    ]
    items = [packing.task_line(t) for t in tasks]
    items += packing.fact_lines(known) + packing.skill_lines(skills)
    for rank, engram in enumerate(shown, 1):
        why = "+".join(engram.why.channels) or "task"
        if engram.why.front is not None:
            why += f", front {engram.why.front}"
        path = f"; via {' → '.join(engram.why.path)}" if len(engram.why.path) > 1 else ""
        items.append(
            f"{rank}. [{engram.type} #{engram.id}, score {engram.score:.2f}, {why}{path}] "
            f"{defang(engram.content)}"
        )
    # the read-time wall (memory.core.packing): quoted data in a fence, apart from our own text
    lines.append(packing.HEADER)
    lines.append(packing.fenced(items))
    left_out = len(mind.engrams) - len(shown)
    if left_out:
        lines.append(f"({left_out} more did not fit the token budget.)")
    hubs = ", ".join(defang(cue.word) for cue in mind.cues[:8] if cue.word)
    if hubs:
        lines.append(f"Active concepts: {hubs}")
    return "\n".join(lines)


def render_remembered(result: RememberOut) -> str:
    counts = ", ".join(
        f"{n} {name}"
        for name, n in (
            ("created", result.created),
            ("updated", result.updated),
            ("unchanged", result.unchanged),
            ("reinforced", result.reinforced),
            ("left deleted (a person deleted them)", result.deleted),
        )
        if n
    )
    ids = ", ".join(f"#{e.id}" for e in result.engrams[:20])
    more = " …" if len(result.engrams) > 20 else ""
    held = [e for e in result.engrams if e.moderation == "held"]
    queued = [e for e in result.engrams if e.moderation == "queued"]
    redacted = sorted({name for e in result.engrams for name in e.redacted})
    notes = ""
    if held:
        notes += (
            f" Held for moderation (not recalled until a person approves): "
            f"{', '.join(f'#{e.id}' for e in held[:20])}."
        )
    if queued:
        notes += f" Queued for a person to confirm: {', '.join(f'#{e.id}' for e in queued[:20])}."
    if redacted:
        notes += f" Redacted before storing: {', '.join(redacted)}."
    return (
        f"Remembered in network `{result.network}`: {counts}; {result.edges} associations "
        f"strengthened. Ids: {ids}{more}.{notes}"
    )


@tool(
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
    query: Query = None,
    role: MaybeRoleName = None,
    mode: Mode = "balanced",
    network: MaybeNetworkKey = None,
    k: K = 8,
    token_budget: TokenBudget = 1500,
    speaker: MaybeSpeaker = None,
    intent: Annotated[
        str | None, Field(description="force the intent (debugging, procedure, status, ...)")
    ] = None,
    task: Annotated[str | None, Field(description="the task you are working on (its key)")] = None,
) -> str:
    principal = principal_from(ctx)
    principal.require("read")
    arguments = {
        "query": query,
        "role": role,
        "mode": mode,
        "network": network,
        "k": k,
        "speaker": speaker,
        "intent": intent,
        "task": task,
    }

    def work() -> tuple[MindOut, str]:
        request = validated(RecallIn, {**arguments, "token_budget": token_budget})
        tenant = tenant_of(principal)
        target = target_for(principal, tenant, request)
        mind = network_recall(
            tenant=tenant,
            actor=principal.actor,
            network_key=target.key,
            query=request.query,
            options=RecallOptions.of(request, source="mcp"),
            missing_ok=target.missing_ok,
        )
        return present_mind(mind), state_of(principal)

    mind, state = await in_tenant(principal, work)
    text = render_mind(mind, title=f"Recall “{query}”" if query else "Recall (no query)")
    return text + next_steps(
        "Use what is relevant; cite memories by #id (facts by fact #id) when you rely on them.",
        "Nothing useful? Try other words, or mode=creative for wider associations.",
        "`remember` new facts, relations (LINK) or procedures (PATTERN) before you finish.",
        state=state,
    )


@tool(
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
    engrams: list[EngramIn],
    role: MaybeRoleName = None,
    network: MaybeNetworkKey = None,
) -> str:
    principal = principal_from(ctx)
    principal.require("write")

    def work() -> tuple[RememberOut, str]:
        request = validated(RememberIn, {"engrams": engrams, "role": role, "network": network})
        tenant = tenant_of(principal)
        target = target_for(principal, tenant, request)
        result = engrams_remember(
            tenant=tenant,
            actor=principal.actor,
            network_key=target.key,
            items=request.engrams,
            source="mcp",
        )
        return present_remembered(result), state_of(principal)

    result, state = await in_tenant(principal, work)
    return render_remembered(result) + next_steps(
        "`recall` finds these at once by words and associations (by meaning shortly).",
        "Keep going; remember again when you learn something new.",
        state=state,
    )


@tool(
    name="forget",
    description=(
        "Delete a memory that is wrong or no longer true, by its id (the #id recall shows), "
        "with a short reason. Where the workspace has people review agents' changes, this "
        "proposes the delete and a moderator decides."
    ),
)
async def forget(ctx: Context, engram_id: int, reason: str = "") -> str:
    principal = principal_from(ctx)
    principal.require("write")

    def work() -> tuple[str, str]:
        tenant = tenant_of(principal)
        engram = selectors.engram_get_for_tenant(tenant=tenant, id=engram_id, agent=True)
        changed = engram_remove(tenant=tenant, actor=principal.actor, engram=engram)
        if changed.proposal is not None:
            if reason:
                changed.proposal.note = reason[:2000]
                changed.proposal.save(update_fields=["note"])
            told = (
                f"Proposed deleting memory #{engram.pk}: a moderator decides "
                f"(moderation item {changed.proposal.pk}); until then it stays."
            )
        else:
            told = f"Deleted memory #{engram.pk}; it is no longer recalled (its history stays)."
        return told, state_of(principal)

    told, state = await in_tenant(principal, work)
    return told + next_steps(
        "`recall` again to check what is left on the subject.",
        "`remember` the corrected fact if there is one.",
        state=state,
    )


@tool(
    name="prime",
    description=(
        "Warm up memory at the start of a session: the concepts this memory is most about "
        "(frequent and recent) and their strongest memories. The next recall builds on it."
    ),
)
async def prime(ctx: Context, role: MaybeRoleName = None, network: MaybeNetworkKey = None) -> str:
    principal = principal_from(ctx)
    principal.require("read")

    def work() -> tuple[MindOut, str]:
        request = validated(PrimeIn, {"role": role, "network": network})
        tenant = tenant_of(principal)
        target = target_for(principal, tenant, request)
        mind = network_prime(
            source="mcp",
            tenant=tenant,
            actor=principal.actor,
            network_key=target.key,
            missing_ok=target.missing_ok,
        )
        return present_mind(mind), state_of(principal)

    mind, state = await in_tenant(principal, work)
    return render_mind(mind, title="Primed") + next_steps(
        "`recall` with the words of the task at hand.",
        "`remember` what you learn as you go.",
        state=state,
    )
