"""The memory dashboard in a real browser: fix a memory and see its history, try a recall and
see the graph light up, watch a memory written over REST appear live, import a file with a bad
line. Screenshots of each page go to test-artifacts/."""

from __future__ import annotations

import json
from pathlib import Path

import httpx2
import pytest

from audit.actors import Actor
from memory.contracts import engram_items
from memory.services.remember import engrams_remember
from tenants import rls
from tests.e2e.conftest import shot
from tests.e2e.test_browser import log_in
from tests.factories import Cast, make_cast, make_key

pytestmark = pytest.mark.browser

FACTS = [
    {
        "content": "Alice prefers window seats on long trains",
        "schema": ["Alice", "window", "train"],
    },
    {"content": "Night trains to Vienna leave at 21:40", "schema": ["night", "train", "Vienna"]},
    {
        "content": "Book trains 60 days ahead for the cheapest fares",
        "schema": ["book", "train", "fare"],
        "type": "PATTERN",
    },
    {"content": "Bob gets travel sick on buses", "schema": ["Bob", "bus", "sick"]},
]


def seed(cast: Cast, items: list[dict[str, object]]) -> list[int]:
    with rls.tenant_scope(cast.tenant.pk):
        result = engrams_remember(
            tenant=cast.tenant,
            actor=Actor.system("seed"),
            network_key="default",
            items=engram_items(items),
            source="api",
        )
    return [o.id for o in result.outcomes]


def test_a_member_finds_a_memory_fixes_it_and_sees_the_change_in_its_history(
    page: object,
) -> None:
    p = page
    cast = make_cast()
    seed(cast, FACTS)
    log_in(p, cast.member.email)
    p.goto("/t/acme/")  # type: ignore[attr-defined]
    p.locator("canvas[data-chart=growth][data-drawn]").wait_for()  # type: ignore[attr-defined]
    shot(p, "overview")
    p.click(".sidenav >> text=Memory")  # type: ignore[attr-defined]
    p.wait_for_url("**/t/acme/memory/default/")  # type: ignore[attr-defined]
    p.fill("input[name=q]", "Vienna")  # type: ignore[attr-defined]
    p.click("button:has-text('Search')")  # type: ignore[attr-defined]
    rows = p.locator("[data-testid=engrams] tbody tr[data-engram]")  # type: ignore[attr-defined]
    assert rows.count() == 1
    shot(p, "memory-browser")
    rows.first.locator("a").click()
    p.click("[data-testid=edit]")  # type: ignore[attr-defined]
    p.fill(
        "[data-testid=engram-form] textarea[name=content]", "Night trains to Vienna leave at 21:50"
    )  # type: ignore[attr-defined]
    p.select_option("[data-testid=engram-form] select[name=type]", "LINK")  # type: ignore[attr-defined]
    p.click("[data-testid=engram-form] [data-testid=save]")  # type: ignore[attr-defined]
    p.locator("[data-testid=engram-content]", has_text="21:50").wait_for()  # type: ignore[attr-defined]
    assert p.inner_text("[data-testid=engram-type]") == "LINK"  # type: ignore[attr-defined]
    history = p.inner_text("[data-testid=history]")  # type: ignore[attr-defined]
    assert "engram.update" in history and "21:40" in history and "21:50" in history
    assert "member@acme.test" in history
    shot(p, "memory-detail")


