"""``recall`` and ``prime``: two-phase retrieval returning a Mind.

Phase 1 gathers candidates from three channels — full-text search, pgvector nearest neighbours,
and multi-centre spreading activation from every query cue (exact, trigram-fuzzy or
nearest-embedding matches, so a word that is not a cue still gets in; no query starts from the
hub cues, PromptX's "default mode network"). Phase 2 (memory.core.ranking) scores, de-duplicates
and applies type quotas; memory.core.packing fits the context to the token budget.

Every statement is scoped by tenant and network. A recall writes nothing: its access statistics
and timing are noted for memory.services.access to apply in batches.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, NamedTuple

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.utils import timezone

from audit.actors import Actor
from base.errors import NotFound
from base.redis_client import guarded
from memory.contracts import RecallIn
from memory.core.activation import MODES, OutEdges, path_to, spread
from memory.core.hebbian import base_level_activation
from memory.core.intents import Profile, profile_of
from memory.core.knowledge import asks_about_past, entity_key
from memory.core.mind import (
    ActivatedCue,
    KnownFact,
    KnownSkill,
    Mind,
    Objective,
    OpenTask,
    RankedEngram,
    Why,
)
from memory.core.packing import Packable, pack, task_line
from memory.core.ranking import (
    COHERENT,
    DUPLICATE_COSINE,
    TYPE_QUOTA,
    Candidate,
    Placed,
    Scored,
    coherence,
    led_by,
    rounded,
    score,
    select,
    select_pareto,
    select_sum,
)
from memory.core.skills import PLACEHOLDER, reliability
from memory.core.speakers import Meant, meant
from memory.core.tasks import marks, step_text
from memory.core.text import content_lemmas, is_stop_word, lemma
from memory.core.when import window_in
from memory.embeddings import QueryVector, query_vector_soon
from memory.models import EMBEDDING_DIMENSIONS, SEARCH_CONFIG, Engram, Network, RecallEvent
from memory.selectors import hubs_key, known_networks, network_find, unknown_network
from memory.selectors.work import open_tasks
from memory.services import access
from memory.services.focus import Focus, focus_for
from memory.services.intents import known_names, route, vocabulary_of
from tenants.models import Tenant

CHANNELS = frozenset({"text", "vector", "activation"})
CANDIDATES_PER_CHANNEL = 80
FUZZY_MIN = 0.55  # trigram similarity for a query word to count as a cue (0.35 took
# "likely" for "unlikely" and "child" for "chill")
ALIAS_ENERGY = 0.8  # "Falcon" in the query seeds "Project Falcon" (and a name's other parts)
ALIAS_WORDS = 6  # query words looked up in longer names
ALIAS_NAMES = 2000  # ... among this many of the network's most used multi-word names
SEMANTIC_MIN = 0.55  # cosine for a cue to be a semantic match of the query
EXACT_CUES_MAX = 30_000  # networks with up to this many cues match them exactly, not via HNSW
VECTOR_FLOOR = 0.2  # MiniLM cosine below this says "unrelated"
PRIME_TTL_SECONDS = 30 * 60
PRIME_CARRY = 0.5  # a primed cue starts the next recall at half its prime energy
HUB_SEEDS = 8
MAX_QUERY_TERMS = 32


@dataclass(frozen=True)
class RecallOptions:
    mode: str = "balanced"
    k: int = 10
    token_budget: int = 2000
    now: datetime | None = None
    channels: frozenset[str] = CHANNELS
    record: bool = True  # count the access (the dashboard's playground looks without touching)
    source: str = "api"  # who asked: api, mcp, dashboard (for the activity log)
    speaker: str | None = None  # only this speaker's memories (metadata.speaker, any case)
    facts: bool = True  # the facts the found memories stated (knowledge), before them
    past: bool | None = None  # earlier values of their slots too (None: if the query asks)
    intent: str | None = None  # forced (else routed)
    task: str | None = None  # the task at hand, by key
    selection: str = "auto"  # auto (pareto with a task at hand, else score) | pareto | sum | score
    objectives: bool = False  # keep every sorted candidate's objectives on the Mind

    @classmethod
    def of(cls, request: RecallIn, *, record: bool = True, source: str = "api") -> RecallOptions:
        """``record`` False overrides the request's (the dashboard always only looks)."""
        return cls(
            mode=request.mode,
            k=request.k,
            token_budget=request.token_budget,
            now=request.now,
            channels=frozenset(request.channels),
            record=record and request.record,
            source=source,
            speaker=request.speaker,
            facts=request.facts,
            intent=request.intent,
            task=request.task,
            selection=request.selection,
            objectives=request.objectives,
        )


def network_recall(
    *,
    tenant: Tenant,
    actor: Actor,
    network_key: str,
    query: str | None,
    options: RecallOptions,
    missing_ok: bool = False,
) -> Mind:
    """The Mind for ``query`` in the network. A network that does not exist is a NotFound that
    names the known ones, unless ``missing_ok`` (a role's network before its first memory):
    then, as for any network without memories, the Mind says so in ``notice``."""
    started = time.perf_counter()
    mind = Mind(network=network_key, query=query, mode=options.mode)
    network = _network(tenant, network_key, missing_ok, mind)
    if network is None:
        mind.took_ms = _ms(started)
        return mind
    now = options.now or timezone.now()
    query = (query or "").strip() or None
    lemma_df: dict[str, int] = {}
    vector = (
        query_vector_soon(query, network.tenant_id)
        if query and options.channels & {"vector", "activation"}
        else _no_vector
    )
    stats = _statistics(network)
    seeds = (
        _seeds(network, query, options, lemma_df, vector, stats)
        if query
        else _hub_seeds(network, now)
    )
    carried = _take_prime(network, actor) if options.record else {}  # looking leaves it
    for cue_id, energy in carried.items():
        if cue_id not in seeds:
            seeds[cue_id] = ("", energy * PRIME_CARRY, "prime")

    def settle() -> tuple[Focus | None, Profile]:
        """The query's intent and the task in focus. Asked once the channels have run: by
        then the query's embedding, which the intent's prototypes need, is ready (asked
        first, recall waited for the model here, ~4 ms)."""
        routed = route(
            tenant_id=tenant.pk,
            query=query,
            forced=_forced(tenant, options.intent),
            embedding=vector.values if isinstance(vector, QueryVector) else None,
        )
        mind.intent, mind.intent_via = routed.intent, routed.via
        mind.intent_confidence = routed.confidence
        profile = profile_of(routed.intent, vocabulary_of(tenant.pk))
        focus = focus_for(network=network, task=options.task, scoped=profile.task_scope)
        mind.task = focus.task.key if focus else ""
        return focus, profile

    _run(network, mind, seeds, query, options, now, vector, settle=settle, stats=stats)
    _say_if_empty(tenant, network, mind)
    mind.took_ms = _ms(started)
    _note(network, RecallEvent.Kind.RECALL, options.source, mind, seeds if options.record else None)
    return mind


