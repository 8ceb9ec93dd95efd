"""OpenAPI description of the bearer API key scheme."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers


class ApiKeyScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    target_class = "gateway.rest.auth.ApiKeyAuthentication"
    name = "ApiKey"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "An API key from the dashboard: `Authorization: Bearer mnemo_...`",
        }


@extend_schema_serializer(component_name="ErrorDetail")
class ErrorDetailOut(serializers.Serializer):
    code = serializers.CharField(help_text="Stable, machine-readable: validation_error, ...")
    message = serializers.CharField(help_text="For people; may change.")
    fields = serializers.DictField(
        child=serializers.CharField(), required=False, help_text="Problem per input field."
    )


@extend_schema_serializer(component_name="Error")
class ErrorOut(serializers.Serializer):
    error = ErrorDetailOut()


ERROR_STATUSES = (400, 401, 403, 404, 413, 429)


def with_errors(ok: Any, status: int = 200) -> dict[int, Any]:
    """Responses for extend_schema: the success body plus the JSON error shape every view shares."""
    return {status: ok, **dict.fromkeys(ERROR_STATUSES, ErrorOut)}
