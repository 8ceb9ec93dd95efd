"""The base class of every tenant REST endpoint."""

from __future__ import annotations

from typing import Any

from django.http import QueryDict
from pydantic import BaseModel
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from audit.actors import Actor
from base.contracts import Output, validated
from gateway.rest.auth import ApiKeyRateThrottle
from tenants.models import ApiKey, Tenant


class TenantAPIView(APIView):
    """Base for tenant endpoints: the key's tenant, key and actor are on ``self``.

    Subclasses set ``required_scope`` ("read", "write", "admin" or None: any valid key), and
    ``method_scopes`` where a method needs another, and implement handlers: read the input with
    ``self.body(Contract)`` / ``self.params(Contract)``, call one service or selector, answer
    with ``answer(output)``. Another tenant's objects are looked up through ``*_get_for_tenant``
    and answer 404.
    """

    required_scope: str | None = "read"
    method_scopes: dict[str, str] = {}  # e.g. {"PATCH": "write", "DELETE": "admin"}
    throttle_classes = [ApiKeyRateThrottle]
    tenant: Tenant
    key: ApiKey
    actor: Actor

    def get_required_scope(self) -> str | None:
        return self.method_scopes.get(self.request.method or "", self.required_scope)

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        assert isinstance(request.auth, ApiKey)  # HasRequiredScope has refused anything else
        self.key = request.auth
        self.tenant = self.key.tenant
        self.actor = Actor.for_key(self.key)

    @property
    def is_agent(self) -> bool:
        """A key without the admin scope: an agent, which never sees held memories."""
        return "admin" not in self.key.scopes

    def body[C: BaseModel](self, contract: type[C]) -> C:
        """The JSON body as ``contract``; every bad field is named in one 400."""
        data = self.request.data
        return validated(contract, data.dict() if isinstance(data, QueryDict) else data)

    def params[C: BaseModel](self, contract: type[C]) -> C:
        """The query parameters as ``contract`` (the last value of a repeated one)."""
        return validated(contract, self.request.query_params.dict())

    def finalize_response(
        self, request: Request, response: Response, *args: Any, **kwargs: Any
    ) -> Response:
        response = super().finalize_response(request, response, *args, **kwargs)
        decision = getattr(request, "rate_decision", None)
        if decision is not None:
            response["X-RateLimit-Limit"] = str(decision.limit)
            response["X-RateLimit-Remaining"] = str(decision.remaining)
        return response


def answer(output: Output, status: int = 200) -> Response:
    """An output contract as the JSON answer."""
    return Response(output.as_json(), status=status)
