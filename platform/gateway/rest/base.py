"""The base class of every tenant REST endpoint."""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from audit.actors import Actor
from gateway.rest.auth import ApiKeyRateThrottle
from tenants.models import ApiKey, Tenant


class TenantAPIView(APIView):
    """Base for tenant endpoints: the key's tenant, key and actor are on ``self``.

    Subclasses set ``required_scope`` ("read", "write", "admin" or None) and implement handlers;
    another tenant's objects must be looked up through ``*_get_for_tenant`` and answer 404.
    """

    required_scope: str | None = "read"
    throttle_classes = [ApiKeyRateThrottle]
    tenant: Tenant
    key: ApiKey
    actor: Actor

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        self.key = request.auth
        self.tenant = self.key.tenant
        self.actor = Actor.for_key(self.key)

    def finalize_response(
        self, request: Request, response: Response, *args: Any, **kwargs: Any
    ) -> Response:
        response = super().finalize_response(request, response, *args, **kwargs)
        decision = getattr(request, "rate_decision", None)
        if decision is not None:
            response["X-RateLimit-Limit"] = str(decision.limit)
            response["X-RateLimit-Remaining"] = str(decision.remaining)
        return response
