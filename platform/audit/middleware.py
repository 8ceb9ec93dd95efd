"""Give every request an id (echoed as X-Request-ID) and remember the client address."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from audit import context


def client_ip(meta: dict[str, str]) -> str | None:
    """The peer address. Behind a proxy, uvicorn's --proxy-headers with --forwarded-allow-ips
    (FORWARDED_ALLOW_IPS) rewrites it from X-Forwarded-For for trusted proxies only, for Django
    and the MCP gateway alike; headers from anyone else are never read here."""
    return meta.get("REMOTE_ADDR") or None


class RequestContextMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request_id = context.clean_request_id(request.headers.get("X-Request-ID"))
        request.request_id = request_id  # type: ignore[attr-defined]  # for views that show it
        with context.bound(request_id, client_ip(request.META)):
            response = self.get_response(request)
        response["X-Request-ID"] = request_id
        return response
