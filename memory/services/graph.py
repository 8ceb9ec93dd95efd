"""Batched SQL on the cue graph: upsert cues, reinforce or weaken edges, bound out-degree.

Every statement takes arrays (``unnest``) so a batch of any size is one round trip, and rows are
sorted so concurrent writers take row locks in the same order (no deadlocks). Reinforcement is
an atomic ``ON CONFLICT DO UPDATE``: two processes reinforcing the same edge both count.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable

from django.db import connection
from django.utils import timezone

from memory.core.hebbian import HALF_LIFE_DAYS, MAX_OUT_DEGREE, edge_uses
from memory.models import Engram, EngramCue, Network


def cues_upsert(
    network: Network, words: dict[str, str], adds: Counter[str] | None = None
) -> dict[str, int]:
    """Make sure a cue exists for each lemma ({lemma: display word}); add ``adds[lemma]`` to its
    engram count. Returns {lemma: cue id}."""
    if not words:
        return {}
    adds = adds or Counter()
    lemmas = sorted(words)
    now = timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(
            """
            INSERT INTO memory_cue (tenant_id, network_id, lemma, word, engram_count,
                                    recall_count, out_degree, created_at)
            SELECT %s, %s, l, w, n, 0, 0, %s
              FROM unnest(%s::text[], %s::text[], %s::int[]) AS t(l, w, n)
            ON CONFLICT (tenant_id, network_id, lemma)
            DO UPDATE SET engram_count = memory_cue.engram_count + EXCLUDED.engram_count
            RETURNING lemma, id
            """,
            [
                network.tenant_id,
                network.pk,
                now,
                lemmas,
                [words[x] for x in lemmas],
                [adds.get(x, 0) for x in lemmas],
            ],
        )
        return dict(cursor.fetchall())


def cues_ensure(network: Network, words: dict[str, str]) -> dict[str, int]:
    """Make sure a cue exists for each lemma ({lemma: display word}) and return {lemma: id},
    without locking the cues that already exist (``INSERT ... DO NOTHING``): remember takes
    those locks at the end of its transaction (``cues_count_add``), not for all of it."""
    if not words:
        return {}
    lemmas = sorted(words)
    with connection.cursor() as cursor:
        cursor.execute(
            """
            INSERT INTO memory_cue (tenant_id, network_id, lemma, word, engram_count,
                                    recall_count, out_degree, created_at)
            SELECT %s, %s, l, w, 0, 0, 0, %s FROM unnest(%s::text[], %s::text[]) AS t(l, w)
            ON CONFLICT (tenant_id, network_id, lemma) DO NOTHING
            """,
            [network.tenant_id, network.pk, timezone.now(), lemmas, [words[x] for x in lemmas]],
        )
        cursor.execute(
            "SELECT lemma, id FROM memory_cue WHERE tenant_id = %s AND network_id = %s "
            "AND lemma = ANY(%s)",
            [network.tenant_id, network.pk, lemmas],
        )
        return dict(cursor.fetchall())


def cues_count_add(network: Network, adds: dict[int, int]) -> None:
    """Engrams joined these cues ({cue id: how many}): raise their engram counts, locking the
    rows in lemma order (the order every writer takes cues in)."""
    ids = sorted(cue_id for cue_id, n in adds.items() if n)
    if not ids:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            """
            WITH locked AS (
                SELECT id FROM memory_cue WHERE tenant_id = %s AND network_id = %s
                   AND id = ANY(%s) ORDER BY lemma FOR UPDATE)
            UPDATE memory_cue c SET engram_count = c.engram_count + t.n
              FROM locked, unnest(%s::bigint[], %s::int[]) AS t(id, n)
             WHERE c.id = locked.id AND c.id = t.id
            """,
            [network.tenant_id, network.pk, ids, ids, [adds[i] for i in ids]],
        )


def cues_lock(network: Network, ids: list[int]) -> None:
    """Lock these cues in lemma order, the order ``cues_upsert`` (every remember) takes them in,
    before a change that updates them by id (deleting or archiving an engram, decay): updates in
    another order would deadlock against a concurrent remember."""
    if not ids:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT id FROM memory_cue WHERE tenant_id = %s AND network_id = %s "
            "AND id = ANY(%s) ORDER BY lemma FOR UPDATE",
            [network.tenant_id, network.pk, sorted(set(ids))],
        )


def cue_counts_subtract(network: Network, removals: Counter[int]) -> None:
    """Engrams left these cues (edited away, deleted): lower their engram counts."""
    if not removals:
        return
    ids = sorted(removals)
    with connection.cursor() as cursor:
        cursor.execute(
            """
            UPDATE memory_cue c SET engram_count = GREATEST(c.engram_count - t.n, 0)
            FROM unnest(%s::bigint[], %s::int[]) AS t(id, n)
            WHERE c.tenant_id = %s AND c.network_id = %s AND c.id = t.id
            """,
            [ids, [removals[i] for i in ids], network.tenant_id, network.pk],
        )


def _edge_rows(
    schemas: Iterable[list[str]], cue_ids: dict[str, int]
) -> list[tuple[int, int, str, float, int]]:
    rows = []
    for use in edge_uses(list(schemas)):
        if use.source not in cue_ids or use.target not in cue_ids:
            continue
        fresh = 1.0 - (1.0 - use.eta) ** use.times  # the weight k uses give a new edge
        rows.append((cue_ids[use.source], cue_ids[use.target], use.kind, fresh, use.times))
    return sorted(rows)


def edges_reinforce(network: Network, schemas: list[list[str]], cue_ids: dict[str, int]) -> int:
    """Hebbian reinforcement along each schema: ``w ← 1 − (1 − w')(1 − fresh)`` where ``w'`` is
    the weight after the decay it is owed since last decayed or reinforced. Returns edges."""
    rows = _edge_rows(schemas, cue_ids)
    if not rows:
        return 0
    now = timezone.now()
    # One JSON parameter: far cheaper to send than five arrays of 10,000s of values.
    payload = json.dumps([[s, t, k, w, n] for s, t, k, w, n in rows])
    with connection.cursor() as cursor:
        cursor.execute(
            """
            INSERT INTO memory_edge (tenant_id, network_id, source_id, target_id, kind, weight,
                                     count, last_reinforced_at, decayed_at)
            SELECT %s, %s, (e->>0)::bigint, (e->>1)::bigint, e->>2, (e->>3)::float8,
                   (e->>4)::int, %s, %s
              FROM jsonb_array_elements(%s::jsonb) AS e
            ON CONFLICT (tenant_id, network_id, source_id, target_id, kind) DO UPDATE
            SET weight = 1 - (1 - memory_edge.weight * power(0.5, greatest(extract(epoch FROM
                        EXCLUDED.last_reinforced_at - greatest(memory_edge.decayed_at,
                        memory_edge.last_reinforced_at)), 0) / 86400.0 / %s))
                        * (1 - EXCLUDED.weight),
                count = memory_edge.count + EXCLUDED.count,
                last_reinforced_at = EXCLUDED.last_reinforced_at,
                decayed_at = EXCLUDED.decayed_at
            RETURNING source_id, (xmax = 0) AS inserted
            """,
            [network.tenant_id, network.pk, now, now, payload, HALF_LIFE_DAYS],
        )
        added = Counter(source for source, inserted in cursor.fetchall() if inserted)
    _bound_out_degree(network, added)
    return len(rows)


def edges_weaken(network: Network, schemas: list[list[str]], cue_ids: dict[str, int]) -> None:
    """One memory fewer uses these edges (edited or deleted): each keeps the share of its weight
    the remaining uses account for, ``w · (n − 1) / n``, and goes when no use is left."""
    rows = _edge_rows(schemas, cue_ids)
    if not rows:
        return
    sources, targets, kinds, _, _ = (list(column) for column in zip(*rows, strict=True))
    with connection.cursor() as cursor:
        cursor.execute(
            """
            UPDATE memory_edge e
               SET weight = GREATEST(e.weight * (e.count - 1) / GREATEST(e.count, 1), 0.000001),
                   count = GREATEST(e.count - 1, 0)
              FROM unnest(%s::bigint[], %s::bigint[], %s::text[]) AS u(s, t, k)
             WHERE e.tenant_id = %s AND e.network_id = %s
               AND e.source_id = u.s AND e.target_id = u.t AND e.kind = u.k
            """,
            [sources, targets, kinds, network.tenant_id, network.pk],
        )
        cursor.execute(
            "DELETE FROM memory_edge WHERE tenant_id = %s AND network_id = %s "
            "AND source_id = ANY(%s) AND count = 0 RETURNING source_id",
            [network.tenant_id, network.pk, sorted(set(sources))],
        )
        gone = Counter(row[0] for row in cursor.fetchall())
    degree_subtract(network, gone)


def degree_subtract(network: Network, gone: Counter[int]) -> None:
    """Edges left these cues: lower their out-degree counters."""
    if not gone:
        return
    ids = sorted(gone)
    with connection.cursor() as cursor:
        cursor.execute(
            """
            UPDATE memory_cue c SET out_degree = GREATEST(c.out_degree - t.n, 0)
              FROM unnest(%s::bigint[], %s::int[]) AS t(id, n)
             WHERE c.tenant_id = %s AND c.network_id = %s AND c.id = t.id
            """,
            [ids, [gone[i] for i in ids], network.tenant_id, network.pk],
        )


DEGREE_SLACK = 16  # prune a cue only every 16 new edges past the bound, not on every write


def _bound_out_degree(network: Network, added: Counter[int]) -> None:
    """Count new out-edges per cue; a cue past the bound by the slack keeps its strongest."""
    if not added:
        return
    ids = sorted(added)
    with connection.cursor() as cursor:
        cursor.execute(
            """
            UPDATE memory_cue c SET out_degree = c.out_degree + t.n
              FROM unnest(%s::bigint[], %s::int[]) AS t(id, n)
             WHERE c.tenant_id = %s AND c.network_id = %s AND c.id = t.id
            RETURNING c.id, c.out_degree
            """,
            [ids, [added[i] for i in ids], network.tenant_id, network.pk],
        )
        over = sorted(
            cue for cue, degree in cursor.fetchall() if degree > MAX_OUT_DEGREE + DEGREE_SLACK
        )
        if not over:
            return
        cursor.execute(
            """
            WITH ranked AS (
                SELECT id, source_id, row_number() OVER (PARTITION BY source_id
                                                         ORDER BY weight DESC, id) AS rn
                  FROM memory_edge
                 WHERE tenant_id = %s AND network_id = %s AND source_id = ANY(%s)),
            gone AS (
                DELETE FROM memory_edge e USING ranked
                 WHERE e.id = ranked.id AND ranked.rn > %s RETURNING e.source_id)
            UPDATE memory_cue c SET out_degree = %s
             WHERE c.tenant_id = %s AND c.network_id = %s AND c.id = ANY(%s)
            """,
            [
                network.tenant_id,
                network.pk,
                over,
                MAX_OUT_DEGREE,
                MAX_OUT_DEGREE,
                network.tenant_id,
                network.pk,
                over,
            ],
        )


def bound_out_degree(network: Network) -> int:
    """Keep each cue's strongest MAX_OUT_DEGREE out-edges (maintenance; recall reads only the
    strongest few per cue anyway, so a cue over the bound between runs costs nothing)."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            DELETE FROM memory_edge e USING (
                SELECT id, row_number() OVER (PARTITION BY source_id ORDER BY weight DESC, id) AS rn
                  FROM memory_edge
                 WHERE tenant_id = %s AND network_id = %s AND source_id IN (
                       SELECT source_id FROM memory_edge WHERE tenant_id = %s AND network_id = %s
                        GROUP BY source_id HAVING count(*) > %s)
            ) ranked
            WHERE e.id = ranked.id AND ranked.rn > %s
            """,
            [
                network.tenant_id,
                network.pk,
                network.tenant_id,
                network.pk,
                MAX_OUT_DEGREE,
                MAX_OUT_DEGREE,
            ],
        )
        return int(cursor.rowcount)


def engram_unlink(network: Network, engram: Engram) -> None:
    """Take an engram's schema out of the graph: edges weakened, cue counts lowered."""
    links = list(
        EngramCue.objects.filter(tenant_id=network.tenant_id, engram=engram)
        .select_related("cue")
        .order_by("position")
    )
    if not links:
        return
    lemmas = [link.cue.lemma for link in links]
    cues_lock(network, [link.cue_id for link in links])
    edges_weaken(network, [lemmas], {link.cue.lemma: link.cue_id for link in links})
    cue_counts_subtract(network, Counter(link.cue_id for link in links))
    EngramCue.objects.filter(tenant_id=network.tenant_id, engram=engram).delete()


