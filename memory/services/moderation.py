"""Moderation: who decides what happens to a write, what the firewall says about it, and the
queue a person works through.

**Write policy** (``memory.models.WritePolicy``) applies to agents' writes (API keys, over REST
and MCP): ``auto`` keeps a memory at once, ``review`` keeps it and queues it for a person to
confirm, ``quarantine`` holds it — never recalled, primed, exported or shown to agents — until a
person approves. The first one set among the network, the key and the tenant decides (the most
specific to the data first); a person's own writes in the dashboard are theirs to decide.

**Firewall** (``memory.firewall``) runs on every write, people's too: each hit's action comes
from the tenant's settings, by detector, then by family, then the defaults (secrets and
injection quarantine, personal data flag). ``reject`` refuses the write (422, the field and the
detector named); ``redact`` stores the text with the span replaced; ``quarantine`` holds the
memory; ``flag`` keeps it and queues it; ``allow`` does nothing.

Tenant settings live in ``Tenant.settings["moderation"]``: ``{"write_policy", "agent_changes",
"firewall": {family or detector: action}}``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db import transaction

from audit.actors import Actor
from audit.services import AuditEntry, audit_records
from base.errors import NotFound, PermissionDenied, Unprocessable, ValidationFailed
from memory import firewall, live
from memory.firewall import FAMILIES, Hit
from memory.models import Engram, ModerationItem, Network, WritePolicy
from memory.services.maintenance import QUARANTINE_DAYS
from tenants.models import ApiKey, Tenant
from tenants.permissions import Capability, actor_allows

ACTIONS = ("allow", "flag", "redact", "quarantine", "reject")  # in rising severity
DEFAULT_ACTIONS = {"secret": "quarantine", "injection": "quarantine", "personal": "flag"}
SEVERITY = {action: rank for rank, action in enumerate(ACTIONS)}
FAMILY_NAMES = {
    "secret": "a secret",
    "personal": "personal data",
    "injection": "a prompt injection",
}


@dataclass(frozen=True)
class Settings:
    write_policy: str = WritePolicy.AUTO
    agent_changes: str = WritePolicy.AUTO  # agents' edits and deletes: auto, or review
    actions: dict[str, str] = field(default_factory=dict)  # {family or detector: action}

    def action_for(self, hit: Hit) -> str:
        return self.actions.get(
            hit.detector, self.actions.get(hit.family, DEFAULT_ACTIONS[hit.family])
        )


def settings_of(tenant: Tenant) -> Settings:
    raw = (tenant.settings or {}).get("moderation") or {}
    return Settings(
        write_policy=raw.get("write_policy") or WritePolicy.AUTO,
        agent_changes=raw.get("agent_changes") or WritePolicy.AUTO,
        actions=dict(raw.get("firewall") or {}),
    )


def write_policy(settings: Settings, actor: Actor, network: Network) -> str:
    """The policy an actor's write into ``network`` falls under."""
    if actor.kind != "api_key":
        return WritePolicy.AUTO
    return network.write_policy or actor.write_policy or settings.write_policy


@dataclass(frozen=True)
class Verdict:
    """What the firewall and the policy say about one text about to be stored."""

    content: str  # as it will be stored (redacted where the policy says so)
    hits: tuple[Hit, ...]  # on the stored content; hits whose action is "allow" left out
    redacted: tuple[str, ...]  # detectors whose spans were replaced
    action: str  # the strongest of the hits' actions and the write policy
    policy: str

    @property
    def hold(self) -> bool:
        """Kept out of agents' sight until a person approves."""
        return self.action == "quarantine" or self.policy == WritePolicy.QUARANTINE

    @property
    def queue(self) -> bool:
        return self.hold or self.action == "flag" or self.policy == WritePolicy.REVIEW

    @property
    def reason(self) -> str:
        return ModerationItem.Reason.FIREWALL if self.hits else ModerationItem.Reason.POLICY

    def spans(self) -> list[dict[str, Any]]:
        return [hit.as_dict() for hit in self.hits]


