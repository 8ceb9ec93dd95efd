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


def test_the_database_connection_is_back_before_the_answer_is(live_url: str) -> None:
    """Django is entered once per request (config.django_http): ``request_finished``, which
    gives the request's database connection back to the pool, has run by the time the client
    reads the answer — a client's next request never waits for its previous one's connection.
    (Django's own handler closed the response after sending it.)"""
    import threading
    import time

    from django.core.signals import request_finished, request_started

    seen: list[tuple[str, int]] = []

    def started(**_: Any) -> None:
        seen.append(("started", threading.get_ident()))

    def finished(**_: Any) -> None:
        time.sleep(0.3)  # a slow close: still, the answer waits for it
        seen.append(("finished", threading.get_ident()))

    request_started.connect(started)
    request_finished.connect(finished)
    try:
        response = httpx2.get(f"{live_url}/api/v1/tenant")
        assert response.status_code == 401
        assert [name for name, _ in seen] == ["started", "finished"]
        assert seen[0][1] == seen[1][1]  # one thread, so one connection, for the whole request
    finally:
        request_started.disconnect(started)
        request_finished.disconnect(finished)


def test_a_streamed_export_over_http_arrives_whole(live_url: str) -> None:
    import json

    from tests.frontend.test_dashboard import logged_in
    from tests.frontend.test_memory_pages import seed

    cast = make_cast()
    texts = [f"Stored fact number {n} about trains" for n in range(30)]
    seed(cast, [{"content": text} for text in texts])
    session = logged_in(cast.viewer).cookies["sessionid"].value
    response = httpx2.get(
        f"{live_url}/t/acme/memory/default/export.jsonl", cookies={"sessionid": session}
    )
    assert response.status_code == 200
    lines = [json.loads(line) for line in response.text.splitlines()]
    assert sorted(line["content"] for line in lines if line["kind"] == "engram") == sorted(texts)


def test_a_worker_is_ready_before_its_first_request(live_url: str) -> None:
    """The server's start (config.asgi.ready_to_serve) loaded the query model and took what was
    loaded out of the garbage collector's sight: a full collection walked those ~200k objects
    again each time (100–160 ms with the worker answering no one)."""
    import gc

    from memory import embeddings

    assert httpx2.get(f"{live_url}/livez").status_code == 200
    assert embeddings._embedder is not None
    assert gc.get_freeze_count() > 50_000
