"""Service errors that escape a dashboard view become the matching error page."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from base.errors import MnemoError, NotFound, PermissionDenied
from frontend.views import errors


class ServiceErrorMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if (
            response.status_code == 405
            and not response.content
            and not request.path.startswith("/api/")
        ):  # e.g. typing a form's address: a page, not a blank browser error
            return errors.method_not_allowed(request)
        return response

    def process_exception(self, request: HttpRequest, exc: Exception) -> HttpResponse | None:
        if not isinstance(exc, MnemoError) or request.path.startswith("/api/"):
            return None
        if isinstance(exc, NotFound):
            return errors.page_not_found(request, exc)
        if isinstance(exc, PermissionDenied):
            return errors.permission_denied(request, exc)
        return errors.bad_request(request, exc)
