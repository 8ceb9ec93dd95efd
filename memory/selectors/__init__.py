"""Reads on memory networks; all scoped by tenant."""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Any, TypedDict, cast

from django.core.cache import cache
from django.db import connection
from django.db.models import Count, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from audit.models import AuditEvent
from base.errors import NotFound, ValidationFailed
from base.pagination import MAX_ID, day_after
from memory.core.text import lemma
from memory.embeddings import query_vector
from memory.models import (
    EMBEDDABLE_CUE,
    Cue,
    Edge,
    Engram,
    EngramCue,
    ImportJob,
    ModerationItem,
    Network,
)
from tenants.models import Tenant


class NetworkCounts(TypedDict):
    engram_count: int  # active engrams
    cue_count: int
    edge_count: int
    pending_embeddings: int  # active engrams without their vector yet
    pending_cue_embeddings: int  # cues without theirs (semantic cue matching misses them);
    # a cue of only digits and punctuation (a number, a date) gets none (EMBEDDABLE_CUE)


if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

# A network as networks_for_tenant annotates it (the alias is evaluated by type checkers only).
type CountedNetwork = WithAnnotations[Network, NetworkCounts]


def _count(model: type[Engram | Cue | Edge], *where: Q, **filters: object) -> Coalesce:
    rows = (
        model.objects.filter(*where, network=OuterRef("pk"), **filters)
        .order_by()
        .values("network")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return Coalesce(Subquery(rows), 0)


def networks_for_tenant(*, tenant: Tenant) -> QuerySet[CountedNetwork]:
    """Networks with their active engram, cue and edge counts (one query)."""
    return (
        Network.objects.filter(tenant=tenant)
        .annotate(
            engram_count=_count(Engram, status=Engram.Status.ACTIVE),
            cue_count=_count(Cue),
            edge_count=_count(Edge),
            pending_embeddings=_count(Engram, status=Engram.Status.ACTIVE, embedding__isnull=True),
            pending_cue_embeddings=_count(Cue, EMBEDDABLE_CUE, vector__isnull=True),
        )
        .order_by("key")
    )


COUNTS_TTL = 30


def counts_key(tenant_id: int) -> str:
    return f"memory:counts:{tenant_id}"


def hubs_key(tenant_id: int) -> str:
    """The tenant's hub cues, per network (``memory.services.recall._hub_seeds``)."""
    return f"memory:hubs:{tenant_id}"


def networks_with_cached_counts(*, tenant: Tenant) -> list[CountedNetwork]:
    """``networks_for_tenant`` for the dashboard: counting a big network's edges costs tens of
    milliseconds, so the counts are cached until the next write (memory.live drops them) or
    for COUNTS_TTL seconds (maintenance does not announce itself)."""
    rows = cache.get(counts_key(tenant.pk))
    if rows is None:
        rows = [
            (
                n.pk,
                n.key,
                n.created_at,
                NetworkCounts(
                    engram_count=n.engram_count,
                    cue_count=n.cue_count,
                    edge_count=n.edge_count,
                    pending_embeddings=n.pending_embeddings,
                    pending_cue_embeddings=n.pending_cue_embeddings,
                ),
            )
            for n in networks_for_tenant(tenant=tenant)
        ]
        cache.set(counts_key(tenant.pk), rows, COUNTS_TTL)
    networks = []
    for pk, key, created_at, counts in rows:
        network = Network(pk=pk, tenant=tenant, key=key, created_at=created_at)
        for name, value in counts.items():
            setattr(network, name, value)  # as the annotation of networks_for_tenant would
        networks.append(cast("CountedNetwork", network))
    return networks


def network_with_counts(*, tenant: Tenant, key: str) -> CountedNetwork:
    network = networks_for_tenant(tenant=tenant).filter(key=key).first()
    if network is None:
        raise unknown_network(tenant=tenant, key=key)
    return network


def network_find(*, tenant: Tenant, key: str) -> Network | None:
    return Network.objects.filter(tenant=tenant, key=key).first()


def network_get_for_tenant(*, tenant: Tenant, key: str) -> Network:
    network = network_find(tenant=tenant, key=key)
    if network is None:
        raise unknown_network(tenant=tenant, key=key)
    return network


KNOWN_SHOWN = 12


def known_networks(*, tenant: Tenant) -> str:
    """The tenant's network keys for a message: "default, role:writer" (or "none yet")."""
    keys = list(
        Network.objects.filter(tenant=tenant)
        .order_by("key")
        .values_list("key", flat=True)[: KNOWN_SHOWN + 1]
    )
    more = " …" if len(keys) > KNOWN_SHOWN else ""
    return ", ".join(keys[:KNOWN_SHOWN]) + more if keys else "none yet"


def unknown_network(*, tenant: Tenant, key: str) -> NotFound:
    return NotFound(
        f"There is no network “{key}” in this workspace. Its networks: "
        f"{known_networks(tenant=tenant)}."
    )


# what a moderator keeps from agents: held and hidden memories, and deleted ones a moderator
# turned down (a rejected secret must not come back through ``status=deleted``)
HIDDEN_FROM_AGENTS = (Engram.Status.QUARANTINED, Engram.Status.HIDDEN)


def _turned_down(tenant: Tenant) -> QuerySet[ModerationItem, Any]:
    return ModerationItem.objects.filter(
        tenant=tenant,
        state__in=[ModerationItem.State.REJECTED, ModerationItem.State.EXPIRED],
        engram__isnull=False,
    ).values("engram_id")


def engram_get_for_tenant(*, tenant: Tenant, id: int, agent: bool = False) -> Engram:
    """``agent``: what a moderator keeps from agents (held, hidden, turned down) does not
    exist for an agent's key."""
    engram = Engram.objects.filter(tenant=tenant, pk=id).select_related("network").first()
    hidden = (
        agent
        and engram is not None
        and (
            engram.status in HIDDEN_FROM_AGENTS
            or (
                engram.status == Engram.Status.DELETED
                and _turned_down(tenant).filter(engram_id=engram.pk).exists()
            )
        )
    )
    if engram is None or hidden:
        raise NotFound("There is no such memory.")
    return engram


def engrams_for_tenant(
    *,
    tenant: Tenant,
    network: Network | None = None,
    q: str = "",
    type: str = "",
    status: str = Engram.Status.ACTIVE,
    agent: bool = False,
) -> QuerySet[Engram]:
    """Newest first; ``q`` is a full-text query (all words must match, "quotes" for phrases).
    ``agent``: an agent's key never sees held (quarantined) memories."""
    engrams = Engram.objects.filter(tenant=tenant).select_related("network")
    if agent:
        engrams = engrams.exclude(status__in=HIDDEN_FROM_AGENTS).exclude(
            pk__in=_turned_down(tenant)
        )
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
        Cue.objects.filter(tenant=tenant, engram_links__engram=engram).order_by(
            "engram_links__position"
        )
    )