def screen(settings: Settings, policy: str, text: str) -> Verdict:
    """The verdict on ``text``; raises ``Unprocessable`` when a hit's action is ``reject``
    (field ``content``; callers re-raise with the item's path)."""
    hits = firewall.scan(text)
    acted = [(hit, settings.action_for(hit)) for hit in hits]
    for hit, action in acted:
        if action == "reject":
            raise Unprocessable(
                f"content: holds {FAMILY_NAMES[hit.family]} ({hit.detector}); "
                "this workspace refuses such memories",
                fields={"content": f"rejected by the firewall: {hit.detector}"},
                code="firewall_rejected",
            )
    to_redact = [hit for hit, action in acted if action == "redact"]
    content = firewall.redact(text, to_redact) if to_redact else text
    if to_redact:  # the spans of what is left, on the text that will be stored
        acted = [(hit, settings.action_for(hit)) for hit in firewall.scan(content)]
    kept = tuple(hit for hit, action in acted if action not in ("allow", "redact"))
    strongest = max(
        (settings.action_for(hit) for hit in kept), key=lambda a: SEVERITY[a], default="allow"
    )
    return Verdict(
        content=content,
        hits=kept,
        redacted=tuple(sorted({hit.detector for hit in to_redact})),
        action=strongest,
        policy=policy,
    )


def author_of(actor: Actor) -> dict[str, Any]:
    return {"kind": actor.kind, "id": actor.id, "label": actor.label}


def queue_items(
    *, tenant: Tenant, network: Network, actor: Actor, entries: list[tuple[Engram, Verdict]]
) -> list[ModerationItem]:
    """One pending item per queued write, in one statement."""
    items = [
        ModerationItem(
            tenant=tenant,
            network=network,
            engram=engram,
            kind=ModerationItem.Kind.WRITE,
            reason=verdict.reason,
            held=verdict.hold,
            hits=verdict.spans(),
            note="" if verdict.hits else f"write policy: {verdict.policy}",
            author=author_of(actor),
        )
        for engram, verdict in entries
        if verdict.queue
    ]
    if not items:
        return []
    created = ModerationItem.objects.bulk_create(items)
    pending = ModerationItem.objects.filter(tenant=tenant, state="pending").count()
    live.publish(tenant.pk, {"type": "moderation", "pending": pending})
    return created


def proposes(settings: Settings, actor: Actor) -> bool:
    """An agent's edits and deletes wait for a person (the tenant's ``agent_changes``); an
    admin key is a moderator's and decides itself."""
    return (
        actor.kind == "api_key"
        and "admin" not in actor.scopes
        and settings.agent_changes == WritePolicy.REVIEW
    )


def propose(
    *,
    tenant: Tenant,
    actor: Actor,
    engram: Engram,
    kind: str,
    proposed: dict[str, Any],
    verdict: Verdict | None,
) -> ModerationItem:
    """An edit or delete that waits for a moderator; the memory stays as it is."""
    item = ModerationItem.objects.create(
        tenant=tenant,
        network=engram.network,
        engram=engram,
        kind=kind,
        reason=ModerationItem.Reason.FIREWALL
        if verdict is not None and verdict.hits
        else ModerationItem.Reason.POLICY,
        held=verdict is not None and verdict.hold,
        hits=verdict.spans() if verdict is not None else [],
        proposed=proposed,
        note="" if verdict is not None and verdict.hits else "agent changes: review",
        author=author_of(actor),
    )
    pending = ModerationItem.objects.filter(tenant=tenant, state="pending").count()
    live.publish(tenant.pk, {"type": "moderation", "pending": pending})
    return item


# --- the policy, as admins set it --------------------------------------------------------------


@dataclass(frozen=True)
class Policy:
    settings: Settings
    networks: dict[str, str]
    keys: dict[str, str]
    quarantine_days: int
    retention: dict[str, int]