def _forced(tenant: Tenant, intent: str | None) -> str | None:
    """A forced intent, if the workspace knows it (else the field is refused, naming them)."""
    if not intent:
        return None
    known = known_names(tenant.pk)
    name = intent.strip().lower().replace("-", "_").replace(" ", "_")
    if name not in known:
        raise NotFound(
            f"intent: no intent {intent!r} in this workspace; it knows {', '.join(known)}",
            fields={"intent": "unknown intent"},
        )
    return name


def _network(tenant: Tenant, key: str, missing_ok: bool, mind: Mind) -> Network | None:
    network = network_find(tenant=tenant, key=key)
    if network is None:
        if not missing_ok:
            raise unknown_network(tenant=tenant, key=key)
        mind.notice = _empty_notice(tenant, key)
    return network


def _empty_notice(tenant: Tenant, key: str) -> str:
    return (
        f"The network “{key}” holds no memories yet; `remember` files them there. "
        f"This workspace's networks: {known_networks(tenant=tenant)}."
    )


def _say_if_empty(tenant: Tenant, network: Network, mind: Mind) -> None:
    """Nothing found: say whether that is because the network holds nothing at all."""
    if mind.engrams:
        return
    if not Engram.objects.filter(
        tenant_id=network.tenant_id, network=network, status=Engram.Status.ACTIVE
    ).exists():
        mind.notice = _empty_notice(tenant, network.key)


def _note(
    network: Network,
    kind: str,
    source: str,
    mind: Mind,
    seeds: Mapping[int, tuple[str, float, str]] | None,
) -> None:
    """The timing as served (for the dashboard) and, when ``seeds`` is given, the access: the
    returned engrams and the query's own cues were used, now (never at the client's ``now``,
    which only shapes scoring). Applied in batches off the request (memory.services.access)."""
    cue_ids = (
        [
            c
            for c, (_, _, via) in seeds.items()
            if via in {"exact", "alias", "entity", "fuzzy", "semantic"}
        ]
        if seeds is not None
        else []
    )
    access.note(
        tenant_id=network.tenant_id,
        network_id=network.pk,
        kind=kind,
        source=source,
        took_ms=mind.took_ms,
        results=len(mind.engrams),
        engram_ids=[e.id for e in mind.engrams] if seeds is not None else [],
        cue_ids=cue_ids,
    )


def network_prime(
    *,
    tenant: Tenant,
    actor: Actor,
    network_key: str,
    token_budget: int = 600,
    source: str = "api",
    record: bool = True,
    missing_ok: bool = False,
) -> Mind:
    """The session-start warm-up: the open tasks and their latest steps, hub cues (degree ×
    base-level activation), their strongest memories, within a small budget. The activation
    carries into this actor's next recall."""
    started = time.perf_counter()
    mind = Mind(network=network_key, query=None, mode="balanced")
    network = _network(tenant, network_key, missing_ok, mind)
    if network is None:
        mind.took_ms = _ms(started)
        return mind
    now = timezone.now()
    options = RecallOptions(k=6, token_budget=token_budget, now=now, selection="score")
    hubs = _hub_seeds(network, now)
    mind.open_tasks = [
        OpenTask(
            task.pk,
            task.key,
            task.goal,
            task.step_count,
            tuple(step_text(s.action, s.observation, s.outcome)[:200] for s in last),
        )
        for task, last in open_tasks(network=network)
    ]
    notes = [task_line(t) for t in mind.open_tasks]
    _run(network, mind, hubs, None, options, now, _no_vector, notes=notes)
    if record:
        _store_prime(network, actor, {cue_id: energy for cue_id, (_, energy, _) in hubs.items()})
    _say_if_empty(tenant, network, mind)
    mind.took_ms = _ms(started)
    _note(network, RecallEvent.Kind.PRIME, source, mind, None)
    return mind


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)


# --- phase 1: seeds -----------------------------------------------------------------------


def _no_vector() -> None:
    return None


ENTITY_NAMES = 12  # names of the query's entities seeded at most


