"""Django URLs: REST under /api/v1/ and the dashboard (MCP, health, static: see config.asgi)."""

from __future__ import annotations

import sys

from django.http import HttpRequest, HttpResponse
from django.urls import include, path

from frontend.views.errors import page_not_found, permission_denied, server_error
from gateway.rest.errors import json_error_page
from tenants.middleware import database_outage, is_outage

urlpatterns = [
    path("api/v1/", include("gateway.rest.urls")),
    path("", include("frontend.urls")),
]


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def handler404(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if _is_api(request):
        return json_error_page(request, 404, "not_found", "no such endpoint")
    return page_not_found(request, exception)


def handler500(request: HttpRequest) -> HttpResponse:
    failure = sys.exc_info()[1]  # Django calls this while handling the exception
    if failure is not None and is_outage(failure):
        return database_outage(request, failure)
    if _is_api(request):
        return json_error_page(request, 500, "server_error", "internal error; it has been logged")
    return server_error(request)


def handler403(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if _is_api(request):
        return json_error_page(request, 403, "permission_denied", "forbidden")
    return permission_denied(request, exception)