def policy_of(tenant: Tenant) -> Policy:
    networks = dict(
        Network.objects.filter(tenant=tenant)
        .exclude(write_policy="")
        .values_list("key", "write_policy")
    )
    keys = {
        str(pk): policy
        for pk, policy in ApiKey.objects.filter(tenant=tenant)
        .exclude(write_policy="")
        .values_list("pk", "write_policy")
    }
    retention = dict(
        Network.objects.filter(tenant=tenant, retention_days__isnull=False).values_list(
            "key", "retention_days"
        )
    )
    raw = (tenant.settings or {}).get("moderation") or {}
    return Policy(
        settings_of(tenant),
        networks,
        keys,
        int(raw.get("quarantine_days") or QUARANTINE_DAYS),
        {key: int(days or 0) for key, days in retention.items()},
    )


def effective_actions(settings: Settings) -> dict[str, str]:
    """The action of every family and detector, as a write would meet it."""
    out = {family: settings.actions.get(family, DEFAULT_ACTIONS[family]) for family in FAMILIES}
    for detector, family in firewall.detectors().items():
        out[detector] = settings.actions.get(detector, out[family])
    return out


def policy_update(*, tenant: Tenant, actor: Actor, changes: dict[str, Any]) -> Policy:
    """Apply an admin's changes (memory.contracts.PolicyIn, as sent), audited before/after."""
    if not actor_allows(actor, Capability.MODERATION_SETTINGS):
        raise PermissionDenied("Only admins and owners set the moderation policy.")
    known = {*FAMILIES, *firewall.detectors()}
    unknown = sorted(set(changes.get("firewall") or {}) - known)
    if unknown:
        raise ValidationFailed.field(
            "firewall", f"no such family or detector: {', '.join(unknown)}"
        )
    with transaction.atomic():
        tenant = Tenant.objects.select_for_update().get(pk=tenant.pk)
        before = policy_of(tenant)
        raw = dict((tenant.settings or {}).get("moderation") or {})
        for name in ("write_policy", "agent_changes", "quarantine_days"):
            if changes.get(name):
                raw[name] = changes[name]
        if changes.get("firewall") is not None:
            actions = dict(raw.get("firewall") or {})
            for name, action in changes["firewall"].items():
                if action:
                    actions[name] = action
                else:
                    actions.pop(name, None)
            raw["firewall"] = actions
        tenant.settings = {**(tenant.settings or {}), "moderation": raw}
        tenant.save(update_fields=["settings"])
        for key, policy in (changes.get("networks") or {}).items():
            network = Network.objects.filter(tenant=tenant, key=key).first()
            if network is None:
                raise NotFound(f"There is no network {key!r} in this workspace.")
            network.write_policy = policy
            network.save(update_fields=["write_policy"])
        for key, days in (changes.get("retention_days") or {}).items():
            network = Network.objects.filter(tenant=tenant, key=key).first()
            if network is None:
                raise NotFound(f"There is no network {key!r} in this workspace.")
            network.retention_days = days or None
            network.save(update_fields=["retention_days"])
        for key_id, policy in (changes.get("keys") or {}).items():
            found = (
                ApiKey.objects.filter(tenant=tenant, pk=int(key_id)).update(write_policy=policy)
                if key_id.isdigit()
                else 0
            )
            if not found:
                raise NotFound(f"There is no API key {key_id} in this workspace.")
        after = policy_of(tenant)
        audit_records(
            tenant_id=tenant.pk,
            actor=actor,
            entries=[
                AuditEntry(
                    verb="moderation.policy",
                    target_type="tenant",
                    target_id=tenant.pk,
                    target_label=tenant.slug,
                    before=_policy_dict(before),
                    after=_policy_dict(after),
                )
            ],
        )
    return after


def _policy_dict(policy: Policy) -> dict[str, Any]:
    return {
        "write_policy": policy.settings.write_policy,
        "agent_changes": policy.settings.agent_changes,
        "firewall": policy.settings.actions,
        "networks": policy.networks,
        "keys": policy.keys,
        "quarantine_days": policy.quarantine_days,
        "retention_days": policy.retention,
    }
