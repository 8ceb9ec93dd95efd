"""Filling in embeddings for engrams and cues (run by the Celery task after remember)."""

from __future__ import annotations

from django.db import connection
from django.db.models import Q

from memory.embeddings import embedder, literal
from memory.models import EMBEDDABLE_CUE, Cue, Engram
from tenants import rls

BATCH = 64


def embed_missing(*, tenant_id: int, network_id: int, engram_ids: list[int]) -> int:
    """Embed the listed engrams that lack a vector of the current model, and the cues they are
    filed under that lack one (only theirs: two tasks of one network then rarely embed the
    same cues).

    Reads and writes are short tenant-scoped transactions; the model runs between them, so a
    slow embedding never holds a row lock that remember or recall would wait for.
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
            done += _store(tenant_id, model.model_id, chunk, vectors)
    with rls.tenant_scope(tenant_id):
        cues = list(
            Cue.objects.filter(
                EMBEDDABLE_CUE,
                # none yet, or one of another model (a blank model: moved by migration 0028,
                # made by whichever model was in use then, kept)
                Q(vector__isnull=True)
                | (Q(vector__model__gt="") & ~Q(vector__model=model.model_id)),
                tenant_id=tenant_id,
                network_id=network_id,
                engram_links__engram_id__in=engram_ids,
            )
            .distinct()
            .only("id", "word")
            .order_by("id")[:5000]
        )
    for start in range(0, len(cues), BATCH * 4):
        words = cues[start : start + BATCH * 4]
        vectors = model.embed([c.word for c in words])
        with rls.tenant_scope(tenant_id):
            _store_cues(tenant_id, network_id, model.model_id, words, vectors)
    return done


def _store_cues(
    tenant_id: int, network_id: int, model_id: str, chunk: list[Cue], vectors: list[list[float]]
) -> None:
    """Insert the vectors of the cues that still exist. ``FOR KEY SHARE`` waits for a cue
    being deleted (an erasure) and then skips it, where a plain join would insert a vector
    whose foreign key fails at commit and take the whole batch with it."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            INSERT INTO memory_cuevector (cue_id, tenant_id, network_id, embedding, model)
            SELECT c.id, c.tenant_id, c.network_id, v.vec::vector, %s
              FROM unnest(%s::bigint[], %s::text[]) AS v(id, vec)
              JOIN memory_cue c ON c.tenant_id = %s AND c.network_id = %s AND c.id = v.id
               FOR KEY SHARE OF c
            ON CONFLICT (cue_id) DO UPDATE
               SET embedding = EXCLUDED.embedding, model = EXCLUDED.model
             WHERE memory_cuevector.model <> EXCLUDED.model
            """,
            [model_id, [c.pk for c in chunk], [literal(v) for v in vectors], tenant_id, network_id],
        )


def _store(tenant_id: int, model_id: str, chunk: list[Engram], vectors: list[list[float]]) -> int:
    """Write vectors only where the content is still what was embedded (an edit in between
    cleared the vector and queued its own embedding)."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            UPDATE memory_engram e SET embedding = v.vec::vector, embedding_model = %s
              FROM unnest(%s::bigint[], %s::text[], %s::text[]) AS v(id, hash, vec)
             WHERE e.tenant_id = %s AND e.id = v.id AND e.content_hash = v.hash
            """,
            [
                model_id,
                [e.pk for e in chunk],
                [e.content_hash for e in chunk],
                [literal(v) for v in vectors],
                tenant_id,
            ],
        )
        return int(cursor.rowcount)
