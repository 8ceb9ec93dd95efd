"""``guide``: the task at hand distilled from memory (memory.core.guide) — a recall for the
task, with its facts and the earlier values of their slots, made into a few cited lines within
a small budget. A read, like recall: it writes nothing but the access it counts."""

from __future__ import annotations

import time

from audit.actors import Actor
from memory.core.guide import Guide, distil
from memory.core.mind import Mind
from memory.services.recall import RecallOptions, network_recall
from tenants.models import Tenant

GUIDE_K = 12  # memories the guide is distilled from
GUIDE_POOL_TOKENS = 4000  # the recall's own budget: the guide picks within what it found


def network_guide(
    *,
    tenant: Tenant,
    actor: Actor,
    network_key: str,
    task: str,
    token_budget: int,
    source: str = "api",
    record: bool = True,
    missing_ok: bool = False,
) -> tuple[Mind, Guide, float]:
    """The Mind recalled for ``task``, the guide distilled from it, and the time taken."""
    started = time.perf_counter()
    mind = network_recall(
        tenant=tenant,
        actor=actor,
        network_key=network_key,
        query=task,
        options=RecallOptions(
            k=GUIDE_K,
            token_budget=GUIDE_POOL_TOKENS,
            record=record,
            source=source,
            past=True,  # a changed value is a line of its own: the old one is a trap
        ),
        missing_ok=missing_ok,
    )
    guide = distil(task, mind.facts, mind.engrams, token_budget, mind.skills)
    return mind, guide, round((time.perf_counter() - started) * 1000, 2)