def _entity_seeds(network: Network, query: str) -> list[tuple[int, str]]:
    """The cues of every name of the entities the query names (its words as written, and
    pairs and triples of them, looked up by alias key): one indexed lookup, and one more only
    when the network knows such an entity."""
    tokens = [t.strip("\"'“”‘’()[]{}<>,;:!?") for t in query.split()][: MAX_QUERY_TERMS * 2]
    grams = {
        entity_key(" ".join(tokens[i : i + n]))
        for n in (1, 2, 3)
        for i in range(len(tokens) - n + 1)
        if not (n == 1 and (is_stop_word(tokens[i]) or len(tokens[i]) < 3))
    }
    grams.discard("")
    if not grams:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT DISTINCT a2.alias FROM memory_entityalias a
              JOIN memory_entity e ON e.tenant_id = a.tenant_id AND e.id = a.entity_id
              JOIN memory_entityalias a2 ON a2.tenant_id = a.tenant_id AND a2.entity_id = e.id
             WHERE a.tenant_id = %s AND a.network_id = %s AND a.key = ANY(%s)
               AND e.merged_into_id IS NULL AND e.kind <> 'thing'
             LIMIT %s
            """,
            [network.tenant_id, network.pk, sorted(grams), ENTITY_NAMES],
        )
        names = {lemma(alias) for (alias,) in cursor.fetchall()}
        if not names:
            return []
        cursor.execute(
            "SELECT id, word FROM memory_cue WHERE tenant_id = %s AND network_id = %s "
            "AND lemma = ANY(%s)",
            [network.tenant_id, network.pk, sorted(names)],
        )
        return [(int(cue_id), word) for cue_id, word in cursor.fetchall()]


def _seeds(
    network: Network,
    query: str,
    options: RecallOptions,
    lemma_df: dict[str, int],
    query_vector: Callable[[], str | None],
    stats: Callable[[], NetworkStats],
) -> dict[int, tuple[str, float, str]]:
    """{cue id: (word, energy, how)}: exact lemma matches, then trigram-fuzzy for the words that
    are not cues, then the cues nearest to the query's embedding. Fills ``lemma_df`` with the
    engram count of each query lemma (0 when it is no cue)."""
    terms = list(dict.fromkeys(content_lemmas(query)))[:MAX_QUERY_TERMS]
    seeds: dict[int, tuple[str, float, str]] = {}
    lemma_df.update(dict.fromkeys(terms, 0))
    with connection.cursor() as cursor:
        if terms:
            cursor.execute(
                "SELECT id, lemma, word, engram_count FROM memory_cue WHERE tenant_id = %s "
                "AND network_id = %s AND lemma = ANY(%s)",
                [network.tenant_id, network.pk, terms],
            )
            found = cursor.fetchall()
            for cue_id, cue_lemma, word, count in found:
                seeds[cue_id] = (word, 1.0, "exact")
                lemma_df[cue_lemma] = int(count)
            # names that contain a query word: "falcon" reaches "project falcon" — the two most
            # used names per word, among the network's ALIAS_NAMES most used names (one pass
            # over the partial index of multi-word names, most used first)
            words = [t for t in terms if len(t) >= 4 and not t.isdigit()][:ALIAS_WORDS]
            if words:
                cursor.execute(
                    """
                    SELECT id, word, lemma FROM (
                        SELECT id, word, lemma, engram_count FROM memory_cue
                         WHERE tenant_id = %s::bigint AND network_id = %s::bigint
                           AND lemma::text LIKE '%% %%'
                         ORDER BY engram_count DESC LIMIT %s) named
                     WHERE string_to_array(lemma, ' ') && %s::text[]
                     ORDER BY engram_count DESC
                    """,
                    [network.tenant_id, network.pk, ALIAS_NAMES, words],
                )
                per_word: dict[str, int] = {}
                for cue_id, word, cue_lemma in cursor.fetchall():
                    for term in set(cue_lemma.split(" ")) & set(words):
                        if per_word.get(term, 0) < 2:
                            per_word[term] = per_word.get(term, 0) + 1
                            seeds.setdefault(cue_id, (word, ALIAS_ENERGY, "alias"))
            # an entity the query names, by any of its names ("Maya's", a merged "M. Silva"):
            # every name of it seeds at full energy — the strongest concepts of the graph
            for cue_id, word in _entity_seeds(network, query):
                if seeds.get(cue_id, ("", 0.0, ""))[1] < 1.0:
                    seeds[cue_id] = (word, 1.0, "entity")
            # typos of short words match too much; numbers are exact or nothing. The ids are
            # cast to bigint: as int parameters they cannot be conditions of the GiST index
            # (btree_gist compares bigint with bigint only), which then walks every tenant's
            # cues in trigram order (320 ms instead of 20 in a database of 400k cues)
            missing = sorted(
                t for t in set(terms) - {row[1] for row in found} if len(t) >= 4 and not t.isdigit()
            )
            if missing:
                cursor.execute(
                    """
                    SELECT c.id, c.word, c.sim FROM unnest(%s::text[]) AS q(term)
                    CROSS JOIN LATERAL (
                        SELECT id, word, similarity(lemma, q.term) AS sim FROM memory_cue
                         WHERE tenant_id = %s::bigint AND network_id = %s::bigint
                         ORDER BY lemma <-> q.term LIMIT 2) c
                    WHERE c.sim >= %s
                    """,
                    [missing, network.tenant_id, network.pk, FUZZY_MIN],
                )
                for cue_id, word, sim in cursor.fetchall():
                    if cue_id not in seeds:
                        seeds[cue_id] = (word, float(sim), "fuzzy")
        # Semantic cue matches are for words that are no cue; when every word matched, skip them.
        unmatched = set(terms) - {lemma for lemma, df in lemma_df.items() if df > 0}
        wanted = "activation" in options.channels and (unmatched or not seeds)
        vector = query_vector() if wanted else None
        if vector is not None:
            # Exact for all but very large networks: the HNSW graph holds every tenant's cues,
            # and a filtered walk finds a network's few (or, before the worker has embedded
            # them, none) only after visiting up to hnsw.max_scan_tuples others (~150 ms).
            # (The vectors sit in memory_cuevector, a network's together; the five nearest
            # are joined to their words after the limit.)
            rows = """
                SELECT cue_id, embedding FROM memory_cuevector
                 WHERE tenant_id = %s AND network_id = %s"""
            source = f"({rows} OFFSET 0) v" if stats().cues <= EXACT_CUES_MAX else f"({rows}) v"
            cursor.execute(
                f"""
                SELECT c.id, c.word, n.distance FROM (
                    SELECT cue_id, embedding <=> %s::vector AS distance FROM {source}
                     ORDER BY distance LIMIT 5) n
                  JOIN memory_cue c ON c.tenant_id = %s AND c.id = n.cue_id
                 ORDER BY n.distance
                """,
                [vector, network.tenant_id, network.pk, network.tenant_id],
            )
            for cue_id, word, distance in cursor.fetchall():
                if 1 - distance >= SEMANTIC_MIN and cue_id not in seeds:
                    seeds[cue_id] = (word, 1.0 - float(distance), "semantic")
    return seeds


HUBS_TTL = 60  # seconds the hub cues' rows are kept (any write of the tenant drops them)


def _hub_seeds(network: Network, now: datetime) -> dict[int, tuple[str, float, str]]:
    """Hub cues: many memories (degree) × ACT-R base-level activation (frequency, recency).
    The most used cues are read by sorting the network's cues (no index holds engram_count,
    so that remember's count updates stay HOT: ~24 ms at 13k cues), then kept for HUBS_TTL
    or until the tenant's next write (``memory.live``)."""
    kept = cache.get(hubs_key(network.tenant_id)) or {}
    rows = kept.get(network.pk)
    if rows is None:
        with connection.cursor() as cursor:
            cursor.execute(
                """
                SELECT id, word, engram_count, recall_count, last_recalled_at, created_at
                  FROM memory_cue WHERE tenant_id = %s AND network_id = %s AND engram_count > 0
                 ORDER BY engram_count DESC, recall_count DESC LIMIT 200
                """,
                [network.tenant_id, network.pk],
            )
            rows = cursor.fetchall()
        cache.set(hubs_key(network.tenant_id), {**kept, network.pk: rows}, HUBS_TTL)
    scored = []
    for cue_id, word, degree, recalls, last, created in rows:
        idle = ((now - (last or created)).total_seconds()) / 86400
        bla = base_level_activation(recalls + degree, idle)
        scored.append((math.log1p(degree) * (1 / (1 + math.exp(-bla))), cue_id, word))
    scored.sort(reverse=True)
    top = scored[:HUB_SEEDS]
    best = top[0][0] if top else 1.0
    return {cue_id: (word, 0.4 + 0.6 * s / best, "hub") for s, cue_id, word in top}


# --- phase 1: channels and spreading ---------------------------------------------------------


