from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from audit.actors import Actor
from audit.models import AuditEvent
from base.errors import Conflict, NotFound, PermissionDenied, ValidationFailed
from tenants import rls, services, tokens
from tenants.access import apikey_authenticate, invitation_for_token
from tenants.models import ApiKey, Membership, Tenant, User
from tests.factories import Cast, make_key, make_user

pytestmark = pytest.mark.django_db


def actor_of(cast: Cast, who: str) -> Actor:
    user = getattr(cast, who)
    role = Membership.objects.get(tenant=cast.tenant, user=user).role
    return Actor.for_user(user, role=role)


def test_signup_creates_the_user_the_tenant_and_the_owner_membership() -> None:
    user, tenant = services.user_signup(
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
        services.user_signup(email="bob@example.com", password="123", name="", tenant_name="Bob")
    assert "password" in err.value.fields
    assert not Tenant.objects.filter(slug="bob").exists()
    assert not User.objects.filter(email="bob@example.com").exists()


def test_signup_with_a_taken_slug_leaves_no_half_made_account() -> None:
    services.tenant_create(name="Taken", slug="taken", owner=make_user())
    with pytest.raises(Conflict), transaction.atomic():
        user = services.user_create(email="half@example.com", password="an-unusual-passphrase")
        services.tenant_create(name="Mine", slug="taken", owner=user)
    assert not User.objects.filter(email="half@example.com").exists()


def test_signup_rejects_a_taken_email() -> None:
    make_user("taken@example.com")
    with pytest.raises(Conflict):
        services.user_signup(
            email="TAKEN@example.com", password="an-unusual-passphrase", name="", tenant_name="x"
        )


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
        services.apikey_create(
            tenant=cast.tenant, actor=actor_of(cast, "owner"), name=name, scopes=scopes
        )
    assert field in err.value.fields


def test_revoked_and_expired_keys_no_longer_authenticate(cast: Cast) -> None:
    rls.activate(tenant_id=cast.tenant.pk)
    owner = actor_of(cast, "owner")
    key, secret = services.apikey_create(tenant=cast.tenant, actor=owner, name="a", scopes=["read"])
    assert apikey_authenticate(secret=secret) is not None
    services.apikey_revoke(tenant=cast.tenant, actor=owner, key=key)
    assert apikey_authenticate(secret=secret) is None
    rls.activate(tenant_id=cast.tenant.pk)
    soon = timezone.now() + timedelta(seconds=1)
    key2, secret2 = services.apikey_create(
        tenant=cast.tenant, actor=owner, name="b", scopes=["read"], expires_at=soon
    )
    ApiKey.objects.filter(pk=key2.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert apikey_authenticate(secret=secret2) is None


def test_a_key_does_not_authenticate_for_another_tenants_slug(cast: Cast) -> None:
    rls.activate(tenant_id=cast.tenant.pk)
    _, secret = services.apikey_create(
        tenant=cast.tenant, actor=actor_of(cast, "owner"), name="a", scopes=["read"]
    )
    assert apikey_authenticate(secret=secret, tenant_slug=cast.other.slug) is None
    assert apikey_authenticate(secret=secret, tenant_slug=cast.tenant.slug) is not None


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


def test_an_invitation_is_accepted_once_by_the_invited_address(cast: Cast) -> None:
    rls.activate(tenant_id=cast.tenant.pk)
    invitation, token = services.invitation_create(
        tenant=cast.tenant, actor=actor_of(cast, "admin"), email="New@Example.com", role="member"
    )
    assert invitation.email == "new@example.com" and invitation.token_digest != token
    wrong = make_user("someone-else@example.com")
    found = invitation_for_token(token=token)
    assert found is not None
    with pytest.raises(PermissionDenied):
        services.invitation_accept(invitation=found, token=token, user=wrong)
    invitee = make_user("new@example.com")
    found = invitation_for_token(token=token)
    membership = services.invitation_accept(invitation=found, token=token, user=invitee)
    assert membership.role == "member" and membership.tenant_id == cast.tenant.pk
    found = invitation_for_token(token=token)
    with pytest.raises(NotFound):
        services.invitation_accept(invitation=found, token=token, user=invitee)


def test_members_cannot_invite(cast: Cast) -> None:
    rls.activate(tenant_id=cast.tenant.pk)
    with pytest.raises(PermissionDenied):
        services.invitation_create(
            tenant=cast.tenant, actor=actor_of(cast, "member"), email="x@example.com", role="viewer"
        )


def test_a_second_invitation_to_a_pending_address_is_refused(cast: Cast) -> None:
    rls.activate(tenant_id=cast.tenant.pk)
    admin = actor_of(cast, "admin")
    services.invitation_create(
        tenant=cast.tenant, actor=admin, email="x@example.com", role="viewer"
    )
    with pytest.raises(Conflict, match="pending invitation"):
        services.invitation_create(
            tenant=cast.tenant, actor=admin, email="x@example.com", role="admin"
        )


def test_a_removed_member_cannot_come_back_with_an_old_link(cast: Cast) -> None:
    rls.activate(tenant_id=cast.tenant.pk)
    admin = actor_of(cast, "admin")
    invitee = make_user("twice@example.com")
    invitation, token = services.invitation_create(
        tenant=cast.tenant, actor=admin, email=invitee.email, role="viewer"
    )
    services.invitation_accept(invitation=invitation, token=token, user=invitee)
    rls.activate(tenant_id=cast.tenant.pk)
    membership = Membership.objects.get(tenant=cast.tenant, user=invitee)
    services.membership_remove(tenant=cast.tenant, actor=admin, membership=membership)
    stale = invitation_for_token(token=token)
    with pytest.raises(NotFound):
        services.invitation_accept(invitation=stale, token=token, user=invitee)
    rls.activate(tenant_id=cast.tenant.pk)
    again, _ = services.invitation_create(  # a fresh invitation is fine
        tenant=cast.tenant, actor=admin, email=invitee.email, role="viewer"
    )
    assert again.pk != invitation.pk


def test_a_revoked_invitation_cannot_be_accepted_even_from_a_stale_copy(cast: Cast) -> None:
    rls.activate(tenant_id=cast.tenant.pk)
    admin = actor_of(cast, "admin")
    invitation, token = services.invitation_create(
        tenant=cast.tenant, actor=admin, email="late@example.com", role="viewer"
    )
    stale = invitation_for_token(token=token)
    rls.activate(tenant_id=cast.tenant.pk)
    services.invitation_revoke(tenant=cast.tenant, actor=admin, invitation=invitation)
    with pytest.raises(NotFound):
        services.invitation_accept(
            invitation=stale, token=token, user=make_user("late@example.com")
        )
    rls.activate(tenant_id=cast.tenant.pk)
    with pytest.raises(Conflict):
        services.invitation_revoke(tenant=cast.tenant, actor=admin, invitation=invitation)


def test_revoking_a_key_twice_records_one_event(cast: Cast) -> None:
    rls.activate(tenant_id=cast.tenant.pk)
    owner = actor_of(cast, "owner")
    key, _ = services.apikey_create(tenant=cast.tenant, actor=owner, name="k", scopes=["read"])
    services.apikey_revoke(tenant=cast.tenant, actor=owner, key=key)
    first = ApiKey.objects.get(pk=key.pk).revoked_at
    services.apikey_revoke(tenant=cast.tenant, actor=owner, key=ApiKey.objects.get(pk=key.pk))
    assert ApiKey.objects.get(pk=key.pk).revoked_at == first
    assert AuditEvent.objects.filter(verb="apikey.revoke", target_id=str(key.pk)).count() == 1


def test_an_admin_scope_key_acts_as_an_admin_never_as_an_owner(cast: Cast) -> None:
    rls.activate(tenant_id=cast.tenant.pk)
    key, _ = services.apikey_create(
        tenant=cast.tenant, actor=actor_of(cast, "owner"), name="ops", scopes=["admin"]
    )
    as_key = Actor.for_key(key)
    services.invitation_create(
        tenant=cast.tenant, actor=as_key, email="k@example.com", role="member"
    )
    with pytest.raises(PermissionDenied):
        services.invitation_create(
            tenant=cast.tenant, actor=as_key, email="o@example.com", role="owner"
        )
    reader, _ = services.apikey_create(
        tenant=cast.tenant, actor=actor_of(cast, "owner"), name="r", scopes=["read", "write"]
    )
    with pytest.raises(PermissionDenied):
        services.apikey_create(
            tenant=cast.tenant, actor=Actor.for_key(reader), name="x", scopes=["read"]
        )


def test_a_nested_tenant_scope_restores_the_outer_tenant(cast: Cast) -> None:
    make_key(cast.tenant, name="a-key")
    make_key(cast.other, name="b-key")
    rls.activate(tenant_id=cast.tenant.pk)
    with rls.tenant_scope(cast.other.pk):
        assert list(ApiKey.objects.values_list("name", flat=True)) == ["b-key"]
    assert list(ApiKey.objects.values_list("name", flat=True)) == ["a-key"]
