"""Ingest: raw interactions stored as immutable episodes, remembered at once, extracted later.

One transaction per batch: documents are cut into chunks (positions kept), every message, step
and chunk is remembered as an engram through the normal write path (firewall, write policy,
cues, audit — recallable before any extraction), the episodes are stored, idempotent by
``external_id`` (by the content as sent: a redacted secret stays redacted in the episode,
and sending it again is still the same episode), and a ``Job`` is queued after commit on the
extraction queue. The answer is a 202: the job says how far extraction got
(``GET /api/v1/jobs/<id>``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.utils import timezone

from audit.actors import Actor
from audit.services import audit_record
from base.background import after_commit
from base.db import atomic_with_retry
from base.errors import Conflict, Unprocessable
from memory.contracts import EngramIn
from memory.contracts.knowledge import EpisodeIn
from memory.models import Engram, Episode, Job, Network
from memory.services.networks import network_for_write
from memory.services.remember import engrams_remember
from tenants.models import Tenant

CHUNK_CHARS = 1200  # a chunk a reader takes in at once, and the embedder reads whole
PARAGRAPH = re.compile(r"\n\s*\n")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True)
class Piece:
    """One episode to store: a message or step as sent, or one chunk of a document."""

    index: int
    kind: str
    content: str
    speaker: str
    occurred_at: datetime | None
    external_id: str | None
    metadata: dict[str, Any]
    document: str = ""
    position: int = 0
    span: tuple[int, int] = (0, 0)


@dataclass(frozen=True)
class Ingested:
    network: Network
    job: Job
    episodes: list[tuple[int, Episode, bool]]  # (index in the request, episode, created)


def chunks(text: str, size: int = CHUNK_CHARS) -> Iterator[tuple[int, int]]:
    """Spans of ``text`` of at most ``size`` characters, cut between paragraphs, else between
    sentences, else anywhere; together they cover every non-blank character once."""
    start = 0
    while start < len(text):
        while start < len(text) and text[start].isspace():
            start += 1
        if start >= len(text):
            return
        end = min(len(text), start + size)
        if end < len(text):
            window = text[start:end]
            cuts = [m.start() for m in PARAGRAPH.finditer(window)] or [
                m.start() for m in SENTENCE_END.finditer(window)
            ]
            cuts = [c for c in cuts if c > size // 3]
            if cuts:
                end = start + cuts[-1]
        yield start, len(text[:end].rstrip())
        start = end


def _pieces(items: Sequence[EpisodeIn]) -> Iterator[Piece]:
    for index, item in enumerate(items):
        speaker = item.speaker or ""
        if item.kind != "document":
            yield Piece(
                index,
                item.kind,
                item.content,
                speaker,
                item.occurred_at,
                item.external_id,
                item.metadata,
            )
            continue
        document = item.external_id or hashlib.sha256(item.content.encode()).hexdigest()[:32]
        for position, (start, end) in enumerate(chunks(item.content)):
            yield Piece(
                index,
                item.kind,
                item.content[start:end],
                speaker,
                item.occurred_at,
                fit(f"{document}#{position}"),
                item.metadata,
                document=document,
                position=position,
                span=(start, end),
            )


def fit(key: str, limit: int = 200) -> str:
    """``key`` as stored: one longer than the column keeps its head and a hash of the whole,
    so two long keys never become one."""
    if len(key) <= limit:
        return key
    return f"{key[: limit - 41]}~{hashlib.sha256(key.encode()).hexdigest()[:40]}"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def episodes_ingest(
    *, tenant: Tenant, actor: Actor, network_key: str, items: Sequence[EpisodeIn]
) -> Ingested:
    pieces = list(_pieces(items))
    return atomic_with_retry(lambda: _ingest(tenant, actor, network_key, pieces))


def _ingest(tenant: Tenant, actor: Actor, network_key: str, pieces: list[Piece]) -> Ingested:
    network = network_for_write(tenant=tenant, key=network_key)
    keyed = [p.external_id for p in pieces if p.external_id]
    stored = {
        e.external_id: e
        for e in Episode.objects.filter(tenant=tenant, network=network, external_id__in=keyed)
    }
    new: list[Piece] = []
    for piece in pieces:
        old = stored.get(piece.external_id) if piece.external_id else None
        if old is not None and old.content_hash != _digest(piece.content):
            name = f"episodes[{piece.index}].content"
            raise Conflict(
                f"{name}: episode {piece.external_id!r} is stored with other content "
                "(episodes are immutable: send new content under a new external_id)",
                fields={name: "differs from the stored episode"},
            )
        if old is None and not any(
            p.external_id == piece.external_id for p in new if p.external_id
        ):
            new.append(piece)
    job = Job.objects.create(
        tenant=tenant,
        network=network,
        total=len(new),
        actor=actor.as_json(),
        state=Job.State.QUEUED if new else Job.State.DONE,
        finished_at=None if new else timezone.now(),
        message="" if new else "nothing new: every episode was stored before",
    )
    created = _store(tenant, actor, network, job, new)
    audit_record(
        tenant_id=tenant.pk,
        actor=actor,
        verb="episodes.ingest",
        target=job,
        target_label=f"{len(new)} new of {len(pieces)} episodes into {network.key}",
        after={"job": job.pk, "new": len(new), "sent": len(pieces)},
    )
    if new:
        after_commit("memory.tasks.extract_episodes", tenant.pk, job.pk)
    answered = []
    for piece in pieces:
        if piece.external_id and piece.external_id in stored:
            answered.append((piece.index, stored[piece.external_id], False))
        elif piece.external_id and piece.external_id in created:
            answered.append((piece.index, created[piece.external_id], True))
        else:
            answered.append((piece.index, created[id(piece)], True))
    return Ingested(network, job, answered)


def _store(
    tenant: Tenant, actor: Actor, network: Network, job: Job, new: list[Piece]
) -> dict[Any, Episode]:
    """Remember the new pieces as engrams, then store them as episodes linked to those."""
    if not new:
        return {}
    engrams = [
        EngramIn(
            content=p.content,
            occurred_at=p.occurred_at,
            external_id=fit(f"episode:{network.pk}:{p.external_id}") if p.external_id else None,
            metadata={
                **p.metadata,
                **({"speaker": p.speaker} if p.speaker else {}),
                "episode_kind": p.kind,
            },
        )
        for p in new
    ]
    try:
        result = engrams_remember(
            tenant=tenant, actor=actor, network_key=network.key, items=engrams, source="episode"
        )
    except Unprocessable as refused:  # the firewall's reject names the episode, not the engram
        field = next(iter(refused.fields), "")
        index = int(re.sub(r"\D", "", field) or 0)
        name = f"episodes[{new[index].index}].content"
        raise Unprocessable(
            refused.message.replace(field, name, 1),
            fields={name: next(iter(refused.fields.values()), "")},
            code=refused.code,
        ) from None
    # what the firewall redacted stays redacted in the episode too: it keeps the engram's text
    redacted = [o.id for o in result.outcomes if o.redacted]
    kept = dict(Engram.objects.filter(tenant=tenant, pk__in=redacted).values_list("pk", "content"))
    rows = [
        Episode(
            tenant=tenant,
            network=network,
            kind=p.kind,
            content=kept.get(outcome.id, p.content),
            speaker=p.speaker,
            occurred_at=p.occurred_at,
            external_id=p.external_id,
            metadata=p.metadata,
            document=p.document,
            position=p.position,
            span_start=p.span[0],
            span_end=p.span[1],
            content_hash=_digest(p.content),
            engram_id=outcome.id,
            job=job,
        )
        for p, outcome in zip(new, result.outcomes, strict=True)
    ]
    Episode.objects.bulk_create(rows)
    out: dict[Any, Episode] = {}
    for piece, row in zip(new, rows, strict=True):
        out[piece.external_id or id(piece)] = row
    return out