def _out_edges(network: Network) -> OutEdges:
    def out_edges(ids: list[int], limit: int) -> Mapping[int, list[tuple[int, float, str]]]:
        with connection.cursor() as cursor:
            cursor.execute(
                """
                SELECT source_id, target_id, weight, kind FROM (
                    SELECT source_id, target_id, weight, kind,
                           row_number() OVER (PARTITION BY source_id ORDER BY weight DESC) AS rn
                      FROM memory_edge
                     WHERE tenant_id = %s AND network_id = %s AND source_id = ANY(%s)) ranked
                 WHERE rn <= %s
                """,
                [network.tenant_id, network.pk, ids, limit],
            )
            edges: dict[int, list[tuple[int, float, str]]] = {}
            for source, target, weight, kind in cursor.fetchall():
                edges.setdefault(source, []).append((target, float(weight), kind))
        return edges

    return out_edges


SEED_LINKS = 1000  # engrams read per query cue (newest first past that: a hub)
SPREAD_LINKS = 25  # ... per cue reached by spreading
SPREAD_CUES = 40  # strongest spread cues considered for candidates


def idf(engram_count: int) -> float:
    """1 for a cue of one memory, less for hubs: a word in every memory says little."""
    return 1.0 / (1.0 + math.log(max(engram_count, 1)))


def _by_activation(
    network: Network, cues: dict[int, ActivatedCue], df: dict[int, int]
) -> dict[int, tuple[float, float, int, int]]:
    """{engram id: (direct, associative, depth, best cue)} from the engrams filed under the
    activated cues — a bounded number per cue, newest first, so hubs cannot flood the query."""
    # Query cues are direct evidence; primed hubs only add context, like spread energy.
    seeds = [cue for cue in cues.values() if cue.depth == 0 and cue.seed_via != "prime"]
    spread_cues = sorted(
        (c for c in cues.values() if c.depth > 0 or c.seed_via == "prime"), key=lambda c: -c.energy
    )
    # best shown first: the first of an engram's cues in this order is the one it shows
    chosen = sorted(
        seeds + spread_cues[:SPREAD_CUES], key=lambda c: (-c.energy * (1 + c.depth), c.id)
    )
    if not chosen:
        return {}
    seed_total = sum(idf(df.get(c.id, 1)) * c.energy for c in seeds) or 1.0
    seed_ids = {c.id for c in seeds}
    limits, direct, misses, depths = [], [], [], []
    for cue in chosen:
        weight = idf(df.get(cue.id, 1))
        is_seed = cue.id in seed_ids
        limits.append(SEED_LINKS if is_seed else SPREAD_LINKS)
        direct.append(weight * cue.energy / seed_total if is_seed else 0.0)
        # spread energy adds up as a noisy-or: ln(1 - p) summed, 1 - exp(sum) afterwards
        misses.append(
            0.0 if is_seed else math.log(1.0 - min(cue.energy * math.sqrt(weight), 0.999))
        )
        depths.append(cue.depth)
    # Scored in SQL: the linked rows (thousands, for common query words) never reach Python.
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT engram_id, least(direct, 1.0), 1 - exp(miss), depth, best FROM (
                SELECT l.engram_id, sum(w.direct) AS direct, sum(w.miss) AS miss,
                       min(w.depth) AS depth, min(w.n) AS best
                  FROM unnest(%s::bigint[], %s::int[], %s::float8[], %s::float8[], %s::int[])
                       WITH ORDINALITY AS w(cue_id, lim, direct, miss, depth, n)
                 CROSS JOIN LATERAL (
                       SELECT engram_id FROM memory_engramcue ec
                        WHERE ec.tenant_id = %s AND ec.network_id = %s
                          AND ec.cue_id = w.cue_id
                        ORDER BY ec.engram_id DESC LIMIT w.lim) l
                 GROUP BY l.engram_id) scored
             ORDER BY least(direct, 1.0) + 0.5 * (1 - exp(miss)) DESC, engram_id DESC
             LIMIT %s
            """,
            [
                [c.id for c in chosen],
                limits,
                direct,
                misses,
                depths,
                network.tenant_id,
                network.pk,
                CANDIDATES_PER_CHANNEL,
            ],
        )
        return {
            row[0]: (float(row[1]), float(row[2]), int(row[3]), chosen[row[4] - 1].id)
            for row in cursor.fetchall()
        }


SPOKEN = "AND lower(metadata->>'speaker') = lower(%s)"  # the speaker filter, in every channel
TEXT_DF_CAP = 1000  # a word in more engrams still scores (low IDF) but finds no candidates
TEXT_ROWS = 3000  # the rarest words find the candidates while they hold this many engrams
TF_SCALE = 1.6449340668  # π²/6: ts_rank's normalisation, undone (see _by_text)
DF_TTL = 300  # seconds a word's document frequency is cached (it moves slowly)
BM25_K1, BM25_B = 1.2, 0.75
STATS_TTL = 60  # seconds the network's size and mean length are cached


class NetworkStats(NamedTuple):
    engrams: int  # active ones: BM25's N, and whether the vector channel scans exactly
    mean_tokens: float  # their mean token count: BM25's average length
    cues: int  # whether the semantic cue search scans exactly


def stats_key(tenant_id: int, network_id: int) -> str:
    """The cache key of a network's statistics (erasure drops it with what it erased)."""
    return f"memory:stats:{tenant_id}:{network_id}"


def _network_stats(network: Network) -> NetworkStats:
    """The network's sizes, counted once a minute (cached; a recall asks once, see
    ``_statistics``)."""
    key = stats_key(network.tenant_id, network.pk)
    cached = cache.get(key)
    if cached and len(cached) == len(NetworkStats._fields):
        return NetworkStats(int(cached[0]), float(cached[1]), int(cached[2]))
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*), coalesce(avg(token_count), 1), (SELECT count(*) FROM memory_cue "
            "WHERE tenant_id = %s AND network_id = %s) FROM memory_engram "
            "WHERE tenant_id = %s AND network_id = %s AND status = 'active'",
            [network.tenant_id, network.pk, network.tenant_id, network.pk],
        )
        count, mean, cues = cursor.fetchone()
    stats = NetworkStats(int(count), max(float(mean), 1.0), int(cues))
    cache.set(key, tuple(stats), STATS_TTL)
    return stats


def _statistics(network: Network) -> Callable[[], NetworkStats]:
    """The network's statistics for one recall, asked (from the cache, else counted) at most
    once, and only if a phase needs them."""
    return functools.cache(lambda: _network_stats(network))


def df_key(tenant_id: int, network_id: int, lexeme: str) -> str:
    """The cache key of a word's document frequency in a network. A long word (a pasted token,
    a run of digits) is hashed: keys stay short whatever people write."""
    if len(lexeme) > 64:
        lexeme = "#" + hashlib.sha256(lexeme.encode()).hexdigest()
    return f"memory:df:{tenant_id}:{network_id}:{lexeme}"


