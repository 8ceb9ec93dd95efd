"""OpenAPI: the bearer API key scheme, the shared error answers, and query parameters described
by a contract (drf-spectacular reads pydantic models for bodies and answers by itself)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.utils import OpenApiParameter
from pydantic import BaseModel

from base.contracts import ErrorOut


class ApiKeyScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    target_class = "gateway.rest.auth.ApiKeyAuthentication"
    name = "ApiKey"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "An API key from the dashboard: `Authorization: Bearer mnemo_...`",
        }


ERROR_STATUSES = (400, 401, 403, 404, 409, 413, 429)


def with_errors(ok: Any, status: int = 200) -> dict[int, Any]:
    """Responses for extend_schema: the success body plus the JSON error shape every view shares."""
    return {status: ok, **dict.fromkeys(ERROR_STATUSES, ErrorOut)}


def query_parameters(model: type[BaseModel]) -> list[OpenApiParameter]:
    """The fields of a query contract as OpenAPI query parameters, each with the JSON schema the
    contract gives it (type, bounds, choices, pattern), so the document says what is taken."""
    schema = model.model_json_schema(mode="validation")
    parameters = []
    for name, prop in schema.get("properties", {}).items():
        description = prop.pop("description", "")
        prop.pop("title", None)
        parameters.append(
            OpenApiParameter(
                name, prop, required=False, description=description
            )  # a raw JSON schema as the type
        )
    return parameters
