"""Writes for tenants, members, invitations and API keys; each one audited in its transaction.

Authorization lives in tenants.permissions; services ask it about the acting ``Actor`` and raise
``PermissionDenied``. Concurrent changes to a tenant's members serialise on the tenant row.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime, timedelta

from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.text import slugify

from audit.actors import Actor
from audit.services import audit_record
from base.background import after_commit
from base.errors import Conflict, NotFound, PermissionDenied, ValidationFailed
from tenants import rls, tokens
from tenants.models import ApiKey, Invitation, Membership, Tenant, User
from tenants.permissions import (
    Capability,
    Role,
    Scope,
    acting_role,
    actor_allows,
    may_assign_role,
    may_remove_member,
    may_revoke_key,
)

SLUG_RE = re.compile(r"^[a-z0-9](?:[a-z0-9-]{1,38}[a-z0-9])$")
RESERVED_SLUGS = {"admin", "api", "app", "static", "new", "login", "signup", "www", "mnemo"}
INVITATION_TTL = timedelta(days=7)
MAX_KEYS_PER_TENANT = 200


def _clean_email(email: str) -> str:
    email = (email or "").strip().lower()
    try:
        validate_email(email)
    except DjangoValidationError as exc:
        raise ValidationFailed.field("email", "Enter a valid email address.") from exc
    return email


def _clean_role(role: str) -> str:
    if role not in Role.values:
        raise ValidationFailed.field("role", f"Choose one of: {', '.join(Role.values)}.")
    return role


def _require(actor: Actor, capability: Capability) -> None:
    if not actor_allows(actor, capability):
        who = f"Your role ({actor.role})" if actor.kind == "user" else "This API key"
        raise PermissionDenied(f"{who} may not do this ({capability}).")


def user_create(*, email: str, password: str, name: str = "") -> User:
    email = _clean_email(email)
    if User.objects.filter(email=email).exists():
        raise Conflict("An account with this email already exists.", fields={"email": "taken"})
    candidate = User(email=email, name=name.strip()[:150])
    try:
        validate_password(password, user=candidate)
    except DjangoValidationError as exc:
        raise ValidationFailed.field("password", " ".join(exc.messages)) from exc
    try:
        with transaction.atomic():
            return User.objects.create_user(email=email, password=password, name=candidate.name)
    except IntegrityError as exc:  # the same address signed up a moment ago
        raise Conflict(
            "An account with this email already exists.", fields={"email": "taken"}
        ) from exc


def tenant_slug_for(name: str) -> str:
    base = slugify(name)[:30].strip("-")
    if len(base) < 3:
        base = f"{base}-team".strip("-") if base else "team"
    slug, n = base, 1
    while slug in RESERVED_SLUGS or Tenant.objects.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    return slug


def _clean_slug(slug: str) -> str:
    slug = slug.strip().lower()
    if slug in RESERVED_SLUGS:
        raise ValidationFailed.field("slug", f"“{slug}” is reserved; choose another.")
    if not SLUG_RE.match(slug):
        raise ValidationFailed.field(
            "slug",
            "Use 3–40 lowercase letters, digits or dashes, not starting or ending with a dash.",
        )
    if Tenant.objects.filter(slug=slug).exists():
        raise Conflict(f"The URL name “{slug}” is taken.", fields={"slug": "taken"})
    return slug


def tenant_create(*, name: str, owner: User, slug: str = "", actor: Actor | None = None) -> Tenant:
    """Create a tenant with ``owner`` as its owner. Leaves RLS set to the new tenant."""
    name = name.strip()
    if not name:
        raise ValidationFailed.field("name", "A workspace needs a name.")
    if len(name) > 120:
        raise ValidationFailed.field("name", "Use at most 120 characters.")
    slug = _clean_slug(slug) if slug else tenant_slug_for(name)
    try:
        with transaction.atomic():
            tenant = Tenant.objects.create(name=name, slug=slug)
            rls.activate(tenant_id=tenant.pk, user_id=owner.pk)
            actor = actor or Actor.for_user(owner, role=Role.OWNER)
            audit_record(
                tenant_id=tenant.pk,
                actor=actor,
                verb="tenant.create",
                target=tenant,
                after={"slug": tenant.slug, "name": tenant.name},
            )
            _membership_add(tenant=tenant, actor=actor, user=owner, role=Role.OWNER)
    except IntegrityError as exc:  # the slug was taken a moment ago
        raise Conflict(f"The URL name “{slug}” is taken.", fields={"slug": "taken"}) from exc
    return tenant


def user_signup(*, email: str, password: str, name: str, tenant_name: str) -> tuple[User, Tenant]:
    """A new account with its own workspace, owned by it."""
    with transaction.atomic():
        user = user_create(email=email, password=password, name=name)
        tenant = tenant_create(name=tenant_name or f"{user.display_name}'s team", owner=user)
    return user, tenant


def _membership_add(*, tenant: Tenant, actor: Actor, user: User, role: str) -> Membership:
    membership = Membership.objects.create(tenant=tenant, user=user, role=role)
    audit_record(
        tenant_id=tenant.pk,
        actor=actor,
        verb="member.add",
        target=membership,
        target_label=user.email,
        after={"user": user.email, "role": role},
    )
    return membership


def _lock_members(tenant: Tenant, membership_id: int) -> Membership:
    """Lock the tenant row (member changes serialise on it) and re-read the membership."""
    Tenant.objects.select_for_update().filter(pk=tenant.pk).first()
    locked = (
        Membership.objects.select_related("user").filter(tenant=tenant, pk=membership_id).first()
    )
    if locked is None:
        raise NotFound("There is no such member.")
    return locked


def _owners_left(tenant: Tenant, excluding: Membership) -> int:
    return (
        Membership.objects.filter(tenant=tenant, role=Role.OWNER).exclude(pk=excluding.pk).count()
    )


def membership_change_role(
    *, tenant: Tenant, actor: Actor, membership: Membership, role: str
) -> Membership:
    role = _clean_role(role)
    with transaction.atomic():
        locked = _lock_members(tenant, membership.pk)
        if not may_assign_role(acting_role(actor), locked.role, role):
            raise PermissionDenied("Only an owner can grant or take away the owner role.")
        if locked.role == role:
            return locked
        if locked.role == Role.OWNER and _owners_left(tenant, locked) == 0:
            raise Conflict("A workspace needs at least one owner; make someone else owner first.")
        before = {"role": locked.role}
        locked.role = role
        locked.save(update_fields=["role"])
        audit_record(
            tenant_id=tenant.pk,
            actor=actor,
            verb="member.role_change",
            target=locked,
            target_label=locked.user.email,
            before=before,
            after={"role": role},
        )
    return locked


def membership_remove(*, tenant: Tenant, actor: Actor, membership: Membership) -> None:
    """Remove a member, or leave."""
    with transaction.atomic():
        locked = _lock_members(tenant, membership.pk)
        if not may_remove_member(actor, locked):
            raise PermissionDenied("Your role may not remove this member.")
        if locked.role == Role.OWNER and _owners_left(tenant, locked) == 0:
            raise Conflict("The last owner cannot leave; make someone else owner first.")
        audit_record(
            tenant_id=tenant.pk,
            actor=actor,
            verb="member.remove",
            target=locked,
            target_label=locked.user.email,
            before={"user": locked.user.email, "role": locked.role},
        )
        locked.delete()


def _pending(tenant: Tenant) -> QuerySet[Invitation]:
    return Invitation.objects.filter(
        tenant=tenant,
        accepted_at__isnull=True,
        revoked_at__isnull=True,
        expires_at__gt=timezone.now(),
    )


def _invitations_cancel(*, tenant: Tenant, actor: Actor, email: str) -> None:
    for invitation in _pending(tenant).filter(email=email):
        invitation_revoke(tenant=tenant, actor=actor, invitation=invitation, check=False)


def invitation_create(
    *, tenant: Tenant, actor: Actor, email: str, role: str
) -> tuple[Invitation, str]:
    """Invite ``email``; the returned token goes out by email (Celery) and is never stored."""
    _require(actor, Capability.MEMBERS_MANAGE)
    email = _clean_email(email)
    role = _clean_role(role)
    if not may_assign_role(acting_role(actor), None, role):
        raise PermissionDenied("Only an owner can invite another owner.")
    with transaction.atomic():
        Tenant.objects.select_for_update().filter(pk=tenant.pk).first()
        if Membership.objects.filter(tenant=tenant, user__email=email).exists():
            raise Conflict(f"{email} is already a member.", fields={"email": "already a member"})
        if _pending(tenant).filter(email=email).exists():
            raise Conflict(
                f"{email} already has a pending invitation; revoke it to send a new one.",
                fields={"email": "already invited"},
            )
        token = tokens.new_invitation_token()
        invitation = Invitation.objects.create(
            tenant=tenant,
            email=email,
            role=role,
            token_digest=tokens.digest(token),
            invited_by_id=actor.id if actor.kind == "user" else None,
            expires_at=timezone.now() + INVITATION_TTL,
        )
        audit_record(
            tenant_id=tenant.pk,
            actor=actor,
            verb="invitation.create",
            target=invitation,
            target_label=email,
            after={"email": email, "role": role},
        )
        # robust: a broker outage must not turn a committed invitation into a 500.
        after_commit("tenants.tasks.send_invitation_email", tenant.pk, invitation.pk, token)
    return invitation, token


def invitation_revoke(
    *, tenant: Tenant, actor: Actor, invitation: Invitation, check: bool = True
) -> None:
    if check:
        _require(actor, Capability.MEMBERS_MANAGE)
    with transaction.atomic():
        revoked = _pending(tenant).filter(pk=invitation.pk).update(revoked_at=timezone.now())
        if revoked != 1:
            raise Conflict("This invitation is no longer pending.")
        audit_record(
            tenant_id=tenant.pk,
            actor=actor,
            verb="invitation.revoke",
            target=invitation,
            target_label=invitation.email,
        )


def invitation_accept(*, invitation: Invitation, token: str, user: User) -> Membership:
    """Join the inviting tenant. The invitation must be pending and addressed to ``user``."""
    if not tokens.digests_match(token, invitation.token_digest) or not invitation.is_pending:
        raise NotFound("This invitation link is invalid, expired or already used.")
    if invitation.email != user.email:
        raise PermissionDenied(
            f"This invitation was sent to {invitation.email}; log in with that address to accept."
        )
    tenant = invitation.tenant
    with transaction.atomic():
        rls.activate(tenant_id=tenant.pk, user_id=user.pk)
        Tenant.objects.select_for_update().filter(pk=tenant.pk).first()
        if Membership.objects.filter(tenant=tenant, user=user).exists():
            raise Conflict("You are already a member of this workspace.")
        used = _pending(tenant).filter(pk=invitation.pk).update(accepted_at=timezone.now())
        if used != 1:
            raise NotFound("This invitation link is invalid, expired or already used.")
        actor = Actor.for_user(user, role=invitation.role)
        audit_record(
            tenant_id=tenant.pk,
            actor=actor,
            verb="invitation.accept",
            target=invitation,
            target_label=user.email,
        )
        membership = _membership_add(tenant=tenant, actor=actor, user=user, role=invitation.role)
        # invitation_create refuses a second pending invitation; data from before that rule:
        _invitations_cancel(tenant=tenant, actor=actor, email=user.email)
        return membership


def _clean_scopes(scopes: Iterable[str]) -> list[str]:
    chosen = set(scopes or [])
    if not chosen or not chosen <= set(Scope.values):
        raise ValidationFailed.field("scopes", f"Choose one or more of: {', '.join(Scope.values)}.")
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
    if actor.kind == "user":  # members create read/write keys; admin keys and key-made keys:
        _require(actor, Capability.KEYS_CREATE)
    name = (name or "").strip()
    if not name or len(name) > 100:
        raise ValidationFailed.field("name", "Give the key a name of 1–100 characters.")
    scope_list = _clean_scopes(scopes)
    if Scope.ADMIN in scope_list or actor.kind == "api_key":
        _require(actor, Capability.KEYS_MANAGE)
    if expires_at is not None and expires_at <= timezone.now():
        raise ValidationFailed.field("expires_at", "The expiry must be in the future.")
    prefix, secret = tokens.new_api_key()
    with transaction.atomic():
        Tenant.objects.select_for_update().filter(pk=tenant.pk).first()
        if _active_keys(tenant).count() >= MAX_KEYS_PER_TENANT:
            raise Conflict(f"A workspace may hold at most {MAX_KEYS_PER_TENANT} active keys.")
        key = ApiKey.objects.create(
            tenant=tenant,
            name=name,
            prefix=prefix,
            digest=tokens.digest(secret),
            scopes=scope_list,
            expires_at=expires_at,
            created_by_id=actor.id if actor.kind == "user" else None,
        )
        audit_record(
            tenant_id=tenant.pk,
            actor=actor,
            verb="apikey.create",
            target=key,
            after={
                "name": name,
                "prefix": prefix,
                "scopes": scope_list,
                "expires_at": expires_at.isoformat() if expires_at else None,
            },
        )
    return key, secret


def _active_keys(tenant: Tenant) -> QuerySet[ApiKey]:
    now = timezone.now()
    return ApiKey.objects.filter(tenant=tenant, revoked_at__isnull=True).filter(
        Q(expires_at__isnull=True) | Q(expires_at__gt=now)
    )


def apikey_revoke(*, tenant: Tenant, actor: Actor, key: ApiKey) -> ApiKey:
    """Revoke a key (idempotent: revoking a revoked key changes and records nothing)."""
    if not may_revoke_key(actor, key):
        raise PermissionDenied("Only admins may revoke keys that others created.")
    with transaction.atomic():
        now = timezone.now()
        changed = ApiKey.objects.filter(tenant=tenant, pk=key.pk, revoked_at__isnull=True).update(
            revoked_at=now
        )
        if changed == 1:
            key.revoked_at = now
            audit_record(
                tenant_id=tenant.pk,
                actor=actor,
                verb="apikey.revoke",
                target=key,
                before={"status": "active"},
                after={"status": "revoked"},
            )
        else:
            key.refresh_from_db(fields=["revoked_at"])
    return key


LAST_USED_RESOLUTION = timedelta(minutes=1)


def apikey_touch(*, key: ApiKey) -> None:
    """Record use, at most once a minute per key (not audited: it is bookkeeping, not a change)."""
    now = timezone.now()
    if key.last_used_at is None or now - key.last_used_at >= LAST_USED_RESOLUTION:
        ApiKey.objects.filter(tenant_id=key.tenant_id, pk=key.pk).update(last_used_at=now)
        key.last_used_at = now
