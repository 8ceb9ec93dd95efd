"""How the embedder writes (issue 10): vectors travel in binary and arrive exactly as the model
made them, only the task's last write waits for its WAL flush, a new tenant's cues are found
from its engrams, and an embedding worker loads its model as it starts."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from django.conf import settings
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from audit.actors import Actor
from memory.contracts import engram_items
from memory.models import Cue, CueVector, Engram, Network
from memory.services.embedding import embed_missing
from memory.services.remember import engrams_remember
from tenants import rls
from tests.factories import Cast
from tests.memory.test_remember import remember

pytestmark = pytest.mark.django_db(transaction=True)


def _remembered(cast: Cast, count: int) -> tuple[Network, list[int]]:
    items = [
        {
            "content": f"harbour lantern number {n} glows over the quay",
            "schema": ["harbour", "lantern", "quay", "glow", "beacon"],
        }
        for n in range(count)
    ]
    with transaction.atomic():
        ids = [o.id for o in remember(cast, items).outcomes]
    with rls.tenant_scope(cast.tenant.pk):
        network = Network.objects.get(tenant=cast.tenant, key="default")
    return network, ids


def test_vectors_arrive_exactly_as_the_model_made_them(cast: Cast) -> None:
    """Sent as text (six significant digits), a stored vector differed from the model's in
    the seventh; sent in pgvector's binary format it holds the same float32 numbers."""
    from memory.services.embedding import _store, _store_cues

    network, ids = _remembered(cast, 2)
    rng = np.random.default_rng(5)
    made = rng.standard_normal((3, 384)).astype(np.float32)
    made /= np.linalg.norm(made, axis=1, keepdims=True)
    vectors = made.tolist()
    with rls.tenant_scope(cast.tenant.pk):
        engrams = list(Engram.objects.filter(pk__in=ids).order_by("id"))
        cue = Cue.objects.get(network=network, lemma="harbour")
        assert _store(cast.tenant.pk, "m", engrams, vectors[:2]) == 2
        _store_cues(cast.tenant.pk, network.pk, "m", [cue], vectors[2:])
    with rls.tenant_scope(cast.tenant.pk):
        stored = [list(Engram.objects.get(pk=pk).embedding) for pk in ids]
        stored.append(list(CueVector.objects.get(cue=cue).embedding))
    # read back as text, then as float32: the very numbers sent
    assert np.array_equal(np.asarray(stored, dtype=np.float32), made)
    with pytest.raises(ValueError, match="384 dimensions"), rls.tenant_scope(cast.tenant.pk):
        _store(cast.tenant.pk, "m", engrams[:1], [[0.5] * 383])


def test_only_the_last_write_of_a_task_skips_no_flush_and_logged_queries_still_render(
    cast: Cast,
) -> None:
    """Chunks commit without waiting for the WAL (the flush overlaps the next chunk); the
    task's last write waits, which flushes everything before it. Queries shown as text
    (DEBUG's log, this capture) render the binary vectors too."""
    from memory.services.embedding import BATCH

    network, ids = _remembered(cast, BATCH + 5)  # two engram chunks, then the cues
    with CaptureQueriesContext(connection) as captured:
        embed_missing(tenant_id=cast.tenant.pk, network_id=network.pk, engram_ids=ids)
    statements = [q["sql"] for q in captured.captured_queries]
    writes = [
        i
        for i, sql in enumerate(statements)
        if sql.lstrip().startswith(("UPDATE memory_engram", "INSERT INTO memory_cuevector"))
    ]
    assert len(writes) >= 3  # two chunks of engrams, at least one of cues

    def relaxed(write: int) -> bool:
        return "synchronous_commit = off" in statements[write - 1]

    assert relaxed(writes[0])
    assert not relaxed(writes[-1])
    assert "[" in statements[writes[0]]  # the vectors, rendered as pgvector text


def test_a_new_tenants_cues_are_found_from_its_engrams(cast: Cast) -> None:
    """The cues to embed are read from the batch's links by engram, then by primary key:
    as one join, the planner (no statistics for a new tenant) looped over every link of
    the batch once per cue."""
    network, ids = _remembered(cast, 40)
    with CaptureQueriesContext(connection) as captured:
        embed_missing(tenant_id=cast.tenant.pk, network_id=network.pk, engram_ids=ids)
    reads = [q["sql"] for q in captured.captured_queries if "memory_cue" in q["sql"]]
    cue_read = next(sql for sql in reads if sql.lstrip().startswith('SELECT "memory_cue"'))
    assert "memory_engramcue" not in cue_read
    with rls.tenant_scope(cast.tenant.pk):
        assert CueVector.objects.filter(network=network).count() >= 5


