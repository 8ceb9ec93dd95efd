"""Reads on memory networks; all scoped by tenant."""

from __future__ import annotations

from django.db.models import Count, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce

from audit.models import AuditEvent
from config.errors import NotFound
from memory.models import Cue, Edge, Engram, Network
from tenants.models import Tenant


def _count(model: type, **filters: object) -> Coalesce:
    rows = (
        model.objects.filter(network=OuterRef("pk"), **filters)  # type: ignore[attr-defined]
        .order_by()
        .values("network")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return Coalesce(Subquery(rows), 0)


def networks_for_tenant(*, tenant: Tenant) -> QuerySet[Network]:
    """Networks with their active engram, cue and edge counts (one query)."""
    return (
        Network.objects.filter(tenant=tenant)
        .annotate(
            engram_count=_count(Engram, status=Engram.Status.ACTIVE),
            cue_count=_count(Cue),
            edge_count=_count(Edge),
        )
        .order_by("key")
    )


def network_with_counts(*, tenant: Tenant, key: str) -> Network:
    network = networks_for_tenant(tenant=tenant).filter(key=key).first()
    if network is None:
        raise NotFound(f"There is no network “{key}” in this workspace.")
    return network


def engram_get_for_tenant(*, tenant: Tenant, id: int) -> Engram:
    engram = Engram.objects.filter(tenant=tenant, pk=id).select_related("network").first()
    if engram is None:
        raise NotFound("There is no such memory.")
    return engram


def engrams_for_tenant(
    *,
    tenant: Tenant,
    network: Network | None = None,
    q: str = "",
    type: str = "",
    status: str = Engram.Status.ACTIVE,
) -> QuerySet[Engram]:
    """Newest first; ``q`` is a full-text query (all words must match, "quotes" for phrases)."""
    engrams = Engram.objects.filter(tenant=tenant).select_related("network")
    if network is not None:
        engrams = engrams.filter(network=network)
    if status:
        engrams = engrams.filter(status=status)
    if type:
        engrams = engrams.filter(type=type)
    if q:
        engrams = engrams.extra(where=["search @@ websearch_to_tsquery('english', %s)"], params=[q])
    return engrams.order_by("-created_at", "-id")


def engram_history(*, tenant: Tenant, engram: Engram) -> QuerySet[AuditEvent]:
    return AuditEvent.objects.filter(
        tenant=tenant, target_type="engram", target_id=str(engram.pk)
    ).order_by("-created_at", "-id")


def engram_cues(*, tenant: Tenant, engram: Engram) -> list[Cue]:
    return list(
        Cue.objects.filter(tenant=tenant, engram_links__engram=engram)
        .order_by("engram_links__position")
    )  # fmt: skip
