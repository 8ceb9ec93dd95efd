"""OpenAPI: the bearer API key scheme, the shared error answers, and query parameters described
by a contract (drf-spectacular reads pydantic models for bodies and answers by itself)."""

from __future__ import annotations

from datetime import date, datetime
from types import UnionType
from typing import Any, Literal, Union, get_args, get_origin

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.types import OpenApiTypes
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


def _openapi_type(annotation: Any) -> tuple[Any, list[Any] | None]:
    """(OpenAPI type, enum values) of a query parameter's annotation."""
    while get_origin(annotation) is not None and get_origin(annotation) not in (
        Literal,
        Union,
        UnionType,
    ):
        annotation = get_args(annotation)[0]  # Annotated[...] -> its type
    if get_origin(annotation) in (Union, UnionType):
        choices: list[Any] = []
        kind: Any = OpenApiTypes.STR
        for arm in get_args(annotation):
            if arm is type(None):
                continue
            kind, values = _openapi_type(arm)
            choices += values or []
        return kind, [c for c in choices if c != ""] or None
    if get_origin(annotation) is Literal:
        return OpenApiTypes.STR, list(get_args(annotation))
    simple = {
        int: OpenApiTypes.INT,
        float: OpenApiTypes.FLOAT,
        bool: OpenApiTypes.BOOL,
        date: OpenApiTypes.DATE,
        datetime: OpenApiTypes.DATETIME,
    }
    return simple.get(annotation, OpenApiTypes.STR), None


def query_parameters(model: type[BaseModel]) -> list[OpenApiParameter]:
    """The fields of a query contract as OpenAPI query parameters."""
    parameters = []
    for name, info in model.model_fields.items():
        kind, choices = _openapi_type(info.annotation)
        parameters.append(
            OpenApiParameter(
                info.alias or name, kind, enum=choices, description=info.description or ""
            )
        )
    return parameters
