"""Shared fixtures: the fixed cast, API clients, a real ASGI server and a real Celery worker.

The suite runs against the embedded Postgres + pgvector and Redis that ``make test`` starts
(``python -m config.embedded --profile test -- pytest``), or whatever DATABASE_URL / REDIS_URL name.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from config.embedded import free_port
from tests.factories import Cast, make_cast

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"


@contextmanager
def as_schema_owner() -> Iterator[None]:
    """Connect the default alias as the schema owner for a moment (create, migrate, drop)."""
    from django.db import connections

    owner_url = settings.DATABASE_OWNER_URL
    db = connections["default"]
    saved = {key: db.settings_dict[key] for key in ("USER", "PASSWORD")}
    if owner_url:
        parts = urlsplit(owner_url)
        db.close()
        db.settings_dict.update(
            USER=unquote(parts.username or ""), PASSWORD=unquote(parts.password or "")
        )
    try:
        yield
    finally:
        db.close()
        db.settings_dict.update(saved)


@pytest.fixture(scope="session")
def django_db_setup(
    request: pytest.FixtureRequest, django_test_environment: None, django_db_blocker: object
) -> Iterator[None]:
    """Create and migrate the test database as the owner role; tests then run as the app role.

    The app role may not TRUNCATE in production; the test database grants it so transactional
    tests can be flushed.
    """
    from django.db import connection
    from django.test.utils import setup_databases, teardown_databases

    app_role = settings.DATABASES["default"]["USER"]
    with django_db_blocker.unblock(), as_schema_owner():  # type: ignore[attr-defined]
        config = setup_databases(verbosity=0, interactive=False)
        if settings.DATABASE_OWNER_URL:
            with connection.cursor() as cursor:
                cursor.execute(f'GRANT TRUNCATE ON ALL TABLES IN SCHEMA public TO "{app_role}"')
    yield
    with django_db_blocker.unblock(), as_schema_owner():  # type: ignore[attr-defined]
        teardown_databases(config, verbosity=0)


@pytest.fixture(autouse=True)
def fresh_rate_limits() -> None:
    """Rate-limit and login-failure counters never carry over from one test to the next, nor
    do recalls' access notes, nor does a Redis failure an earlier test caused on purpose."""
    from base.redis_client import client, redis_breaker
    from tenants.ratelimit import local_counts

    redis_breaker.reset()
    local_counts.clear()
    redis = client()
    stale = list(redis.scan_iter(f"mnemo:{settings.PROFILE}:rl:*"))
    stale += list(redis.scan_iter(f"mnemo:{settings.PROFILE}:access*"))  # recalls' notes
    if stale:
        redis.delete(*stale)


@pytest.fixture
def cast(db: None) -> Cast:
    return make_cast()


@pytest.fixture
def api() -> APIClient:
    return APIClient()


def bearer(client: APIClient, secret: str) -> APIClient:
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return client


@pytest.fixture(scope="session")
def asgi_server(django_db_setup: None, django_db_blocker: object) -> Iterator[str]:
    """The real ASGI app (Starlette + MCP + Django) under uvicorn, on the test database."""
    import uvicorn

    from config.asgi import application

    port = free_port()
    config = uvicorn.Config(
        application, host="127.0.0.1", port=port, lifespan="on", log_level="warning"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="uvicorn-test", daemon=True)
    with django_db_blocker.unblock():  # type: ignore[attr-defined]
        thread.start()
        deadline = time.monotonic() + 30
        while not server.started:
            if time.monotonic() > deadline or not thread.is_alive():
                raise RuntimeError("the test ASGI server did not start")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
        server.should_exit = True
        thread.join(timeout=15)
        _close_server_connections()


def _close_server_connections() -> None:
    """End the server threads' database sessions so the test database can be dropped."""
    from django.db import connection

    deadline = time.monotonic() + 10
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
            if cursor.fetchone()[0] == 0:
                break
            time.sleep(0.1)
    connection.close()


@pytest.fixture
def live_url(asgi_server: str, transactional_db: None) -> str:
    """Base URL of the running server, for a test whose data must be committed to be seen."""
    return asgi_server


def database_url_for_processes() -> str:
    db = settings.DATABASES["default"]
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    if str(db["HOST"]).startswith("/"):
        return f"postgresql://{auth}@/{db['NAME']}?host={db['HOST']}"
    return f"postgresql://{auth}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}"


@pytest.fixture
def celery_worker(transactional_db: None, tmp_path: Path) -> Iterator[Path]:
    """A real Celery worker process on the test database; yields the directory it mails into."""
    from config.celery import app

    mail_dir = tmp_path / "mail"
    env = {
        **os.environ,
        "DATABASE_URL": database_url_for_processes(),
        "REDIS_URL": settings.REDIS_URL,
        "MAIL_BACKEND": "file",
        "MAIL_FILE_PATH": str(mail_dir),
    }
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "--pool",
            "solo",
            "--loglevel",
            "WARNING",
            "--hostname",
            f"test-{os.getpid()}@%h",
            "--queues",
            ",".join(settings.QUEUES.values()),  # every queue: imports, embeddings, ...
        ],
        env=env,
    )
    try:
        deadline = time.monotonic() + 60
        while not app.control.ping(timeout=0.5):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the Celery worker did not come up")
        yield mail_dir
    finally:
        proc.terminate()
        proc.wait(timeout=30)
