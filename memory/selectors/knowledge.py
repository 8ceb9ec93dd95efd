"""Tenant-scoped reads of knowledge: jobs, facts (as of a time), entities and their aliases,
skills with their versions and runs."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q, QuerySet

from base.errors import NotFound
from memory.core.knowledge import entity_key
from memory.core.text import content_lemmas
from memory.models import (
    Entity,
    EntityAlias,
    EntityMention,
    Episode,
    Fact,
    FactEvidence,
    Job,
    Network,
    Skill,
    SkillEvidence,
)
from tenants.models import Tenant


def job_get_for_tenant(*, tenant: Tenant, id: int) -> Job:
    job = Job.objects.filter(tenant=tenant, pk=id).select_related("network").first()
    if job is None:
        raise NotFound(f"no job {id} in this workspace")
    return job


def entity_get_for_tenant(*, tenant: Tenant, id: int) -> Entity:
    entity = Entity.objects.filter(tenant=tenant, pk=id).select_related("network").first()
    if entity is None:
        raise NotFound(f"no entity {id} in this workspace")
    return entity


def fact_get_for_tenant(*, tenant: Tenant, id: int) -> Fact:
    fact = Fact.objects.filter(tenant=tenant, pk=id).select_related("network", "subject").first()
    if fact is None:
        raise NotFound(f"no fact {id} in this workspace")
    return fact


def entities_named(*, tenant: Tenant, network: Network | None, name: str) -> list[int]:
    """The live entities a name resolves to (by its key, through every alias)."""
    rows = EntityAlias.objects.filter(tenant=tenant, key=entity_key(name))
    if network is not None:
        rows = rows.filter(network=network)
    return list(rows.values_list("entity_id", flat=True).distinct())


def facts_for_tenant(
    *,
    tenant: Tenant,
    network: Network | None,
    subject: str = "",
    slot: str = "",
    status: str = "current",
    at: datetime | None = None,
) -> QuerySet[Fact]:
    """Facts newest first; ``at``: those that held then (whatever their status now)."""
    facts = Fact.objects.filter(tenant=tenant).select_related("network", "subject")
    if network is not None:
        facts = facts.filter(network=network)
    if subject:
        facts = facts.filter(
            subject_id__in=entities_named(tenant=tenant, network=network, name=subject)
        )
    if slot:
        facts = facts.filter(Q(slot=slot) | Q(slot__startswith=f"{slot}:"))
    if at is not None:
        facts = facts.filter(Q(valid_from__isnull=True) | Q(valid_from__lte=at)).filter(
            Q(valid_to__isnull=True) | Q(valid_to__gt=at)
        )
    elif status != "any":
        facts = facts.filter(status=status)
    return facts.order_by("-created_at", "-id")


def fact_chain(*, fact: Fact) -> list[Fact]:
    """Every value the fact's subject had in its slot, oldest first."""
    return list(
        Fact.objects.filter(
            tenant_id=fact.tenant_id,
            network_id=fact.network_id,
            subject_id=fact.subject_id,
            slot=fact.slot,
        )
        .select_related("network", "subject")
        .order_by("valid_from", "created_at", "id")
    )


def fact_evidence(*, fact: Fact) -> list[FactEvidence]:
    return list(
        FactEvidence.objects.filter(tenant_id=fact.tenant_id, fact=fact)
        .select_related("episode", "engram")
        .order_by("said_at", "id")
    )


def entities_for_tenant(
    *, tenant: Tenant, network: Network | None, q: str = ""
) -> QuerySet[Entity]:
    rows = Entity.objects.filter(tenant=tenant, merged_into__isnull=True).select_related("network")
    if network is not None:
        rows = rows.filter(network=network)
    if q:
        rows = rows.filter(pk__in=entities_named(tenant=tenant, network=network, name=q))
    return rows.order_by("-created_at", "-id")


def aliases_of(*, tenant: Tenant, entities: list[Entity]) -> dict[int, list[EntityAlias]]:
    out: dict[int, list[EntityAlias]] = {entity.pk: [] for entity in entities}
    for alias in EntityAlias.objects.filter(tenant=tenant, entity_id__in=list(out)):
        out[alias.entity_id].append(alias)
    return out


def jobs_for_network(*, tenant: Tenant, network: Network, limit: int = 10) -> list[Job]:
    return list(
        Job.objects.filter(tenant=tenant, network=network).order_by("-created_at", "-id")[:limit]
    )


@dataclass(frozen=True)
class SlotTimeline:
    slot: str
    predicate: str
    values: list[Fact]  # oldest first; the last current one is the value now

    @property
    def current(self) -> Fact | None:
        return next((f for f in reversed(self.values) if f.status == Fact.Status.CURRENT), None)


@dataclass(frozen=True)
class SubjectFacts:
    subject: Entity
    slots: list[SlotTimeline]


