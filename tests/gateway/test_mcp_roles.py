"""discover → action → remember → recall through the real mcp client over HTTP.

Clients on the 2025 protocol keep an MCP session (``Mcp-Session-Id``) and carry the active role
between calls; clients on the sessionless 2026 protocol name the role in each call."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from audit.actors import Actor
from frontend.views.workspace import KEY_PLACEHOLDER, client_snippets
from memory.contracts import EngramIn
from memory.services.remember import engrams_remember
from roles.contracts import RoleCreateIn
from roles.services import role_create
from tenants import rls
from tests.factories import make_cast, make_key
from tests.gateway.test_mcp import run


async def _calls(
    url: str, secret: str, calls: list[tuple[str, dict[str, Any]]], mode: str
) -> list[Any]:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {secret}"})
    async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:  # type: ignore[arg-type]
        return [await client.call_tool(name, args) for name, args in calls]


def calls(
    url: str, secret: str, *items: tuple[str, dict[str, Any]], mode: str = "legacy"
) -> list[Any]:
    return run(_calls(url, secret, list(items), mode))


def text(result: Any) -> str:
    return str(result.content[0].text)


def test_an_agent_discovers_activates_and_keeps_memory_in_the_roles_network(
    live_url: str,
) -> None:
    cast = make_cast()
    _, secret = make_key(cast.tenant)
    url = f"{live_url}/t/acme/mcp"
    found, activated, stored, recalled, other = calls(
        url,
        secret,
        ("discover", {"query": "review"}),
        ("action", {"role": "code-reviewer"}),
        (
            "remember",
            {
                "engrams": [
                    {"content": "Acme web uses pytest fixtures in conftest", "type": "ATOMIC"}
                ]
            },
        ),
        ("recall", {"query": "pytest fixtures"}),
        ("recall", {"role": "technical-writer", "query": "pytest fixtures"}),
    )
    assert "`code-reviewer` — Code reviewer" in text(found) and "`action`" in text(found)
    assert "writer" not in text(found).split("Next steps")[0]  # filtered by the query
    persona = text(activated)
    assert "You are now “Code reviewer”" in persona and "## Principles" in persona
    assert "Way of working: memory-discipline" in persona and "Primed memory" in persona
    assert "active role `code-reviewer`" in persona  # navigation: where the agent stands
    assert not stored.is_error and "role:code-reviewer" in text(stored)
    assert "pytest fixtures in conftest" in text(recalled)
    assert "nothing found" in text(other)  # another role's memory is its own
    for answer in (found, activated, stored, recalled, other):
        assert "Next steps:" in text(answer) and "State:" in text(answer)


def test_the_active_role_belongs_to_one_session_only(live_url: str) -> None:
    cast = make_cast()
    _, secret = make_key(cast.tenant)
    url = f"{live_url}/t/acme/mcp"
    calls(url, secret, ("action", {"role": "product-manager"}))
    (fresh,) = calls(url, secret, ("recall", {"query": "roadmap"}))
    assert fresh.is_error and "no role is active in this session" in text(fresh)


def test_without_a_session_the_role_is_required_and_the_error_says_so(live_url: str) -> None:
    cast = make_cast()
    _, secret = make_key(cast.tenant)
    url = f"{live_url}/t/acme/mcp"
    activated, recalled, named = calls(
        url,
        secret,
        ("action", {"role": "research-assistant"}),
        ("recall", {"query": "sources"}),
        (
            "remember",
            {
                "role": "research-assistant",
                "engrams": [{"content": "Prefer primary sources over summaries"}],
            },
        ),
        mode="auto",
    )
    assert not activated.is_error
    assert 'pass role="research-assistant"' in text(activated)
    assert recalled.is_error and "role is required" in text(recalled)
    assert "keeps no MCP session" in text(recalled)
    assert not named.is_error and "role:research-assistant" in text(named)


def test_a_role_written_by_the_workspace_is_activatable_at_once_and_only_there(
    live_url: str,
) -> None:
    cast = make_cast()
    _, secret = make_key(cast.tenant)
    _, theirs = make_key(cast.other)
    source = (
        "<role>\n<personality>\nYou are Acme's on-call guide.\n</personality>\n<principle>\n"
        "@!execution://memory-discipline\n</principle>\n</role>"
    )
    data = RoleCreateIn(
        slug="on-call", name="On-call guide", description="Pager help", source=source
    )
    with rls.tenant_scope(cast.tenant.pk):
        role_create(tenant=cast.tenant, actor=Actor.system("test"), data=data)
    found, activated = calls(
        f"{live_url}/t/acme/mcp",
        secret,
        ("discover", {"source": "workspace"}),
        ("action", {"role": "on-call"}),
    )
    assert "`on-call` — On-call guide: Pager help [this workspace]" in text(found)
    assert "You are Acme's on-call guide." in text(activated)
    their_list, their_action = calls(
        f"{live_url}/t/globex/mcp", theirs, ("discover", {}), ("action", {"role": "on-call"})
    )
    assert "on-call" not in text(their_list)
    assert their_action.is_error and "no role “on-call”" in text(their_action)


def test_bad_role_arguments_are_tool_errors_an_agent_can_act_on(live_url: str) -> None:
    cast = make_cast()
    _, secret = make_key(cast.tenant)
    bad, unknown = calls(
        f"{live_url}/t/acme/mcp",
        secret,
        ("action", {"role": "Not A Slug!"}),
        ("action", {"role": "astronaut"}),
    )
    assert bad.is_error and "role" in text(bad) and "discover" in text(bad)
    assert unknown.is_error and "`discover` lists the roles" in text(unknown)


def test_ending_the_session_forgets_its_active_role(live_url: str) -> None:
    cast = make_cast()
    _, secret = make_key(cast.tenant)
    url = f"{live_url}/t/acme/mcp"
    headers = {
        "Authorization": f"Bearer {secret}",
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
    }
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"},
        },
    }
    first = httpx2.post(url, json=init, headers=headers)
    session = first.headers["mcp-session-id"]
    assert len(session) >= 16
    with_session = {**headers, "Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-06-18"}
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "action", "arguments": {"role": "technical-writer"}},
    }
    assert "You are now" in httpx2.post(url, json=call, headers=with_session).text
    whoami = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": "whoami", "arguments": {}},
    }
    assert (
        "active role `technical-writer`" in httpx2.post(url, json=whoami, headers=with_session).text
    )
    assert httpx2.delete(url, headers=with_session).status_code == 204
    after = httpx2.post(url, json=whoami, headers=with_session).text
    assert "no active role in this session" in after


def test_the_connect_pages_python_snippet_runs_and_reads_a_roles_memory(live_url: str) -> None:
    cast = make_cast()
    _, secret = make_key(cast.tenant)
    actor = Actor.for_user(cast.member, role="member")
    with rls.tenant_scope(cast.tenant.pk):
        engrams_remember(
            tenant=cast.tenant,
            actor=actor,
            network_key="role:code-reviewer",
            items=[EngramIn(content="Pull requests on payments need two approvals.")],
            source="test",
        )
    snippet = next(s for s in client_snippets(cast.tenant) if s["id"] == "python")["code"]
    code = snippet.replace(KEY_PLACEHOLDER, secret).replace(
        cast.tenant.mcp_url, f"{live_url}/t/{cast.tenant.slug}/mcp"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "two approvals" in done.stdout
