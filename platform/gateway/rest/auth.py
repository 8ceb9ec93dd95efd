"""Bearer API key authentication, scope checks and rate limits (referenced from settings)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from tenants.access import apikey_access
from tenants.models import ApiKey

if TYPE_CHECKING:  # rest_framework.views imports this module through settings
    from rest_framework.views import APIView

BEARER_REALM = 'Bearer realm="mnemo"'


def bearer_token(authorization: str) -> str | None:
    scheme, _, token = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


class ApiKeyAuthentication(BaseAuthentication):
    """``Authorization: Bearer mnemo_...``; sets ``request.auth`` to the ApiKey."""

    def authenticate(self, request: Request) -> tuple[None, ApiKey] | None:
        header = request.headers.get("Authorization", "")
        if not header:
            return None
        token = bearer_token(header)
        if token is None:
            raise exceptions.AuthenticationFailed(
                "use 'Authorization: Bearer <api key>'", code="not_authenticated"
            )
        access = apikey_access(secret=token, ip=request.META.get("REMOTE_ADDR"))
        if access.key is None and access.rate is not None:  # too many bad keys from here
            raise exceptions.Throttled(wait=access.rate.retry_after)
        if access.key is None:
            raise exceptions.AuthenticationFailed(
                "The API key is unknown, revoked or expired.", code="invalid_api_key"
            )
        request.key_access = access  # type: ignore[attr-defined]  # read by ApiKeyRateThrottle
        return None, access.key

    def authenticate_header(self, request: Request) -> str:
        return BEARER_REALM


class MissingScope(exceptions.PermissionDenied):
    default_code = "missing_scope"


class HasRequiredScope(BasePermission):
    """The key must carry the scope the view asks for (``TenantAPIView.get_required_scope``;
    None: any valid key)."""

    def has_permission(self, request: Request, view: APIView) -> bool:
        key = request.auth
        if not isinstance(key, ApiKey):
            raise exceptions.NotAuthenticated(
                "send an API key: 'Authorization: Bearer <api key>'", code="not_authenticated"
            )
        chooser = getattr(view, "get_required_scope", None)
        scope = chooser() if chooser is not None else getattr(view, "required_scope", "read")
        if scope is not None and scope not in key.scopes:
            raise MissingScope(f"this API key lacks the '{scope}' scope")
        return True


class ApiKeyRateThrottle(BaseThrottle):
    """Per-key budget per minute, counted once by tenants.access.apikey_access (as for MCP)."""

    def allow_request(self, request: Request, view: APIView) -> bool:
        access = getattr(request, "key_access", None)
        if access is None or access.rate is None:
            return True
        self.decision = access.rate
        request.rate_decision = self.decision  # type: ignore[attr-defined]  # read on the way out
        return bool(self.decision.allowed)

    def wait(self) -> float | None:
        return float(self.decision.retry_after)
