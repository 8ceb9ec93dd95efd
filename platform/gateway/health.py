"""``/healthz`` (database and Redis answer) and ``/livez`` (the process answers).

Served by Starlette in front of Django, so they work without a Host in ALLOWED_HOSTS (Kubernetes
probes) and report a database outage as a 503 instead of failing inside Django's request
transaction. Failure details go to the log, not to the unauthenticated caller.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import psycopg
from asgiref.sync import sync_to_async
from django.db import connection
from starlette.requests import Request
from starlette.responses import JSONResponse

from base.redis_client import client

log = logging.getLogger(__name__)


def _timed(name: str, check: Callable[[], object]) -> dict[str, object]:
    started = time.perf_counter()
    try:
        check()
    except Exception:  # any failure means "down"; the log says why
        log.exception("health check %s failed", name)
        return {"ok": False}
    return {"ok": True, "ms": round((time.perf_counter() - started) * 1000, 1)}


def _database() -> None:
    """A connection of its own, with short timeouts: the pool could make a probe wait its whole
    timeout while the database is away, and a probe must answer."""
    db = connection.settings_dict
    with psycopg.connect(
        dbname=db["NAME"],
        user=db["USER"],
        password=db["PASSWORD"] or None,
        host=db["HOST"] or None,
        port=db["PORT"] or None,
        connect_timeout=2,
        options="-c statement_timeout=2000",
    ) as conn:
        conn.execute("SELECT 1")


def _redis() -> None:
    client().ping()


def run_checks() -> dict[str, dict[str, object]]:
    return {"database": _timed("database", _database), "redis": _timed("redis", _redis)}


async def healthz(request: Request) -> JSONResponse:
    checks = await sync_to_async(run_checks, thread_sensitive=False)()
    healthy = all(check["ok"] for check in checks.values())
    body = {"status": "ok" if healthy else "down", "checks": checks}
    return JSONResponse(body, status_code=200 if healthy else 503)


async def livez(request: Request) -> JSONResponse:
    return JSONResponse({"status": "ok"})