# --- the dashboard ------------------------------------------------------------------------

BROWSE_SORTS = {
    # name: (ORDER BY, the column the keyset cursor compares, descending?)
    "newest": ("-created_at", "created_at", True),
    "oldest": ("created_at", "created_at", False),
    "strongest": ("-strength", "strength", True),
    "weakest": ("strength", "strength", False),
}


@dataclass(frozen=True)
class Browse:
    q: str = ""
    semantic: bool = False
    type: str = ""
    status: str = Engram.Status.ACTIVE
    source: str = ""
    since: date | None = None
    until: date | None = None
    min_strength: float | None = None
    sort: str = "newest"


def _midnight(day: date) -> datetime:
    return datetime.combine(day, datetime.min.time(), tzinfo=UTC)


def _cursor_of(engram: Engram, column: str) -> str:
    value = getattr(engram, column)
    raw = json.dumps([value.isoformat() if isinstance(value, datetime) else value, engram.pk])
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def _after(rows: QuerySet[Engram], cursor: str, column: str, descending: bool) -> QuerySet[Engram]:
    try:
        value, pk = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        value = datetime.fromisoformat(value) if column == "created_at" else float(value)
        pk = int(pk)
        if isinstance(value, datetime):
            value.astimezone(UTC)  # a stamp outside UTC's calendar raises OverflowError
        elif not math.isfinite(value):
            raise ValueError("not a number")
        if not 0 < pk <= MAX_ID:
            raise ValueError("out of range")
    except (ValueError, TypeError, UnicodeDecodeError, OverflowError) as exc:
        raise ValidationFailed.field("cursor", "not a cursor of this list") from exc
    # A row comparison, not "a < x OR (a = x AND id < y)": Postgres walks the index from the
    # cursor for the former and filters from the start for the latter (measured: 13 ms vs 2 ms
    # 50,000 rows deep).
    op = "<" if descending else ">"
    return rows.extra(
        where=[f'("memory_engram"."{column}", "memory_engram"."id") {op} (%s, %s)'],
        params=[value, pk],
    )


