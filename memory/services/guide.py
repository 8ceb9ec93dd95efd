"""``guide``: the task at hand distilled from memory (memory.core.guide) — a recall for the
task, with its facts, the earlier values of their slots and its skills, made into a few cited
lines within a small budget. A read, like recall: it writes nothing but the access it counts
(and, with the tenant's language model set, the tokens it spent).

With a provider set and its budget and circuit allowing, the template's lines are handed to
the model as cited notes and it writes the guide (``memory.extraction.llm.write_guide``): a
line must cite notes it was given, and the result is fitted to the same budget behind the
same read-time wall. A failed call, an answer citing nothing, or nothing that fits: the
template's guide, and the failure counts on the circuit like an extraction's."""

from __future__ import annotations

import time

from audit.actors import Actor
from memory.core.guide import Guide, GuideLine, candidates, fit, label, written_line
from memory.core.mind import Mind
from memory.core.tasks import Standing, StepView, standing
from memory.extraction import llm
from memory.selectors import network_find, work
from memory.services.llm import Spent, gate, meter
from memory.services.recall import RecallOptions, network_recall
from tenants.models import Tenant

GUIDE_K = 12  # memories the guide is distilled from
GUIDE_POOL_TOKENS = 4000  # the recall's own budget: the guide picks within what it found


TEMPLATE = "template"
WORDS_PER_TOKEN = 0.7  # what the model is asked for: words, well inside the token budget


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
    task_key: str | None = None,
) -> tuple[Mind, Guide, float, str]:
    """The Mind recalled for ``task``, the guide distilled from it, the time taken, and who
    wrote it (``template`` or the model's version). ``task_key``: the recorded task this is
    for (else the recall's own focus: an open task, for work questions) — where it stands,
    from its DAG, is a section of its own."""
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
            task=task_key,
        ),
        missing_ok=missing_ok,
    )
    lines = candidates(mind.facts, mind.engrams, mind.skills, _standing(tenant, mind))
    guide, made_by = _written(tenant, task, lines, token_budget) if lines else (None, TEMPLATE)
    if guide is None:
        guide, made_by = fit(task, lines, token_budget), TEMPLATE
    return mind, guide, round((time.perf_counter() - started) * 1000, 2), made_by


def _standing(tenant: Tenant, mind: Mind) -> list[Standing]:
    """Where the recall's task stands (none without one)."""
    if not mind.task:
        return []
    network = network_find(tenant=tenant, key=mind.network)
    task = work.task_by_key(tenant=tenant, network=network, key=mind.task) if network else None
    if task is None:
        return []
    steps = work.task_steps(task=task)
    dag = work.task_dag(task, steps, work.task_links(task=task))
    views = [StepView(s.key, s.index, s.action, s.observation, (), s.outcome) for s in steps]
    return standing(views, {s.key: s.engram_id for s in steps}, dag, {s.key: s.pk for s in steps})


def _written(
    tenant: Tenant, task: str, lines: list[GuideLine], budget: int
) -> tuple[Guide | None, str]:
    """The guide the tenant's model writes from the template's lines; None when there is no
    model to ask, it failed, or nothing it wrote fits."""
    allowed = gate(tenant.pk)
    if allowed.provider is None:
        return None, TEMPLATE
    notes = [llm.Note(ln.section, ln.text, tuple(label(c) for c in ln.cites)) for ln in lines]
    words = max(20, int(budget * WORDS_PER_TOKEN))
    try:
        written, usage = llm.write_guide(allowed.provider, task, notes, words)
    except llm.ProviderError as error:
        failed = Spent(calls=1, failures=1, last_error=str(error), failures_in_row=1)
        meter(tenant_id=tenant.pk, job_id=None, spent=failed)
        return None, TEMPLATE
    spent = Spent(
        calls=1,
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        succeeded=True,
    )
    meter(tenant_id=tenant.pk, job_id=None, spent=spent)
    guide = fit(task, [written_line(w.section, w.text, w.cites) for w in written], budget)
    if not guide.lines:
        return None, TEMPLATE
    return guide, f"{llm.GUIDE_VERSION}:{allowed.provider.model}"[:60]