def _document_frequencies(
    cursor: Any, network: Network, lexemes: list[str], quoted: list[str]
) -> list[int]:
    """How many active engrams hold each word, up to TEXT_DF_CAP: from the cache, else counted
    (one statement for the words not cached)."""
    keys = [df_key(network.tenant_id, network.pk, lexeme) for lexeme in lexemes]
    cached = cache.get_many(keys)
    missing = [i for i, key in enumerate(keys) if key not in cached]
    if missing:
        counts = ", ".join(
            "(SELECT count(*) FROM (SELECT 1 FROM memory_engram WHERE tenant_id = %s "
            "AND network_id = %s::bigint AND status = 'active' AND search @@ %s::tsquery "
            "LIMIT %s) c)"
            for _ in missing
        )
        params: list[str | int] = []
        for i in missing:
            params += [network.tenant_id, network.pk, quoted[i], TEXT_DF_CAP]
        cursor.execute(f"SELECT {counts}", params)
        counted = {keys[i]: int(count) for i, count in zip(missing, cursor.fetchone(), strict=True)}
        cache.set_many(counted, DF_TTL)  # one round trip for all the words counted
        cached.update(counted)
    return [int(cached[key]) for key in keys]


def _by_text(
    network: Network,
    query: str,
    speaker: str | None,
    stats: Callable[[], NetworkStats],
) -> tuple[dict[int, float], float]:
    """BM25 over every word of the query (Postgres's English lexemes: stemmed, stop words
    out), ranked in SQL. Document frequencies are counted per query word, each count stopping
    at TEXT_DF_CAP: the rarest words find the candidates (at most TEXT_ROWS engrams are
    scored), every word scores them; when every word is that common, the engrams holding the
    two least common together are the candidates. A word repeated in an engram counts a
    little more each time (sum of 1/j², see TF_SCALE): a plain BM25 term frequency let long
    messages that repeat a word outrank the one that answers, and counting it once lost the
    long answers that dwell on it (measured in DECISIONS). Returns {engram id: BM25
    score} and the score of an engram of average length holding every query word (to scale
    scores into [0, 1])."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT lexeme FROM unnest(to_tsvector(%s::regconfig, %s)) ORDER BY lexeme",
            [SEARCH_CONFIG, query],
        )
        lexemes = [row[0] for row in cursor.fetchall()][:MAX_QUERY_TERMS]
        if not lexemes:
            return {}, 1.0
        quoted = ["'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'" for lexeme in lexemes]
        dfs = _document_frequencies(cursor, network, lexemes, quoted)
        total, mean_length, _ = stats()
        total = max(total, max(dfs))
        weights = [math.log(1 + (total - df + 0.5) / (df + 0.5)) if df else 0.0 for df in dfs]
        finders: list[int] = []
        rows = 0
        for i in sorted((i for i, df in enumerate(dfs) if df), key=dfs.__getitem__):
            if finders and (dfs[i] >= TEXT_DF_CAP or rows + dfs[i] > TEXT_ROWS):
                break
            finders.append(i)
            rows += dfs[i]
        if not finders:
            return {}, 1.0
        # every word is everywhere: the engrams holding the two least common ones together
        joiner = " && " if dfs[finders[0]] >= TEXT_DF_CAP else " || "
        if joiner == " && ":
            finders = sorted((i for i, df in enumerate(dfs) if df), key=dfs.__getitem__)[:2]
        scoring = [i for i, weight in enumerate(weights) if weight > 0]
        # each word's term frequency, softened: ts_rank with every weight 1 is
        # sum(1/j², j = 1..tf) / (π²/6) for a one-word query, so TF_SCALE × it reads 1 for a
        # word said once, 1.25 twice, 1.36 three times (a word repeated counts, a little)
        frequencies = ", ".join(
            f"ts_rank('{{1,1,1,1}}', search, %s::tsquery) * {TF_SCALE} AS f{n}"
            for n in range(len(scoring))
        )
        summed = (
            " + ".join(f"%s::float8 * f{n} / (f{n} + norm)" for n in range(len(scoring))) or "0"
        )
        found = joiner.join("%s::tsquery" for _ in finders)
        spoken = SPOKEN if speaker else ""
        # in the statement's order: the weights, then each word's frequency, then the length
        params: list[str | int | float] = [weights[i] for i in scoring]
        params.append(BM25_K1 + 1)
        params += [quoted[i] for i in scoring]
        params += [BM25_K1, BM25_B, BM25_B, mean_length]
        # all common words: a thousand engrams holding them all are as good as any others
        rows_scored = TEXT_ROWS if joiner == " || " else TEXT_ROWS // 3
        params += [network.tenant_id, network.pk, *(quoted[i] for i in finders)]
        params += [speaker] if speaker else []
        params.append(rows_scored)
        params.append(CANDIDATES_PER_CHANNEL)
        # the network id is a bigint parameter so that it is a condition of the GIN index
        # (btree_gin compares bigint with bigint only): else every network's matches are read
        cursor.execute(
            f"""
            SELECT id, ({summed}) * %s::float8 AS bm25
              FROM (SELECT id, {frequencies or "0 AS f"},
                           %s::float8 * (1 - %s::float8 + %s::float8 * token_count / %s::float8)
                           AS norm
                      FROM (SELECT id, search, token_count FROM memory_engram
                             WHERE tenant_id = %s AND network_id = %s::bigint
                               AND status = 'active' AND search @@ ({found}) {spoken}
                             LIMIT %s) hits) terms
             ORDER BY bm25 DESC, id DESC
             LIMIT %s
            """,
            params,
        )
        ideal = sum(weights) * (BM25_K1 + 1) / (1 + BM25_K1) or 1.0
        return {row[0]: float(row[1]) for row in cursor.fetchall()}, ideal


EXACT_KNN_MAX = 10_000  # networks up to this size are searched exactly, not through HNSW


def _by_vector(
    network: Network,
    vector: str,
    speaker: str | None,
    stats: Callable[[], NetworkStats],
) -> dict[int, float]:
    """Nearest engrams. HNSW for big networks (the search settings are per connection, see
    memory.apps); an exact scan of the network for small ones: the graph holds every tenant's
    vectors, and a filtered walk through it for a network of 2% of them visits ~50 vectors per
    match. At 10k engrams both take ~33 ms (the exact scan reads each vector back from TOAST);
    at 500, the exact scan takes ~2 ms and the answer is exact."""
    total = stats().engrams
    rows = f"""
        SELECT id, embedding FROM memory_engram
         WHERE tenant_id = %s AND network_id = %s AND status = 'active'
           AND embedding IS NOT NULL {SPOKEN if speaker else ""}"""
    # OFFSET 0 fences the planner off the HNSW index for the exact scan
    source = f"({rows} OFFSET 0) e" if total <= EXACT_KNN_MAX else f"({rows}) e"
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT id, embedding <=> %s::vector AS distance FROM {source} "
            "ORDER BY distance LIMIT %s",
            [
                vector,
                network.tenant_id,
                network.pk,
                *([speaker] if speaker else []),
                CANDIDATES_PER_CHANNEL,
            ],
        )
        return {row[0]: 1.0 - float(row[1]) for row in cursor.fetchall()}


# --- phase 2 ---------------------------------------------------------------------------------


def _run(
    network: Network,
    mind: Mind,
    seeds: dict[int, tuple[str, float, str]],
    query: str | None,
    options: RecallOptions,
    now: datetime,
    query_vector: Callable[[], str | None],
    notes: Sequence[str] = (),
    settle: Callable[[], tuple[Focus | None, Profile]] | None = None,
    stats: Callable[[], NetworkStats] | None = None,
) -> None:
    mode = MODES.get(options.mode, MODES["balanced"])
    activation = (
        spread(seeds, _out_edges(network), mode) if "activation" in options.channels else None
    )
    cues = activation.cues if activation else {}
    df = _describe_cues(network, cues)
    by_act = _by_activation(network, cues, df) if activation else {}
    stats = stats or _statistics(network)  # the seeds, both channels: one ask
    by_text, ideal_text = (
        _by_text(network, query, options.speaker, stats)
        if query and "text" in options.channels
        else ({}, 1.0)
    )
    vector = query_vector() if query and "vector" in options.channels else None
    by_vec = _by_vector(network, vector, options.speaker, stats) if vector else {}
    focus, profile = settle() if settle is not None else (None, Profile())
    ids = set(by_act) | set(by_text) | set(by_vec) | (set(focus.engrams) if focus else set())
    rows = _rows(network, ids, options.speaker)  # activation's candidates are filtered here
    window = window_in(query, now) if query else None
    asked_about = meant(query) if query else Meant()

    def candidate_of(engram: _Row) -> Candidate:
        candidate = Candidate(
            id=engram.pk,
            type=engram.type,
            strength=engram.strength,
            importance=engram.importance,
            happened_at=engram.happened_at,
            last_access_at=engram.last_recalled_at,
            access_count=engram.recall_count,
            token_count=engram.token_count,
            lemmas=frozenset(engram.terms),
            in_window=window.holds(engram.happened_at) if window is not None else None,
            pointed=asked_about.points_at(engram.speaker),
        )
        if engram.pk in by_text:
            candidate.text = min(by_text[engram.pk] / ideal_text, 1.0)
            candidate.channels.add("text")
        if engram.pk in by_vec:
            sim = by_vec[engram.pk]
            candidate.vector = min(max((sim - VECTOR_FLOOR) / (1 - VECTOR_FLOOR) * 1.25, 0.0), 1.0)
            candidate.channels.add("vector")
        if engram.pk in by_act:
            candidate.direct, candidate.associative, candidate.depth, _ = by_act[engram.pk]
            candidate.channels.add("activation")
        return candidate

    candidates = [(engram, candidate_of(engram)) for engram in rows]
    scored = [score(c, mode=options.mode, now=now) for _, c in candidates]
    coherent = _coherence(candidates, scored, focus, mind.intent, query)
    twins = _twins(network, scored, options.k, coherent)
    places: dict[int, Placed] = {}
    selection = selection_for(options.selection, focus)
    mind.selection = selection
    if selection == "pareto":
        quotas = {**TYPE_QUOTA, **profile.quotas}
        chosen, mind.suppressed, places = select_pareto(scored, options.k, coherent, twins, quotas)
    elif selection == "sum":
        chosen, mind.suppressed = select_sum(scored, options.k, coherent, twins)
    else:
        chosen, mind.suppressed = select(scored, options.k, twins)
    if options.objectives:
        picked = {item.candidate.id for item in chosen}
        mind.objectives = [
            Objective(i, *p.objectives, front=p.front, chosen=i in picked)
            for i, p in sorted(places.items())
        ]
    engrams = {engram.pk: engram for engram, _ in candidates}
    mind.cues = sorted(cues.values(), key=lambda c: (-c.energy, c.id))
    mind.connections = [c for c in activation.connections if c.target in cues] if activation else []
    texts = _contents(network, [item.candidate.id for item in chosen])
    for item in chosen:
        engram = engrams[item.candidate.id]
        content, external_id, metadata = texts[engram.pk]
        best = by_act.get(engram.pk, (0.0, 0.0, 0, 0))[3]
        mind.engrams.append(
            RankedEngram(
                id=engram.pk,
                external_id=external_id,
                type=engram.type,
                content=content,
                metadata=metadata,
                score=round(item.score, 4),
                token_count=engram.token_count,
                why=Why(
                    channels=tuple(sorted(item.candidate.channels)),
                    path=path_to(best, cues) if best else (),
                    parts=rounded({**item.parts, "coherence": coherent.get(engram.pk, 0.0)}),
                    led_by=led_by(item.parts, options.mode),
                    front=place.front if (place := places.get(engram.pk)) else None,
                    crowding=place.crowding if place else None,
                ),
            )
        )
    if query and options.facts:
        past = options.past
        if past is None:
            past = bool(profile.past) or asks_about_past(query)
            past = past or (window is not None and window.end <= now)
        asked = frozenset(content_lemmas(query))
        mind.facts = _known_facts(network, scored, past, asked)
        mind.skills = _known_skills(network, scored, asked)
    packed = pack(
        [
            Packable(
                e.id, e.type, e.content, e.score, e.token_count, coherent.get(e.id, 0) >= COHERENT
            )
            for e in mind.engrams
        ],
        options.token_budget,
        mind.facts,
        mind.skills,
        in_order=selection != "score",
        notes=notes,
    )
    mind.context, mind.context_tokens, mind.context_ids = packed.text, packed.tokens, packed.ids
    mind.context_fact_ids = packed.fact_ids
    mind.context_skill_ids = packed.skill_ids


FACT_POOL = 60  # the best candidates whose facts are looked up
FACT_SLOTS = 8  # subject-and-slot pairs shown at most
PAST_VALUES = 2  # earlier values shown per slot, for a question about the past


def _share(asked: frozenset[str], predicate: str, obj: str) -> float:
    """How much of what a fact says the question asked about (its words' lemmas)."""
    said = set(content_lemmas(f"{predicate} {obj}"))
    return len(said & asked) / len(said) if said else 0.0


def _known_facts(
    network: Network, scored: list[Scored], past: bool, asked: frozenset[str]
) -> list[KnownFact]:
    """Facts through the memories that said them: every slot (subject and slot) a value of
    which the best candidates stated, scored by the best such memory, gives its *current*
    value — even when the memory that said it ranked nowhere (the old value's message found
    it). With ``past`` (a question about the past, or about a window before now), the slot's
    earlier values too. Only facts still said by an active memory are shown (a hidden or
    erased one takes its facts with it)."""
    best = sorted(scored, key=lambda s: -s.score)[:FACT_POOL]
    score_of = {s.candidate.id: s.score for s in best}
    if not score_of:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT f.subject_id, f.slot, fe.engram_id FROM memory_factevidence fe
              JOIN memory_fact f ON f.tenant_id = fe.tenant_id AND f.id = fe.fact_id
             WHERE fe.tenant_id = %s AND f.network_id = %s AND fe.engram_id = ANY(%s)
            """,
            [network.tenant_id, network.pk, list(score_of)],
        )
        slots: dict[tuple[int, str], tuple[float, set[int]]] = {}
        for subject_id, slot, engram_id in cursor.fetchall():
            held, said = slots.get((subject_id, slot), (0.0, set()))
            slots[(subject_id, slot)] = (max(held, score_of[engram_id]), said | {engram_id})
        if not slots:
            return []
        top = sorted(slots.items(), key=lambda kv: (-kv[1][0], kv[0]))[:FACT_SLOTS]
        cursor.execute(
            """
            SELECT f.id, f.subject_id, f.slot, s.name, f.predicate, f.object, f.status,
                   f.valid_from, f.valid_to, f.confidence,
                   ARRAY(SELECT fe.engram_id FROM memory_factevidence fe
                          WHERE fe.tenant_id = f.tenant_id AND fe.fact_id = f.id
                            AND fe.engram_id IS NOT NULL ORDER BY fe.engram_id)
              FROM memory_fact f
              JOIN memory_entity s ON s.tenant_id = f.tenant_id AND s.id = f.subject_id
              JOIN unnest(%s::bigint[], %s::text[]) AS w(subject_id, slot)
                ON w.subject_id = f.subject_id AND w.slot = f.slot
             WHERE f.tenant_id = %s AND f.network_id = %s AND (f.status = 'current' OR %s)
               AND EXISTS (SELECT 1 FROM memory_factevidence fe JOIN memory_engram e
                              ON e.tenant_id = fe.tenant_id AND e.id = fe.engram_id
                           WHERE fe.tenant_id = f.tenant_id AND fe.fact_id = f.id
                             AND e.status = 'active')
             ORDER BY f.valid_to DESC NULLS FIRST, f.id DESC
            """,
            [
                [key[0] for key, _ in top],
                [key[1] for key, _ in top],
                network.tenant_id,
                network.pk,
                past,
            ],
        )
        rows = cursor.fetchall()
    order = {key: i for i, (key, _) in enumerate(top)}
    found: list[tuple[int, bool, KnownFact]] = []
    earlier: dict[tuple[int, str], int] = {}
    for fid, subject_id, slot, name, predicate, obj, status, start, end, confidence, by in rows:
        key = (subject_id, slot)
        share = _share(asked, predicate, obj)
        if not share:
            continue  # a fact none of whose words the question names only takes room
        if status != "current":
            earlier[key] = earlier.get(key, 0) + 1
            if earlier[key] > PAST_VALUES:
                continue
        relevance, said = slots[key]
        found.append(
            (
                order[key],
                status != "current",
                KnownFact(
                    id=fid,
                    subject=name,
                    predicate=predicate,
                    object=obj,
                    status=status,
                    valid_from=start,
                    valid_to=end,
                    confidence=float(confidence),
                    score=round(
                        relevance * (0.5 + 0.5 * float(confidence)) * (0.5 + 0.5 * share), 4
                    ),
                    evidence=tuple(sorted(said)),
                    said_by=tuple(by),
                ),
            )
        )
    # the slots in the order of their best value's score; within a slot, current value first
    slot_best: dict[int, float] = {}
    for slot, _, fact in found:
        slot_best[slot] = max(slot_best.get(slot, 0.0), fact.score)
    found.sort(key=lambda f: (-slot_best[f[0]], f[0], f[1]))
    return [fact for *_, fact in found]


SKILL_POOL = 60  # the best candidates whose skills are looked up
SKILLS_SHOWN = 4
SKILL_RELEVANCE = 0.34  # a skill must share at least this much with the question


def _known_skills(
    network: Network, scored: list[Scored], asked: frozenset[str]
) -> list[KnownSkill]:
    """Current skills the question names (its words in the skill's goal and steps), or that
    were learned from the memories found; ranked by that relevance, weighed by how often they
    worked. A skill none of whose memories is active any more (hidden, erased) is left out."""
    if not asked:
        return []
    best = sorted(scored, key=lambda s: -s.score)[:SKILL_POOL]
    score_of = {s.candidate.id: s.score for s in best}
    top = max(score_of.values(), default=0.0) or 1.0
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT s.id, s.goal, s.steps, s.preconditions, s.pitfalls, s.placeholders,
                   s.successes, s.failures, s.version, s.terms,
                   ARRAY(SELECT DISTINCT x FROM memory_skillevidence ev, unnest(ev.engrams) x
                          WHERE ev.tenant_id = s.tenant_id AND ev.skill_id = s.id)
              FROM memory_skill s
             WHERE s.tenant_id = %s AND s.network_id = %s AND s.status = 'current'
               AND (s.terms && %s::varchar[]
                    OR EXISTS (SELECT 1 FROM memory_skillevidence ev
                                WHERE ev.tenant_id = s.tenant_id AND ev.skill_id = s.id
                                  AND ev.engrams && %s::bigint[]))
               AND EXISTS (SELECT 1 FROM memory_skillevidence ev
                             JOIN memory_engram e
                               ON e.tenant_id = ev.tenant_id AND e.id = ANY(ev.engrams)
                            WHERE ev.tenant_id = s.tenant_id AND ev.skill_id = s.id
                              AND e.status = 'active')
             ORDER BY s.updated_at DESC, s.id DESC
             LIMIT 50
            """,
            [network.tenant_id, network.pk, sorted(asked), list(score_of)],
        )
        rows = cursor.fetchall()
    found: list[KnownSkill] = []
    for sid, goal, *said, won, lost, version, terms, engrams in rows:
        steps, needs, pitfalls, slots = (json.loads(v) if isinstance(v, str) else v for v in said)
        goal_terms = set(content_lemmas(PLACEHOLDER.sub(" ", goal)))
        goal_share = len(goal_terms & asked) / len(goal_terms) if goal_terms else 0.0
        asked_share = len(set(terms) & asked) / len(asked)
        lexical = 0.6 * goal_share + 0.4 * asked_share
        via = [score_of[e] for e in engrams if e in score_of]
        relevance = max(lexical, max(via, default=0.0) / top)
        if relevance < SKILL_RELEVANCE:
            continue
        found.append(
            KnownSkill(
                id=sid,
                goal=goal,
                steps=tuple(steps),
                preconditions=tuple(needs),
                pitfalls=tuple(pitfalls),
                placeholders=tuple(sorted(slots.items())),
                successes=won,
                failures=lost,
                version=version,
                score=round(top * relevance * (0.5 + 0.5 * reliability(won, lost)), 4),
                evidence=tuple(sorted(e for e in engrams if e in score_of)),
            )
        )
    found.sort(key=lambda k: (-k.score, k.id))
    return found[:SKILLS_SHOWN]


def _twins(
    network: Network, scored: list[Scored], k: int, coherent: dict[int, float] | None = None
) -> frozenset[frozenset[int]]:
    """Pairs among the best candidates (by score, and the most coherent) whose stored vectors
    are near-identical (cosine at least DUPLICATE_COSINE): the same memory in other words,
    which word overlap misses."""
    best = sorted(scored, key=lambda s: -s.score)[: 3 * k]
    close = sorted((coherent or {}).items(), key=lambda p: -p[1])[: 2 * k]
    ids = list(dict.fromkeys([s.candidate.id for s in best] + [i for i, c in close if c > 0]))
    if len(ids) < 2:
        return frozenset()
    # Each vector is read once: embeddings are stored out of line, and a join of the rows
    # read both vectors back from TOAST for every pair (~2.5 ms for 30 candidates; 0.6 once)
    with connection.cursor() as cursor:
        cursor.execute(
            """
            WITH e AS MATERIALIZED (
                SELECT id, subvector(embedding, 1, %s) AS v FROM memory_engram
                 WHERE tenant_id = %s AND network_id = %s AND id = ANY(%s)
                   AND embedding IS NOT NULL)
            SELECT a.id, b.id FROM e a JOIN e b ON b.id > a.id WHERE a.v <=> b.v <= %s
            """,
            [EMBEDDING_DIMENSIONS, network.tenant_id, network.pk, ids, 1 - DUPLICATE_COSINE],
        )
        return frozenset(frozenset(pair) for pair in cursor.fetchall())


def selection_for(asked: str, focus: Focus | None) -> str:
    """The selection a recall uses: what it asked for, and for ``auto`` Pareto fronts when a
    task is at hand (coherence with its DAG is then an objective worth trading for), else the
    single score — with no task, a front over relevance and salience alone admits salient but
    irrelevant memories (LongMemEval_S: evidence@10 0.808 by fronts, 0.875 by the score)."""
    if asked != "auto":
        return asked
    return "pareto" if focus is not None else "score"


def _coherence(
    candidates: list[tuple[_Row, Candidate]],
    scored: list[Scored],
    focus: Focus | None,
    intent: str,
    query: str | None,
) -> dict[int, float]:
    """Each candidate's coherence with the work at hand (``memory.core.ranking.coherence``):
    its step's distance on the focus task's DAG (from the latest steps and the task's step
    the query is most relevant to), the query's intent among its own, and the share of the
    focus's (else the query's) entities and identifiers it names."""
    if focus is not None:
        steps = [s for s in scored if s.candidate.id in focus.engrams and s.score > 0]
        if steps:
            focus = focus.anchored(
                max(steps, key=lambda s: (s.score, -s.candidate.id)).candidate.id
            )
    named = focus.marks if focus else frozenset(marks(query or ""))
    wanted = frozenset(content_lemmas(" ".join(sorted(named)))) if named else frozenset()
    out: dict[int, float] = {}
    for row, candidate in candidates:
        share = len(wanted & candidate.lemmas) / len(wanted) if wanted else 0.0
        hops = focus.hops_of(row.pk) if focus else None
        value = coherence(hops, bool(intent) and intent in row.intents, share)
        if value > 0:
            out[row.pk] = value
    return out


def _describe_cues(network: Network, cues: dict[int, ActivatedCue]) -> dict[int, int]:
    """Name the cues reached by spreading and return every active cue's engram count (its
    document frequency, for IDF) — one query."""
    if not cues:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT id, word, engram_count FROM memory_cue WHERE tenant_id = %s "
            "AND network_id = %s AND id = ANY(%s)",
            [network.tenant_id, network.pk, list(cues)],
        )
        df: dict[int, int] = {}
        for cue_id, word, count in cursor.fetchall():
            df[cue_id] = int(count)
            if not cues[cue_id].word:
                cues[cue_id] = replace(cues[cue_id], word=word)
    return df


