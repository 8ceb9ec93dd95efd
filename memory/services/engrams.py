"""Editing and deleting engrams by hand (dashboard, REST, MCP ``forget``), audited with history.
What each change does to the graph is memory.services.lifecycle's to say."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from audit.actors import Actor
from audit.services import audit_records
from base.contracts import validated
from base.db import atomic_with_retry
from base.errors import Conflict, PermissionDenied, ValidationFailed
from memory import live
from memory.contracts import EngramPatch
from memory.models import Engram, ModerationItem
from memory.services import lifecycle, moderation
from tenants.models import Tenant
from tenants.permissions import Capability, actor_allows


@dataclass(frozen=True)
class Changed:
    """What an edit or delete did: the memory, or the proposal that waits for a moderator."""

    engram: Engram
    proposal: ModerationItem | None = None


def engram_change(*, tenant: Tenant, actor: Actor, engram: Engram, patch: EngramPatch) -> Changed:
    """An edit through the firewall and the tenant's rule for agents' changes: new content is
    screened (a ``reject`` is a 422 on ``content``, a ``redact`` rewrites it); an agent's edit
    under ``agent_changes: review``, or content the firewall holds, becomes a proposal for a
    moderator; content it flags is applied and queued."""
    settings = moderation.settings_of(tenant)
    changes = dict(patch.changes)
    verdict = None
    # new words from an agent fall under the write policy of the network (or key, or tenant)
    policy = moderation.write_policy(settings, actor, engram.network)
    if isinstance(changes.get("content"), str):  # null content is the patch's to refuse
        verdict = moderation.screen(settings, policy, changes["content"])
        if verdict.content != changes["content"]:
            changes["content"] = verdict.content
            changes.pop("schema", None)  # derived again from the redacted text
    if moderation.proposes(settings, actor) or (verdict is not None and verdict.hold):
        with transaction.atomic():
            item = moderation.propose(
                tenant=tenant,
                actor=actor,
                engram=engram,
                kind=ModerationItem.Kind.EDIT,
                proposed=_as_json(changes),
                verdict=verdict,
            )
        return Changed(engram, item)
    with transaction.atomic():
        changed = engram_update(
            tenant=tenant, actor=actor, engram=engram, patch=validated(EngramPatch, changes)
        )
        if verdict is not None and verdict.queue:
            moderation.queue_items(
                tenant=tenant, network=changed.network, actor=actor, entries=[(changed, verdict)]
            )
    return Changed(changed)


def engram_remove(*, tenant: Tenant, actor: Actor, engram: Engram) -> Changed:
    """A delete, or, for an agent under ``agent_changes: review``, a proposal to delete."""
    settings = moderation.settings_of(tenant)
    if moderation.proposes(settings, actor) and engram.status not in lifecycle.GONE:
        with transaction.atomic():
            item = moderation.propose(
                tenant=tenant,
                actor=actor,
                engram=engram,
                kind=ModerationItem.Kind.DELETE,
                proposed={},
                verdict=None,
            )
        return Changed(engram, item)
    return Changed(engram_delete(tenant=tenant, actor=actor, engram=engram))


def _as_json(changes: dict[str, Any]) -> dict[str, Any]:
    return {k: v.isoformat() if isinstance(v, datetime) else v for k, v in changes.items()}


def engram_update(*, tenant: Tenant, actor: Actor, engram: Engram, patch: EngramPatch) -> Engram:
    """Change some fields. New content or schema re-files the engram under its new cues: the old
    edges are weakened, the new ones reinforced, and the embedding is recomputed."""
    return atomic_with_retry(lambda: _update(tenant, actor, engram, patch))


def _update(tenant: Tenant, actor: Actor, engram: Engram, patch: EngramPatch) -> Engram:
    locked = (
        Engram.objects.select_for_update(of=("self",))  # the engram, not its network
        .select_related("network")
        .get(tenant=tenant, pk=engram.pk)
    )
    if locked.status in lifecycle.GONE:
        raise Conflict("This memory was deleted; it cannot be edited.")
    before = lifecycle.snapshot(locked)
    network = locked.network
    lifecycle.rewrite(network, locked, patch.changes, activate=False, now=timezone.now())
    after = lifecycle.snapshot(locked)
    if after != before:
        live.publish(
            tenant.pk,
            {"type": "changed", "network": network.key, "engram": live.engram_summary(locked)},
        )
        entry = lifecycle.entry(
            "engram.update",
            locked,
            before={k: v for k, v in before.items() if after[k] != v},
            after={k: v for k, v in after.items() if before[k] != v},
        )
        audit_records(tenant_id=tenant.pk, actor=actor, entries=[entry])
    return locked


def engram_delete(*, tenant: Tenant, actor: Actor, engram: Engram) -> Engram:
    """Soft delete: the engram leaves recall and the graph (edges weakened, cue counts lowered);
    the row and its history stay."""
    with transaction.atomic():
        locked = (
            Engram.objects.select_for_update(of=("self",))  # the engram, not its network
            .select_related("network")
            .get(tenant=tenant, pk=engram.pk)
        )
        if locked.status == Engram.Status.DELETED:
            return locked
        if locked.status == Engram.Status.ERASED:
            raise Conflict("This memory was erased; there is nothing left to delete.")
        was = lifecycle.delete(locked.network, locked, timezone.now())
        live.publish(
            tenant.pk,
            {
                "type": "deleted",
                "network": locked.network.key,
                "engram": live.engram_summary(locked),
            },
        )
        entry = lifecycle.entry(
            "engram.delete", locked, before={"status": was}, after={"status": locked.status}
        )
        audit_records(tenant_id=tenant.pk, actor=actor, entries=[entry])
    return locked


BULK_MAX = 500
BULK_ACTIONS = ("delete", "retype")


def engrams_bulk(
    *, tenant: Tenant, actor: Actor, engrams: list[Engram], action: str, type: str = ""
) -> int:
    """Delete or retype many engrams at once, each audited like a single change; all or none."""
    if len(engrams) > BULK_MAX:
        raise ValidationFailed.field("ids", f"at most {BULK_MAX} at once")
    if action not in BULK_ACTIONS:
        raise ValidationFailed.field("action", "delete or retype")
    patch = validated(EngramPatch, {"type": type or "-"}) if action == "retype" else None
    needed = Capability.MEMORY_DELETE if action == "delete" else Capability.MEMORY_EDIT
    if not actor_allows(actor, needed):
        raise PermissionDenied("Your role cannot do this to memories here.")
    changed = 0
    with transaction.atomic():
        for engram in sorted(engrams, key=lambda e: e.pk):  # one lock order for every caller
            if patch is None:
                if engram.status != Engram.Status.DELETED:
                    engram_delete(tenant=tenant, actor=actor, engram=engram)
                    changed += 1
            elif engram.type != patch.type and engram.status not in lifecycle.GONE:
                engram_update(tenant=tenant, actor=actor, engram=engram, patch=patch)
                changed += 1
    return changed
