"""Editing and deleting engrams by hand (dashboard, REST, MCP ``forget``), audited with history."""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.db import transaction
from django.utils import timezone

from audit.actors import Actor
from audit.services import audit_record
from base.errors import Conflict, PermissionDenied, ValidationFailed
from memory import live
from memory.models import Engram
from memory.services.graph import cues_upsert, edges_reinforce, engram_unlink
from memory.services.inputs import engram_input
from memory.services.remember import (
    engram_revise,
    lemma_words,
    queue_embedding,
    revision,
    schema_of,
    snapshot,
    with_retry,
)
from tenants.models import Tenant
from tenants.permissions import Capability, actor_allows

EDITABLE = ("content", "schema", "type", "strength", "importance", "metadata", "occurred_at")


def engram_update(
    *, tenant: Tenant, actor: Actor, engram: Engram, changes: dict[str, Any]
) -> Engram:
    """Change some fields. New content or schema re-files the engram under its new cues: the old
    edges are weakened, the new ones reinforced, and the embedding is recomputed."""
    unknown = sorted(set(changes) - set(EDITABLE))
    if unknown:
        raise ValidationFailed.field(unknown[0], "cannot be changed (or is not a field)")
    return with_retry(lambda: _update(tenant, actor, engram, changes))


def _update(tenant: Tenant, actor: Actor, engram: Engram, changes: dict[str, Any]) -> Engram:
    with transaction.atomic():
        locked = Engram.objects.select_for_update().get(tenant=tenant, pk=engram.pk)
        if locked.status in {Engram.Status.DELETED, Engram.Status.ERASED}:
            raise Conflict("This memory was deleted; it cannot be edited.")
        before = snapshot(locked)
        merged = {key: before[key] for key in EDITABLE} | changes
        if "content" in changes and "schema" not in changes:
            merged["schema"] = None  # new words: derive the schema again
        merged["external_id"] = locked.external_id
        item = engram_input(0, merged)
        display, lemmas = schema_of(item)
        network = locked.network
        words_changed, joins = revision(locked, item, display)
        joins = joins and locked.status == Engram.Status.ACTIVE  # a manual edit reactivates nothing
        # every cue touched (old and new schema) locked in one sorted statement first
        touched = dict(zip(lemmas, display, strict=True)) if joins else {}
        touched.update(lemma_words(locked.schema))
        cue_ids = cues_upsert(network, touched, Counter(lemmas) if joins else None)
        engram_revise(
            network=network,
            engram=locked,
            item=item,
            display=display,
            lemmas=lemmas,
            cue_ids=cue_ids,
            now=timezone.now(),
            reactivate=False,
        )
        if words_changed and locked.status == Engram.Status.ACTIVE:
            edges_reinforce(network, [lemmas], cue_ids)
        if words_changed:
            queue_embedding(tenant.pk, network.pk, [locked.pk])
        after = snapshot(locked)
        if after != before:
            live.publish(tenant.pk, {"type": "changed", "network": network.key,
                                     "engram": live.engram_summary(locked)})  # fmt: skip
            audit_record(
                tenant_id=tenant.pk, actor=actor, verb="engram.update", target_type="engram",
                target_id=locked.pk, target_label=locked.content[:200],
                before={k: v for k, v in before.items() if after[k] != v},
                after={k: v for k, v in after.items() if before[k] != v},
            )  # fmt: skip
    return locked


def engram_delete(*, tenant: Tenant, actor: Actor, engram: Engram) -> Engram:
    """Soft delete: the engram leaves recall and the graph (edges weakened, cue counts lowered);
    the row and its history stay."""
    with transaction.atomic():
        locked = Engram.objects.select_for_update().get(tenant=tenant, pk=engram.pk)
        if locked.status == Engram.Status.DELETED:
            return locked
        before = {"status": locked.status}
        engram_unlink(locked.network, locked)
        locked.status = Engram.Status.DELETED
        locked.updated_at = timezone.now()
        locked.save(update_fields=["status", "updated_at"])
        live.publish(tenant.pk, {"type": "deleted", "network": locked.network.key,
                                 "engram": live.engram_summary(locked)})  # fmt: skip
        audit_record(
            tenant_id=tenant.pk, actor=actor, verb="engram.delete", target_type="engram",
            target_id=locked.pk, target_label=locked.content[:200], before=before,
            after={"status": locked.status},
        )  # fmt: skip
    return locked


BULK_MAX = 500


def engrams_bulk(
    *, tenant: Tenant, actor: Actor, engrams: list[Engram], action: str, type: str = ""
) -> int:
    """Delete or retype many engrams at once, each audited like a single change; all or none."""
    if len(engrams) > BULK_MAX:
        raise ValidationFailed.field("ids", f"at most {BULK_MAX} at once")
    if action == "retype" and type not in Engram.Type.values:
        raise ValidationFailed.field("type", f"one of {', '.join(Engram.Type.values)}")
    if action not in ("delete", "retype"):
        raise ValidationFailed.field("action", "delete or retype")
    needed = Capability.MEMORY_DELETE if action == "delete" else Capability.MEMORY_EDIT
    if not actor_allows(actor, needed):
        raise PermissionDenied("Your role cannot do this to memories here.")
    changed = 0
    with transaction.atomic():
        for engram in sorted(engrams, key=lambda e: e.pk):  # one lock order for every caller
            if action == "delete":
                if engram.status != Engram.Status.DELETED:
                    engram_delete(tenant=tenant, actor=actor, engram=engram)
                    changed += 1
            elif engram.type != type and engram.status not in (
                Engram.Status.DELETED,
                Engram.Status.ERASED,
            ):
                engram_update(tenant=tenant, actor=actor, engram=engram, changes={"type": type})
                changed += 1
    return changed
