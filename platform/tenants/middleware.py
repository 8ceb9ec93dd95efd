"""One transaction per request, with the row-level-security settings reset at its start."""

from __future__ import annotations

from collections.abc import Callable

from django.db import transaction
from django.http import HttpRequest, HttpResponse

from tenants import rls


class TenantTransactionMiddleware:
    """Like ATOMIC_REQUESTS, but the RLS settings are cleared first.

    Views that resolve a tenant (dashboard pages, REST handlers) call ``rls.activate`` inside
    this transaction; until then the request sees no tenant-owned row at all. An unhandled error
    (a 5xx response) rolls everything back. A 4xx is a deliberate answer: the service that refused
    has already rolled back its own savepoint, and bookkeeping such as a key's last use stays.
    Streaming bodies run after the commit, outside RLS: a tenant view that streams from the ORM
    opens ``rls.tenant_scope`` per chunk itself (as the memory export does).
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        with transaction.atomic():
            user = getattr(request, "user", None)
            user_id = user.pk if user is not None and user.is_authenticated else None
            rls.activate(user_id=user_id)
            response = self.get_response(request)
            if response.status_code >= 500:
                transaction.set_rollback(True)
        return response
