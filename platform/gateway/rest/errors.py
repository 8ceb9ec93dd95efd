"""Every API error is ``{"error": {"code": ..., "message": ..., "fields"?: {...}}}``."""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import RequestDataTooBig
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.urls import Resolver404, resolve
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, status
from rest_framework.response import Response

from base.errors import MnemoError, error_body
from gateway.rest.auth import BEARER_REALM
from tenants.middleware import database_outage, is_outage

log = logging.getLogger(__name__)

_CODES: dict[type[exceptions.APIException], str] = {
    exceptions.ParseError: "malformed_request",
    exceptions.ValidationError: "validation_error",
    exceptions.NotAuthenticated: "not_authenticated",
    exceptions.AuthenticationFailed: "not_authenticated",
    exceptions.PermissionDenied: "permission_denied",
    exceptions.NotFound: "not_found",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.NotAcceptable: "not_acceptable",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.Throttled: "rate_limited",
}


def _flatten(detail: Any, prefix: str = "") -> dict[str, str]:
    """DRF's nested ValidationError detail as ``{"engrams[3].content": "message"}``."""
    if isinstance(detail, dict):
        out: dict[str, str] = {}
        for key, value in detail.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            out.update(_flatten(value, "" if key == "non_field_errors" and not prefix else name))
        return out
    if isinstance(detail, list):
        if all(not isinstance(item, dict | list) for item in detail):
            return {prefix or "request": " ".join(str(item) for item in detail)}
        out = {}
        for index, item in enumerate(detail):
            if item:
                out.update(_flatten(item, f"{prefix}[{index}]"))
        return out
    return {prefix or "request": str(detail)}


def _api_exception(exc: exceptions.APIException) -> Response:
    if isinstance(exc, exceptions.ValidationError):
        fields = _flatten(exc.detail)
        first = next(iter(fields.items()))
        body = error_body("validation_error", f"{first[0]}: {first[1]}", fields)
    else:
        detail = exc.detail
        code = getattr(detail, "code", None)
        generic = _CODES.get(type(exc))
        if generic and (not isinstance(code, str) or code == exc.default_code):
            code = generic
        elif not isinstance(code, str):
            code = "error"
        body = error_body(code, str(detail))
    response = Response(body, status=exc.status_code)
    wait = getattr(exc, "wait", None)  # set on Throttled
    if isinstance(exc, exceptions.Throttled) and wait is not None:
        response["Retry-After"] = str(int(wait))
        response.data["error"]["message"] = f"rate limit reached; retry in {int(wait)} s"
    if exc.status_code == status.HTTP_401_UNAUTHORIZED:
        response["WWW-Authenticate"] = BEARER_REALM
    return response


def exception_handler(exc: Exception, context: dict[str, Any]) -> HttpResponse | None:
    if isinstance(exc, MnemoError):
        return Response({"error": exc.as_dict()}, status=exc.status)
    if isinstance(exc, Http404):
        return Response(error_body("not_found", "not found"), status=404)
    if isinstance(exc, RequestDataTooBig):
        return Response(error_body("payload_too_large", "request body is too large"), status=413)
    if isinstance(exc, exceptions.APIException):
        return _api_exception(exc)
    if is_outage(exc):
        return database_outage(context["request"], exc)  # as handler500 answers middleware's
    log.exception("unhandled API error", exc_info=exc)
    return Response(error_body("server_error", "internal error; it has been logged"), status=500)


def json_error_page(
    request: HttpRequest, status_code: int, code: str, message: str
) -> JsonResponse:
    return JsonResponse(error_body(code, message), status=status_code)


@csrf_exempt  # it serves API views, which authenticate by bearer key, never by cookie
def api_not_found(request: HttpRequest) -> HttpResponse:
    """The catch-all of /api/v1/. Clients often add a trailing slash (or leave one out): the
    same path with or without it is served by its endpoint, same method, same body — a
    redirect would lose the body of a POST."""
    path = request.path_info
    other = path[:-1] if path.endswith("/") else path + "/"
    try:
        match = resolve(other)
    except Resolver404:
        match = None
    if match is not None and match.func is not api_not_found:
        response: HttpResponse = match.func(request, *match.args, **match.kwargs)
        return response
    return json_error_page(request, 404, "not_found", f"no such endpoint: {request.path}")
