"""One transaction per request, with the row-level-security settings reset at its start."""

from __future__ import annotations

from collections.abc import Callable

from django.db import transaction
from django.http import HttpRequest, HttpResponse

from tenants import rls


class TenantTransactionMiddleware:
    """Like ATOMIC_REQUESTS, but the settings are cleared first and failures roll back.

    Views that resolve a tenant (dashboard pages, REST handlers) call ``rls.activate`` inside
    this transaction; until then the request sees no tenant-owned row at all. A response with an
    error status rolls the transaction back, so a failed request never leaves half a change.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        with transaction.atomic():
            user = getattr(request, "user", None)
            user_id = user.pk if user is not None and user.is_authenticated else None
            rls.activate(user_id=user_id)
            response = self.get_response(request)
            if response.status_code >= 400:
                transaction.set_rollback(True)
        return response
