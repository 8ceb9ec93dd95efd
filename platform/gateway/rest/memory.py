"""REST endpoints for memory: remember, recall, prime, networks, engrams.

Views are thin: the input is checked by memory.services.inputs (the same rules as MCP), one
service or selector runs, and a serializer shapes the answer.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from base.errors import ValidationFailed
from base.pagination import page_of, parse_limit
from gateway.rest.account import EventOut
from gateway.rest.base import TenantAPIView
from gateway.rest.schema import with_errors
from memory import selectors
from memory.models import Engram
from memory.services import inputs
from memory.services.engrams import engram_delete, engram_update
from memory.services.networks import network_get_for_tenant
from memory.services.recall import RecallOptions, mind_as_dict, network_prime, network_recall
from memory.services.remember import engrams_remember


class EngramIn(serializers.Serializer):
    """Documentation of one engram as sent; the rules live in memory.services.inputs."""

    content = serializers.CharField()
    schema = serializers.ListField(child=serializers.CharField(), required=False)
    type = serializers.ChoiceField(choices=Engram.Type.values, required=False)
    strength = serializers.FloatField(required=False, min_value=0, max_value=1)
    importance = serializers.FloatField(required=False, min_value=0, max_value=1)
    occurred_at = serializers.DateTimeField(required=False)
    external_id = serializers.CharField(required=False)
    metadata = serializers.DictField(required=False)


@extend_schema_serializer(component_name="Engram")
class EngramOut(serializers.Serializer):
    id = serializers.IntegerField()
    network = serializers.CharField(source="network.key")
    external_id = serializers.CharField(allow_null=True)
    content = serializers.CharField()
    schema = serializers.ListField(child=serializers.CharField())
    type = serializers.CharField()
    strength = serializers.FloatField()
    importance = serializers.FloatField()
    occurred_at = serializers.DateTimeField(allow_null=True)
    metadata = serializers.DictField()
    source = serializers.CharField()
    status = serializers.CharField()
    token_count = serializers.IntegerField()
    embedded = serializers.SerializerMethodField()
    recall_count = serializers.IntegerField()
    last_recalled_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()

    def get_embedded(self, engram: Engram) -> bool:
        return engram.embedding is not None


def _body(request: Request) -> dict[str, Any]:
    if not isinstance(request.data, dict):
        raise ValidationFailed.field("request", "send a JSON object")
    return request.data


class RememberView(TenantAPIView):
    """Remember a batch (≤ 1,000) synchronously; upserts by external_id."""

    required_scope = "write"

    @extend_schema_serializer(component_name="RememberRequest")
    class Input(serializers.Serializer):
        network = serializers.CharField(required=False, help_text="default, role:writer, user:42")
        role = serializers.CharField(required=False, help_text="shorthand for network role:<role>")
        engrams = EngramIn(many=True)

    @extend_schema_serializer(component_name="RememberResult")
    class Output(serializers.Serializer):
        network = serializers.CharField()
        created = serializers.IntegerField()
        updated = serializers.IntegerField()
        unchanged = serializers.IntegerField()
        reinforced = serializers.IntegerField()
        edges = serializers.IntegerField()
        engrams = serializers.ListField(child=serializers.DictField())

    @extend_schema(request=Input, responses=with_errors(Output, 201), summary="Remember engrams")
    def post(self, request: Request) -> Response:
        body = _body(request)
        key = inputs.network_from(network=body.get("network"), role=body.get("role"))
        items = inputs.engram_batch(body.get("engrams"))
        result = engrams_remember(
            tenant=self.tenant, actor=self.actor, network_key=key, items=items, source="api"
        )
        data = {
            "network": result.network.key, "edges": result.edges,
            **{s: result.count(s) for s in ("created", "updated", "unchanged", "reinforced")},
            "engrams": [{"index": o.index, "id": o.id, "external_id": o.external_id,
                         "status": o.status} for o in result.outcomes],
        }  # fmt: skip
        return Response(data, status=201)


@extend_schema_serializer(component_name="Mind")
class MindOut(serializers.Serializer):
    network = serializers.CharField()
    query = serializers.CharField(allow_null=True)
    mode = serializers.CharField()
    cues = serializers.ListField(child=serializers.DictField())
    connections = serializers.ListField(child=serializers.DictField())
    engrams = serializers.ListField(child=serializers.DictField())
    context = serializers.CharField()
    context_tokens = serializers.IntegerField()
    suppressed_duplicates = serializers.IntegerField()
    took_ms = serializers.FloatField()


class RecallView(TenantAPIView):
    """Two-phase recall; returns the Mind with ranked engrams, why, and a packed context."""

    required_scope = "read"

    @extend_schema_serializer(component_name="RecallRequest")
    class Input(serializers.Serializer):
        network = serializers.CharField(required=False)
        role = serializers.CharField(required=False)
        query = serializers.CharField(required=False, allow_null=True)
        mode = serializers.ChoiceField(choices=inputs.RECALL_MODES, required=False)
        k = serializers.IntegerField(required=False, min_value=1, max_value=inputs.MAX_K)
        token_budget = serializers.IntegerField(required=False, min_value=1)
        now = serializers.DateTimeField(required=False)
        channels = serializers.ListField(child=serializers.CharField(), required=False)

    @extend_schema(request=Input, responses=with_errors(MindOut), summary="Recall")
    def post(self, request: Request) -> Response:
        body = _body(request)
        key = inputs.network_from(network=body.get("network"), role=body.get("role"))
        query = inputs.recall_query(body.get("query"))
        options = RecallOptions(**inputs.recall_options(
            mode=body.get("mode"), k=body.get("k"), token_budget=body.get("token_budget"),
            now=body.get("now"), channels=body.get("channels"),
        ))  # fmt: skip
        mind = network_recall(
            tenant=self.tenant, actor=self.actor, network_key=key, query=query, options=options
        )
        return Response(mind_as_dict(mind))


class PrimeView(TenantAPIView):
    """Session start: hub concepts and their strongest memories, within a small budget."""

    required_scope = "read"

    @extend_schema_serializer(component_name="PrimeRequest")
    class Input(serializers.Serializer):
        network = serializers.CharField(required=False)
        role = serializers.CharField(required=False)
        token_budget = serializers.IntegerField(required=False, min_value=1)

    @extend_schema(request=Input, responses=with_errors(MindOut), summary="Prime")
    def post(self, request: Request) -> Response:
        body = _body(request)
        key = inputs.network_from(network=body.get("network"), role=body.get("role"))
        budget = inputs.recall_options(token_budget=body.get("token_budget")).get(
            "token_budget", 600
        )
        mind = network_prime(
            tenant=self.tenant, actor=self.actor, network_key=key, token_budget=budget
        )
        return Response(mind_as_dict(mind))


@extend_schema_serializer(component_name="Network")
class NetworkOut(serializers.Serializer):
    key = serializers.CharField()
    engrams = serializers.IntegerField(source="engram_count")
    cues = serializers.IntegerField(source="cue_count")
    edges = serializers.IntegerField(source="edge_count")
    created_at = serializers.DateTimeField()


class NetworkListView(TenantAPIView):
    required_scope = "read"

    @extend_schema(responses=with_errors(NetworkOut(many=True)), summary="List networks")
    def get(self, request: Request) -> Response:
        networks = selectors.networks_for_tenant(tenant=self.tenant)
        return Response({"networks": NetworkOut(networks, many=True).data})


class NetworkDetailView(TenantAPIView):
    required_scope = "read"

    @extend_schema(responses=with_errors(NetworkOut), summary="Get a network")
    def get(self, request: Request, key: str) -> Response:
        network = selectors.network_with_counts(tenant=self.tenant, key=inputs.network_key(key))
        return Response(NetworkOut(network).data)


class EngramListView(TenantAPIView):
    """Engrams newest first, cursor-paginated; filter by network, text, type, status."""

    required_scope = "read"

    @extend_schema(
        parameters=[
            OpenApiParameter("network", str), OpenApiParameter("q", str),
            OpenApiParameter("type", str), OpenApiParameter("status", str),
            OpenApiParameter("cursor", str), OpenApiParameter("limit", int),
        ],
        responses=with_errors(EngramOut(many=True)), summary="List engrams",
    )  # fmt: skip
    def get(self, request: Request) -> Response:
        params = request.query_params
        network = None
        if params.get("network"):
            key = inputs.network_key(params["network"])
            network = network_get_for_tenant(tenant=self.tenant, key=key)
        kind = params.get("type", "").upper()
        if kind and kind not in Engram.Type.values:
            raise ValidationFailed.field("type", f"one of {', '.join(Engram.Type.values)}")
        status = params.get("status", Engram.Status.ACTIVE)
        if status not in Engram.Status.values and status != "any":
            raise ValidationFailed.field("status", f"one of {', '.join(Engram.Status.values)}, any")
        engrams = selectors.engrams_for_tenant(
            tenant=self.tenant, network=network, q=params.get("q", ""), type=kind,
            status="" if status == "any" else status,
        )  # fmt: skip
        rows, cursor = page_of(
            engrams, cursor=params.get("cursor", ""), limit=parse_limit(params.get("limit"))
        )
        return Response({"engrams": EngramOut(rows, many=True).data, "next_cursor": cursor})


class EngramDetailView(TenantAPIView):
    """One engram: read (read scope), edit or soft-delete (write scope)."""

    def get_required_scope(self) -> str:
        return "read" if self.request.method in ("GET", "HEAD", "OPTIONS") else "write"

    @extend_schema(responses=with_errors(EngramOut), summary="Get an engram")
    def get(self, request: Request, engram_id: int) -> Response:
        engram = selectors.engram_get_for_tenant(tenant=self.tenant, id=engram_id)
        return Response(EngramOut(engram).data)

    @extend_schema(request=EngramIn(partial=True), responses=with_errors(EngramOut),
                   summary="Edit an engram")  # fmt: skip
    def patch(self, request: Request, engram_id: int) -> Response:
        engram = selectors.engram_get_for_tenant(tenant=self.tenant, id=engram_id)
        engram = engram_update(tenant=self.tenant, actor=self.actor, engram=engram,
                               changes=_body(request))  # fmt: skip
        return Response(EngramOut(engram).data)

    @extend_schema(responses=with_errors(EngramOut), summary="Delete an engram (soft)")
    def delete(self, request: Request, engram_id: int) -> Response:
        engram = selectors.engram_get_for_tenant(tenant=self.tenant, id=engram_id)
        engram = engram_delete(tenant=self.tenant, actor=self.actor, engram=engram)
        return Response(EngramOut(engram).data)


class EngramHistoryView(TenantAPIView):
    required_scope = "read"

    @extend_schema(responses=with_errors(EventOut(many=True)), summary="History of an engram")
    def get(self, request: Request, engram_id: int) -> Response:
        engram = selectors.engram_get_for_tenant(tenant=self.tenant, id=engram_id)
        events = selectors.engram_history(tenant=self.tenant, engram=engram)[:200]
        return Response({"events": EventOut(events, many=True).data})
