"""``remember``: the fast write path — synchronous, no LLM, one transaction per batch.

For each engram: derive the schema when absent (rules extractor), upsert by ``external_id``
(the same call twice changes nothing), upsert its cues, reinforce edges along the schema and in a
small co-occurrence window, audit, and after commit queue the embedding. The engram is
recallable by text and graph at once, by vector as soon as its embedding lands.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from audit.actors import Actor
from audit.models import AuditEvent
from audit.services import audit_record_many
from memory.core.extract import extract_schema
from memory.core.hebbian import reinforce
from memory.core.text import content_lemmas, estimate_tokens, lemma
from memory.models import Engram, Network
from memory.services.graph import (
    cues_upsert,
    edges_reinforce,
    engram_link,
    engram_unlink,
    insert_engrams,
    links_insert,
)
from memory.services.inputs import EngramInput
from memory.services.networks import network_for_write
from tenants.models import Tenant

REPEAT_STRENGTH_ETA = 0.1  # the same content remembered again strengthens the memory


@dataclass(frozen=True)
class Outcome:
    index: int
    id: int
    external_id: str | None
    status: str  # created | updated | unchanged | reinforced


@dataclass(frozen=True)
class RememberResult:
    network: Network
    outcomes: list[Outcome]
    edges: int

    def count(self, status: str) -> int:
        return sum(1 for o in self.outcomes if o.status == status)


def _dedup_lemmas(words: list[str]) -> list[str]:
    return list(dict.fromkeys(key for key in (lemma(w) for w in words) if key))


def content_hash(content: str) -> str:
    return hashlib.sha256(" ".join(content.split()).casefold().encode()).hexdigest()


def schema_of(item: EngramInput) -> tuple[list[str], list[str]]:
    """(display words, lemmas), one per concept, in order; derived when the client gave none."""
    words = item.schema if item.schema else extract_schema(item.content)
    display: dict[str, str] = {}
    for word in words:
        key = lemma(word)
        if key and key not in display:
            display[key] = word
    return list(display.values()), list(display)


def snapshot(engram: Engram) -> dict[str, Any]:
    """What history shows of an engram (before/after in audit events)."""
    return {
        "content": engram.content, "schema": list(engram.schema), "type": engram.type,
        "strength": engram.strength, "importance": engram.importance,
        "occurred_at": engram.occurred_at.isoformat() if engram.occurred_at else None,
        "external_id": engram.external_id, "metadata": engram.metadata, "status": engram.status,
    }  # fmt: skip


def _same(engram: Engram, item: EngramInput, display: list[str]) -> bool:
    return (
        engram.content == item.content and list(engram.schema) == display
        and engram.type == item.type and engram.strength == item.strength
        and engram.importance == item.importance and engram.occurred_at == item.occurred_at
        and engram.metadata == item.metadata and engram.status == Engram.Status.ACTIVE
    )  # fmt: skip


def engrams_remember(
    *, tenant: Tenant, actor: Actor, network_key: str, items: list[EngramInput], source: str
) -> RememberResult:
    """Remember a validated batch (see services.inputs). Retries once on a concurrent insert of
    the same external_id, so two clients sending the same memory get one engram."""
    for attempt in (1, 2):
        try:
            with transaction.atomic():
                return _remember(tenant, actor, network_key, items, source)
        except IntegrityError:
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def _remember(
    tenant: Tenant, actor: Actor, network_key: str, items: list[EngramInput], source: str
) -> RememberResult:
    network = network_for_write(tenant=tenant, key=network_key)
    now = timezone.now()
    schemas = [schema_of(item) for item in items]
    existing = _existing(network, items)
    plan = _plan(items, schemas, existing)

    # Cues first (all lemmas of new and changed engrams), counting the engrams that join them.
    words: dict[str, str] = {}
    joins: Counter[str] = Counter()
    for index, action in plan.items():
        if action in {"create", "update"}:
            display, lemmas = schemas[index]
            for word, key in zip(display, lemmas, strict=True):
                words.setdefault(key, word)
                joins[key] += 1
    cue_ids = cues_upsert(network, words, joins)

    outcomes: list[Outcome] = []
    audits: list[AuditEvent] = []
    created: list[tuple[int, Engram]] = []
    reinforced_schemas: list[list[str]] = []
    changed_ids: list[int] = []
    for index, item in enumerate(items):
        display, lemmas = schemas[index]
        action = plan[index]
        engram = existing.get(index)
        if action == "unchanged" and engram is not None:
            outcomes.append(Outcome(index, engram.pk, engram.external_id, "unchanged"))
        elif action == "reinforce" and engram is not None:
            engram.strength = round(reinforce(engram.strength, REPEAT_STRENGTH_ETA), 6)
            engram.updated_at = now
            engram.save(update_fields=["strength", "updated_at"])
            reinforced_schemas.append(_dedup_lemmas(engram.schema))
            outcomes.append(Outcome(index, engram.pk, engram.external_id, "reinforced"))
            audits.append(_audit(tenant, actor, "engram.reinforce", engram,
                                 after={"strength": engram.strength}))  # fmt: skip
        elif action == "update" and engram is not None:
            before = snapshot(engram)
            engram_unlink(network, engram)
            apply_input(engram, item, display, now)
            engram.save()
            engram_link(network, engram, lemmas, cue_ids)
            reinforced_schemas.append(lemmas)
            changed_ids.append(engram.pk)
            outcomes.append(Outcome(index, engram.pk, engram.external_id, "updated"))
            audits.append(_audit(tenant, actor, "engram.update", engram, before=before,
                                 after=snapshot(engram)))  # fmt: skip
        else:
            engram = Engram(tenant=tenant, network=network, source=source, created_at=now)
            apply_input(engram, item, display, now)
            created.append((index, engram))
            reinforced_schemas.append(lemmas)

    if created:
        insert_engrams(network, [engram for _, engram in created])
        links_insert(
            network,
            [
                (engram.pk, cue_ids[key], position)
                for index, engram in created
                for position, key in enumerate(schemas[index][1])
            ],
        )
        for index, engram in created:
            outcomes.append(Outcome(index, engram.pk, engram.external_id, "created"))
            audits.append(_audit(tenant, actor, "engram.create", engram, after=snapshot(engram)))
            changed_ids.append(engram.pk)
    edges = edges_reinforce(network, reinforced_schemas, _all_cue_ids(network, cue_ids, schemas))
    audit_record_many(audits)
    if changed_ids:
        queue_embedding(tenant.pk, network.pk, changed_ids)
    return RememberResult(network, sorted(outcomes, key=lambda o: o.index), edges)


def _existing(network: Network, items: list[EngramInput]) -> dict[int, Engram]:
    """Engrams this batch may update (same external_id) or repeat (same content, no id)."""
    by_external = {item.external_id: i for i, item in enumerate(items) if item.external_id}
    found: dict[int, Engram] = {}
    if by_external:
        rows = Engram.objects.select_for_update().filter(
            tenant_id=network.tenant_id, network=network, external_id__in=list(by_external)
        )
        for engram in rows:
            found[by_external[engram.external_id]] = engram  # type: ignore[index]
    hashes = {content_hash(item.content): i for i, item in enumerate(items) if not item.external_id}
    if hashes:
        rows = Engram.objects.select_for_update().filter(
            tenant_id=network.tenant_id, network=network, content_hash__in=list(hashes),
            status=Engram.Status.ACTIVE, external_id__isnull=True,
        ).order_by("id")  # fmt: skip
        for engram in rows:
            found.setdefault(hashes[engram.content_hash], engram)
    return found


def _plan(
    items: list[EngramInput],
    schemas: list[tuple[list[str], list[str]]],
    existing: dict[int, Engram],
) -> dict[int, str]:
    """create, update, unchanged (same external_id, same fields) or reinforce (same content)."""
    plan: dict[int, str] = {}
    for index, item in enumerate(items):
        engram = existing.get(index)
        if engram is None:
            plan[index] = "create"
        elif item.external_id:
            plan[index] = "unchanged" if _same(engram, item, schemas[index][0]) else "update"
        else:
            plan[index] = "reinforce"
    return plan


def apply_input(engram: Engram, item: EngramInput, display: list[str], now: Any) -> None:
    engram.content = item.content
    engram.schema = display
    engram.terms = sorted(set(content_lemmas(item.content)) | {lemma(w) for w in display})
    engram.type = item.type
    engram.strength = item.strength
    engram.importance = item.importance
    engram.occurred_at = item.occurred_at
    engram.external_id = item.external_id
    engram.metadata = item.metadata
    engram.status = Engram.Status.ACTIVE
    engram.token_count = estimate_tokens(item.content)
    engram.content_hash = content_hash(item.content)
    engram.embedding = None
    engram.embedding_model = ""
    engram.updated_at = now


def _all_cue_ids(
    network: Network, cue_ids: dict[str, int], schemas: list[tuple[list[str], list[str]]]
) -> dict[str, int]:
    """Reinforced repeats use cues that were not upserted in this batch: look them up."""
    missing = {key for _, lemmas in schemas for key in lemmas if key not in cue_ids}
    if not missing:
        return cue_ids
    from memory.models import Cue

    found = dict(
        Cue.objects.filter(tenant_id=network.tenant_id, network=network, lemma__in=missing)
        .values_list("lemma", "id")
    )  # fmt: skip
    return {**cue_ids, **found}


def _audit(
    tenant: Tenant, actor: Actor, verb: str, engram: Engram, **change: dict[str, Any]
) -> AuditEvent:
    return AuditEvent(
        tenant=tenant, actor_kind=actor.kind, actor_id=actor.id, actor_label=actor.label[:200],
        verb=verb, target_type="engram", target_id=str(engram.pk),
        target_label=engram.content[:200], before=change.get("before"), after=change.get("after"),
    )  # fmt: skip


def queue_embedding(tenant_id: int, network_id: int, ids: list[int]) -> None:
    from memory.tasks import embed_engrams

    transaction.on_commit(
        lambda: embed_engrams.delay(tenant_id, network_id, sorted(ids)), robust=True
    )
