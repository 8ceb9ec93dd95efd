"""The MCP gateway with the real ``mcp`` client over streamable HTTP against the real ASGI app."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from tenants import rls
from tenants.models import ApiKey
from tests.factories import Cast, make_cast, make_key

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"},
    },
}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


async def call_tool(url: str, secret: str, tool: str, args: dict[str, Any]) -> Any:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {secret}"})
    async with Client(streamable_http_client(url, http_client=http)) as client:
        tools = await client.list_tools()
        result = await client.call_tool(tool, args)
        return [t.name for t in tools.tools], result


def run(coro: Any) -> Any:
    """asyncio.run in its own thread: the browser tests keep an event loop on this one."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def post(url: str, secret: str | None) -> httpx2.Response:
    headers = dict(HEADERS)
    if secret is not None:
        headers["Authorization"] = f"Bearer {secret}"
    return httpx2.post(url, json=INIT, headers=headers, timeout=10)


@pytest.fixture
def world(live_url: str) -> tuple[str, Cast]:
    return live_url, make_cast()


def test_whoami_over_the_real_mcp_client_names_the_tenant_and_scopes(
    world: tuple[str, Cast],
) -> None:
    url, cast = world
    _, secret = make_key(cast.tenant, scopes=("read",), name="claude")
    names, result = run(call_tool(f"{url}/t/acme/mcp", secret, "whoami", {}))
    assert "whoami" in names
    text = result.content[0].text
    assert "slug `acme`" in text and "Scopes: read" in text and "claude" in text
    assert "Next steps" in text
    with rls.tenant_scope(cast.tenant.pk):
        assert ApiKey.objects.get(name="claude").last_used_at is not None


def test_a_key_of_another_tenant_is_401_and_the_client_fails(world: tuple[str, Cast]) -> None:
    url, cast = world
    _, secret = make_key(cast.other)
    response = post(f"{url}/t/acme/mcp", secret)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "invalid_api_key"
    assert response.headers["www-authenticate"].startswith("Bearer")
    with pytest.raises(ExceptionGroup) as failure:  # the SDK's task groups wrap its MCPError
        run(call_tool(f"{url}/t/acme/mcp", secret, "whoami", {}))
    assert failure.group_contains(MCPError)


@pytest.mark.parametrize("secret", [None, "mnemo_aaaaaaaaaa_" + "b" * 43, "garbage"])
def test_missing_or_unknown_keys_are_401(world: tuple[str, Cast], secret: str | None) -> None:
    url, _ = world
    response = post(f"{url}/t/acme/mcp", secret)
    assert response.status_code == 401
    assert response.json()["error"]["code"] in {"not_authenticated", "invalid_api_key"}


def test_an_unknown_tenant_slug_is_401_like_a_wrong_key(world: tuple[str, Cast]) -> None:
    url, cast = world
    _, secret = make_key(cast.tenant)
    assert post(f"{url}/t/no-such-team/mcp", secret).status_code == 401


def test_a_revoked_key_stops_working_at_once(world: tuple[str, Cast]) -> None:
    url, cast = world
    key, secret = make_key(cast.tenant)
    assert post(f"{url}/t/acme/mcp", secret).status_code == 200
    with rls.tenant_scope(cast.tenant.pk):
        ApiKey.objects.filter(pk=key.pk).update(revoked_at="2020-01-01T00:00Z")
    assert post(f"{url}/t/acme/mcp", secret).status_code == 401


def test_rest_and_mcp_draw_on_one_rate_limit_per_key(world: tuple[str, Cast]) -> None:
    url, cast = world
    cast.tenant.settings = {"rate_limit_per_minute": 3}
    cast.tenant.save()
    _, secret = make_key(cast.tenant)
    rest = httpx2.get(f"{url}/api/v1/tenant", headers={"Authorization": f"Bearer {secret}"})
    assert rest.status_code == 200 and rest.headers["x-ratelimit-remaining"] == "2"
    statuses = [post(f"{url}/t/acme/mcp", secret).status_code for _ in range(3)]
    assert statuses == [200, 200, 429]
    refused = httpx2.get(f"{url}/api/v1/tenant", headers={"Authorization": f"Bearer {secret}"})
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "rate_limited"


def test_two_tenants_each_see_only_themselves(live_url: str) -> None:
    a = make_cast("alpha", "beta")
    _, key_a = make_key(a.tenant, name="key-a")
    _, key_b = make_key(a.other, name="key-b")
    _, ra = run(call_tool(f"{live_url}/t/alpha/mcp", key_a, "whoami", {}))
    _, rb = run(call_tool(f"{live_url}/t/beta/mcp", key_b, "whoami", {}))
    assert "alpha" in ra.content[0].text and "beta" not in ra.content[0].text
    assert "beta" in rb.content[0].text and "key-a" not in rb.content[0].text
