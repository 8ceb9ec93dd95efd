"""With Redis unreachable, everything that only caches in it keeps working (issue 9): a cache
call is a miss, a live socket closes cleanly instead of failing its handshake."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
import websockets
from django.test import Client, override_settings
from rest_framework.test import APIClient

from tests.conftest import bearer
from tests.factories import PASSWORD, Cast, make_cast, make_key

NOWHERE = "redis://127.0.0.1:1/0"  # nothing listens on port 1: refused at once
CACHE_DOWN = {
    "default": {
        "BACKEND": "base.cache.ResilientRedisCache",
        "LOCATION": NOWHERE,
        "OPTIONS": {"socket_timeout": 1, "socket_connect_timeout": 1},
    }
}
LAYER_DOWN = {
    "default": {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {"hosts": [NOWHERE]},
    }
}


@pytest.fixture
def redis_down() -> Iterator[None]:
    with override_settings(CACHES=CACHE_DOWN, CHANNEL_LAYERS=LAYER_DOWN):
        yield


RESOURCE = "<thought>\n<exploration>\nLook around.\n</exploration>\n</thought>\n"


@pytest.mark.django_db
def test_roles_render_activate_and_resources_save_without_redis(
    cast: Cast, redis_down: None
) -> None:
    _, secret = make_key(cast.tenant, scopes=("read", "write"))
    api = bearer(APIClient(), secret)
    assert api.get("/api/v1/roles/code-reviewer/render").status_code == 200
    activated = api.post("/api/v1/roles/code-reviewer/activate")
    assert activated.status_code == 200 and activated.json()["persona"]
    created = api.post(
        "/api/v1/role-resources",
        {"kind": "thought", "name": "scan", "source": RESOURCE},
        format="json",
    )
    assert created.status_code == 201, created.content
    edited = api.patch(
        "/api/v1/role-resources/thought/scan",
        {"source": RESOURCE.replace("around", "closer")},
        format="json",
    )
    assert edited.status_code == 200 and edited.json()["version"] == 2


@pytest.mark.django_db
def test_dashboard_pages_that_cache_counts_and_plots_work_without_redis(
    cast: Cast, redis_down: None
) -> None:
    _, secret = make_key(cast.tenant, scopes=("read", "write"))
    bearer(APIClient(), secret).post(
        "/api/v1/remember", {"engrams": [{"content": "Maya likes tea"}]}, format="json"
    )
    client = Client()
    assert client.login(username=cast.owner.email, password=PASSWORD)
    for path in ("/t/acme/", "/t/acme/memory/default/", "/t/acme/memory/", "/t/acme/import/"):
        assert client.get(path).status_code in (200, 302), path


def test_the_live_socket_closes_cleanly_without_redis(live_url: str, redis_down: None) -> None:
    cast = make_cast()
    client = Client()
    client.force_login(cast.owner)
    cookie = f"sessionid={client.cookies['sessionid'].value}"
    url = live_url.replace("http://", "ws://") + "/ws/t/acme/memory/"

    async def connect() -> int | None:
        async with websockets.connect(
            url, additional_headers={"Cookie": cookie, "Origin": live_url}, open_timeout=10
        ) as socket:
            try:
                await asyncio.wait_for(socket.recv(), timeout=10)
            except websockets.ConnectionClosed as closed:
                return closed.rcvd.code if closed.rcvd else None
        return None

    with ThreadPoolExecutor(1) as pool:
        try:
            code = pool.submit(asyncio.run, connect()).result()
        except websockets.InvalidStatus as refused:  # refused before the handshake completes
            code = refused.response.status_code
    assert code == 4503, code
