"""The rough edges a first-time user met, checked where only a browser sees them: a memory
written while the overview is open joins the top of "Recent memories" (and the network picker's
count), the MCP URL is whole and copyable, audit columns keep their words whole, a memory's
Edit and Delete sit together, changing a memory's content ticks "derive again", and the graph
logs no warning."""

from __future__ import annotations

import httpx2

from tests.e2e.conftest import shot
from tests.e2e.test_browser import log_in
from tests.factories import make_cast, make_key
from tests.frontend.test_memory_pages import seed


def test_the_overview_audit_log_memory_page_and_graph_read_as_finished(
    page: object, live_url: str
) -> None:
    p = page
    cast = make_cast()
    (first,) = seed(cast, [{"content": "Maya prefers window seats on night trains"}])
    _, secret = make_key(cast.tenant)
    messages: list[str] = []
    p.on("console", lambda m: messages.append(f"{m.type}: {m.text}"))  # type: ignore[attr-defined]
    log_in(p, cast.admin.email)
    p.goto("/t/acme/")  # type: ignore[attr-defined]
    p.locator("body[data-live='on']").wait_for(state="attached")  # type: ignore[attr-defined]
    url = p.locator("[data-testid=overview-mcp-url]")  # type: ignore[attr-defined]
    assert url.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), "the MCP URL is cut"
    assert p.locator("[data-testid=copy-mcp-url]").is_visible()  # type: ignore[attr-defined]
    said = httpx2.post(
        f"{live_url}/api/v1/remember",
        headers={"Authorization": f"Bearer {secret}"},
        json={"engrams": [{"content": "Tom books the aisle seat"}]},
    )
    assert said.status_code == 201
    recent = p.locator("[data-testid=recent-memories] li")  # type: ignore[attr-defined]
    recent.first.filter(has_text="aisle seat").wait_for()
    assert "just now" in recent.first.inner_text()
    assert "window seats" in recent.nth(1).inner_text()  # the older one below it
    shot(p, "overview-live")

    p.goto("/t/acme/audit/")  # type: ignore[attr-defined]
    verb = p.locator("[data-testid=audit-table] td code").first  # type: ignore[attr-defined]
    assert verb.evaluate("e => e.getClientRects().length") == 1  # one line, not broken
    assert "UTC" in p.inner_text("[data-testid=audit-table] time >> nth=0")  # type: ignore[attr-defined]

    p.goto(f"/t/acme/memory/default/engrams/{first}/")  # type: ignore[attr-defined]
    edit = p.locator("[data-testid=edit]").bounding_box()  # type: ignore[attr-defined]
    delete = p.locator("[data-testid=delete]").bounding_box()  # type: ignore[attr-defined]
    assert 0 <= delete["x"] - (edit["x"] + edit["width"]) < 40  # side by side
    assert abs(delete["y"] - edit["y"]) < 10
    p.click("[data-testid=edit]")  # type: ignore[attr-defined]
    derive = p.locator("[data-testid=engram-form] input[name=derive]")  # type: ignore[attr-defined]
    assert not derive.is_checked()
    p.fill("[data-testid=engram-form] textarea[name=content]", "Maya prefers aisle seats")  # type: ignore[attr-defined]
    assert derive.is_checked()  # new words will become cues
    shot(p, "memory-edit-derive")

    p.goto("/t/acme/memory/default/graph/")  # type: ignore[attr-defined]
    p.locator("[data-testid=graph][data-nodes]").wait_for()  # type: ignore[attr-defined]
    picker = p.locator("option[data-network-option=default]")  # type: ignore[attr-defined]
    assert picker.inner_text() == "default (2)"
    again = httpx2.post(
        f"{live_url}/api/v1/remember",
        headers={"Authorization": f"Bearer {secret}"},
        json={"engrams": [{"content": "Ana takes the sleeper car"}]},
    )
    assert again.status_code == 201
    p.locator("option[data-network-option=default]", has_text="default (3)").wait_for(  # type: ignore[attr-defined]
        state="attached"
    )
    warnings = [m for m in messages if m.startswith(("warning", "error"))]
    assert not warnings, warnings
