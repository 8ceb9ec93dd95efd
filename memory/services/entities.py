"""Entities: resolution of a written name to one entity per network, and people's corrections
(merge two into one, split written forms off into a new one), each audited.

Resolution goes through aliases by key (``memory.core.knowledge.entity_key``): "Maya's" finds
Maya, "Project Falcon" finds Falcon. A merged entity keeps pointing at its survivor, so an id
handed out before the merge still leads somewhere.
"""

from __future__ import annotations

from collections import Counter

from django.db import connection
from django.db.models import F
from django.utils import timezone

from audit.actors import Actor
from audit.services import audit_record
from base.db import atomic_with_retry
from base.errors import Conflict, PermissionDenied, ValidationFailed
from memory.core.knowledge import entity_key
from memory.models import Entity, EntityAlias, EntityMention, Fact, Network
from tenants.permissions import Capability, actor_allows

# a kind the rules are sure of wins over "thing"; otherwise the first one stays
KIND_RANK = {"thing": 0, "project": 1, "place": 2, "organisation": 2, "person": 3}
KIND_RANK.update({"email": 4, "handle": 4})


def clean_name(name: str) -> str:
    return name.strip().removesuffix("'s").removesuffix("’s").strip()[:200]


def _survivor(entity: Entity) -> Entity:
    seen = set()
    while entity.merged_into_id is not None and entity.pk not in seen:
        seen.add(entity.pk)
        entity = Entity.objects.get(pk=entity.merged_into_id)
    return entity


def entity_resolve(*, network: Network, name: str, kind: str = "thing") -> Entity:
    """The entity ``name`` means in ``network``, created (with its alias) when new; a more
    specific kind than the stored one is taken. Inside the caller's transaction."""
    written = clean_name(name)
    key = entity_key(written)
    if not key:
        raise ValidationFailed.field("name", "an entity needs a name")
    aliases = EntityAlias.objects.filter(tenant_id=network.tenant_id, network=network)
    # the form as written first (after a split, "Falcon" and "Project Falcon" may be two),
    # then any form with its key
    alias = (
        aliases.filter(alias=written).select_related("entity").first()
        or aliases.filter(key=key).select_related("entity").order_by("id").first()
    )
    if alias is not None:
        entity = _survivor(alias.entity)
        if KIND_RANK.get(kind, 0) > KIND_RANK.get(entity.kind, 0):
            Entity.objects.filter(pk=entity.pk).update(kind=kind)
            entity.kind = kind
        _alias_add(network, entity, written, key)
        return entity
    entity = Entity.objects.create(
        tenant_id=network.tenant_id, network=network, name=written, kind=kind
    )
    _alias_add(network, entity, written, key)
    winner = aliases.filter(alias=written).values_list("entity_id", flat=True).get()
    if winner != entity.pk:  # another worker named it first: theirs is the one
        entity.delete()
        entity = _survivor(Entity.objects.get(pk=winner))
    return entity


def _alias_add(network: Network, entity: Entity, written: str, key: str) -> None:
    row = EntityAlias(
        tenant_id=network.tenant_id, network=network, entity=entity, alias=written, key=key
    )
    EntityAlias.objects.bulk_create([row], ignore_conflicts=True)


class Names:
    """``entity_resolve`` with a memory, for one transaction (an extraction batch): a name once
    resolved is not looked up again, unless a surer kind is named. ``forget`` after a rolled
    back savepoint (what it created may be gone)."""

    def __init__(self, network: Network) -> None:
        self.network = network
        self._known: dict[str, Entity] = {}

    def resolve(self, name: str, kind: str = "thing") -> Entity:
        written = clean_name(name)
        known = self._known.get(written)
        if known is not None and KIND_RANK.get(kind, 0) <= KIND_RANK.get(known.kind, 0):
            return known
        entity = entity_resolve(network=self.network, name=name, kind=kind)
        self._known[written] = entity
        return entity

    def forget(self) -> None:
        self._known.clear()


MENTIONS_INSERT = """
    INSERT INTO memory_entitymention
        (tenant_id, entity_id, engram_id, episode_id, name, start, "end")
    SELECT * FROM unnest(%s::bigint[], %s::bigint[], %s::bigint[], %s::bigint[], %s::text[],
                         %s::int[], %s::int[])
    ON CONFLICT DO NOTHING
    RETURNING entity_id
"""


def mentions_add(*, rows: list[EntityMention]) -> Counter[int]:
    """Link engrams' spans to their entities in one statement; a span already linked (a shared
    engram, a re-read) is not counted again. Returns the mentions added per entity id (an
    episode is read once per extractor version, so redeliveries do not inflate the counts)."""
    if not rows:
        return Counter()
    columns = (
        [r.tenant_id for r in rows],
        [r.entity_id for r in rows],
        [r.engram_id for r in rows],
        [r.episode_id for r in rows],
        [r.name for r in rows],
        [r.start for r in rows],
        [r.end for r in rows],
    )
    with connection.cursor() as cursor:
        cursor.execute(MENTIONS_INSERT, columns)
        added = Counter(entity_id for (entity_id,) in cursor.fetchall())
    now = timezone.now()
    for entity_id, count in added.items():
        Entity.objects.filter(pk=entity_id).update(mentions=F("mentions") + count, updated_at=now)
    return added


