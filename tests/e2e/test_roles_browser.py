"""The roles editor in a real browser: errors appear at their line as you type, the preview
renders, a saved role is activatable over MCP at once; copy, history with diff, restore."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import shot
from tests.e2e.test_browser import log_in
from tests.factories import make_cast, make_key
from tests.gateway.test_mcp_roles import calls, text

pytestmark = pytest.mark.browser

BROKEN = """<role>
  <personality>
    You are Acme's release captain.
    @!thought://first-principles
  </personality>
  <principle>
    <rules>Ship on Tuesdays.</rules>
  </principle>
</role>
"""


def test_a_member_writes_a_role_sees_errors_as_they_type_and_an_agent_activates_it(
    page: object, live_url: str
) -> None:
    p = page
    cast = make_cast()
    log_in(p, cast.member.email)
    p.goto("/t/acme/roles/")  # type: ignore[attr-defined]
    assert p.locator("[data-testid=builtin-roles] .role-card").count() >= 6  # type: ignore[attr-defined]
    shot(p, "roles-list")
    p.click("[data-testid=new-role]")  # type: ignore[attr-defined]
    p.fill("input[name=name]", "Release captain")  # type: ignore[attr-defined]
    p.fill("input[name=slug]", "release-captain")  # type: ignore[attr-defined]
    p.fill("input[name=description]", "Runs Acme releases")  # type: ignore[attr-defined]
    p.fill("#source", BROKEN)  # type: ignore[attr-defined]
    problem = p.locator("[data-testid=problems] li[data-code=unknown_tag]")  # type: ignore[attr-defined]
    problem.wait_for()
    assert problem.get_attribute("data-line") == "7"
    assert "Line 7, col 5" in problem.inner_text()
    p.locator(".gutter [data-bad-line='7']").wait_for()  # type: ignore[attr-defined]
    shot(p, "role-editor-errors")
    # a new role starts as a draft; saving it active with errors keeps the text and says what
    # to do
    assert p.input_value("select[name=status]") == "draft"  # type: ignore[attr-defined]
    p.select_option("select[name=status]", "active")  # type: ignore[attr-defined]
    p.click("[data-testid=save]")  # type: ignore[attr-defined]
    assert "save as a draft" in p.inner_text("[data-testid=save-error]")  # type: ignore[attr-defined]
    assert "<rules>" in p.input_value("#source")  # type: ignore[attr-defined]
    # clicking the problem puts the cursor on its line
    p.click("[data-testid=problems] [data-goto-line='7']")  # type: ignore[attr-defined]
    cursor = p.evaluate("document.getElementById('source').selectionStart")  # type: ignore[attr-defined]
    assert BROKEN[cursor:].startswith("<rules>")
    p.fill("#source", BROKEN.replace("<rules>", "").replace("</rules>", ""))  # type: ignore[attr-defined]
    p.locator("[data-testid=check-ok]").wait_for()  # type: ignore[attr-defined]
    assert p.locator(".gutter .bad").count() == 0  # type: ignore[attr-defined]
    preview = p.inner_text("[data-testid=preview]")  # type: ignore[attr-defined]
    assert "Release captain" in preview and "Way of thinking: first-principles" in preview
    shot(p, "role-editor-valid")
    p.click("[data-testid=save]")  # type: ignore[attr-defined]
    p.wait_for_url("**/t/acme/roles/release-captain/")  # type: ignore[attr-defined]
    assert "agents can activate" in p.inner_text(".flash-success")  # type: ignore[attr-defined]

    _, secret = make_key(cast.tenant)
    (activated,) = calls(f"{live_url}/t/acme/mcp", secret, ("action", {"role": "release-captain"}))
    assert not activated.is_error and "You are Acme's release captain." in text(activated)


def test_copy_a_built_in_edit_it_see_the_diff_and_restore(page: object) -> None:
    p = page
    cast = make_cast()
    log_in(p, cast.member.email)
    p.goto("/t/acme/roles/technical-writer/")  # type: ignore[attr-defined]
    assert "Way of working: memory-discipline" in p.inner_text("[data-testid=preview]")  # type: ignore[attr-defined]
    p.click("[data-testid=copy-role]")  # type: ignore[attr-defined]
    p.wait_for_url("**/t/acme/roles/technical-writer/")  # type: ignore[attr-defined]
    assert p.inner_text("[data-testid=status]") == "draft"  # type: ignore[attr-defined]
    source = p.input_value("#source")  # type: ignore[attr-defined]
    p.fill("#source", source.replace("<personality>", "<personality>\nWrite in British English."))  # type: ignore[attr-defined]
    p.select_option("select[name=status]", "active")  # type: ignore[attr-defined]
    p.locator("[data-testid=check-ok]").wait_for()  # type: ignore[attr-defined]
    p.click("[data-testid=save]")  # type: ignore[attr-defined]
    p.locator(".flash-success").wait_for()  # type: ignore[attr-defined]
    assert p.inner_text("[data-testid=status]") == "active"  # type: ignore[attr-defined]
    p.click("text=History")  # type: ignore[attr-defined]
    added = p.locator("article[data-version='2'] .d-add", has_text="British English")  # type: ignore[attr-defined]
    assert added.count() == 1
    assert "draft → active" in p.inner_text("article[data-version='2']").replace("\n", " ")  # type: ignore[attr-defined]
    shot(p, "role-history")
    p.once("dialog", lambda dialog: dialog.accept())  # type: ignore[attr-defined]
    p.click("[data-testid=restore-1]")  # type: ignore[attr-defined]
    p.wait_for_url("**/t/acme/roles/technical-writer/")  # type: ignore[attr-defined]
    assert "Restored version 1 as version 3" in p.inner_text(".flash-success")  # type: ignore[attr-defined]
    assert "British English" not in p.input_value("#source")  # type: ignore[attr-defined]


def test_viewers_read_roles_but_cannot_change_them(page: object) -> None:
    p = page
    cast = make_cast()
    log_in(p, cast.viewer.email)
    p.goto("/t/acme/roles/")  # type: ignore[attr-defined]
    assert p.locator("[data-testid=new-role]").count() == 0  # type: ignore[attr-defined]
    assert p.locator(".role-card form").count() == 0  # type: ignore[attr-defined]
    response = p.goto("/t/acme/roles/new/")  # type: ignore[attr-defined]
    assert response.status == 403
    response = p.goto("/t/globex/roles/")  # type: ignore[attr-defined]
    assert response.status == 404
