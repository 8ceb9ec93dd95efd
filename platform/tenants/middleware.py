"""One transaction per request, with the row-level-security settings reset at its start."""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.db import InterfaceError, OperationalError, transaction
from django.http import HttpRequest, HttpResponse, JsonResponse

from base.errors import error_body
from tenants import rls

log = logging.getLogger(__name__)


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


OUTAGE_PAGE = (
    "<!doctype html><title>Mnemo is unavailable</title><h1>Mnemo is unavailable for a moment</h1>"
    "<p>The database does not answer. Nothing you sent was half-saved; try again in a few "
    "seconds.</p>"
)


# SQLSTATEs of a server going away or full; class 08 is every connection exception
GONE = {"57P01", "57P02", "57P03", "53300"}


def is_outage(exc: BaseException | None) -> bool:
    """The database did not answer (refused, gone, pool exhausted), as opposed to answering
    with an error: a deadlock, a serialization failure or a statement timeout is a 500 to fix,
    not a 503 to retry."""
    if isinstance(exc, InterfaceError):  # the connection was already closed
        return True
    if not isinstance(exc, OperationalError):
        return False
    state = getattr(exc.__cause__, "sqlstate", None)
    return state is None or state.startswith("08") or state in GONE


def database_outage(request: HttpRequest, exc: BaseException) -> HttpResponse:
    """A database that does not answer is a fast 503 (JSON for the API, a short page for the
    dashboard) with Retry-After, not a 500 after a long wait: the pool gives up after
    DB_POOL_TIMEOUT seconds, a new connection after DB_CONNECT_TIMEOUT.

    Answered from the REST exception handler (errors inside a view) and from ``handler500``
    (errors in middleware, e.g. this module's transaction failing to start or end).
    """
    log.warning("database unavailable for %s", request.path, exc_info=exc)
    if request.path.startswith("/api/"):
        message = "The database does not answer; retry in a few seconds."
        response: HttpResponse = JsonResponse(
            error_body("service_unavailable", message), status=503
        )
    else:
        response = HttpResponse(OUTAGE_PAGE, status=503)
    response["Retry-After"] = "5"
    return response