def engrams_browse(
    *, tenant: Tenant, network: Network, browse: Browse, cursor: str = "", limit: int = 50
) -> tuple[list[Engram], str | None]:
    """A page of the memory browser: filtered, sorted on an index-backed keyset (stays fast
    deep into 100k engrams); a semantic search returns the nearest ``limit`` by meaning."""
    rows = Engram.objects.filter(tenant=tenant, network=network).defer("embedding", "terms")
    if browse.status:
        rows = rows.filter(status=browse.status)
    if browse.type:
        rows = rows.filter(type=browse.type)
    if browse.source:
        rows = rows.filter(source=browse.source)
    # Bounds on created_at itself (a ::date cast would hide the column from the index).
    if browse.since:
        rows = rows.filter(created_at__gte=_midnight(browse.since))
    end = day_after(browse.until) if browse.until else None
    if end is not None:
        rows = rows.filter(created_at__lt=_midnight(end))
    if browse.min_strength is not None:
        rows = rows.filter(strength__gte=browse.min_strength)
    if browse.q and browse.semantic:
        vector = query_vector(browse.q, tenant.pk)
        if vector is None:
            return [], None
        rows = rows.filter(embedding__isnull=False).extra(
            select={"distance": "embedding <=> %s::vector"},
            select_params=[vector],
            order_by=["distance"],
        )
        return list(rows[:limit]), None
    if browse.q:
        rows = rows.extra(
            where=["search @@ websearch_to_tsquery('english', %s)"], params=[browse.q]
        )
    order, column, descending = BROWSE_SORTS.get(browse.sort, BROWSE_SORTS["newest"])
    if cursor:
        rows = _after(rows, cursor, column, descending)
    rows = rows.order_by(order, "-pk" if descending else "pk")
    items = list(rows[: limit + 1])
    more = len(items) > limit
    items = items[:limit]
    return items, (_cursor_of(items[-1], column) if more and items else None)


def engram_edges(*, tenant: Tenant, engram: Engram, limit: int = 60) -> list[Edge]:
    """The edges among an engram's own cues, strongest first."""
    cue_ids = list(
        EngramCue.objects.filter(tenant=tenant, engram=engram).values_list("cue_id", flat=True)
    )
    return list(
        Edge.objects.filter(
            tenant=tenant,
            network_id=engram.network_id,
            source_id__in=cue_ids,
            target_id__in=cue_ids,
        )
        .select_related("source", "target")
        .order_by("-weight")[:limit]
    )


def recent_engrams(*, tenant: Tenant, networks: Sequence[Network], limit: int = 10) -> list[Engram]:
    """The newest memories across networks: one index scan per network, merged."""
    found: list[Engram] = []
    for network in networks:
        found += list(
            Engram.objects.filter(tenant=tenant, network=network, status=Engram.Status.ACTIVE)
            .defer("embedding", "terms")
            .select_related("network")
            .order_by("-created_at", "-id")[:limit]
        )
    return sorted(found, key=lambda e: (e.created_at, e.pk), reverse=True)[:limit]


def growth_by_day(*, tenant: Tenant, days: int = 30) -> dict[str, list[Any]]:
    """Memories per day for the last ``days`` days and the running total (for the plot)."""
    start = (timezone.now() - timedelta(days=days - 1)).date()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM memory_engram WHERE tenant_id = %s AND created_at < %s "
            "AND status <> 'deleted'",
            [tenant.pk, start],
        )
        before = cursor.fetchone()[0]
        cursor.execute(
            "SELECT date_trunc('day', created_at AT TIME ZONE 'UTC')::date AS day, count(*) "
            "FROM memory_engram WHERE tenant_id = %s AND created_at >= %s "
            "AND status <> 'deleted' GROUP BY day",
            [tenant.pk, start],
        )
        per_day = dict(cursor.fetchall())
    labels, added, total = [], [], []
    running = before
    for offset in range(days):
        day = start + timedelta(days=offset)
        running += per_day.get(day, 0)
        labels.append(day.isoformat())
        added.append(per_day.get(day, 0))
        total.append(running)
    return {"labels": labels, "added": added, "total": total}


