"""Writes for tenants, members, invitations and API keys; each one audited in its transaction."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime, timedelta

from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from audit.actors import Actor
from audit.services import audit_record
from config.errors import Conflict, NotFound, PermissionDenied, ValidationFailed
from tenants import rls, tokens
from tenants.models import ApiKey, Invitation, Membership, Tenant, User
from tenants.permissions import Capability, Role, Scope, may_assign_role, role_allows

SLUG_RE = re.compile(r"^[a-z0-9](?:[a-z0-9-]{1,38}[a-z0-9])$")
RESERVED_SLUGS = {"admin", "api", "app", "static", "new", "login", "signup", "www", "mnemo"}
INVITATION_TTL = timedelta(days=7)
MAX_KEYS_PER_TENANT = 200


def _clean_email(email: str) -> str:
    email = (email or "").strip().lower()
    try:
        validate_email(email)
    except DjangoValidationError as exc:
        raise ValidationFailed.field("email", "enter a valid email address") from exc
    return email


def user_create(*, email: str, password: str, name: str = "") -> User:
    email = _clean_email(email)
    if User.objects.filter(email=email).exists():
        raise Conflict("an account with this email already exists", fields={"email": "taken"})
    candidate = User(email=email, name=name.strip()[:150])
    try:
        validate_password(password, user=candidate)
    except DjangoValidationError as exc:
        raise ValidationFailed.field("password", " ".join(exc.messages)) from exc
    return User.objects.create_user(email=email, password=password, name=candidate.name)


def tenant_slug_for(name: str) -> str:
    base = slugify(name)[:30].strip("-") or "team"
    if len(base) < 3:
        base = f"{base}-team"
    slug, n = base, 1
    while slug in RESERVED_SLUGS or Tenant.objects.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    return slug


def tenant_create(*, name: str, owner: User, slug: str = "", actor: Actor | None = None) -> Tenant:
    """Create a tenant with ``owner`` as its owner. Leaves RLS set to the new tenant."""
    name = name.strip()
    if not name:
        raise ValidationFailed.field("name", "a workspace needs a name")
    if slug:
        slug = slug.strip().lower()
        if not SLUG_RE.match(slug) or slug in RESERVED_SLUGS:
            raise ValidationFailed.field(
                "slug", "3-40 lowercase letters, digits or dashes, not starting or ending with -"
            )
        if Tenant.objects.filter(slug=slug).exists():
            raise Conflict(f"the slug {slug!r} is taken", fields={"slug": "taken"})
    with transaction.atomic():
        tenant = Tenant.objects.create(name=name[:120], slug=slug or tenant_slug_for(name))
        rls.activate(tenant_id=tenant.pk, user_id=owner.pk)
        actor = actor or Actor.for_user(owner, role=Role.OWNER)
        audit_record(
            tenant_id=tenant.pk, actor=actor, verb="tenant.create", target=tenant,
            after={"slug": tenant.slug, "name": tenant.name},
        )  # fmt: skip
        _membership_add(tenant=tenant, actor=actor, user=owner, role=Role.OWNER)
    return tenant


def signup(*, email: str, password: str, name: str, tenant_name: str) -> tuple[User, Tenant]:
    with transaction.atomic():
        user = user_create(email=email, password=password, name=name)
        tenant = tenant_create(name=tenant_name or f"{user.display_name}'s team", owner=user)
    return user, tenant


def _membership_add(*, tenant: Tenant, actor: Actor, user: User, role: str) -> Membership:
    membership = Membership.objects.create(tenant=tenant, user=user, role=role)
    audit_record(
        tenant_id=tenant.pk, actor=actor, verb="member.add", target=membership,
        target_label=user.email, after={"user": user.email, "role": role},
    )  # fmt: skip
    return membership


def _require(actor: Actor, capability: Capability) -> None:
    if actor.kind == "user" and not role_allows(actor.role, capability):
        raise PermissionDenied(f"your role ({actor.role}) may not do this ({capability})")


def _owners_left(tenant: Tenant, excluding: Membership) -> int:
    return (
        Membership.objects.filter(tenant=tenant, role=Role.OWNER).exclude(pk=excluding.pk).count()
    )


def membership_change_role(
    *, tenant: Tenant, actor: Actor, membership: Membership, role: str
) -> Membership:
    if role not in Role.values:
        raise ValidationFailed.field("role", f"must be one of {', '.join(Role.values)}")
    if not may_assign_role(actor.role or "", membership.role, role):
        raise PermissionDenied("only an owner can grant or take away the owner role")
    if membership.role == role:
        return membership
    with transaction.atomic():
        locked = Membership.objects.select_for_update().get(tenant=tenant, pk=membership.pk)
        if locked.role == Role.OWNER and _owners_left(tenant, locked) == 0:
            raise Conflict("a workspace needs at least one owner; make someone else owner first")
        before = {"role": locked.role}
        locked.role = role
        locked.save(update_fields=["role"])
        audit_record(
            tenant_id=tenant.pk, actor=actor, verb="member.role_change", target=locked,
            target_label=locked.user.email, before=before, after={"role": role},
        )  # fmt: skip
    return locked


def membership_remove(*, tenant: Tenant, actor: Actor, membership: Membership) -> None:
    is_self = actor.kind == "user" and actor.id == membership.user_id
    if not is_self and not may_assign_role(actor.role or "", membership.role, Role.VIEWER):
        raise PermissionDenied("your role may not remove this member")
    with transaction.atomic():
        locked = Membership.objects.select_for_update().get(tenant=tenant, pk=membership.pk)
        if locked.role == Role.OWNER and _owners_left(tenant, locked) == 0:
            raise Conflict("the last owner cannot leave; make someone else owner first")
        audit_record(
            tenant_id=tenant.pk, actor=actor, verb="member.remove", target=locked,
            target_label=locked.user.email, before={"user": locked.user.email, "role": locked.role},
        )  # fmt: skip
        locked.delete()


def invitation_create(
    *, tenant: Tenant, actor: Actor, email: str, role: str
) -> tuple[Invitation, str]:
    """Invite ``email``; the returned token goes out by email (Celery) and is never stored."""
    _require(actor, Capability.MEMBERS_MANAGE)
    email = _clean_email(email)
    if role not in Role.values:
        raise ValidationFailed.field("role", f"must be one of {', '.join(Role.values)}")
    if not may_assign_role(actor.role or Role.ADMIN, None, role):
        raise PermissionDenied("only an owner can invite another owner")
    if Membership.objects.filter(tenant=tenant, user__email=email).exists():
        raise Conflict(f"{email} is already a member", fields={"email": "already a member"})
    token = tokens.new_invitation_token()
    with transaction.atomic():
        invitation = Invitation.objects.create(
            tenant=tenant, email=email, role=role, token_digest=tokens.digest(token),
            invited_by_id=actor.id if actor.kind == "user" else None,
            expires_at=timezone.now() + INVITATION_TTL,
        )  # fmt: skip
        audit_record(
            tenant_id=tenant.pk, actor=actor, verb="invitation.create", target=invitation,
            target_label=email, after={"email": email, "role": role},
        )  # fmt: skip
        from tenants.tasks import send_invitation_email

        transaction.on_commit(lambda: send_invitation_email.delay(tenant.pk, invitation.pk, token))
    return invitation, token


def invitation_revoke(*, tenant: Tenant, actor: Actor, invitation: Invitation) -> None:
    _require(actor, Capability.MEMBERS_MANAGE)
    if not invitation.is_pending:
        raise Conflict("this invitation is no longer pending")
    with transaction.atomic():
        Invitation.objects.filter(tenant=tenant, pk=invitation.pk).update(revoked_at=timezone.now())
        audit_record(
            tenant_id=tenant.pk, actor=actor, verb="invitation.revoke", target=invitation,
            target_label=invitation.email,
        )  # fmt: skip


def invitation_accept(*, invitation: Invitation, token: str, user: User) -> Membership:
    """Join the inviting tenant. The invitation must be pending and addressed to ``user``."""
    if not tokens.digests_match(token, invitation.token_digest) or not invitation.is_pending:
        raise NotFound("this invitation link is invalid, expired or already used")
    if invitation.email != user.email:
        raise PermissionDenied(
            f"this invitation was sent to {invitation.email}; log in with that address to accept"
        )
    tenant = invitation.tenant
    with transaction.atomic():
        rls.activate(tenant_id=tenant.pk, user_id=user.pk)
        if Membership.objects.filter(tenant=tenant, user=user).exists():
            raise Conflict("you are already a member of this workspace")
        updated = Invitation.objects.filter(pk=invitation.pk, accepted_at__isnull=True).update(
            accepted_at=timezone.now()
        )
        if updated != 1:
            raise NotFound("this invitation was already used")
        actor = Actor.for_user(user, role=invitation.role)
        audit_record(
            tenant_id=tenant.pk, actor=actor, verb="invitation.accept", target=invitation,
            target_label=user.email,
        )  # fmt: skip
        return _membership_add(tenant=tenant, actor=actor, user=user, role=invitation.role)


def _clean_scopes(scopes: Iterable[str]) -> list[str]:
    chosen = set(scopes or [])
    if not chosen or not chosen <= set(Scope.values):
        raise ValidationFailed.field("scopes", f"choose one or more of {', '.join(Scope.values)}")
    return [scope for scope in Scope.values if scope in chosen]


def apikey_create(
    *,
    tenant: Tenant,
    actor: Actor,
    name: str,
    scopes: Iterable[str],
    expires_at: datetime | None = None,
) -> tuple[ApiKey, str]:
    """Create a key and return it with its secret, which is shown once and never stored."""
    _require(actor, Capability.KEYS_CREATE)
    name = (name or "").strip()
    if not name or len(name) > 100:
        raise ValidationFailed.field("name", "give the key a name of 1-100 characters")
    scope_list = _clean_scopes(scopes)
    if Scope.ADMIN in scope_list:
        _require(actor, Capability.KEYS_MANAGE)
    if expires_at is not None and expires_at <= timezone.now():
        raise ValidationFailed.field("expires_at", "must be in the future")
    if ApiKey.objects.filter(tenant=tenant, revoked_at__isnull=True).count() >= MAX_KEYS_PER_TENANT:
        raise Conflict(f"a workspace may hold at most {MAX_KEYS_PER_TENANT} active keys")
    prefix, secret = tokens.new_api_key()
    with transaction.atomic():
        key = ApiKey.objects.create(
            tenant=tenant, name=name, prefix=prefix, digest=tokens.digest(secret),
            scopes=scope_list, expires_at=expires_at,
            created_by_id=actor.id if actor.kind == "user" else None,
        )  # fmt: skip
        audit_record(
            tenant_id=tenant.pk, actor=actor, verb="apikey.create", target=key,
            after={"name": name, "prefix": prefix, "scopes": scope_list,
                   "expires_at": expires_at.isoformat() if expires_at else None},
        )  # fmt: skip
    return key, secret


def apikey_revoke(*, tenant: Tenant, actor: Actor, key: ApiKey) -> ApiKey:
    own = actor.kind == "user" and key.created_by_id == actor.id
    if not own:
        _require(actor, Capability.KEYS_MANAGE)
    if key.revoked_at is not None:
        return key
    with transaction.atomic():
        key.revoked_at = timezone.now()
        ApiKey.objects.filter(tenant=tenant, pk=key.pk).update(revoked_at=key.revoked_at)
        audit_record(
            tenant_id=tenant.pk, actor=actor, verb="apikey.revoke", target=key,
            before={"status": "active"}, after={"status": "revoked"},
        )  # fmt: skip
    return key


LAST_USED_RESOLUTION = timedelta(minutes=1)


def apikey_touch(*, key: ApiKey) -> None:
    """Record use, at most once a minute per key (not audited: it is bookkeeping, not a change)."""
    now = timezone.now()
    if key.last_used_at is None or now - key.last_used_at >= LAST_USED_RESOLUTION:
        ApiKey.objects.filter(tenant_id=key.tenant_id, pk=key.pk).update(last_used_at=now)
        key.last_used_at = now
