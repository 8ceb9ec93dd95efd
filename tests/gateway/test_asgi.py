"""The outer ASGI app: routing, request ids, body-size limit, health — over real HTTP."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest

from tests.factories import make_cast, make_key


def test_healthz_over_http_is_ok(live_url: str) -> None:
    response = httpx2.get(f"{live_url}/healthz")
    assert response.status_code == 200 and response.json()["status"] == "ok"


def test_healthz_answers_503_without_details_when_redis_is_down(
    live_url: str, settings: Any
) -> None:
    from base.redis_client import client

    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    client.cache_clear()
    try:
        response = httpx2.get(f"{live_url}/healthz")
    finally:
        client.cache_clear()
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "down"
    assert body["checks"] == {"database": body["checks"]["database"], "redis": {"ok": False}}
    assert body["checks"]["database"]["ok"] is True


def test_livez_needs_nothing_but_the_process(live_url: str) -> None:
    assert httpx2.get(f"{live_url}/livez", headers={"Host": "10.1.2.3:8000"}).status_code == 200
    assert httpx2.get(f"{live_url}/healthz", headers={"Host": "10.1.2.3:8000"}).status_code == 200


@pytest.mark.parametrize("path", ["/api/v1/tenant", "/t/acme/mcp", "/login/"])
def test_every_response_carries_a_request_id_and_echoes_a_callers(live_url: str, path: str) -> None:
    assert len(httpx2.get(f"{live_url}{path}").headers["x-request-id"]) == 32
    echoed = httpx2.get(f"{live_url}{path}", headers={"X-Request-ID": "abc-123"})
    assert echoed.headers["x-request-id"] == "abc-123"


@pytest.mark.parametrize("path", ["/api/v1/keys", "/t/acme/mcp"])
def test_bodies_over_the_limit_are_413_json(live_url: str, settings: Any, path: str) -> None:
    cast = make_cast()
    _, secret = make_key(cast.tenant, scopes=("admin",))
    settings.MAX_REQUEST_BYTES = 2_000
    headers = {
        "Authorization": f"Bearer {secret}",
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
    }
    big = b'{"name": "' + b"x" * 5_000 + b'", "scopes": ["read"]}'
    response = httpx2.post(f"{live_url}{path}", content=big, headers=headers)
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "payload_too_large"

    def chunks():  # no Content-Length: the limit is counted as the body streams in
        for _ in range(10):
            yield b"x" * 500

    streamed = httpx2.post(f"{live_url}{path}", content=chunks(), headers=headers)
    assert streamed.status_code == 413


def test_dashboard_and_api_are_served_by_the_same_app(live_url: str) -> None:
    assert httpx2.get(f"{live_url}/login/").status_code == 200
    assert httpx2.get(f"{live_url}/api/v1/tenant").status_code == 401
    assert httpx2.get(f"{live_url}/static/vendor/htmx.min.js").status_code == 200
