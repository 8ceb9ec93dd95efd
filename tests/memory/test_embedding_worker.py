"""Embeddings are computed by a real Celery worker after remember commits."""

from __future__ import annotations

import time
from pathlib import Path

from memory.models import Cue, Engram
from tenants import rls
from tests.factories import make_cast
from tests.memory.test_recall import recall, store


def test_the_worker_embeds_new_memories_and_recall_then_finds_them_by_meaning(
    celery_worker: Path,
) -> None:
    cast = make_cast()
    store(
        cast,
        [{"content": "Grace prefers dark roast coffee", "schema": ["Grace", "roast"]}],
        embed=False,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with rls.tenant_scope(cast.tenant.pk):
            engram = Engram.objects.get(tenant=cast.tenant)
            cues_left = Cue.objects.filter(tenant=cast.tenant, vector__isnull=True).count()
        if engram.embedding is not None and cues_left == 0:
            break
        time.sleep(0.3)
    assert engram.embedding is not None and engram.embedding_model.startswith("all-MiniLM")
    assert len(engram.embedding) == 384 and cues_left == 0
    found = recall(cast, "espresso beans", channels=frozenset({"vector"}))
    assert [e.content for e in found.engrams] == ["Grace prefers dark roast coffee"]
