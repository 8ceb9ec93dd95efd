from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from audit.actors import Actor
from audit.models import AuditEvent
from config.errors import Conflict, NotFound, PermissionDenied, ValidationFailed
from tenants import rls, services, tokens
from tenants.models import ApiKey, Membership, Tenant
from tenants.selectors import apikey_authenticate, invitation_find
from tests.factories import Cast, make_user

pytestmark = pytest.mark.django_db


def actor_of(cast: Cast, who: str) -> Actor:
    user = getattr(cast, who)
    role = Membership.objects.get(tenant=cast.tenant, user=user).role
    return Actor.for_user(user, role=role)


def test_signup_creates_the_user_the_tenant_and_the_owner_membership() -> None:
    user, tenant = services.signup(
        email="Ada@Example.com",
        password="an-unusual-passphrase",
        name="Ada",
        tenant_name="Ada Labs",
    )
    assert user.email == "ada@example.com"
    assert tenant.slug == "ada-labs"
    rls.activate(tenant_id=tenant.pk)
    assert Membership.objects.get(tenant=tenant, user=user).role == "owner"
    events = AuditEvent.objects.filter(tenant=tenant).order_by("id")
    verbs = list(events.values_list("verb", flat=True))
    assert verbs == ["tenant.create", "member.add"]


def test_signup_rejects_a_weak_password_and_writes_nothing() -> None:
    with pytest.raises(ValidationFailed) as err:
        services.signup(email="bob@example.com", password="123", name="", tenant_name="Bob")
    assert "password" in err.value.fields
    assert not Tenant.objects.filter(slug="bob").exists()


def test_signup_rejects_a_taken_email() -> None:
    make_user("taken@example.com")
    with pytest.raises(Conflict):
        services.signup(email="TAKEN@example.com", password="an-unusual-passphrase", name="",
                        tenant_name="x")  # fmt: skip


def test_tenant_slugs_are_unique_and_derived_from_the_name() -> None:
    owner = make_user()
    first = services.tenant_create(name="Acme Corp", owner=owner)
    second = services.tenant_create(name="Acme Corp", owner=owner)
    assert (first.slug, second.slug) == ("acme-corp", "acme-corp-2")


@pytest.mark.parametrize("slug", ["a", "-bad", "under_score", "has space", "api", "x" * 41])
def test_tenant_create_rejects_bad_slugs(slug: str) -> None:
    with pytest.raises(ValidationFailed):
        services.tenant_create(name="Whatever", slug=slug, owner=make_user())


def test_api_key_is_shown_once_and_stored_only_as_prefix_and_digest(cast: Cast) -> None:
    rls.activate(tenant_id=cast.tenant.pk)
    key, secret = services.apikey_create(
        tenant=cast.tenant, actor=actor_of(cast, "member"), name="bot", scopes=["write", "read"]
    )
    stored = ApiKey.objects.get(pk=key.pk)
    assert secret.startswith(f"mnemo_{stored.prefix}_")
    assert secret not in (stored.digest, stored.prefix, stored.name)
    assert stored.digest == tokens.digest(secret)
    assert stored.scopes == ["read", "write"]
    event = AuditEvent.objects.get(tenant=cast.tenant, verb="apikey.create")
    assert secret not in str(event.after)


def test_a_viewer_cannot_create_keys_and_a_member_cannot_create_admin_keys(cast: Cast) -> None:
    rls.activate(tenant_id=cast.tenant.pk)
    with pytest.raises(PermissionDenied):
        services.apikey_create(
            tenant=cast.tenant, actor=actor_of(cast, "viewer"), name="x", scopes=["read"]
        )
    with pytest.raises(PermissionDenied):
        services.apikey_create(
            tenant=cast.tenant, actor=actor_of(cast, "member"), name="x", scopes=["admin"]
        )


@pytest.mark.parametrize(
    ("name", "scopes", "field"),
    [
        ("", ["read"], "name"),
        ("k", [], "scopes"),
        ("k", ["root"], "scopes"),
        ("k" * 101, ["read"], "name"),
    ],
)
def test_api_key_input_is_validated(cast: Cast, name: str, scopes: list[str], field: str) -> None:
    rls.activate(tenant_id=cast.tenant.pk)
    with pytest.raises(ValidationFailed) as err:
        services.apikey_create(tenant=cast.tenant, actor=actor_of(cast, "owner"), name=name,
                               scopes=scopes)  # fmt: skip
    assert field in err.value.fields


