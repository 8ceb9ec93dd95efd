"""The workspace overview and the "Connect an agent" page."""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.http import HttpResponse

from audit.sealing import unseal
from audit.selectors import audit_events_for_tenant
from frontend.views.base import can, page, tenant_view
from memory import selectors as memory_selectors
from tenants.models import Tenant
from tenants.permissions import Capability
from tenants.requests import TenantRequest
from tenants.selectors import apikeys_for_tenant, members_for_tenant


@tenant_view()
def overview(request: TenantRequest) -> HttpResponse:
    tenant = request.tenant
    keys = [key for key in apikeys_for_tenant(tenant=tenant) if key.is_active]
    recent = []
    if can(request, Capability.AUDIT_VIEW):
        recent = list(unseal(list(audit_events_for_tenant(tenant_id=tenant.pk)[:8])))
    networks = memory_selectors.networks_with_cached_counts(tenant=tenant)
    charts = _charts(tenant)
    context = {
        "member_count": members_for_tenant(tenant=tenant).count(),
        "active_keys": len(keys),
        "recent_events": recent,
        "mcp_url": tenant.mcp_url,
        "networks": networks,
        "engram_total": sum(n.engram_count for n in networks),
        "recent_engrams": memory_selectors.recent_engrams(tenant=tenant, networks=networks),
        "charts": charts,
    }
    context["latency"] = charts["activity"].pop("latency")
    return page(request, "frontend/overview.html", context)


CHARTS_TTL = 60


def _charts(tenant: Tenant) -> dict[str, Any]:
    """The overview's plots and percentiles: day-level aggregates over weeks of events, so a
    minute-old copy is as good and spares a scan per page view."""
    key = f"memory:charts:{tenant.pk}"
    charts = cache.get(key)
    if charts is None:
        charts = {
            "growth": memory_selectors.growth_by_day(tenant=tenant),
            "activity": memory_selectors.recall_activity(tenant=tenant),
        }
        cache.set(key, charts, CHARTS_TTL)
    return dict(charts, activity=dict(charts["activity"]))


KEY_PLACEHOLDER = "YOUR_MNEMO_API_KEY"


def client_snippets(tenant: Tenant) -> list[dict[str, str]]:
    """Ready-to-paste configurations; the page swaps the placeholder for a pasted key locally."""
    url = tenant.mcp_url
    auth = f"Bearer {KEY_PLACEHOLDER}"
    http_server = {"type": "http", "url": url, "headers": {"Authorization": auth}}
    return [
        {
            "id": "claude-code",
            "title": "Claude Code",
            "where": "in a terminal",
            "code": f'claude mcp add --transport http mnemo {url} --header "Authorization: {auth}"',
        },
        {
            "id": "cursor",
            "title": "Cursor",
            "where": "~/.cursor/mcp.json",
            "code": json.dumps(
                {"mcpServers": {"mnemo": {"url": url, "headers": {"Authorization": auth}}}},
                indent=2,
            ),
        },
        {
            "id": "vscode",
            "title": "VS Code",
            "where": ".vscode/mcp.json",
            "code": json.dumps({"servers": {"mnemo": http_server}}, indent=2),
        },
        {
            "id": "claude-desktop",
            "title": "Claude Desktop",
            "where": "claude_desktop_config.json (through the mcp-remote bridge)",
            "code": json.dumps(
                {
                    "mcpServers": {
                        "mnemo": {
                            "command": "npx",
                            "args": ["-y", "mcp-remote", url, "--header", f"Authorization:{auth}"],
                        }
                    }
                },
                indent=2,
            ),
        },
        {
            "id": "python",
            "title": "Python (mcp SDK)",
            "where": "your agent's code",
            "code": (
                "import asyncio\n\nimport httpx2\nfrom mcp import Client\n"
                "from mcp.client.streamable_http import streamable_http_client\n\n\n"
                "async def main() -> None:\n"
                f'    http = httpx2.AsyncClient(headers={{"Authorization": "{auth}"}})\n'
                f'    transport = streamable_http_client("{url}", http_client=http)\n'
                "    async with Client(transport) as mnemo:\n"
                "        # this client keeps no session between calls: name the role in each\n"
                "        found = await mnemo.call_tool(\n"
                '            "recall", {"role": "code-reviewer", "query": "pull requests"}\n'
                "        )\n"
                "        print(found.content[0].text)\n\n\n"
                "asyncio.run(main())"
            ),
        },
        {
            "id": "rest",
            "title": "REST",
            "where": "any HTTP client",
            "code": f'curl -H "Authorization: {auth}" {settings.PUBLIC_URL}/api/v1/tenant',
        },
    ]


@tenant_view()
def connect(request: TenantRequest) -> HttpResponse:
    tenant = request.tenant
    context = {
        "mcp_url": tenant.mcp_url,
        "snippets": client_snippets(tenant),
        "placeholder": KEY_PLACEHOLDER,
        "docs_url": f"{settings.PUBLIC_URL}/api/v1/docs/",
    }
    return page(request, "frontend/connect.html", context)