@dataclass(frozen=True)
class _Row:
    """What ranking needs of a candidate; content is fetched for the chosen few only."""

    pk: int
    type: str
    strength: float
    importance: float
    happened_at: datetime
    last_recalled_at: datetime | None
    recall_count: int
    token_count: int
    terms: list[str]
    intents: list[str]
    speaker: str | None


def _rows(network: Network, ids: set[int], speaker: str | None = None) -> list[_Row]:
    if not ids:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            SELECT id, type, strength, importance, coalesce(occurred_at, created_at),
                   last_recalled_at, recall_count, token_count, terms, intents,
                   metadata->>'speaker'
              FROM memory_engram
             WHERE tenant_id = %s AND network_id = %s AND id = ANY(%s) AND status = 'active'
                   {SPOKEN if speaker else ""}
            """,
            [network.tenant_id, network.pk, list(ids), *([speaker] if speaker else [])],
        )
        return [_Row(*row) for row in cursor.fetchall()]


def _contents(
    network: Network, ids: list[int]
) -> dict[int, tuple[str, str | None, dict[str, object]]]:
    if not ids:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT id, content, external_id, metadata FROM memory_engram "
            "WHERE tenant_id = %s AND network_id = %s AND id = ANY(%s)",
            [network.tenant_id, network.pk, ids],
        )
        # jsonb arrives as text through Django's connection: decode it, so recall answers
        # metadata as the same JSON object the engram list does
        return {
            row[0]: (row[1], row[2], json.loads(row[3]) if isinstance(row[3], str) else row[3])
            for row in cursor.fetchall()
        }


# --- bookkeeping -----------------------------------------------------------------------------


def _prime_key(network: Network, actor: Actor) -> str:
    return (
        f"mnemo:{settings.PROFILE}:prime:{network.tenant_id}:{network.pk}:{actor.kind}:{actor.id}"
    )


def _store_prime(network: Network, actor: Actor, energies: dict[int, float]) -> None:
    key, value = _prime_key(network, actor), json.dumps(energies)
    # a hint: without Redis the next recall starts cold
    guarded("priming", lambda redis: redis.set(key, value, ex=PRIME_TTL_SECONDS), None)


def _take_prime(network: Network, actor: Actor) -> dict[int, float]:
    key = _prime_key(network, actor)
    raw = guarded("priming", lambda redis: redis.getdel(key), None)
    return {int(k): float(v) for k, v in json.loads(raw).items()} if raw else {}
