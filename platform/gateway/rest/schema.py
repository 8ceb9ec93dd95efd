"""OpenAPI: the bearer API key scheme, the shared error answers, and query parameters described
by a contract (drf-spectacular reads pydantic models for bodies and answers by itself)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.utils import OpenApiParameter
from pydantic import BaseModel

from base.contracts import ErrorOut, lenient
from memory.contracts import NETWORK_KEY
from roles.contracts import RESOURCE_NAME_RE, SLUG_RE


class ApiKeyScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    target_class = "gateway.rest.auth.ApiKeyAuthentication"
    name = "ApiKey"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "An API key from the dashboard: `Authorization: Bearer mnemo_...`",
        }


ERROR_STATUSES = (400, 401, 403, 404, 409, 413, 422, 429, 503)


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
        if "anyOf" in prop:  # a query string holds text: no null, no list
            prop["anyOf"] = [b for b in prop["anyOf"] if b.get("type") not in ("null", "array")]
        parameters.append(
            OpenApiParameter(
                name, prop, required=False, description=description
            )  # a raw JSON schema as the type
        )
    return parameters


# What the path parameters of the API take (Django's <str:...> says only "text"); a value
# outside these is refused (400) or names nothing (404), so the document says so.
PATH_PARAMETERS: dict[str, dict[str, Any]] = {
    "key": {"type": "string", "pattern": lenient(NETWORK_KEY, padded=False)},
    "kind": {"type": "string", "enum": ["thought", "execution", "knowledge"]},
    "name": {"type": "string", "pattern": lenient(RESOURCE_NAME_RE, padded=False)},
    "slug": {"type": "string", "pattern": lenient(SLUG_RE, padded=False)},
    "unit_kind": {"type": "string", "enum": ["fact", "step", "engram", "skill", "episode"]},
    "unit_id": {"type": "integer", "minimum": 1},
    "intent": {"type": "string", "pattern": "^[a-z][a-z0-9_]{1,39}$"},
}


def describe_path_parameters(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular post-processing hook: the path parameters' schemas from PATH_PARAMETERS."""
    components = result.get("components", {}).get("schemas", {})
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                if parameter.get("in") == "path" and parameter["name"] in PATH_PARAMETERS:
                    parameter["schema"] = dict(PATH_PARAMETERS[parameter["name"]])
            _body_required_when_it_names_fields(operation, components)
    return result


def _body_required_when_it_names_fields(
    operation: dict[str, Any], components: dict[str, Any]
) -> None:
    """A body whose contract needs one of several fields (``anyOf`` of required sets, as
    ErasureIn) cannot be left out: the document says so."""
    body = operation.get("requestBody")
    if not isinstance(body, dict):
        return
    for media in body.get("content", {}).values():
        ref = str(media.get("schema", {}).get("$ref", ""))
        schema = components.get(ref.rsplit("/", 1)[-1], {}) if ref else media.get("schema", {})
        if any("required" in branch for branch in schema.get("anyOf", [])):
            body["required"] = True
