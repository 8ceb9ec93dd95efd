"""Facts from extraction applied to what is known: confirmed, created, superseded, ended or
kept as past values (``memory.core.knowledge.decide``), each with its evidence — never deleted.

Runs inside the extraction's transaction, with the subject's current fact of the slot locked,
so two workers reading about the same person cannot both make a value current.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime

from django.db.models import F
from django.utils import timezone

from memory.core.knowledge import Action, Known, Stated, decide, more_confident, value_key
from memory.extraction.types import FactDraft
from memory.models import Entity, Fact, FactEvidence, Network
from memory.services.entities import Names


@dataclass(frozen=True)
class Said:
    """Where the drafts were read: the episode, its engram, when it was said, by what."""

    episode_id: int | None
    engram_id: int | None
    at: datetime
    extractor: str


def facts_apply(
    *, names: Names, drafts: list[FactDraft], said: Said, kinds: dict[str, str]
) -> Counter[str]:
    """Apply the drafts in order, in ``names.network``; the counts say what each did
    (``confirm``, ``supersede``…)."""
    counts: Counter[str] = Counter()
    for draft in drafts:
        kind = kinds.get(draft.subject, "person")  # the speaker, unnamed in the text: a person
        subject = names.resolve(draft.subject, kind)
        action = _apply(names, subject, draft, said, kinds)
        counts[action.value] += 1
    return counts


def _apply(
    names: Names, subject: Entity, draft: FactDraft, said: Said, kinds: dict[str, str]
) -> Action:
    network = names.network
    when = draft.valid_from or said.at
    current = (
        Fact.objects.select_for_update()
        .filter(
            tenant_id=network.tenant_id,
            network=network,
            subject=subject,
            slot=draft.slot,
            status=Fact.Status.CURRENT,
        )
        .first()
    )
    known = Known(current.object, current.valid_from) if current is not None else None
    action = decide(known, Stated(draft.object, when, draft.ends))
    if action is Action.CONFIRM and current is not None:
        if _evidence(current, said, draft):  # new evidence only: a re-read adds nothing
            Fact.objects.filter(pk=current.pk).update(
                confidence=more_confident(current.confidence, draft.confidence),
                updated_at=timezone.now(),
            )
    elif action is Action.END and current is not None:
        Fact.objects.filter(pk=current.pk).update(
            status=Fact.Status.SUPERSEDED, valid_to=when, updated_at=timezone.now()
        )
        _evidence(current, said, draft)
    elif action in (Action.RECORD_ENDED, Action.RECORD_PAST) and (
        past := _past_value(network, subject, draft)
    ):
        _evidence(past, said, draft)  # a past value said again: more evidence, not a new row
    elif action is Action.RECORD_ENDED:
        _create(
            names,
            subject,
            draft,
            said,
            kinds,
            status=Fact.Status.SUPERSEDED,
            valid_from=None,
            valid_to=when,
        )
    elif action is Action.RECORD_PAST and current is not None:
        _create(
            names,
            subject,
            draft,
            said,
            kinds,
            status=Fact.Status.SUPERSEDED,
            valid_from=when,
            valid_to=current.valid_from,
        )
    elif action is Action.SUPERSEDE and current is not None:
        Fact.objects.filter(pk=current.pk).update(
            status=Fact.Status.SUPERSEDED, valid_to=when, updated_at=timezone.now()
        )
        _create(names, subject, draft, said, kinds, valid_from=when, supersedes=current)
    else:
        _create(names, subject, draft, said, kinds, valid_from=when)
    return action


def _create(
    names: Names,
    subject: Entity,
    draft: FactDraft,
    said: Said,
    kinds: dict[str, str],
    *,
    status: str = Fact.Status.CURRENT,
    valid_from: datetime | None,
    valid_to: datetime | None = None,
    supersedes: Fact | None = None,
) -> Fact:
    network = names.network
    kind = kinds.get(draft.object)
    target = names.resolve(draft.object, kind) if kind else None
    fact = Fact.objects.create(
        tenant_id=network.tenant_id,
        network=network,
        subject=subject,
        subject_name=draft.subject[:200],
        predicate=draft.predicate[:120],
        object=draft.object[:500],
        object_key=value_key(draft.object)[:500],
        object_entity=target,
        slot=draft.slot[:300],
        confidence=draft.confidence,
        valid_from=valid_from,
        valid_to=valid_to,
        status=status,
        supersedes=supersedes,
        extractor=said.extractor,
    )
    _evidence(fact, said, draft)
    return fact


def _past_value(network: Network, subject: Entity, draft: FactDraft) -> Fact | None:
    return (
        Fact.objects.filter(
            tenant_id=network.tenant_id,
            network=network,
            subject=subject,
            slot=draft.slot,
            status=Fact.Status.SUPERSEDED,
            object_key=value_key(draft.object)[:500],
        )
        .order_by("-id")
        .first()
    )


def _evidence(fact: Fact, said: Said, draft: FactDraft) -> bool:
    """One evidence row per episode (or, imported, per memory) and span: a redelivered episode
    or a re-imported line adds none; whether it added one."""
    seen = FactEvidence.objects.filter(tenant_id=fact.tenant_id, fact=fact, start=draft.start)
    if said.episode_id is not None:
        seen = seen.filter(episode_id=said.episode_id)
    elif said.engram_id is not None:  # an imported statement: its memory is its evidence
        seen = seen.filter(episode__isnull=True, engram_id=said.engram_id)
    else:
        seen = seen.none()
    if seen.exists():
        return False
    FactEvidence.objects.create(
        tenant_id=fact.tenant_id,
        fact=fact,
        episode_id=said.episode_id,
        engram_id=said.engram_id,
        start=draft.start,
        end=draft.end,
        extractor=said.extractor,
        said_at=said.at,
    )
    Fact.objects.filter(pk=fact.pk).update(evidence_count=F("evidence_count") + 1)
    return True


def fact_reopen(*, tenant_id: int, fact_id: int) -> None:
    """The statement that replaced this value is gone (erased): it holds again, unless its
    slot has another current value meanwhile."""
    fact = Fact.objects.filter(tenant_id=tenant_id, pk=fact_id).first()
    if fact is None:
        return
    taken = Fact.objects.filter(
        tenant_id=tenant_id,
        network_id=fact.network_id,
        subject_id=fact.subject_id,
        slot=fact.slot,
        status=Fact.Status.CURRENT,
    )
    if not taken.exists():
        Fact.objects.filter(pk=fact.pk).update(status=Fact.Status.CURRENT, valid_to=None)


def fact_imported(
    *,
    names: Names,
    draft: FactDraft,
    said: Said,
    valid_to: datetime | None,
) -> str:
    """A fact a peer's export states with its own validity (a Zep / Graphiti edge): an open one
    is applied like any statement (it may supersede, or be kept as a past value); a closed one
    is recorded as the past value it was, with both ends of its window, once."""
    kinds = {draft.object: "thing"}
    if valid_to is None:
        counts = facts_apply(names=names, drafts=[draft], said=said, kinds=kinds)
        return next(iter(counts), "confirm")
    subject = names.resolve(draft.subject, "person")
    network = names.network
    same = Fact.objects.filter(
        tenant_id=network.tenant_id,
        network=network,
        subject=subject,
        slot=draft.slot,
        status=Fact.Status.SUPERSEDED,
        object_key=value_key(draft.object)[:500],
        valid_from=draft.valid_from,
        valid_to=valid_to,
    ).first()
    if same is not None:
        _evidence(same, said, draft)
        return "confirm"
    _create(
        names,
        subject,
        draft,
        said,
        kinds,
        status=Fact.Status.SUPERSEDED,
        valid_from=draft.valid_from,
        valid_to=valid_to,
    )
    return "record_ended"
