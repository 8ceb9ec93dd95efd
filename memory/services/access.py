"""Access statistics off the hot path: what a recall or prime touched, applied in batches.

A recall used to be a write transaction: it counted the access on its engrams and query cues and
logged its timing, then waited for the WAL flush at commit (and held row locks that remember
also wants). Now it appends one note to a Redis list (one round trip, no lock) and stays a
read-only transaction; :func:`flush` — the ``memory.tasks.flush_access`` task, every 2 s on the
maintenance queue, or a direct call — applies the notes in batches, one statement per table and
tenant.

Nothing is lost on a worker crash: the notes are trimmed from the list only after the batch
committed (a crash in between applies that batch twice, an over-count by one flush, never a lost
count), and one flusher at a time holds a lock. While Redis is away, or when MAX_WAITING notes
already wait (no worker), the note is applied at once in the request's own transaction. A Redis
killed outright loses at most the notes of its last second (append-only file, fsync every
second).
"""

from __future__ import annotations

import json
import logging
import uuid
from collections import Counter, defaultdict
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import connection
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from base.redis_client import client, guarded
from memory.models import Network, RecallEvent
from tenants import rls

log = logging.getLogger(__name__)

BATCH = 5000  # notes applied per flush round
MAX_WAITING = 500_000  # notes queued at most (~100 MB of Redis); past that, applied at once
LOCK_SECONDS = 60  # a flusher that died frees the lock after this


def _key() -> str:
    return f"mnemo:{settings.PROFILE}:access"


def note(
    *,
    tenant_id: int,
    network_id: int,
    kind: str,
    source: str,
    took_ms: float,
    results: int,
    engram_ids: Iterable[int] = (),
    cue_ids: Iterable[int] = (),
) -> None:
    """Record a recall or prime: its timing, and (when it counts as an access) the engrams it
    returned and the query's cues. Queued in Redis; applied now when Redis does not answer."""
    record = {
        "t": tenant_id,
        "n": network_id,
        "k": kind,
        "s": source[:20],
        "ms": took_ms,
        "r": results,
        "at": timezone.now().isoformat(),
        "e": sorted(engram_ids),
        "c": sorted(cue_ids),
    }
    raw = json.dumps(record)
    queued = guarded("access notes", lambda redis: _push(redis, raw), False)
    if not queued:
        _apply(tenant_id, [record])  # the request's own transaction (its tenant scope)


def _push(redis: Any, raw: str) -> bool:
    """Queue the note unless MAX_WAITING already wait (no worker flushing for hours): then it
    is taken back and applied in the request, so Redis stays bounded and no count is lost."""
    if int(redis.rpush(_key(), raw)) <= MAX_WAITING:
        return True
    redis.lrem(_key(), -1, raw)
    return False


def pending() -> int:
    """Notes waiting to be applied (0 when Redis does not answer)."""
    return int(guarded("access notes", lambda redis: redis.llen(_key()), 0))


def flush(limit: int = BATCH) -> int:
    """Apply up to ``limit`` waiting notes; the number applied (0 if another flusher holds the
    lock). Call it again while it returns ``limit``."""
    redis = client()
    lock, token = f"{_key()}:lock", uuid.uuid4().hex
    if not redis.set(lock, token, nx=True, ex=LOCK_SECONDS):
        return 0
    try:
        raw = redis.lrange(_key(), 0, limit - 1)
        if not raw:
            return 0
        by_tenant: dict[int, list[dict[str, Any]]] = defaultdict(list)
        for item in raw:
            try:
                record = json.loads(item)
                by_tenant[int(record["t"])].append(record)
            except (ValueError, KeyError, TypeError):
                log.error("an access note could not be read and is dropped: %r", item[:200])
        for tenant_id, records in by_tenant.items():
            with rls.tenant_scope(tenant_id):
                _apply(tenant_id, records)
        redis.ltrim(_key(), len(raw), -1)  # only after every batch committed
        return len(raw)
    finally:
        if redis.get(lock) == token.encode():
            redis.delete(lock)


def _apply(tenant_id: int, records: list[dict[str, Any]]) -> None:
    """One tenant's notes: access counts summed per engram and cue (the latest time wins), and
    the timings as RecallEvents. Rows are locked in the orders remember takes them in."""
    engrams: Counter[int] = Counter()
    cues: Counter[int] = Counter()
    last_engram: dict[int, datetime] = {}
    last_cue: dict[int, datetime] = {}
    events = []
    for record in records:
        at = parse_datetime(str(record["at"])) or timezone.now()
        for ids, counts, last in (
            (record.get("e") or [], engrams, last_engram),
            (record.get("c") or [], cues, last_cue),
        ):
            for raw_id in ids:
                item = int(raw_id)
                counts[item] += 1
                last[item] = max(at, last.get(item, at))
        events.append(
            RecallEvent(
                tenant_id=tenant_id,
                network_id=int(record["n"]),
                kind=str(record["k"]),
                source=str(record["s"]),
                took_ms=float(record["ms"]),
                results=int(record["r"]),
                created_at=at,
            )
        )
    _count(tenant_id, "memory_engram", "id", engrams, last_engram)
    _count(tenant_id, "memory_cue", "lemma", cues, last_cue)
    # a note of a network deleted meanwhile has nowhere to go
    live = set(
        Network.objects.filter(
            tenant_id=tenant_id, pk__in={e.network_id for e in events}
        ).values_list("pk", flat=True)
    )
    RecallEvent.objects.bulk_create([e for e in events if e.network_id in live])


def _count(
    tenant_id: int, table: str, lock_order: str, counts: Counter[int], last: dict[int, datetime]
) -> None:
    """Add ``counts`` to the rows' recall counts (the latest time wins), rows locked in
    ``lock_order``: the order remember takes them in (engrams by id, cues by lemma)."""
    if not counts:
        return
    ids = sorted(counts)
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            WITH d AS (SELECT * FROM unnest(%s::bigint[], %s::int[], %s::timestamptz[])
                         AS d(id, n, at)),
                 locked AS (SELECT t.id FROM {table} t JOIN d ON d.id = t.id
                             WHERE t.tenant_id = %s ORDER BY t.{lock_order} FOR UPDATE OF t)
            UPDATE {table} t SET recall_count = t.recall_count + d.n,
                   last_recalled_at = greatest(t.last_recalled_at, d.at)
              FROM d JOIN locked ON locked.id = d.id
             WHERE t.id = d.id
            """,
            [ids, [counts[i] for i in ids], [last[i] for i in ids], tenant_id],
        )
