"""REST endpoints for moderation and erasure: the queue, decisions (one or many), readers'
flags, restoring a memory, the policy, and erasures with their signed receipts. Deciding,
restoring, the policy and erasure need an admin key (people decide in the dashboard, as
moderators, admins or owners); flagging needs only a read key."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from base.pagination import page_of
from gateway.rest.base import TenantAPIView, answer
from gateway.rest.schema import query_parameters, with_errors
from memory import selectors
from memory.contracts import (
    BulkDecideIn,
    DecidedOut,
    DecideIn,
    EngramOut,
    ErasureIn,
    ErasureOut,
    FlagIn,
    ModerationFilters,
    ModerationItemOut,
    ModerationPage,
    PolicyIn,
    PolicyOut,
    VerifyIn,
    VerifyOut,
    present_engram,
    present_item,
    present_policy,
)
from memory.models import Erasure
from memory.services import erasure as erasure_service
from memory.services import moderation
from memory.services.review import engram_flag, engram_restore, item_decide, items_decide


class ModerationListView(TenantAPIView):
    """The queue, newest first: pending by default; filter by state, kind, network."""

    required_scope = "admin"

    @extend_schema(
        parameters=query_parameters(ModerationFilters),
        responses=with_errors(ModerationPage),
        summary="List the moderation queue",
    )
    def get(self, request: Request) -> Response:
        filters = self.params(ModerationFilters)
        network = None
        if filters.network:
            network = selectors.network_get_for_tenant(tenant=self.tenant, key=filters.network)
        items = selectors.moderation_items_for_tenant(
            tenant=self.tenant, state=filters.state, kind=filters.kind, network=network
        )
        rows, cursor = page_of(items, cursor=filters.cursor, limit=filters.limit)
        return answer(ModerationPage(items=[present_item(i) for i in rows], next_cursor=cursor))


class ModerationDecideView(TenantAPIView):
    """Decide on one item: approve, reject, redact (the firewall's spans, or yours), hide,
    restore."""

    required_scope = "admin"

    @extend_schema(
        request=DecideIn,
        responses=with_errors(ModerationItemOut),
        summary="Decide on an item",
        operation_id="moderation_decide",
    )
    def post(self, request: Request, item_id: int) -> Response:
        data = self.body(DecideIn)
        item = selectors.moderation_item_get_for_tenant(tenant=self.tenant, id=item_id)
        item = item_decide(
            tenant=self.tenant,
            actor=self.actor,
            item=item,
            action=data.action,
            note=data.note,
            redactions=data.redactions,
        )
        item = selectors.moderation_item_get_for_tenant(tenant=self.tenant, id=item.pk)
        return answer(present_item(item))


class ModerationBulkDecideView(TenantAPIView):
    """The same decision on many items (≤ 500), all or none."""

    required_scope = "admin"

    @extend_schema(
        request=BulkDecideIn,
        responses=with_errors(DecidedOut),
        summary="Decide on many items",
        operation_id="moderation_decide_bulk",
    )
    def post(self, request: Request) -> Response:
        data = self.body(BulkDecideIn)
        items = [
            selectors.moderation_item_get_for_tenant(tenant=self.tenant, id=pk) for pk in data.ids
        ]
        items_decide(
            tenant=self.tenant, actor=self.actor, items=items, action=data.action, note=data.note
        )
        fresh = [
            selectors.moderation_item_get_for_tenant(tenant=self.tenant, id=i.pk) for i in items
        ]
        return answer(DecidedOut(decided=len(fresh), items=[present_item(i) for i in fresh]))


class EngramFlagView(TenantAPIView):
    """Flag a memory for a moderator, with a reason (any reader)."""

    required_scope = "read"

    @extend_schema(
        request=FlagIn, responses=with_errors(ModerationItemOut, 201), summary="Flag an engram"
    )
    def post(self, request: Request, engram_id: int) -> Response:
        data = self.body(FlagIn)
        engram = selectors.engram_get_for_tenant(
            tenant=self.tenant, id=engram_id, agent=self.is_agent
        )
        item = engram_flag(tenant=self.tenant, actor=self.actor, engram=engram, reason=data.reason)
        item = selectors.moderation_item_get_for_tenant(tenant=self.tenant, id=item.pk)
        return answer(present_item(item), status=201)


class EngramRestoreView(TenantAPIView):
    """Bring back a held, hidden or deleted memory."""

    required_scope = "admin"

    @extend_schema(request=None, responses=with_errors(EngramOut), summary="Restore an engram")
    def post(self, request: Request, engram_id: int) -> Response:
        engram = selectors.engram_get_for_tenant(tenant=self.tenant, id=engram_id)
        engram = engram_restore(tenant=self.tenant, actor=self.actor, engram=engram)
        return answer(present_engram(engram))


class ModerationPolicyView(TenantAPIView):
    """The workspace's moderation policy: write policy (and per network and key), agents'
    changes, the firewall's action per family and detector."""

    required_scope = "admin"

    @extend_schema(responses=with_errors(PolicyOut), summary="Get the moderation policy")
    def get(self, request: Request) -> Response:
        policy = moderation.policy_of(self.tenant)
        return answer(present_policy(policy, moderation.effective_actions(policy.settings)))

    @extend_schema(
        request=PolicyIn, responses=with_errors(PolicyOut), summary="Change the moderation policy"
    )
    def patch(self, request: Request) -> Response:
        data = self.body(PolicyIn)
        policy = moderation.policy_update(
            tenant=self.tenant, actor=self.actor, changes=data.model_dump(exclude_none=True)
        )
        return answer(present_policy(policy, moderation.effective_actions(policy.settings)))


def present_erasure(erasure: Erasure) -> ErasureOut:
    return ErasureOut(
        id=erasure.pk,
        state=erasure.state,
        receipt=erasure_service.receipt_body(erasure),
        signature=erasure.signature,
        public_key=erasure.public_key or erasure_service.public_key(),
        message=erasure.message,
    )


class ErasureView(TenantAPIView):
    """Erase memories for good (admin): a job whose receipt says what left each store."""

    required_scope = "admin"

    @extend_schema(
        request=ErasureIn, responses=with_errors(ErasureOut, 202), summary="Erase memories"
    )
    def post(self, request: Request) -> Response:
        data = self.body(ErasureIn)
        erasure = erasure_service.erasure_request(
            tenant=self.tenant,
            actor=self.actor,
            network_key=data.network or "",
            engram_ids=data.engram_ids,
            subject=data.subject or "",
        )
        return answer(present_erasure(erasure), status=202)


class ErasureDetailView(TenantAPIView):
    required_scope = "admin"

    @extend_schema(responses=with_errors(ErasureOut), summary="An erasure and its receipt")
    def get(self, request: Request, erasure_id: int) -> Response:
        erasure = erasure_service.erasure_get_for_tenant(tenant=self.tenant, id=erasure_id)
        return answer(present_erasure(erasure))


class ErasureVerifyView(TenantAPIView):
    """Check a receipt (as you kept it) against the service's signature."""

    required_scope = None

    @extend_schema(request=VerifyIn, responses=with_errors(VerifyOut), summary="Verify a receipt")
    def post(self, request: Request) -> Response:
        data = self.body(VerifyIn)
        valid = erasure_service.verify(data.receipt, data.signature)
        return answer(VerifyOut(valid=valid, public_key=erasure_service.public_key()))
