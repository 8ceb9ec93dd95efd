"""The moderation queue's decisions, readers' flags, and restoring memories.

A moderator, admin or owner (or an admin key) decides on an item — approve, reject, redact,
hide, restore — with a note; every decision is one audit row on the memory, and what it does
to the memory (into the graph, out of it, rewritten) is memory.services.lifecycle's to say.
Anyone who may read may flag a memory: it stays as it is and a pending item says why.
Secrets never reach the audit log: a redaction records the content's hash before, and the
redacted text after.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone

from audit.actors import Actor
from audit.services import AuditEntry, audit_records
from base.errors import Conflict, PermissionDenied, ValidationFailed
from memory import firewall, live
from memory.contracts import Span
from memory.firewall import Hit
from memory.models import Engram, ModerationItem
from memory.selectors import pending_moderation_count
from memory.services import lifecycle
from memory.services.extraction import episodes_release
from memory.services.moderation import author_of
from tenants.models import Tenant
from tenants.permissions import Capability, actor_allows

State = ModerationItem.State
Status = Engram.Status
# what each decision leaves the item as
OUTCOME = {
    "approve": State.APPROVED,
    "reject": State.REJECTED,
    "redact": State.REDACTED,
    "hide": State.HIDDEN,
    "restore": State.RESTORED,
}


def _require(actor: Actor, capability: Capability) -> None:
    if not actor_allows(actor, capability):
        raise PermissionDenied("Your role cannot moderate memories here.")


def item_decide(
    *,
    tenant: Tenant,
    actor: Actor,
    item: ModerationItem,
    action: str,
    note: str = "",
    redactions: Sequence[Span] | None = None,
) -> ModerationItem:
    """Decide on one item (pending; a decided item may only be restored)."""
    _require(actor, Capability.MEMORY_MODERATE)
    with transaction.atomic():
        decided = _decide(tenant, actor, item.pk, action, note, redactions)
    _announce(tenant)
    return decided


def items_decide(
    *, tenant: Tenant, actor: Actor, items: Sequence[ModerationItem], action: str, note: str = ""
) -> list[ModerationItem]:
    """The same decision on many items, all or none, in one lock order."""
    _require(actor, Capability.MEMORY_MODERATE)
    with transaction.atomic():
        decided = [
            _decide(tenant, actor, pk, action, note, None)
            for pk in sorted({item.pk for item in items})
        ]
    _announce(tenant)
    return decided


def _decide(
    tenant: Tenant,
    actor: Actor,
    pk: int,
    action: str,
    note: str,
    redactions: Sequence[Span] | None,
) -> ModerationItem:
    if action not in OUTCOME:
        raise ValidationFailed.field("action", "approve, reject, redact, hide or restore")
    # one lock order everywhere (restore, erasure, retention): the memory, then its items
    engram_id = (
        ModerationItem.objects.filter(tenant=tenant, pk=pk)
        .values_list("engram_id", flat=True)
        .get()
    )
    engram = None
    if engram_id is not None:
        engram = (
            Engram.objects.select_for_update(of=("self",))
            .select_related("network")
            .filter(tenant=tenant, pk=engram_id)
            .first()
        )
    item = (
        ModerationItem.objects.select_for_update(of=("self",))
        .select_related("network")
        .get(tenant=tenant, pk=pk)
    )
    if item.state != State.PENDING and action != "restore":
        raise Conflict(f"Moderation item {pk} was already decided ({item.state}).")
    if engram is None or engram.status == Status.ERASED:
        raise Conflict(f"The memory of moderation item {pk} is gone (erased).")
    now = timezone.now()
    before: dict[str, Any] = {"status": engram.status}
    after: dict[str, Any] = {}
    network = engram.network
    if item.kind in (ModerationItem.Kind.EDIT, ModerationItem.Kind.DELETE) and action in (
        "approve",
        "reject",
    ):
        if action == "approve" and item.kind == ModerationItem.Kind.DELETE:
            if engram.status not in lifecycle.GONE:
                lifecycle.delete(network, engram, now)
        elif action == "approve":
            if engram.status in lifecycle.GONE:
                raise Conflict("The memory was deleted since; the edit cannot be applied.")
            lifecycle.rewrite(network, engram, item.proposed, activate=False, now=now)
            after["fields"] = sorted(item.proposed)  # the values may hold what was held
        # reject: the proposal is turned down, the memory stays as it is
    elif action == "approve":
        if engram.status == Status.QUARANTINED:
            lifecycle.enter(network, engram, now)
    elif action == "reject":
        if engram.status not in lifecycle.GONE:
            lifecycle.delete(network, engram, now)
    elif action == "hide":
        if engram.status != Status.HIDDEN:
            lifecycle.hide(network, engram, now)
    elif action == "restore":
        lifecycle.enter(network, engram, now)
    else:
        if engram.status in lifecycle.GONE:
            raise Conflict("This memory was deleted; restore it before redacting.")
        before["content_hash"] = engram.content_hash  # never the text: it holds the secret
        content = _redacted(engram.content, item, redactions)
        lifecycle.rewrite(network, engram, {"content": content}, activate=True, now=now)
        after["content"] = engram.content
    after["status"] = engram.status
    episodes_release(tenant=tenant, engram=engram, redacted=action == "redact")
    if note:
        after["note"] = note
    item.state = OUTCOME[action]
    item.decided_at = now
    item.decided_by = author_of(actor)
    item.decision_note = note
    item.save(update_fields=["state", "decided_at", "decided_by", "decision_note"])
    entry = AuditEntry(
        verb=f"moderation.{action}",
        target_type="engram",
        target_id=engram.pk,
        target_label=f"moderation item {item.pk}",
        before=before,
        after=after,
        subject=f"engram:{engram.pk}",
    )
    audit_records(tenant_id=tenant.pk, actor=actor, entries=[entry])
    return item


def _redacted(content: str, item: ModerationItem, spans: Sequence[Span] | None) -> str:
    """``content`` with the given spans (clipped to the memory's end) replaced, or, with none,
    the firewall's hits on it now. Spans that all fall outside the memory, or a memory where
    the firewall finds nothing, are a conflict with what the memory holds (409)."""
    asked = list(spans or ())
    inside = [
        (span.start, min(span.end, len(content)))
        for span in asked
        if min(span.end, len(content)) > span.start
    ]
    if asked and not inside:
        raise Conflict(
            f"The spans to redact lie outside this memory ({len(content)} characters).",
            fields={"redactions": f"spans within 0-{len(content)}"},
        )
    if inside:
        hits = [Hit("moderator", "redaction", start, end, 1.0) for start, end in inside]
    else:
        hits = firewall.scan(content)
        if not hits:  # the memory as it stands has nothing to redact: a conflict, not bad input
            raise Conflict(
                "The firewall finds nothing to redact in this memory: name the spans to redact.",
                fields={"redactions": "name the spans to redact"},
            )
    return firewall.redact(content, hits)


def engram_flag(*, tenant: Tenant, actor: Actor, engram: Engram, reason: str) -> ModerationItem:
    """A reader says something is wrong with a memory: it stays as it is, and a pending item
    (with what the firewall finds in it, if anything) waits for a moderator. One pending flag
    per memory and author."""
    _require_flag(actor)
    with transaction.atomic():
        author = author_of(actor)
        existing = ModerationItem.objects.filter(
            tenant=tenant,
            engram=engram,
            kind=ModerationItem.Kind.FLAG,
            state=State.PENDING,
            author=author,
        ).first()
        if existing is not None:
            return existing
        item = ModerationItem.objects.create(
            tenant=tenant,
            network=engram.network,
            engram=engram,
            kind=ModerationItem.Kind.FLAG,
            reason=ModerationItem.Reason.FLAG,
            hits=[hit.as_dict() for hit in firewall.scan(engram.content)],
            note=reason,
            author=author,
        )
        entry = lifecycle.entry("engram.flag", engram, after={"reason": reason})
        audit_records(tenant_id=tenant.pk, actor=actor, entries=[entry])
    _announce(tenant)
    return item


def _require_flag(actor: Actor) -> None:
    if not actor_allows(actor, Capability.MEMORY_FLAG):
        raise PermissionDenied("Your role cannot flag memories here.")


def engram_restore(*, tenant: Tenant, actor: Actor, engram: Engram) -> Engram:
    """Bring a held, hidden or deleted memory back (an erased one is gone for good); its pending
    items are closed as restored."""
    _require(actor, Capability.MEMORY_MODERATE)
    with transaction.atomic():
        locked = (
            Engram.objects.select_for_update(of=("self",))
            .select_related("network")
            .get(tenant=tenant, pk=engram.pk)
        )
        if locked.status == Status.ERASED:
            raise Conflict("This memory was erased; it cannot come back.")
        was = lifecycle.enter(locked.network, locked, timezone.now())
        if was == Status.ACTIVE:
            return locked  # nothing to bring back; its pending items stay for a decision
        ModerationItem.objects.filter(tenant=tenant, engram=locked, state=State.PENDING).update(
            state=State.RESTORED, decided_at=timezone.now(), decided_by=author_of(actor)
        )
        episodes_release(tenant=tenant, engram=locked)
        if was != Status.ACTIVE:
            entry = lifecycle.entry(
                "engram.restore", locked, before={"status": was}, after={"status": locked.status}
            )
            audit_records(tenant_id=tenant.pk, actor=actor, entries=[entry])
    _announce(tenant)
    return locked


def _announce(tenant: Tenant) -> None:
    """Open dashboards update their queue badge (after commit)."""
    live.publish(
        tenant.pk, {"type": "moderation", "pending": pending_moderation_count(tenant=tenant)}
    )