def facts_by_subject(*, tenant: Tenant, network: Network, subjects: int = 30) -> list[SubjectFacts]:
    """The network's subjects with the most facts, each slot's values oldest first (a
    timeline: superseded values, then the current one)."""
    facts = list(
        Fact.objects.filter(tenant=tenant, network=network)
        .select_related("subject")
        .order_by("subject_id", "slot", "valid_from", "created_at", "id")[:2000]
    )
    grouped: dict[int, dict[str, list[Fact]]] = {}
    names: dict[int, Entity] = {}
    for fact in facts:
        names[fact.subject_id] = fact.subject
        grouped.setdefault(fact.subject_id, {}).setdefault(fact.slot, []).append(fact)
    ranked = sorted(grouped, key=lambda s: (-len(grouped[s]), names[s].name.lower()))
    return [
        SubjectFacts(
            subject=names[subject_id],
            slots=[
                SlotTimeline(slot=slot, predicate=values[-1].predicate, values=values)
                for slot, values in sorted(grouped[subject_id].items())
            ],
        )
        for subject_id in ranked[:subjects]
    ]


# --- skills ------------------------------------------------------------------------------


def skill_get_for_tenant(*, tenant: Tenant, id: int) -> Skill:
    skill = Skill.objects.filter(tenant=tenant, pk=id).select_related("network").first()
    if skill is None:
        raise NotFound(f"no skill {id} in this workspace")
    return skill


def skills_for_tenant(
    *, tenant: Tenant, network: Network | None, q: str = "", status: str = "current"
) -> QuerySet[Skill]:
    """Skills newest first; ``q``: those whose goal or steps name all of its words."""
    rows = Skill.objects.filter(tenant=tenant).select_related("network")
    if network is not None:
        rows = rows.filter(network=network)
    if status != "any":
        rows = rows.filter(status=status)
    if q:
        words = sorted(set(content_lemmas(q)))
        rows = rows.filter(terms__contains=words) if words else rows.none()
    return rows.order_by("-created_at", "-id")


def skill_versions(*, skill: Skill) -> list[Skill]:
    """Every version of the skill's goal, oldest first."""
    return list(
        Skill.objects.filter(tenant_id=skill.tenant_id, network_id=skill.network_id, key=skill.key)
        .select_related("network")
        .order_by("version", "id")
    )


def skill_evidence(*, skill: Skill, limit: int = 100) -> list[SkillEvidence]:
    """The runs, memories and reports the skill was learned from or told, newest first."""
    return list(
        SkillEvidence.objects.filter(tenant_id=skill.tenant_id, skill=skill).order_by(
            "-created_at", "-id"
        )[:limit]
    )


def skill_children(*, skill: Skill) -> list[Skill]:
    return list(
        Skill.objects.filter(tenant_id=skill.tenant_id, parent=skill, status="current").order_by(
            "goal", "id"
        )
    )


# --- an entity's and an episode's page ----------------------------------------------------


def entity_facts(*, entity: Entity) -> list[Fact]:
    """What is known about the entity, current values first."""
    return list(
        Fact.objects.filter(tenant_id=entity.tenant_id, subject=entity)
        .select_related("network", "subject")
        .order_by("status", "predicate", "-valid_from", "-id")[:200]
    )


def entity_mentions(*, entity: Entity, limit: int = 50) -> list[EntityMention]:
    return list(
        EntityMention.objects.filter(tenant_id=entity.tenant_id, entity=entity)
        .select_related("engram")
        .order_by("-engram_id", "start")[:limit]
    )


def episode_get_for_tenant(*, tenant: Tenant, id: int) -> Episode:
    episode = Episode.objects.filter(tenant=tenant, pk=id).select_related("network").first()
    if episode is None:
        raise NotFound(f"no episode {id} in this workspace")
    return episode


@dataclass(frozen=True)
class EpisodeReading:
    """What was read from one episode: the entities it names, the facts it stated, the skills
    whose runs it was part of."""

    mentions: list[EntityMention]
    facts: list[tuple[FactEvidence, Fact]]
    skills: list[Skill]


def episode_reading(*, episode: Episode) -> EpisodeReading:
    tenant_id = episode.tenant_id
    mentions = list(
        EntityMention.objects.filter(tenant_id=tenant_id, episode=episode)
        .select_related("entity")
        .order_by("start")
    )
    evidence = list(
        FactEvidence.objects.filter(tenant_id=tenant_id, episode=episode)
        .select_related("fact", "fact__subject")
        .order_by("start", "id")
    )
    runs = SkillEvidence.objects.filter(tenant_id=tenant_id, episodes__contains=[episode.pk])
    skills = list(
        Skill.objects.filter(tenant_id=tenant_id, pk__in=runs.values("skill_id")).order_by(
            "key", "version"
        )
    )
    return EpisodeReading(mentions, [(e, e.fact) for e in evidence], skills)


def episodes_of_job(*, job: Job, limit: int = 100) -> list[Episode]:
    return list(Episode.objects.filter(tenant_id=job.tenant_id, job=job).order_by("pk")[:limit])