def test_revoked_and_expired_keys_no_longer_authenticate(cast: Cast) -> None:
    rls.activate(tenant_id=cast.tenant.pk)
    owner = actor_of(cast, "owner")
    key, secret = services.apikey_create(tenant=cast.tenant, actor=owner, name="a", scopes=["read"])
    assert apikey_authenticate(secret) is not None
    services.apikey_revoke(tenant=cast.tenant, actor=owner, key=key)
    assert apikey_authenticate(secret) is None
    rls.activate(tenant_id=cast.tenant.pk)
    soon = timezone.now() + timedelta(seconds=1)
    key2, secret2 = services.apikey_create(
        tenant=cast.tenant, actor=owner, name="b", scopes=["read"], expires_at=soon
    )
    ApiKey.objects.filter(pk=key2.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert apikey_authenticate(secret2) is None


def test_a_key_does_not_authenticate_for_another_tenants_slug(cast: Cast) -> None:
    rls.activate(tenant_id=cast.tenant.pk)
    _, secret = services.apikey_create(
        tenant=cast.tenant, actor=actor_of(cast, "owner"), name="a", scopes=["read"]
    )
    assert apikey_authenticate(secret, tenant_slug=cast.other.slug) is None
    assert apikey_authenticate(secret, tenant_slug=cast.tenant.slug) is not None


def test_members_may_revoke_their_own_keys_but_not_others(cast: Cast) -> None:
    rls.activate(tenant_id=cast.tenant.pk)
    mine, _ = services.apikey_create(
        tenant=cast.tenant, actor=actor_of(cast, "member"), name="mine", scopes=["read"]
    )
    theirs, _ = services.apikey_create(
        tenant=cast.tenant, actor=actor_of(cast, "owner"), name="theirs", scopes=["read"]
    )
    services.apikey_revoke(tenant=cast.tenant, actor=actor_of(cast, "member"), key=mine)
    with pytest.raises(PermissionDenied):
        services.apikey_revoke(tenant=cast.tenant, actor=actor_of(cast, "member"), key=theirs)


def test_the_last_owner_can_neither_leave_nor_be_demoted(cast: Cast) -> None:
    rls.activate(tenant_id=cast.tenant.pk)
    owner_m = Membership.objects.get(tenant=cast.tenant, user=cast.owner)
    with pytest.raises(Conflict):
        services.membership_change_role(
            tenant=cast.tenant, actor=actor_of(cast, "owner"), membership=owner_m, role="admin"
        )
    with pytest.raises(Conflict):
        services.membership_remove(
            tenant=cast.tenant, actor=actor_of(cast, "owner"), membership=owner_m
        )


def test_admins_cannot_touch_owners_or_grant_ownership(cast: Cast) -> None:
    rls.activate(tenant_id=cast.tenant.pk)
    admin = actor_of(cast, "admin")
    owner_m = Membership.objects.get(tenant=cast.tenant, user=cast.owner)
    member_m = Membership.objects.get(tenant=cast.tenant, user=cast.member)
    with pytest.raises(PermissionDenied):
        services.membership_change_role(
            tenant=cast.tenant, actor=admin, membership=member_m, role="owner"
        )
    with pytest.raises(PermissionDenied):
        services.membership_remove(tenant=cast.tenant, actor=admin, membership=owner_m)
    services.membership_change_role(
        tenant=cast.tenant, actor=admin, membership=member_m, role="moderator"
    )
    event = AuditEvent.objects.filter(tenant=cast.tenant, verb="member.role_change").get()
    assert (event.before, event.after) == ({"role": "member"}, {"role": "moderator"})


def test_an_invitation_is_accepted_once_by_the_invited_address(
    cast: Cast, django_capture_on_commit_callbacks: object
) -> None:
    rls.activate(tenant_id=cast.tenant.pk)
    invitation, token = services.invitation_create(
        tenant=cast.tenant, actor=actor_of(cast, "admin"), email="New@Example.com", role="member"
    )
    assert invitation.email == "new@example.com" and invitation.token_digest != token
    wrong = make_user("someone-else@example.com")
    found = invitation_find(token=token)
    assert found is not None
    with pytest.raises(PermissionDenied):
        services.invitation_accept(invitation=found, token=token, user=wrong)
    invitee = make_user("new@example.com")
    found = invitation_find(token=token)
    membership = services.invitation_accept(invitation=found, token=token, user=invitee)
    assert membership.role == "member" and membership.tenant_id == cast.tenant.pk
    found = invitation_find(token=token)
    with pytest.raises(NotFound):
        services.invitation_accept(invitation=found, token=token, user=invitee)


def test_members_cannot_invite(cast: Cast) -> None:
    rls.activate(tenant_id=cast.tenant.pk)
    with pytest.raises(PermissionDenied):
        services.invitation_create(
            tenant=cast.tenant, actor=actor_of(cast, "member"), email="x@example.com", role="viewer"
        )