def _require_edit(actor: Actor) -> None:
    if not actor_allows(actor, Capability.MEMORY_EDIT):
        raise PermissionDenied("correcting entities needs a write key or a member's account")


def entity_merge(*, actor: Actor, entity: Entity, into: Entity) -> Entity:
    """``entity`` becomes part of ``into``: its aliases, mentions and facts move over."""
    _require_edit(actor)
    if entity.pk == into.pk:
        raise ValidationFailed.field("into", "an entity cannot be merged into itself")
    if entity.network_id != into.network_id:
        raise ValidationFailed.field("into", "both entities must be in the same network")
    if entity.merged_into_id is not None or into.merged_into_id is not None:
        raise Conflict("merged entities cannot be merged again: use the one they became")

    def work() -> Entity:
        tenant_id = entity.tenant_id
        locked = list(
            Entity.objects.select_for_update().filter(pk__in=[entity.pk, into.pk]).order_by("pk")
        )
        if len(locked) != 2 or any(e.merged_into_id is not None for e in locked):
            raise Conflict("merged entities cannot be merged again: use the one they became")
        EntityAlias.objects.filter(tenant_id=tenant_id, entity=entity).update(entity=into)
        moved = EntityMention.objects.filter(tenant_id=tenant_id, entity=entity).update(entity=into)
        _move_facts(entity, into)
        Fact.objects.filter(tenant_id=tenant_id, object_entity=entity).update(object_entity=into)
        Entity.objects.filter(pk=entity.pk).update(merged_into=into, mentions=0)
        Entity.objects.filter(pk=into.pk).update(mentions=F("mentions") + moved)
        audit_record(
            tenant_id=tenant_id,
            actor=actor,
            verb="entity.merge",
            target=into,
            target_label=into.name,
            before={"merged": entity.pk, "name": entity.name},
            after={"into": into.pk},
        )
        into.refresh_from_db()
        return into

    return atomic_with_retry(work)


def _move_facts(entity: Entity, into: Entity) -> None:
    """Facts about ``entity`` become facts about ``into``; where both hold a current value of
    one slot, the older one is superseded by the newer (the unique current-per-slot rule)."""
    tenant_id = entity.tenant_id
    current = {
        f.slot: f for f in Fact.objects.filter(tenant_id=tenant_id, subject=into, status="current")
    }
    for fact in Fact.objects.filter(tenant_id=tenant_id, subject=entity, status="current"):
        other = current.get(fact.slot)
        if other is None:
            continue
        older, newer = sorted((fact, other), key=lambda f: (f.valid_from or f.created_at, f.pk))
        Fact.objects.filter(pk=older.pk).update(
            status="superseded", valid_to=newer.valid_from or timezone.now()
        )
        if newer.supersedes_id is None:
            Fact.objects.filter(pk=newer.pk).update(supersedes=older)
    Fact.objects.filter(tenant_id=tenant_id, subject=entity).update(subject=into)


def entity_split(*, actor: Actor, entity: Entity, aliases: list[str], name: str | None) -> Entity:
    """The written forms ``aliases`` leave ``entity`` for a new one, with the mentions and the
    facts written under them."""
    _require_edit(actor)
    wanted = {clean_name(a) for a in aliases}
    owned = set(
        EntityAlias.objects.filter(tenant_id=entity.tenant_id, entity=entity).values_list(
            "alias", flat=True
        )
    )
    missing = sorted(wanted - owned)
    if missing:
        raise ValidationFailed.field("aliases", f"not aliases of this entity: {', '.join(missing)}")
    if wanted == owned:
        raise ValidationFailed.field("aliases", "leave at least one alias to the entity")

    def work() -> Entity:
        tenant_id = entity.tenant_id
        new = Entity.objects.create(
            tenant_id=tenant_id,
            network_id=entity.network_id,
            name=clean_name(name or sorted(wanted)[0]),
            kind=entity.kind,
        )
        EntityAlias.objects.filter(tenant_id=tenant_id, entity=entity, alias__in=wanted).update(
            entity=new
        )
        moved = EntityMention.objects.filter(
            tenant_id=tenant_id, entity=entity, name__in=wanted
        ).update(entity=new)
        Fact.objects.filter(tenant_id=tenant_id, subject=entity, subject_name__in=wanted).update(
            subject=new
        )
        Entity.objects.filter(pk=new.pk).update(mentions=moved)
        Entity.objects.filter(pk=entity.pk).update(mentions=F("mentions") - moved)
        audit_record(
            tenant_id=tenant_id,
            actor=actor,
            verb="entity.split",
            target=new,
            target_label=new.name,
            before={"from": entity.pk},
            after={"aliases": sorted(wanted)},
        )
        new.refresh_from_db()
        return new

    return atomic_with_retry(work)
