"""The audit log: filter by actor, verb and date; cursor-paginated, newest first."""

from __future__ import annotations

from django.http import HttpResponse

from audit.models import AuditEvent
from audit.sealing import unseal
from audit.selectors import (
    audit_actors_for_tenant,
    audit_events_for_tenant,
    audit_verbs_for_tenant,
)
from base.errors import ValidationFailed
from base.pagination import page_of
from frontend.forms import AuditFilterForm
from frontend.views.base import page, tenant_view
from tenants.permissions import Capability
from tenants.requests import TenantRequest

PAGE_SIZE = 50


def actor_choices(tenant_id: int) -> list[tuple[str, str]]:
    """Who appears in the log (not everyone who could): users, keys, the system."""
    kinds = dict(AuditEvent.ActorKind.choices)
    choices = [("", "Anyone")]
    for kind, ident, label in audit_actors_for_tenant(tenant_id=tenant_id):
        value = f"{kind}:{ident}" if ident is not None else kind
        choices.append((value, f"{kinds.get(kind, kind)}: {label}"))
    return list(dict.fromkeys(choices))


@tenant_view(Capability.AUDIT_VIEW)
def audit_log(request: TenantRequest) -> HttpResponse:
    tenant = request.tenant
    form = AuditFilterForm(request.GET or None)
    filters = form.filters() if request.GET else AuditFilterForm().filters()
    events = audit_events_for_tenant(tenant_id=tenant.pk, **filters)
    cursor = request.GET.get("cursor", "")
    try:
        rows, next_cursor = page_of(events, cursor=cursor, limit=PAGE_SIZE)
    except ValidationFailed:  # a stale or hand-edited cursor starts from the newest again
        cursor = ""
        rows, next_cursor = page_of(events, limit=PAGE_SIZE)
    query = request.GET.copy()
    query.pop("cursor", None)
    context = {
        "form": form,
        "events": unseal(rows),
        "next_cursor": next_cursor or "",
        "base_query": query.urlencode(),
        "is_first_page": not cursor,
        "actors": actor_choices(tenant.pk),
        "verbs": audit_verbs_for_tenant(tenant_id=tenant.pk),
        "filters": filters,
    }
    return page(request, "frontend/audit.html", context, partial="frontend/partials/_audit.html")