def test_a_recall_in_the_playground_lights_up_the_graph_and_explains_each_result(
    page: object,
) -> None:
    p = page
    cast = make_cast()
    seed(cast, FACTS)
    log_in(p, cast.viewer.email)
    p.goto("/t/acme/memory/default/playground/")  # type: ignore[attr-defined]
    p.fill("input[name=query]", "window seat train")  # type: ignore[attr-defined]
    p.click("[data-testid=run]")  # type: ignore[attr-defined]
    p.locator("[data-testid=mind-graph][data-nodes]").wait_for()  # type: ignore[attr-defined]
    graph = p.locator("[data-testid=mind-graph]")  # type: ignore[attr-defined]
    assert int(graph.get_attribute("data-nodes")) >= 3
    assert int(graph.get_attribute("data-highlighted")) >= 1  # the query's own concepts
    ranked = p.inner_text("[data-testid=ranked]")  # type: ignore[attr-defined]
    assert ranked.index("Alice prefers window seats") < ranked.index("Night trains")
    assert "activation" in ranked and "relevance" in ranked  # which channel, and the score parts
    assert int(p.inner_text("[data-testid=context-tokens]")) > 0  # type: ignore[attr-defined]
    assert "ms" in p.inner_text("[data-testid=took]")  # type: ignore[attr-defined]
    shot(p, "playground")

    p.click("nav.tabs >> text=Graph")  # type: ignore[attr-defined]
    board = p.locator("[data-testid=graph][data-nodes]")  # type: ignore[attr-defined]
    board.wait_for()
    assert int(board.get_attribute("data-nodes")) >= 5
    assert int(board.get_attribute("data-edges")) >= 4
    # click a concept on the canvas: its memories open beside the graph
    point = p.evaluate(  # type: ignore[attr-defined]
        "(() => { const n = window.mnemoGraph.nodes().filter(x => x.data('word') === 'Vienna')[0];"
        " const r = n.renderedPosition(); const b = document.querySelector('#graph')"
        ".getBoundingClientRect(); return [b.left + r.x, b.top + r.y]; })()"
    )
    p.mouse.click(point[0], point[1])  # type: ignore[attr-defined]
    p.locator("[data-testid=cue-memories]", has_text="Night trains to Vienna").wait_for()  # type: ignore[attr-defined]
    p.fill("[data-testid=cue-search]", "Alcie")  # type: ignore[attr-defined]
    p.locator("[data-testid=cue-results] a", has_text="Alice").wait_for()  # type: ignore[attr-defined]
    shot(p, "graph")


def test_a_memory_written_over_rest_appears_in_an_open_browser_without_reload(
    page: object, live_url: str
) -> None:
    p = page
    cast = make_cast()
    seed(cast, FACTS[:1])
    _, secret = make_key(cast.tenant)
    log_in(p, cast.member.email)
    p.goto("/t/acme/memory/default/")  # type: ignore[attr-defined]
    # a selector, not wait_for_function: polling a JS string is an eval, which the page's CSP
    # refuses whenever the socket is not up at the first check (a flaky failure)
    p.locator("body[data-live='on']").wait_for(state="attached")  # type: ignore[attr-defined]
    assert p.inner_text("[data-testid=count-engrams]") == "1"  # type: ignore[attr-defined]
    p.evaluate("window.__marker = 'same page'")  # type: ignore[attr-defined]
    response = httpx2.post(
        f"{live_url}/api/v1/remember",
        headers={"Authorization": f"Bearer {secret}"},
        json={"engrams": [{"content": "The Vienna night train has a shower car"}]},
    )
    assert response.status_code == 201
    p.locator("[data-testid=live-feed] li", has_text="shower car").wait_for()  # type: ignore[attr-defined]
    p.locator("[data-testid=count-engrams]", has_text="2").wait_for()  # type: ignore[attr-defined]
    assert p.evaluate("window.__marker") == "same page"  # type: ignore[attr-defined]
    shot(p, "memory-live")


def test_an_admin_imports_a_file_and_sees_the_error_for_the_bad_line(
    page: object, celery_worker: Path, tmp_path: Path
) -> None:
    p = page
    cast = make_cast()
    lines = [
        json.dumps({"content": f"Imported fact {i}", "external_id": f"f{i}"}) for i in range(30)
    ]
    lines.insert(11, '{"content": "broken", ')
    lines.insert(20, json.dumps({"content": "too strong", "strength": 3}))
    upload = tmp_path / "facts.jsonl"
    upload.write_text("\n".join(lines) + "\n")
    log_in(p, cast.admin.email)
    p.goto("/t/acme/import/?network=imported")  # type: ignore[attr-defined]
    p.set_input_files("input[name=file]", str(upload))  # type: ignore[attr-defined]
    shot(p, "import-form")
    p.click("[data-testid=import-form] button[type=submit]")  # type: ignore[attr-defined]
    p.locator("[data-testid=import-job][data-status=done]").wait_for(timeout=60_000)  # type: ignore[attr-defined]
    assert p.get_attribute("[data-testid=import-progress]", "value") == "100"  # type: ignore[attr-defined]
    errors = p.locator("[data-testid=import-errors] tbody tr")  # type: ignore[attr-defined]
    assert errors.count() == 2
    assert errors.nth(0).get_attribute("data-line") == "12"
    assert "not valid JSON" in errors.nth(0).inner_text()
    assert errors.nth(1).get_attribute("data-line") == "21"
    assert "strength" in errors.nth(1).inner_text()
    assert "30 created" in p.inner_text("[data-testid=import-job]")  # type: ignore[attr-defined]
    shot(p, "import-done")
