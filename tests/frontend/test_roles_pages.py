"""The roles pages through Django's test client: the live check, saving, permissions."""

from __future__ import annotations

import pytest

from roles.models import Role, RoleResource, RoleVersion
from tenants import rls
from tests.factories import Cast
from tests.frontend.test_dashboard import HTMX, logged_in

pytestmark = pytest.mark.django_db

SOURCE = "<role>\n<personality>\nCalm.\n</personality>\n</role>"


def test_the_live_check_places_errors_and_renders_the_preview(cast: Cast) -> None:
    client = logged_in(cast.viewer)  # reading and checking needs no edit right
    bad = client.post(
        "/t/acme/roles/check", {"source": "<role>\n<personality>\n<oops>", "kind": "role"}, **HTMX
    )
    html = bad.content.decode()
    assert bad.status_code == 200 and 'data-error-lines="1,2,3"' in html
    assert 'data-goto-line="3"' in html and "unknown tag &lt;oops&gt;" in html
    good = client.post("/t/acme/roles/check", {"source": SOURCE, "name": "Calm one"}, **HTMX)
    html = good.content.decode()
    assert "Valid DPML" in html and "<h1>Calm one</h1>" in html
    script = client.post(
        "/t/acme/roles/check",
        {"source": SOURCE.replace("Calm.", "[x](javascript:alert(1)) <b>bold</b>")},
        **HTMX,
    )
    assert "javascript:" not in script.content.decode()
    assert "unknown tag &lt;b&gt;" in script.content.decode()  # tags in markdown are refused


def test_a_member_saves_drafts_with_errors_but_not_active_roles(cast: Cast) -> None:
    client = logged_in(cast.member)
    broken = SOURCE.replace("</personality>", "")
    refused = client.post(
        "/t/acme/roles/new/", {"slug": "calm", "name": "Calm", "source": broken, "status": "active"}
    )
    assert refused.status_code == 400 and b"save as a draft" in refused.content
    assert b"Calm." in refused.content  # the text is kept, nothing is lost
    draft = client.post(
        "/t/acme/roles/new/",
        {"slug": "calm", "name": "Calm", "source": broken, "status": "active", "intent": "draft"},
    )
    assert draft.status_code == 302
    with rls.tenant_scope(cast.tenant.pk):
        role = Role.objects.get(tenant=cast.tenant, slug="calm")
        assert role.status == "draft"
    saved = client.post(
        "/t/acme/roles/calm/", {"name": "Calm", "source": SOURCE, "status": "active"}
    )
    assert saved.status_code == 302
    with rls.tenant_scope(cast.tenant.pk):
        assert RoleVersion.objects.filter(tenant=cast.tenant, role=role).count() == 2


def test_viewers_cannot_write_and_outsiders_see_nothing(cast: Cast) -> None:
    viewer = logged_in(cast.viewer)
    assert viewer.get("/t/acme/roles/new/").status_code == 403
    assert viewer.post("/t/acme/roles/code-reviewer/copy").status_code == 403
    page = viewer.get("/t/acme/roles/code-reviewer/")
    assert page.status_code == 200 and b"Copy to customise" not in page.content
    outsider = logged_in(cast.outsider)
    assert outsider.post("/t/acme/roles/check", {"source": SOURCE}, **HTMX).status_code == 404


def test_resources_are_written_in_the_dashboard_and_built_ins_overridden(cast: Cast) -> None:
    client = logged_in(cast.member)
    made = client.post(
        "/t/acme/role-resources/new/",
        {
            "kind": "knowledge",
            "rname": "acme-glossary",
            "description": "Our words",
            "source": "<knowledge>\n- SLO: service level objective\n</knowledge>",
        },
    )
    assert made.status_code == 302
    assert made["Location"] == "/t/acme/role-resources/knowledge/acme-glossary/"
    custom = "<thought>\n<plan>\nOur own plan.\n</plan>\n</thought>"
    override = client.post(
        "/t/acme/role-resources/thought/first-principles/",
        {"source": custom, "description": "ours"},
    )
    assert override.status_code == 302
    with rls.tenant_scope(cast.tenant.pk):
        assert RoleResource.objects.filter(tenant=cast.tenant).count() == 2
    page = client.get("/t/acme/roles/code-reviewer/").content.decode()
    assert "Our own plan." not in page  # the code reviewer uses critical-review, not this
    check = client.post(
        "/t/acme/roles/check",
        {"source": SOURCE.replace("Calm.", "@!thought://first-principles")},
        **HTMX,
    )
    assert "Our own plan." in check.content.decode()
    assert client.post("/t/acme/role-resources/knowledge/acme-glossary/delete").status_code == 403