def engram_link(
    network: Network, engram: Engram, lemmas: list[str], cue_ids: dict[str, int]
) -> None:
    """File an engram under its cues (positions follow the schema)."""
    links_insert(
        network, [(engram.pk, cue_ids[key], position) for position, key in enumerate(lemmas)]
    )


def links_insert(network: Network, links: list[tuple[int, int, int]]) -> None:
    """(engram id, cue id, position) rows, in one statement."""
    if not links:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            """
            INSERT INTO memory_engramcue (tenant_id, network_id, engram_id, cue_id, position)
            SELECT %s, %s, (l->>0)::bigint, (l->>1)::bigint, (l->>2)::smallint
              FROM jsonb_array_elements(%s::jsonb) AS l
            """,
            [network.tenant_id, network.pk, json.dumps(links)],
        )


ENGRAM_COLUMNS = (
    "id",
    "content",
    "schema",
    "terms",
    "intents",
    "type",
    "strength",
    "importance",
    "occurred_at",
    "external_id",
    "metadata",
    "source",
    "status",
    "token_count",
    "content_hash",
    "created_at",
    "updated_at",
)


def insert_engrams(network: Network, engrams: list[Engram]) -> None:
    """Insert new engrams in one statement (ids drawn first, so no RETURNING order is assumed);
    Django's bulk_create builds a statement with one parameter per value, far slower at 1,000."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence('memory_engram', 'id')) "
            "FROM generate_series(1, %s)",
            [len(engrams)],
        )
        for engram, (pk,) in zip(engrams, cursor.fetchall(), strict=True):
            engram.pk = pk
        columns = {name: [getattr(e, name) for e in engrams] for name in ENGRAM_COLUMNS}
        cursor.execute(
            """
            INSERT INTO memory_engram (tenant_id, network_id, id, content, schema, terms, intents,
                type, strength, importance, occurred_at, external_id, metadata, source, status,
                token_count, content_hash, created_at, updated_at, recall_count, embedding_model)
            SELECT %s, %s, id, content,
                   ARRAY(SELECT jsonb_array_elements_text(schema::jsonb)),
                   ARRAY(SELECT jsonb_array_elements_text(terms::jsonb)),
                   ARRAY(SELECT jsonb_array_elements_text(intents::jsonb)),
                   type, strength, importance, occurred_at, external_id, metadata::jsonb, source,
                   status, token_count, content_hash, created_at, updated_at, 0, ''
              FROM unnest(%s::bigint[], %s::text[], %s::text[], %s::text[], %s::text[], %s::text[],
                          %s::float8[], %s::float8[], %s::timestamptz[], %s::text[], %s::text[],
                          %s::text[], %s::text[], %s::int[], %s::text[], %s::timestamptz[],
                          %s::timestamptz[])
                   AS t(id, content, schema, terms, intents, type, strength, importance,
                        occurred_at, external_id, metadata, source, status, token_count,
                        content_hash, created_at, updated_at)
            """,
            [
                network.tenant_id,
                network.pk,
                columns["id"],
                columns["content"],
                [json.dumps(list(v)) for v in columns["schema"]],
                [json.dumps(list(v)) for v in columns["terms"]],
                [json.dumps(list(v)) for v in columns["intents"]],
                columns["type"],
                columns["strength"],
                columns["importance"],
                columns["occurred_at"],
                columns["external_id"],
                [json.dumps(v) for v in columns["metadata"]],
                columns["source"],
                columns["status"],
                columns["token_count"],
                columns["content_hash"],
                columns["created_at"],
                columns["updated_at"],
            ],
        )
