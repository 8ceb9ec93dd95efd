"""REST endpoints for memory: remember, recall, prime, networks, engrams.

Each reads its contract (memory.contracts), resolves the network (roles.targets), calls one
service or selector and answers with the contract's presenter — as the MCP tools do.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from audit.contracts import AuditPage, present_event
from audit.sealing import unseal
from base.pagination import page_of
from gateway.rest.base import TenantAPIView, answer
from gateway.rest.schema import query_parameters, with_errors
from memory import selectors
from memory.contracts import (
    EngramFilters,
    EngramOut,
    EngramPage,
    EngramPatch,
    MemoryTarget,
    MindOut,
    NetworkList,
    NetworkOut,
    PrimeIn,
    ProposedOut,
    RecallIn,
    RememberIn,
    RememberOut,
    checked_network_key,
    present_engram,
    present_mind,
    present_network,
)
from memory.services.engrams import Changed, engram_change, engram_remove
from memory.services.recall import RecallOptions, network_prime, network_recall
from memory.services.remember import engrams_remember, present_remembered
from roles.targets import Target, memory_target

DEFAULT_NETWORK = "default"  # REST without network or role


class MemoryAPIView(TenantAPIView):
    def target(self, data: MemoryTarget) -> Target:
        """The network the request means (roles.targets), ``default`` when it names none."""
        return memory_target(tenant=self.tenant, target=data, fallback=DEFAULT_NETWORK)


class RememberView(MemoryAPIView):
    """Remember a batch (≤ 1,000) synchronously; upserts by external_id."""

    required_scope = "write"

    @extend_schema(
        request=RememberIn, responses=with_errors(RememberOut, 201), summary="Remember engrams"
    )
    def post(self, request: Request) -> Response:
        data = self.body(RememberIn)
        target = self.target(data)
        result = engrams_remember(
            tenant=self.tenant,
            actor=self.actor,
            network_key=target.key,
            items=data.engrams,
            source="api",
        )
        return answer(present_remembered(result), status=201)


class RecallView(MemoryAPIView):
    """Two-phase recall; returns the Mind with ranked engrams, why, and a packed context."""

    required_scope = "read"

    @extend_schema(request=RecallIn, responses=with_errors(MindOut), summary="Recall")
    def post(self, request: Request) -> Response:
        data = self.body(RecallIn)
        target = self.target(data)
        mind = network_recall(
            tenant=self.tenant,
            actor=self.actor,
            network_key=target.key,
            query=data.query,
            options=RecallOptions.of(data, source="api"),
            missing_ok=target.missing_ok,
        )
        return answer(present_mind(mind))


class PrimeView(MemoryAPIView):
    """Session start: hub concepts and their strongest memories, within a small budget.

    Shaped like RecallView on purpose (contract, network, one service, presenter): the two are
    different operations that happen to take the same steps."""

    required_scope = "read"

    @extend_schema(request=PrimeIn, responses=with_errors(MindOut), summary="Prime")
    def post(self, request: Request) -> Response:
        data = self.body(PrimeIn)
        target = self.target(data)
        mind = network_prime(
            tenant=self.tenant,
            actor=self.actor,
            network_key=target.key,
            token_budget=data.token_budget,
            missing_ok=target.missing_ok,
        )
        return answer(present_mind(mind))


class NetworkListView(TenantAPIView):
    required_scope = "read"

    @extend_schema(
        responses=with_errors(NetworkList), summary="List networks", operation_id="networks_list"
    )
    def get(self, request: Request) -> Response:
        networks = selectors.networks_for_tenant(tenant=self.tenant)
        return answer(NetworkList(networks=[present_network(n) for n in networks]))


class NetworkDetailView(TenantAPIView):
    required_scope = "read"

    @extend_schema(responses=with_errors(NetworkOut), summary="Get a network")
    def get(self, request: Request, key: str) -> Response:
        network = selectors.network_with_counts(tenant=self.tenant, key=checked_network_key(key))
        return answer(present_network(network))


class EngramListView(TenantAPIView):
    """Engrams newest first, cursor-paginated; filter by network, text, type, status."""

    required_scope = "read"

    @extend_schema(
        parameters=query_parameters(EngramFilters),
        responses=with_errors(EngramPage),
        summary="List engrams",
        operation_id="engrams_list",
    )
    def get(self, request: Request) -> Response:
        filters = self.params(EngramFilters)
        network = None
        if filters.network:
            network = selectors.network_get_for_tenant(tenant=self.tenant, key=filters.network)
        engrams = selectors.engrams_for_tenant(
            tenant=self.tenant,
            network=network,
            q=filters.q,
            type=filters.type,
            status="" if filters.status == "any" else filters.status,
            agent=self.is_agent,
        )
        rows, cursor = page_of(engrams, cursor=filters.cursor, limit=filters.limit)
        return answer(EngramPage(engrams=[present_engram(e) for e in rows], next_cursor=cursor))


class EngramDetailView(TenantAPIView):
    """One engram: read (read scope), edit or soft-delete (write scope)."""

    required_scope = "read"
    method_scopes = {"PATCH": "write", "DELETE": "write"}

    @extend_schema(responses=with_errors(EngramOut), summary="Get an engram")
    def get(self, request: Request, engram_id: int) -> Response:
        engram = selectors.engram_get_for_tenant(
            tenant=self.tenant, id=engram_id, agent=self.is_agent
        )
        return answer(present_engram(engram))

    @extend_schema(
        request=EngramPatch,
        responses={**with_errors(EngramOut), 202: ProposedOut},
        summary="Edit an engram (202: proposed, waiting for a moderator)",
    )
    def patch(self, request: Request, engram_id: int) -> Response:
        patch = self.body(EngramPatch)
        engram = selectors.engram_get_for_tenant(
            tenant=self.tenant, id=engram_id, agent=self.is_agent
        )
        changed = engram_change(tenant=self.tenant, actor=self.actor, engram=engram, patch=patch)
        return changed_answer(changed)

    @extend_schema(
        responses={**with_errors(EngramOut), 202: ProposedOut},
        summary="Delete an engram (soft; 202: proposed, waiting for a moderator)",
    )
    def delete(self, request: Request, engram_id: int) -> Response:
        engram = selectors.engram_get_for_tenant(
            tenant=self.tenant, id=engram_id, agent=self.is_agent
        )
        changed = engram_remove(tenant=self.tenant, actor=self.actor, engram=engram)
        return changed_answer(changed)


def changed_answer(changed: Changed) -> Response:
    """The memory as it is now, or (202) the proposal that waits for a moderator."""
    if changed.proposal is None:
        return answer(present_engram(changed.engram))
    item = changed.proposal
    return answer(
        ProposedOut(
            moderation_item=item.pk,
            kind=item.kind,
            held=item.held,
            engram=present_engram(changed.engram),
        ),
        status=202,
    )


class EngramHistoryView(TenantAPIView):
    required_scope = "read"

    @extend_schema(responses=with_errors(AuditPage), summary="History of an engram")
    def get(self, request: Request, engram_id: int) -> Response:
        engram = selectors.engram_get_for_tenant(
            tenant=self.tenant, id=engram_id, agent=self.is_agent
        )
        events = unseal(list(selectors.engram_history(tenant=self.tenant, engram=engram)[:200]))
        return answer(AuditPage(events=[present_event(e) for e in events]))
