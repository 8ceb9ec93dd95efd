"""Filling in embeddings for engrams and cues (run by the Celery task after remember)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import connection
from django.db.backends.utils import CursorWrapper
from django.db.models import Q

from base.redis_client import guarded
from memory.embeddings import binary_vectors, embedder
from memory.models import EMBEDDABLE_CUE, Cue, Engram, EngramCue
from tenants import rls

if TYPE_CHECKING:
    from redis import Redis

BATCH = 64


def embed_missing(*, tenant_id: int, network_id: int, engram_ids: list[int]) -> int:
    """Embed the listed engrams that lack a vector of the current model, and the cues they are
    filed under that lack one (only theirs: two tasks of one network then rarely embed the
    same cues).

    Reads and writes are short tenant-scoped transactions; the model runs between them, so a
    slow embedding never holds a row lock that remember or recall would wait for.

    Every write but the task's last commits without waiting for its WAL flush (the flush then
    overlaps the model's next chunk); the last waits, and with it everything written before,
    so a task that returns has stored durably. What a crash loses in between is only a vector:
    the memory reads as unembedded, and the sweeper queues it again (maintenance).
    """
    model = embedder()
    done = 0
    with rls.tenant_scope(tenant_id):
        pending = Engram.objects.filter(
            tenant_id=tenant_id, network_id=network_id, pk__in=engram_ids
        ).filter(Q(embedding__isnull=True) | ~Q(embedding_model=model.model_id))
        rows = list(pending.only("id", "content", "content_hash").order_by("id"))
    for start in range(0, len(rows), BATCH):
        chunk = rows[start : start + BATCH]
        vectors = model.embed([engram.content for engram in chunk])
        with rls.tenant_scope(tenant_id):
            # the last chunk waits for its flush; the cues' last write waits again after it
            done += _store(
                tenant_id, model.model_id, chunk, vectors, durable=start + BATCH >= len(rows)
            )
    with rls.tenant_scope(tenant_id):
        # Two steps, from the engrams to their cues: as one join, a new tenant's missing
        # statistics made the planner scan every link of the batch once per cue (0.6 s for
        # 500 engrams, 1.3M buffers, measured; 2 s under ingest).
        linked = set(
            EngramCue.objects.filter(tenant_id=tenant_id, engram_id__in=engram_ids).values_list(
                "cue_id", flat=True
            )
        )
        cues = list(
            Cue.objects.filter(
                EMBEDDABLE_CUE,
                # none yet, or one of another model (a blank model: moved by migration 0028,
                # made by whichever model was in use then, kept)
                Q(vector__isnull=True)
                | (Q(vector__model__gt="") & ~Q(vector__model=model.model_id)),
                tenant_id=tenant_id,
                network_id=network_id,
                pk__in=sorted(linked),
            )
            .only("id", "word")
            .order_by("id")[:5000]
        )
    claimed = _claim([c.pk for c in cues])
    try:
        cues = [c for c in cues if c.pk in claimed]
        for start in range(0, len(cues), BATCH * 4):
            words = cues[start : start + BATCH * 4]
            vectors = model.embed([c.word for c in words])
            with rls.tenant_scope(tenant_id):
                last = start + BATCH * 4 >= len(cues)
                _store_cues(tenant_id, network_id, model.model_id, words, vectors, durable=last)
    finally:
        _release(claimed)
    return done


CLAIM_SECONDS = 30  # below the broker's visibility timeout: a task redelivered can claim again


def _claim_key(cue_id: int) -> str:
    return f"mnemo:cue-embedding:{cue_id}"


def _claim(cue_ids: list[int]) -> set[int]:
    """The cues this task embeds: those no other task is embedding now. Two tasks of one
    network (two batches of one ingest) share most of their cues, and each embedded them all:
    the first pair of a new network's tasks spent ~1.4 s each on the same ~530 words (measured).
    A claim is a Redis key that lives ``CLAIM_SECONDS`` and is released when its task leaves
    the cues (stored or failed). A task that skips another's cue relies on that task to store
    it, as it would its own; one killed outright is delivered again once its claims have
    expired. With Redis away every cue is this task's (as before claims)."""
    if not cue_ids:
        return set()

    def claim(client: Redis) -> set[int]:
        pipe = client.pipeline(transaction=False)
        for cue_id in cue_ids:
            pipe.set(_claim_key(cue_id), 1, nx=True, ex=CLAIM_SECONDS)
        return {cue_id for cue_id, won in zip(cue_ids, pipe.execute(), strict=True) if won}

    return guarded("cue embedding claims", claim, set(cue_ids))


def _release(cue_ids: set[int]) -> None:
    if cue_ids:
        guarded("cue embedding claims", lambda c: c.delete(*map(_claim_key, cue_ids)), 0)


def _store_cues(
    tenant_id: int,
    network_id: int,
    model_id: str,
    chunk: list[Cue],
    vectors: list[list[float]],
    *,
    durable: bool = True,
) -> None:
    """Insert the vectors of the cues that still exist. ``FOR KEY SHARE`` waits for a cue
    being deleted (an erasure) and then skips it, where a plain join would insert a vector
    whose foreign key fails at commit and take the whole batch with it."""
    vecs = binary_vectors(vectors)  # before the cursor: it copies the connection's adapters
    with connection.cursor() as cursor:
        _commit_mode(cursor, durable)
        cursor.execute(
            """
            INSERT INTO memory_cuevector (cue_id, tenant_id, network_id, embedding, model)
            SELECT c.id, c.tenant_id, c.network_id, v.vec, %s
              FROM unnest(%s::bigint[], %b::vector[]) AS v(id, vec)
              JOIN memory_cue c ON c.tenant_id = %s AND c.network_id = %s AND c.id = v.id
               FOR KEY SHARE OF c
            ON CONFLICT (cue_id) DO UPDATE
               SET embedding = EXCLUDED.embedding, model = EXCLUDED.model
             WHERE memory_cuevector.model <> EXCLUDED.model
            """,
            [model_id, [c.pk for c in chunk], vecs, tenant_id, network_id],
        )


def _store(
    tenant_id: int,
    model_id: str,
    chunk: list[Engram],
    vectors: list[list[float]],
    *,
    durable: bool = True,
) -> int:
    """Write vectors only where the content is still what was embedded (an edit in between
    cleared the vector and queued its own embedding)."""
    vecs = binary_vectors(vectors)  # before the cursor: it copies the connection's adapters
    with connection.cursor() as cursor:
        _commit_mode(cursor, durable)
        cursor.execute(
            """
            UPDATE memory_engram e SET embedding = v.vec, embedding_model = %s
              FROM unnest(%s::bigint[], %s::text[], %b::vector[]) AS v(id, hash, vec)
             WHERE e.tenant_id = %s AND e.id = v.id AND e.content_hash = v.hash
            """,
            [
                model_id,
                [e.pk for e in chunk],
                [e.content_hash for e in chunk],
                vecs,
                tenant_id,
            ],
        )
        return int(cursor.rowcount)


def _commit_mode(cursor: CursorWrapper, durable: bool) -> None:
    """A write that need not wait for its WAL flush at commit (see embed_missing)."""
    if not durable:
        cursor.execute("SET LOCAL synchronous_commit = off")