def test_an_embedding_worker_loads_its_model_as_each_process_starts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import memory.embeddings
    from memory import tasks

    def worker(queues: set[str]) -> SimpleNamespace:
        consumed = {name: object() for name in queues}
        return SimpleNamespace(
            app=SimpleNamespace(amqp=SimpleNamespace(queues=SimpleNamespace(consume_from=consumed)))
        )

    monkeypatch.setattr(memory.embeddings, "_embedder", None)
    tasks._note_embeddings_queue(sender=worker({settings.QUEUE_IMPORTS}))
    assert tasks._warm_embedder() is None  # an import worker leaves the model alone
    assert memory.embeddings._embedder is None
    tasks._note_embeddings_queue(sender=worker({settings.QUEUE_DEFAULT, settings.QUEUE_EMBEDDINGS}))
    thread = tasks._warm_embedder()
    assert thread is not None
    thread.join(timeout=60)
    assert memory.embeddings._embedder is not None
    monkeypatch.setattr(tasks, "_embeds", False)


def test_an_embed_task_whose_database_went_away_runs_again() -> None:
    """Its vectors written without waiting for the flush may be lost with Postgres; an
    engram's are found by the sweeper, a cue's only by running the task again."""
    from django.db import OperationalError

    from memory.tasks import embed_engrams

    assert OperationalError in embed_engrams.autoretry_for


def test_a_cue_another_task_is_embedding_is_left_to_it(cast: Cast) -> None:
    """Two tasks of one network share most of their cues; each embeds the ones it claims
    (a Redis key) and leaves another's claim alone. Its own claims go when it is done."""
    from base.redis_client import client
    from memory.services.embedding import _claim_key

    network, ids = _remembered(cast, 3)
    with rls.tenant_scope(cast.tenant.pk):
        cues = {c.lemma: c.pk for c in Cue.objects.filter(network=network)}
    taken = _claim_key(cues["harbour"])
    client().set(taken, 1, ex=30)  # another task is embedding it
    try:
        embed_missing(tenant_id=cast.tenant.pk, network_id=network.pk, engram_ids=ids)
        with rls.tenant_scope(cast.tenant.pk):
            made = set(
                CueVector.objects.filter(network=network).values_list("cue__lemma", flat=True)
            )
        assert made == set(cues) - {"harbour"}
        assert client().exists(taken)  # not ours to release
        assert not any(
            client().exists(_claim_key(pk)) for lemma, pk in cues.items() if lemma != "harbour"
        )
    finally:
        client().delete(taken)
    embed_missing(tenant_id=cast.tenant.pk, network_id=network.pk, engram_ids=ids)
    with rls.tenant_scope(cast.tenant.pk):
        assert CueVector.objects.filter(network=network).count() == len(cues)


def test_another_tenants_engrams_are_not_embedded_under_this_tenant(cast: Cast) -> None:
    """The embedder's reads (engrams, their links, their cues) and writes are the tenant's:
    another tenant's engram ids sent with this tenant's network embed nothing of it."""
    network, ids = _remembered(cast, 3)
    with transaction.atomic():
        rls.activate(tenant_id=cast.other.pk)
        theirs = engrams_remember(
            tenant=cast.other,
            actor=Actor.system("tests"),
            network_key="default",
            items=engram_items([{"content": "globex secret plan", "schema": ["secret"]}]),
            source="api",
        )
    other_ids = [o.id for o in theirs.outcomes]
    assert embed_missing(tenant_id=cast.tenant.pk, network_id=network.pk, engram_ids=other_ids) == 0
    with rls.tenant_scope(cast.other.pk):
        assert Engram.objects.get(pk=other_ids[0]).embedding is None
        assert not CueVector.objects.filter(tenant=cast.other).exists()
    assert embed_missing(tenant_id=cast.tenant.pk, network_id=network.pk, engram_ids=ids) == 3


def test_a_connection_learns_the_vector_type_once(cast: Cast) -> None:
    """The type is looked up on a connection's first binary write, not on every chunk."""
    from pgvector import Vector
    from psycopg.adapt import PyFormat

    from memory.embeddings import binary_vectors

    with rls.tenant_scope(cast.tenant.pk):
        binary_vectors([[0.0] * 384])
        adapters = connection.connection.adapters
        first = adapters.get_dumper(Vector, PyFormat.BINARY)
        binary_vectors([[1.0] * 384])
        assert connection.connection.adapters.get_dumper(Vector, PyFormat.BINARY) is first
