"""End-to-end in a real browser: sign up, keys shown once, revoke; outsiders see nothing."""

from __future__ import annotations

import httpx2
import pytest

from tests.e2e.conftest import shot
from tests.factories import PASSWORD, make_cast, make_key

pytestmark = pytest.mark.browser


def log_in(page: object, email: str) -> None:
    page.goto("/login/")  # type: ignore[attr-defined]
    page.fill("input[name=username]", email)  # type: ignore[attr-defined]
    page.fill("input[name=password]", PASSWORD)  # type: ignore[attr-defined]
    page.click("main button[type=submit]")  # type: ignore[attr-defined]
    page.wait_for_url(lambda url: "/login/" not in url)  # type: ignore[attr-defined]


def test_sign_up_create_a_key_see_it_once_use_it_and_revoke_it(page: object, live_url: str) -> None:
    p = page
    p.goto("/")  # type: ignore[attr-defined]
    shot(p, "landing")
    p.click("text=Create a workspace")  # type: ignore[attr-defined]
    p.fill("input[name=name]", "Grace")  # type: ignore[attr-defined]
    p.fill("input[name=email]", "grace@example.com")  # type: ignore[attr-defined]
    p.fill("input[name=password]", PASSWORD)  # type: ignore[attr-defined]
    p.fill("input[name=workspace]", "Hopper Labs")  # type: ignore[attr-defined]
    shot(p, "signup")
    p.click("main button[type=submit]")  # type: ignore[attr-defined]
    p.wait_for_url("**/t/hopper-labs/keys/")  # type: ignore[attr-defined]

    p.click("text=New API key")  # type: ignore[attr-defined]
    p.fill("input[name=name]", "claude-desktop")  # type: ignore[attr-defined]
    p.click("button:has-text('Create key')")  # type: ignore[attr-defined]
    secret_box = p.locator("[data-testid=new-key-secret]")  # type: ignore[attr-defined]
    secret = secret_box.input_value()
    assert secret.startswith("mnemo_")
    shot(p, "keys-created")

    who = httpx2.get(f"{live_url}/api/v1/tenant", headers={"Authorization": f"Bearer {secret}"})
    assert who.status_code == 200 and who.json()["tenant"]["slug"] == "hopper-labs"

    p.reload()  # type: ignore[attr-defined]
    assert p.locator("[data-testid=new-key-secret]").count() == 0  # type: ignore[attr-defined]
    assert secret not in p.content()  # type: ignore[attr-defined]
    row = p.locator("tr", has_text="claude-desktop")  # type: ignore[attr-defined]
    assert row.locator("[data-testid=key-status]").inner_text() == "active"

    p.once("dialog", lambda dialog: dialog.accept())  # type: ignore[attr-defined]
    row.locator("button:has-text('Revoke')").click()
    row = p.locator("tr", has_text="claude-desktop")  # type: ignore[attr-defined]
    row.locator("[data-testid=key-status]:has-text('revoked')").wait_for()
    shot(p, "keys-revoked")
    who = httpx2.get(f"{live_url}/api/v1/tenant", headers={"Authorization": f"Bearer {secret}"})
    assert who.status_code == 401

    p.click("text=Audit log")  # type: ignore[attr-defined]
    p.locator("tr[data-verb='apikey.revoke']").wait_for()  # type: ignore[attr-defined]
    shot(p, "audit")


def test_an_outsider_cannot_open_another_tenants_pages(page: object) -> None:
    cast = make_cast()
    make_key(cast.tenant, name="secret-agent")
    log_in(page, cast.outsider.email)
    page.wait_for_url("**/t/globex/")  # type: ignore[attr-defined]
    for path in ["/t/acme/", "/t/acme/keys/", "/t/acme/members/", "/t/acme/audit/"]:
        response = page.goto(path)  # type: ignore[attr-defined]
        assert response.status == 404, path
        assert "secret-agent" not in page.content()  # type: ignore[attr-defined]
    shot(page, "outsider-404")
    switcher = page.locator("[data-testid=workspace-switcher]")  # type: ignore[attr-defined]
    assert "Acme" not in switcher.inner_text()


def test_the_workspace_switcher_moves_between_workspaces(page: object) -> None:
    cast = make_cast()
    log_in(page, cast.owner.email)
    page.goto("/new/")  # type: ignore[attr-defined]
    page.fill("input[name=name]", "Second Brain")  # type: ignore[attr-defined]
    page.click("main button[type=submit]")  # type: ignore[attr-defined]
    page.wait_for_url("**/t/second-brain/")  # type: ignore[attr-defined]
    page.click("[data-testid=workspace-switcher] summary")  # type: ignore[attr-defined]
    shot(page, "switcher-open")
    page.click("[data-testid=workspace-switcher] a:has-text('Acme')")  # type: ignore[attr-defined]
    page.wait_for_url("**/t/acme/")  # type: ignore[attr-defined]


def test_the_connect_page_fills_snippets_with_a_pasted_key(page: object) -> None:
    cast = make_cast()
    log_in(page, cast.member.email)
    page.goto("/t/acme/connect/")  # type: ignore[attr-defined]
    page.fill("#key-fill", "mnemo_testtesttest_abc")  # type: ignore[attr-defined]
    assert "mnemo_testtesttest_abc" in page.inner_text("#snippet-cursor")  # type: ignore[attr-defined]
    shot(page, "connect")


def test_members_page_invite_then_change_role(page: object) -> None:
    cast = make_cast()
    log_in(page, cast.owner.email)
    page.goto("/t/acme/members/")  # type: ignore[attr-defined]
    page.fill("input[name=email]", "new.person@example.com")  # type: ignore[attr-defined]
    page.select_option("select[name=role]", "viewer")  # type: ignore[attr-defined]
    page.click("button:has-text('Send invitation')")  # type: ignore[attr-defined]
    page.locator("[data-testid=invite-link]").wait_for()  # type: ignore[attr-defined]
    assert "new.person@example.com" in page.inner_text("[data-testid=invitations-table]")  # type: ignore[attr-defined]
    row = page.locator("tr[data-email='viewer@acme.test']")  # type: ignore[attr-defined]
    row.locator("select").select_option("member")
    page.locator(".flash-success", has_text="is now member").wait_for()  # type: ignore[attr-defined]
    shot(page, "members")
