"""The embedded Postgres is sized from the machine it runs on (config.embedded)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.db import connection

from config.embedded import _memory_mb, server_settings


def test_shared_buffers_are_a_quarter_of_memory_within_bounds() -> None:
    assert server_settings(24 * 1024)["shared_buffers"] == "6144MB"
    assert server_settings(24 * 1024)["effective_cache_size"] == "12288MB"
    assert server_settings(512)["shared_buffers"] == "256MB"  # a small machine: the floor
    assert server_settings(512)["effective_cache_size"] == "1024MB"
    assert server_settings(256 * 1024)["shared_buffers"] == "8192MB"  # a big one: the ceiling


def test_a_containers_memory_limit_counts_when_lower(tmp_path: Path) -> None:
    machine = _memory_mb(())
    v2, v1 = tmp_path / "memory.max", tmp_path / "memory.limit_in_bytes"
    v2.write_text("max\n")  # cgroup v2 without a limit
    assert _memory_mb((v2,)) == machine
    v2.write_text(f"{2 * 2**30}\n")  # a 2 GB container
    assert _memory_mb((v2,)) == min(machine, 2048)
    v1.write_text("9223372036854771712\n")  # cgroup v1 without a limit
    assert _memory_mb((v1, tmp_path / "absent")) == machine


@pytest.mark.django_db
def test_the_running_server_has_them() -> None:
    """Applied with ALTER SYSTEM and a restart when the services start (as for this suite)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT setting::bigint * 8 / 1024 FROM pg_settings WHERE name = 'shared_buffers'"
        )
        (megabytes,) = cursor.fetchone()
    assert f"{megabytes}MB" == server_settings()["shared_buffers"]
