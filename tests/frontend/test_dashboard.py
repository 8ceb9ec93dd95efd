"""Dashboard pages through Django's test client: who may see and do what."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from audit.models import AuditEvent
from tenants import rls
from tenants.models import ApiKey, Invitation, Membership, Tenant, User
from tests.factories import PASSWORD, Cast, make_key

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}
PAGES = [
    "",
    "connect/",
    "keys/",
    "members/",
    "audit/",
    "roles/",
    "roles/code-reviewer/",
    "role-resources/",
    "role-resources/thought/first-principles/",
]


def logged_in(user: User) -> Client:
    client = Client()
    assert client.login(username=user.email, password=PASSWORD)
    return client


def test_signup_logs_in_and_lands_on_the_new_workspaces_keys_page(db: None) -> None:
    client = Client()
    response = client.post(
        "/signup/",
        {"name": "Ada", "email": "ada@example.com", "password": PASSWORD, "workspace": "Ada Labs"},
    )
    assert response.status_code == 302 and response["Location"] == "/t/ada-labs/keys/"
    page = client.get("/t/ada-labs/keys/")
    assert page.status_code == 200 and b"New API key" in page.content


def test_signup_shows_field_errors_and_creates_nothing(db: None) -> None:
    response = Client().post("/signup/", {"email": "not-an-email", "password": "x"})
    assert response.status_code == 200
    assert b"Enter a valid email address" in response.content
    assert not User.objects.exists()


def test_login_is_case_insensitive_on_email_and_wrong_passwords_fail(cast: Cast) -> None:
    client = Client()
    bad = client.post("/login/", {"username": "OWNER@acme.test", "password": "wrong"})
    assert bad.status_code == 200 and b"wrong email or password" in bad.content.lower()
    good = client.post("/login/", {"username": "OWNER@acme.test", "password": PASSWORD})
    assert good.status_code == 302
    assert client.get("/").headers["Location"] == "/t/acme/"


@pytest.mark.parametrize("page", PAGES)
def test_an_outsider_gets_404_on_every_page_of_another_tenant(cast: Cast, page: str) -> None:
    response = logged_in(cast.outsider).get(f"/t/acme/{page}")
    assert response.status_code == 404


@pytest.mark.parametrize("page", PAGES)
def test_anonymous_visitors_are_sent_to_log_in(cast: Cast, page: str) -> None:
    response = Client().get(f"/t/acme/{page}")
    assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_an_outsider_cannot_revoke_another_tenants_key(cast: Cast) -> None:
    key, _ = make_key(cast.tenant)
    response = logged_in(cast.outsider).post(f"/t/acme/keys/{key.pk}/revoke", **HTMX)
    assert response.status_code == 404
    # nor through its own tenant's URL with the other tenant's key id
    response = logged_in(cast.outsider).post(f"/t/globex/keys/{key.pk}/revoke", **HTMX)
    assert response.status_code == 404
    with rls.tenant_scope(cast.tenant.pk):
        assert ApiKey.objects.get(pk=key.pk).revoked_at is None


@pytest.mark.parametrize(
    ("who", "status"), [("owner", 200), ("admin", 200), ("member", 403), ("viewer", 403)]
)
def test_the_audit_log_needs_moderator_or_above(cast: Cast, who: str, status: int) -> None:
    assert logged_in(getattr(cast, who)).get("/t/acme/audit/").status_code == status


def test_a_viewer_sees_keys_but_cannot_create_one(cast: Cast) -> None:
    client = logged_in(cast.viewer)
    page = client.get("/t/acme/keys/")
    assert page.status_code == 200 and b"New API key" not in page.content
    response = client.post("/t/acme/keys/new", {"name": "x", "scopes": ["read"]}, **HTMX)
    assert response.status_code == 403


def test_creating_a_key_shows_the_secret_once_and_audits_it(cast: Cast) -> None:
    client = logged_in(cast.member)
    response = client.post(
        "/t/acme/keys/new", {"name": "cursor", "scopes": ["read", "write"]}, **HTMX
    )
    assert response.status_code == 200
    secret = re.search(rb'value="(mnemo_[^"]+)"', response.content).group(1).decode()  # type: ignore[union-attr]
    again = client.get("/t/acme/keys/")
    assert secret.encode() not in again.content and b"cursor" in again.content
    with rls.tenant_scope(cast.tenant.pk):
        event = AuditEvent.objects.get(verb="apikey.create", tenant=cast.tenant)
        assert event.actor_label == cast.member.email and event.actor_kind == "user"


def test_a_key_form_error_is_shown_on_the_field(cast: Cast) -> None:
    response = logged_in(cast.member).post("/t/acme/keys/new", {"name": "", "scopes": []}, **HTMX)
    assert response.status_code == 200
    assert b"This field is required" in response.content


def test_a_member_cannot_revoke_someone_elses_key_but_the_admin_can(cast: Cast) -> None:
    key, _ = make_key(cast.tenant)
    response = logged_in(cast.member).post(f"/t/acme/keys/{key.pk}/revoke", **HTMX)
    assert b"Only admins may revoke" in response.content
    logged_in(cast.admin).post(f"/t/acme/keys/{key.pk}/revoke", **HTMX)
    with rls.tenant_scope(cast.tenant.pk):
        assert ApiKey.objects.get(pk=key.pk).status == "revoked"


def test_admins_invite_and_the_invitee_joins_through_the_link(cast: Cast) -> None:
    response = logged_in(cast.admin).post(
        "/t/acme/members/invite", {"email": "newbie@example.com", "role": "viewer"}, **HTMX
    )
    link = re.search(rb'value="http[^"]+(/invite/[^"/]+/)"', response.content).group(1).decode()  # type: ignore[union-attr]
    assert b'data-testid="mail-not-sent"' in response.content  # mail goes to the console here
    assert b"The same link was emailed" not in response.content
    invitee = Client()
    landing = invitee.get(link)
    assert landing.status_code == 200 and b"Sign up as newbie@example.com" in landing.content
    joined = invitee.post(
        "/signup/",
        {
            "email": "newbie@example.com",
            "password": PASSWORD,
            "workspace": "Newbie's",
            "next": link,
        },
    )
    # signing up from the link joins at once: no second "accept"
    assert joined.status_code == 302 and joined["Location"] == "/t/acme/"
    assert invitee.get(link).status_code == 404  # used once
    with rls.tenant_scope(cast.tenant.pk):
        assert (
            Membership.objects.get(tenant=cast.tenant, user__email="newbie@example.com").role
            == "viewer"
        )
        assert Invitation.objects.get(email="newbie@example.com").accepted_at is not None


def test_members_cannot_invite_or_change_roles(cast: Cast) -> None:
    client = logged_in(cast.member)
    assert (
        client.post(
            "/t/acme/members/invite", {"email": "x@example.com", "role": "viewer"}, **HTMX
        ).status_code
        == 403
    )
    with rls.tenant_scope(cast.tenant.pk):
        viewer = Membership.objects.get(tenant=cast.tenant, user=cast.viewer)
    assert (
        client.post(f"/t/acme/members/{viewer.pk}/role", {"role": "admin"}, **HTMX).status_code
        == 403
    )


def test_the_owner_changes_a_role_and_removes_a_member(cast: Cast) -> None:
    client = logged_in(cast.owner)
    with rls.tenant_scope(cast.tenant.pk):
        viewer = Membership.objects.get(tenant=cast.tenant, user=cast.viewer)
    client.post(f"/t/acme/members/{viewer.pk}/role", {"role": "member"}, **HTMX)
    with rls.tenant_scope(cast.tenant.pk):
        assert Membership.objects.get(pk=viewer.pk).role == "member"
    client.post(f"/t/acme/members/{viewer.pk}/remove", **HTMX)
    with rls.tenant_scope(cast.tenant.pk):
        assert not Membership.objects.filter(pk=viewer.pk).exists()
    assert logged_in(cast.viewer).get("/t/acme/").status_code == 404


def test_anyone_may_leave_but_the_last_owner_may_not(cast: Cast) -> None:
    with rls.tenant_scope(cast.tenant.pk):
        ids = dict(Membership.objects.filter(tenant=cast.tenant).values_list("user_id", "pk"))
    response = logged_in(cast.viewer).post(f"/t/acme/members/{ids[cast.viewer.pk]}/remove", **HTMX)
    assert response["HX-Redirect"] == "/"
    response = logged_in(cast.owner).post(f"/t/acme/members/{ids[cast.owner.pk]}/remove", **HTMX)
    assert b"last owner" in response.content


def test_the_workspace_switcher_lists_only_the_users_workspaces(cast: Cast) -> None:
    client = logged_in(cast.owner)
    client.post("/new/", {"name": "Side Project"})
    page = client.get("/t/acme/").content.decode()
    assert "Side Project" in page and "/t/side-project/" in page
    assert "Globex" not in page


def test_the_audit_log_filters_and_pages(cast: Cast) -> None:
    client = logged_in(cast.owner)
    for n in range(60):
        make_key(cast.tenant, name=f"k{n}")
    first = client.get("/t/acme/audit/", {"verb": "apikey.create"})
    body = first.content.decode()
    assert body.count('data-verb="apikey.create"') == 50 and 'data-testid="older"' in body
    cursor = re.search(r"cursor=([\w-]+)", body).group(1)  # type: ignore[union-attr]
    second = client.get("/t/acme/audit/", {"verb": "apikey.create", "cursor": cursor}, **HTMX)
    assert second.content.decode().count('data-verb="apikey.create"') == 10
    by_system = client.get("/t/acme/audit/", {"actor": "system", "verb": "member.add"})
    assert 'data-verb="member.add"' not in by_system.content.decode()


def test_the_connect_page_shows_this_tenants_mcp_url_and_snippets(cast: Cast) -> None:
    page = logged_in(cast.viewer).get("/t/acme/connect/").content.decode()
    assert "/t/acme/mcp" in page and "claude mcp add" in page and "mcpServers" in page


def test_the_dashboard_uses_no_cdn(cast: Cast) -> None:
    page = logged_in(cast.owner).get("/t/acme/").content.decode()
    assert "/static/vendor/htmx.min.js" in page
    assert not re.search(r'(src|href)="https?://', page)


def test_tenant_slugs_of_others_are_not_disclosed_by_404s(cast: Cast) -> None:
    client = logged_in(cast.outsider)
    exists = client.get("/t/acme/")
    missing = client.get("/t/no-such-tenant/")
    assert exists.status_code == missing.status_code == 404
    assert Tenant.objects.filter(slug="acme").exists()


def test_logins_for_an_address_are_refused_after_ten_attempts_from_one_client(cast: Cast) -> None:
    client = Client()
    for _ in range(10):
        client.post("/login/", {"username": cast.member.email, "password": "wrong"})
    blocked = client.post("/login/", {"username": cast.member.email, "password": PASSWORD})
    assert blocked.status_code == 200 and b"Too many attempts" in blocked.content
    elsewhere = Client(REMOTE_ADDR="198.51.100.7")  # a stranger cannot lock the member out
    assert (
        elsewhere.post("/login/", {"username": cast.member.email, "password": PASSWORD}).status_code
        == 302
    )
    other = Client().post("/login/", {"username": cast.viewer.email, "password": PASSWORD})
    assert other.status_code == 302


def test_a_successful_login_clears_the_attempt_counter(cast: Cast) -> None:
    client = Client()
    for _ in range(9):
        client.post("/login/", {"username": cast.member.email, "password": "wrong"})
    assert (
        client.post("/login/", {"username": cast.member.email, "password": PASSWORD}).status_code
        == 302
    )
    client.logout()
    for _ in range(9):
        client.post("/login/", {"username": cast.member.email, "password": "wrong"})
    assert (
        client.post("/login/", {"username": cast.member.email, "password": PASSWORD}).status_code
        == 302
    )


def test_opening_a_form_address_directly_shows_a_page_not_a_blank_error(cast: Cast) -> None:
    client = logged_in(cast.owner)
    for path in ("/logout/", "/t/acme/members/invite"):
        response = client.get(path)
        assert response.status_code == 405 and b"Use the button" in response.content
    assert Client().get("/api/v1/keys", HTTP_AUTHORIZATION="Bearer x").status_code == 401


def test_the_invitation_signup_form_has_no_workspace_and_keeps_the_invitation(cast: Cast) -> None:
    page = Client().get("/signup/", {"next": "/invite/abc/", "email": "a+b@example.com"})
    body = page.content.decode()
    assert 'name="workspace"' not in body and "Create your account" in body
    assert 'value="a+b@example.com"' in body and "readonly" in body
    assert "/login/?next=/invite/abc/" in body
    sneaky = Client().get("/signup/", {"next": "//evil.example/invite/"}).content.decode()
    assert 'name="workspace"' in sneaky and "evil" not in sneaky