def recall_activity(*, tenant: Tenant, days: int = 14) -> dict[str, Any]:
    """Recalls and primes per day, and latency percentiles of the last 7 days by source, from
    the timings recorded as requests were served."""
    start = (timezone.now() - timedelta(days=days - 1)).date()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT date_trunc('day', created_at AT TIME ZONE 'UTC')::date AS day, kind, "
            "count(*), percentile_cont(0.95) WITHIN GROUP (ORDER BY took_ms) "
            "FROM memory_recallevent WHERE tenant_id = %s AND created_at >= %s "
            "GROUP BY day, kind",
            [tenant.pk, start],
        )
        rows = cursor.fetchall()
        cursor.execute(
            "SELECT source, count(*), "
            "percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY took_ms) "
            "FROM memory_recallevent WHERE tenant_id = %s AND kind = 'recall' "
            "AND created_at >= now() - interval '7 days' GROUP BY ROLLUP (source) "
            "ORDER BY source NULLS FIRST",
            [tenant.pk],
        )
        latency = [
            {"source": source or "all", "count": count, "p50": ps[0], "p95": ps[1], "p99": ps[2]}
            for source, count, ps in cursor.fetchall()
            if count  # ROLLUP answers one empty total row when there is nothing
        ]
    labels = [(start + timedelta(days=i)).isoformat() for i in range(days)]
    series: dict[str, list[float]] = {
        "recall": [0] * days,
        "prime": [0] * days,
        "p95": [0.0] * days,
    }
    for day, kind, count, p95 in rows:
        index = (day - start).days
        if not 0 <= index < days:  # a clock ahead of ours
            continue
        series[kind][index] = count
        if kind == "recall":
            series["p95"][index] = round(p95, 1)
    return {"labels": labels, **series, "latency": latency}


def graph_neighbourhood(
    *, network: Network, cue_id: int, depth: int = 2, per_node: int = 12, max_nodes: int = 150
) -> dict[str, list[dict[str, Any]]]:
    """The cues around one cue, breadth first over the strongest edges either way, bounded per
    node and in total: a 100k-cue network is never read whole."""
    depth = max(1, min(depth, 4))
    nodes: dict[int, int] = {cue_id: 0}
    frontier = [cue_id]
    with connection.cursor() as cursor:
        for level in range(1, depth + 1):
            if not frontier or len(nodes) >= max_nodes:
                break
            # Out- and in-edges separately (each an index range; an OR of the two is a scan),
            # the strongest per_node of each frontier cue.
            cursor.execute(
                """
                SELECT other, weight FROM (
                    SELECT target_id AS other, weight, row_number() OVER (
                               PARTITION BY source_id ORDER BY weight DESC) AS rn
                      FROM memory_edge
                     WHERE tenant_id = %s AND network_id = %s AND source_id = ANY(%s::bigint[])
                    UNION ALL
                    SELECT source_id AS other, weight, row_number() OVER (
                               PARTITION BY target_id ORDER BY weight DESC) AS rn
                      FROM memory_edge
                     WHERE tenant_id = %s AND network_id = %s AND target_id = ANY(%s::bigint[])
                ) ranked
                 WHERE rn <= %s ORDER BY weight DESC
                """,
                # In-degree is unbounded (a hub has thousands): in-edges only for the centre;
                # out-degree is bounded on write, so every level may follow those.
                [
                    network.tenant_id,
                    network.pk,
                    frontier,
                    network.tenant_id,
                    network.pk,
                    frontier if level == 1 else [],
                    per_node,
                ],
            )
            new = []
            for other, _ in cursor.fetchall():
                if other not in nodes and len(nodes) < max_nodes:
                    nodes[other] = level
                    new.append(other)
            frontier = new
        ids = list(nodes)
        cursor.execute(
            "SELECT id, word, engram_count, recall_count FROM memory_cue "
            "WHERE tenant_id = %s AND network_id = %s AND id = ANY(%s)",
            [network.tenant_id, network.pk, ids],
        )
        cue_rows = cursor.fetchall()
        cursor.execute(
            "SELECT source_id, target_id, weight, kind FROM memory_edge "
            "WHERE tenant_id = %s AND network_id = %s AND source_id = ANY(%s) "
            "AND target_id = ANY(%s) ORDER BY weight DESC LIMIT 600",
            [network.tenant_id, network.pk, ids, ids],
        )
        edge_rows = cursor.fetchall()
    return {
        "nodes": [
            {"id": cid, "word": word, "engrams": n, "recalls": r, "depth": nodes[cid]}
            for cid, word, n, r in cue_rows
        ],
        "edges": [
            {"source": s, "target": t, "weight": round(w, 4), "kind": k} for s, t, w, k in edge_rows
        ],
    }


