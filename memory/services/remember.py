"""``remember``: the fast write path — synchronous, no LLM, one transaction per batch.

For each engram: derive the schema when absent (rules extractor), upsert by ``external_id``
(the same call twice changes nothing), upsert its cues, reinforce edges along the schema and in a
small co-occurrence window, audit, and after commit queue the embedding. The engram is
recallable by text and graph at once, by vector as soon as its embedding lands.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, OperationalError, transaction
from django.utils import timezone

from audit.actors import Actor
from audit.models import AuditEvent
from audit.services import audit_record_many
from base.background import after_commit
from memory import live
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


def dedup_lemmas(words: list[str]) -> list[str]:
    return list(lemma_words(words))


def lemma_words(words: list[str]) -> dict[str, str]:
    """{lemma: first display word}, in order, one per concept."""
    out: dict[str, str] = {}
    for word in words:
        key = lemma(word)
        if key and key not in out:
            out[key] = word
    return out


def content_hash(content: str) -> str:
    return hashlib.sha256(" ".join(content.split()).casefold().encode()).hexdigest()


def schema_of(item: EngramInput) -> tuple[list[str], list[str]]:
    """(display words, lemmas), one per concept, in order; derived when the client gave none."""
    display = lemma_words(item.schema if item.schema else extract_schema(item.content))
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
    """Remember a validated batch (see services.inputs). Retried once after a concurrent insert of
    the same external_id (two clients sending one memory get one engram) or a deadlock."""
    return with_retry(lambda: _remember(tenant, actor, network_key, items, source))


def _retryable(exc: Exception) -> bool:
    if isinstance(exc, IntegrityError):
        return True
    return getattr(exc.__cause__, "sqlstate", None) in {"40P01", "40001"}  # deadlock, serialization


def with_retry[T](work: Callable[[], T]) -> T:
    for attempt in (1, 2):
        try:
            with transaction.atomic():
                return work()
        except (IntegrityError, OperationalError) as exc:
            if attempt == 2 or not _retryable(exc):
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

    # Cues first: every cue this batch touches — new schemas, and the old schemas of engrams
    # being re-filed — in one sorted upsert, so all cue locks are taken in one order.
    words: dict[str, str] = {}
    joins: Counter[str] = Counter()
    for index, action in plan.items():
        engram = existing.get(index)
        display, lemmas = schemas[index]
        joining = action == "create" or (
            action == "update" and engram is not None and revision(engram, items[index], display)[1]
        )
        if joining:
            for word, key in zip(display, lemmas, strict=True):
                words.setdefault(key, word)
                joins[key] += 1
        if engram is not None and action in {"update", "reinforce"}:
            for key, word in lemma_words(engram.schema).items():
                words.setdefault(key, word)
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
        if action in {"unchanged", "deleted"} and engram is not None:
            outcomes.append(Outcome(index, engram.pk, engram.external_id, action))
        elif action == "reinforce" and engram is not None:
            engram.strength = round(reinforce(engram.strength, REPEAT_STRENGTH_ETA), 6)
            engram.updated_at = now
            engram.save(update_fields=["strength", "updated_at"])
            reinforced_schemas.append(dedup_lemmas(engram.schema))
            outcomes.append(Outcome(index, engram.pk, engram.external_id, "reinforced"))
            audits.append(_audit(tenant, actor, "engram.reinforce", engram,
                                 after={"strength": engram.strength}))  # fmt: skip
        elif action == "update" and engram is not None:
            before = snapshot(engram)
            words_changed = engram_revise(
                network=network,
                engram=engram,
                item=item,
                display=display,
                lemmas=lemmas,
                cue_ids=cue_ids,
                now=now,
                reactivate=True,
            )
            if engram.status == Engram.Status.ACTIVE and words_changed:
                reinforced_schemas.append(lemmas)
            if words_changed:
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
    edges = edges_reinforce(network, reinforced_schemas, cue_ids)
    audit_record_many(audits)
    if changed_ids:
        queue_embedding(tenant.pk, network.pk, changed_ids)
    result = RememberResult(network, sorted(outcomes, key=lambda o: o.index), edges)
    _announce(tenant, network, result, [engram for _, engram in created])
    return result


def _announce(tenant: Tenant, network: Network, result: RememberResult, new: list[Engram]) -> None:
    """Tell open dashboards (after commit): counts to refresh, the first new memories to show."""
    if not any(o.status != "unchanged" for o in result.outcomes):
        return
    live.publish(tenant.pk, {
        "type": "remembered", "network": network.key,
        **{s: result.count(s) for s in ("created", "updated", "reinforced")},
        "engrams": [live.engram_summary(e) for e in new[:20]],
    })  # fmt: skip


def _existing(network: Network, items: list[EngramInput]) -> dict[int, Engram]:
    """Engrams this batch may update (same external_id) or repeat (same content, no id)."""
    by_external = {item.external_id: i for i, item in enumerate(items) if item.external_id}
    found: dict[int, Engram] = {}
    if by_external:
        rows = (
            Engram.objects.select_for_update()
            .filter(tenant_id=network.tenant_id, network=network, external_id__in=list(by_external))
            .order_by("id")
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
        elif engram.status in {Engram.Status.DELETED, Engram.Status.ERASED}:
            plan[index] = (
                "deleted"  # a person deleted it: an agent repeating itself does not undo that
            )
        elif item.external_id:
            plan[index] = "unchanged" if _same(engram, item, schemas[index][0]) else "update"
        else:
            plan[index] = "reinforce"
    return plan


def revision(engram: Engram, item: EngramInput, display: list[str]) -> tuple[bool, bool]:
    """(its words change, it joins the graph under the new schema) for revising ``engram``."""
    words_changed = item.content != engram.content or display != list(engram.schema)
    was_linked = engram.status == Engram.Status.ACTIVE
    will_link = engram.status in {Engram.Status.ACTIVE, Engram.Status.ARCHIVED}
    return words_changed, will_link and (words_changed or not was_linked)


def engram_revise(
    *,
    network: Network,
    engram: Engram,
    item: EngramInput,
    display: list[str],
    lemmas: list[str],
    cue_ids: dict[str, int],
    now: Any,
    reactivate: bool,
) -> bool:
    """Apply ``item`` to a locked engram. New words re-file it under its cues (old edges
    weakened, links moved) and clear its vector; the same words keep both. ``reactivate``
    brings an archived engram back (an agent remembering it again); moderation states and
    deletions are never changed here. Returns whether the words changed."""
    words_changed = item.content != engram.content or display != list(engram.schema)
    was_linked = engram.status == Engram.Status.ACTIVE
    status = engram.status
    if reactivate and status == Engram.Status.ARCHIVED:
        status = Engram.Status.ACTIVE
    will_link = status == Engram.Status.ACTIVE
    vector, model = engram.embedding, engram.embedding_model
    if was_linked and (words_changed or not will_link):
        engram_unlink(network, engram)
    apply_input(engram, item, display, now)
    engram.status = status
    if not words_changed:
        engram.embedding, engram.embedding_model = vector, model
    engram.save()
    if will_link and (words_changed or not was_linked):
        engram_link(network, engram, lemmas, cue_ids)
    return words_changed


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


def _audit(
    tenant: Tenant, actor: Actor, verb: str, engram: Engram, **change: dict[str, Any]
) -> AuditEvent:
    return AuditEvent(
        tenant=tenant, actor_kind=actor.kind, actor_id=actor.id, actor_label=actor.label[:200],
        verb=verb, target_type="engram", target_id=str(engram.pk),
        target_label=engram.content[:200], before=change.get("before"), after=change.get("after"),
    )  # fmt: skip


def queue_embedding(tenant_id: int, network_id: int, ids: list[int]) -> None:
    after_commit("memory.tasks.embed_engrams", tenant_id, network_id, sorted(ids))
