"""``GET /healthz``: is the database answering, is Redis answering."""

from __future__ import annotations

import time

from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_GET

from config.redis_client import client


def _timed(check: object) -> dict[str, object]:
    started = time.perf_counter()
    try:
        check()  # type: ignore[operator]
    except Exception as exc:  # any failure means "down"; say which
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:300]}
    return {"ok": True, "ms": round((time.perf_counter() - started) * 1000, 1)}


def _database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")


def _redis() -> None:
    client().ping()


@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    checks = {"database": _timed(_database), "redis": _timed(_redis)}
    healthy = all(check["ok"] for check in checks.values())
    return JsonResponse(
        {"status": "ok" if healthy else "down", "checks": checks}, status=200 if healthy else 503
    )