def cue_find(*, network: Network, q: str, limit: int = 10) -> list[Cue]:
    """Cues for the graph's search box: the word itself, then the nearest by trigrams."""
    key = lemma(q.strip())
    if not key:
        return []
    exact = list(Cue.objects.filter(tenant_id=network.tenant_id, network=network, lemma=key))
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT id FROM (SELECT id, lemma <-> %s AS distance FROM memory_cue "
            "WHERE tenant_id = %s AND network_id = %s AND lemma <> %s "
            "ORDER BY lemma <-> %s LIMIT %s) nearest WHERE distance < 0.85",
            [key, network.tenant_id, network.pk, key, key, limit],
        )
        ids = [row[0] for row in cursor.fetchall()]
    by_id = {c.pk: c for c in Cue.objects.filter(tenant_id=network.tenant_id, pk__in=ids)}
    near = [by_id[i] for i in ids if i in by_id]
    return (exact + near)[:limit]


def hub_cue(*, network: Network) -> Cue | None:
    return (
        Cue.objects.filter(tenant_id=network.tenant_id, network=network)
        .order_by("-engram_count", "id")
        .first()
    )


def cue_engrams(*, network: Network, cue: Cue, limit: int = 20) -> list[Engram]:
    return list(
        Engram.objects.filter(
            tenant_id=network.tenant_id,
            network=network,
            status=Engram.Status.ACTIVE,
            cue_links__cue=cue,
        )
        .defer("embedding", "terms")
        .order_by("-created_at", "-id")[:limit]
    )


def cue_get(*, network: Network, id: int) -> Cue:
    cue = Cue.objects.filter(tenant_id=network.tenant_id, network=network, pk=id).first()
    if cue is None:
        raise NotFound("There is no such concept in this network.")
    return cue


def import_jobs(*, tenant: Tenant, limit: int = 10) -> list[ImportJob]:
    return list(
        ImportJob.objects.filter(tenant=tenant).defer("payload").order_by("-created_at")[:limit]
    )


def import_job_get(*, tenant: Tenant, id: int) -> ImportJob:
    job = ImportJob.objects.filter(tenant=tenant, pk=id).defer("payload").first()
    if job is None:
        raise NotFound("There is no such import.")
    return job


# --- moderation ----------------------------------------------------------------------------


def moderation_items_for_tenant(
    *, tenant: Tenant, state: str = "pending", kind: str = "", network: Network | None = None
) -> QuerySet[ModerationItem]:
    """The queue, newest first (``state`` "" or "any": every state)."""
    items = ModerationItem.objects.filter(tenant=tenant).select_related("network", "engram")
    if state and state != "any":
        items = items.filter(state=state)
    if kind:
        items = items.filter(kind=kind)
    if network is not None:
        items = items.filter(network=network)
    return items.order_by("-created_at", "-id")


def moderation_item_get_for_tenant(*, tenant: Tenant, id: int) -> ModerationItem:
    item = (
        ModerationItem.objects.filter(tenant=tenant, pk=id)
        .select_related("network", "engram")
        .first()
    )
    if item is None:
        raise NotFound("There is no such moderation item.")
    return item


def pending_moderation_count(*, tenant: Tenant) -> int:
    """The navigation badge's number."""
    return ModerationItem.objects.filter(tenant=tenant, state="pending").count()


def engram_neighbours(*, tenant: Tenant, engram: Engram, limit: int = 3) -> list[Engram]:
    """Active memories of the same network filed under the most of this one's concepts (a held
    memory is filed under none, so its schema's words are looked up)."""
    lemmas = sorted({lemma(word) for word in engram.schema} - {""})
    if not lemmas:
        return []
    cues = Cue.objects.filter(tenant=tenant, network_id=engram.network_id, lemma__in=lemmas)
    shared = (
        EngramCue.objects.filter(
            tenant=tenant, network_id=engram.network_id, cue_id__in=cues.values("id")
        )
        .exclude(engram_id=engram.pk)
        .values("engram_id")
        .annotate(n=Count("cue_id"))
        .order_by("-n", "-engram_id")[:limit]
    )
    ids = [row["engram_id"] for row in shared]
    found = {e.pk: e for e in Engram.objects.filter(tenant=tenant, pk__in=ids, status="active")}
    return [found[pk] for pk in ids if pk in found]
