"""REST endpoints for knowledge (PlugMem): ingesting episodes, the extraction job, facts with
their evidence and chain of values, entities with people's merges and splits, and skills with
their versions, runs and reported outcomes."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from base.pagination import page_of
from gateway.rest.base import TenantAPIView, answer
from gateway.rest.memory import MemoryAPIView
from gateway.rest.schema import query_parameters, with_errors
from memory import selectors
from memory.contracts.knowledge import (
    EntityFilters,
    EntityMergeIn,
    EntityOut,
    EntityPage,
    EntitySplitIn,
    EpisodesIn,
    EvidenceOut,
    FactDetailOut,
    FactFilters,
    FactOut,
    FactPage,
    GuideIn,
    GuideOut,
    IngestedOut,
    JobOut,
    SkillDetailOut,
    SkillFilters,
    SkillOutcomeIn,
    SkillOutcomeOut,
    SkillPage,
    present_entity,
    present_episode,
    present_fact,
    present_guide,
    present_job,
    present_run,
    present_skill,
)
from memory.contracts.llm import (
    JobUseOut,
    LlmIn,
    LlmOut,
    UsageFilters,
    UsageOut,
    present_day,
    present_llm,
)
from memory.models import Entity, Fact, Network
from memory.selectors import knowledge
from memory.services import llm as llm_service
from memory.services.entities import entity_merge, entity_split
from memory.services.episodes import episodes_ingest
from memory.services.guide import network_guide
from memory.services.skills import skill_outcome


class EpisodesView(MemoryAPIView):
    """Ingest raw interactions (≤ 500): each is remembered at once and extracted on a worker."""

    required_scope = "write"

    @extend_schema(
        request=EpisodesIn, responses=with_errors(IngestedOut, 202), summary="Ingest episodes"
    )
    def post(self, request: Request) -> Response:
        data = self.body(EpisodesIn)
        target = self.target(data)
        done = episodes_ingest(
            tenant=self.tenant, actor=self.actor, network_key=target.key, items=data.episodes
        )
        out = IngestedOut(
            network=done.network.key,
            job=present_job(done.job, done.network.key),
            episodes=[present_episode(i, e, created) for i, e, created in done.episodes],
        )
        return answer(out, status=202)


class GuideView(MemoryAPIView):
    """The task at hand distilled from memory: key facts, what changed, warnings, the steps
    that worked, the other relevant memories — each line citing its units, ≤ 300 tokens."""

    required_scope = "read"

    @extend_schema(request=GuideIn, responses=with_errors(GuideOut), summary="Guide for a task")
    def post(self, request: Request) -> Response:
        data = self.body(GuideIn)
        target = self.target(data)
        mind, guide, took_ms, made_by = network_guide(
            tenant=self.tenant,
            actor=self.actor,
            network_key=target.key,
            task=data.task,
            token_budget=data.token_budget,
            record=data.record,
            missing_ok=target.missing_ok,
            task_key=data.task_key,
        )
        return answer(present_guide(target.key, data.task, guide, took_ms, mind.notice, made_by))


class JobView(TenantAPIView):
    """An extraction job: its state, progress, counts and errors."""

    @extend_schema(responses=with_errors(JobOut), summary="Get a job")
    def get(self, request: Request, job_id: int) -> Response:
        job = knowledge.job_get_for_tenant(tenant=self.tenant, id=job_id)
        return answer(present_job(job, job.network.key))


def _network(view: TenantAPIView, key: str | None) -> Network | None:
    return selectors.network_get_for_tenant(tenant=view.tenant, key=key) if key else None


def _fact(fact: Fact) -> FactOut:
    return present_fact(fact, fact.network.key, fact.subject.name)


class FactListView(TenantAPIView):
    """Facts, newest first: current by default, superseded or any, or as of a time (``at``)."""

    @extend_schema(
        parameters=query_parameters(FactFilters),
        responses=with_errors(FactPage),
        summary="List facts",
        operation_id="facts_list",
    )
    def get(self, request: Request) -> Response:
        filters = self.params(FactFilters)
        facts = knowledge.facts_for_tenant(
            tenant=self.tenant,
            network=_network(self, filters.network),
            subject=filters.subject,
            slot=filters.slot,
            status=filters.status,
            at=filters.at,
        )
        rows, cursor = page_of(facts, cursor=filters.cursor, limit=filters.limit)
        return answer(FactPage(facts=[_fact(f) for f in rows], next_cursor=cursor))


class FactDetailView(TenantAPIView):
    """A fact with its evidence (the words it was read from) and every value of its slot."""

    @extend_schema(responses=with_errors(FactDetailOut), summary="Get a fact")
    def get(self, request: Request, fact_id: int) -> Response:
        fact = knowledge.fact_get_for_tenant(tenant=self.tenant, id=fact_id)
        evidence = [
            EvidenceOut(
                episode=row.episode_id,
                engram=row.engram_id,
                span=(row.start, row.end),
                quote=row.episode.content[row.start : row.end] if row.episode else "",
                said_at=row.said_at,
                extractor=row.extractor,
            )
            for row in knowledge.fact_evidence(fact=fact)
        ]
        chain = [_fact(f) for f in knowledge.fact_chain(fact=fact)]
        return answer(FactDetailOut(fact=_fact(fact), evidence=evidence, chain=chain))


def _entities(view: TenantAPIView, rows: list[Entity]) -> list[EntityOut]:
    aliases = knowledge.aliases_of(tenant=view.tenant, entities=rows)
    return [present_entity(e, e.network.key, aliases[e.pk]) for e in rows]


class EntityListView(TenantAPIView):
    """Entities, newest first; ``q`` finds one by any of its names."""

    @extend_schema(
        parameters=query_parameters(EntityFilters),
        responses=with_errors(EntityPage),
        summary="List entities",
        operation_id="entities_list",
    )
    def get(self, request: Request) -> Response:
        filters = self.params(EntityFilters)
        entities = knowledge.entities_for_tenant(
            tenant=self.tenant, network=_network(self, filters.network), q=filters.q
        )
        rows, cursor = page_of(entities, cursor=filters.cursor, limit=filters.limit)
        return answer(EntityPage(entities=_entities(self, list(rows)), next_cursor=cursor))


class EntityDetailView(TenantAPIView):
    @extend_schema(responses=with_errors(EntityOut), summary="Get an entity")
    def get(self, request: Request, entity_id: int) -> Response:
        entity = knowledge.entity_get_for_tenant(tenant=self.tenant, id=entity_id)
        return answer(_entities(self, [entity])[0])


class EntityMergeView(TenantAPIView):
    """This entity becomes part of ``into`` (aliases, mentions and facts move over)."""

    required_scope = "write"

    @extend_schema(
        request=EntityMergeIn, responses=with_errors(EntityOut), summary="Merge an entity"
    )
    def post(self, request: Request, entity_id: int) -> Response:
        data = self.body(EntityMergeIn)
        entity = knowledge.entity_get_for_tenant(tenant=self.tenant, id=entity_id)
        into = knowledge.entity_get_for_tenant(tenant=self.tenant, id=data.into)
        merged = entity_merge(actor=self.actor, entity=entity, into=into)
        fresh = knowledge.entity_get_for_tenant(tenant=self.tenant, id=merged.pk)
        return answer(_entities(self, [fresh])[0])


class EntitySplitView(TenantAPIView):
    """Some written forms of this entity become a new entity, with their mentions and facts."""

    required_scope = "write"

    @extend_schema(
        request=EntitySplitIn, responses=with_errors(EntityOut, 201), summary="Split an entity"
    )
    def post(self, request: Request, entity_id: int) -> Response:
        data = self.body(EntitySplitIn)
        entity = knowledge.entity_get_for_tenant(tenant=self.tenant, id=entity_id)
        new = entity_split(actor=self.actor, entity=entity, aliases=data.aliases, name=data.name)
        fresh = knowledge.entity_get_for_tenant(tenant=self.tenant, id=new.pk)
        return answer(_entities(self, [fresh])[0], status=201)


class SkillListView(TenantAPIView):
    """Skills (procedures that worked), newest first: current versions by default."""

    @extend_schema(
        parameters=query_parameters(SkillFilters),
        responses=with_errors(SkillPage),
        summary="List skills",
        operation_id="skills_list",
    )
    def get(self, request: Request) -> Response:
        filters = self.params(SkillFilters)
        skills = knowledge.skills_for_tenant(
            tenant=self.tenant,
            network=_network(self, filters.network),
            q=filters.q,
            status=filters.status,
        )
        rows, cursor = page_of(skills, cursor=filters.cursor, limit=filters.limit)
        out = [present_skill(s, s.network.key) for s in rows]
        return answer(SkillPage(skills=out, next_cursor=cursor))


class SkillDetailView(TenantAPIView):
    """A skill with every version of its goal, the skills refining it, and its runs."""

    @extend_schema(responses=with_errors(SkillDetailOut), summary="Get a skill")
    def get(self, request: Request, skill_id: int) -> Response:
        skill = knowledge.skill_get_for_tenant(tenant=self.tenant, id=skill_id)
        key = skill.network.key
        return answer(
            SkillDetailOut(
                skill=present_skill(skill, key),
                versions=[present_skill(s, key) for s in knowledge.skill_versions(skill=skill)],
                children=[present_skill(s, key) for s in knowledge.skill_children(skill=skill)],
                evidence=[present_run(r) for r in knowledge.skill_evidence(skill=skill)],
            )
        )


class SkillOutcomeView(TenantAPIView):
    """Report how following the skill went: a success or a failure (once per ``task``)."""

    required_scope = "write"

    @extend_schema(
        request=SkillOutcomeIn,
        responses=with_errors(SkillOutcomeOut),
        summary="Report a skill's outcome",
    )
    def post(self, request: Request, skill_id: int) -> Response:
        data = self.body(SkillOutcomeIn)
        skill = knowledge.skill_get_for_tenant(tenant=self.tenant, id=skill_id)
        told, counted = skill_outcome(
            actor=self.actor, skill=skill, outcome=data.outcome, note=data.note, task=data.task
        )
        return answer(
            SkillOutcomeOut(skill=present_skill(told, skill.network.key), counted=counted)
        )


class LlmView(TenantAPIView):
    """The workspace's language model (admin): the OpenAI-compatible provider extraction calls,
    its daily token budget and circuit breaker. The key goes in and never comes out."""

    required_scope = "admin"

    def _present(self) -> Response:
        config = llm_service.settings_of(tenant=self.tenant)
        spent = llm_service.spent_today(self.tenant.pk)
        return answer(present_llm(config, spent_today=spent, now=timezone.now()))

    @extend_schema(responses=with_errors(LlmOut), summary="Get the language model settings")
    def get(self, request: Request) -> Response:
        return self._present()

    @extend_schema(request=LlmIn, responses=with_errors(LlmOut), summary="Set the language model")
    def put(self, request: Request) -> Response:
        data = self.body(LlmIn)
        llm_service.llm_configure(tenant=self.tenant, actor=self.actor, **data.model_dump())
        return self._present()

    @extend_schema(responses=with_errors(None, 204), summary="Remove the language model")
    def delete(self, request: Request) -> Response:
        llm_service.llm_remove(tenant=self.tenant, actor=self.actor)
        return Response(status=204)


class LlmUsageView(TenantAPIView):
    """Tokens the provider was asked for: per day (every day of the window) and per job."""

    required_scope = "admin"

    @extend_schema(
        parameters=query_parameters(UsageFilters),
        responses=with_errors(UsageOut),
        summary="Get the language model's usage",
    )
    def get(self, request: Request) -> Response:
        filters = self.params(UsageFilters)
        days = llm_service.usage_by_day(tenant=self.tenant, days=filters.days)
        jobs = llm_service.usage_by_job(tenant=self.tenant)
        return answer(
            UsageOut(days=[present_day(d) for d in days], jobs=[JobUseOut(**j) for j in jobs])
        )
