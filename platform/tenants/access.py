"""Who is asking, and for which tenant: the only functions that switch row-level security on.

Each one finds the principal (a member, an API key, an invitation link), checks it, and activates
RLS for what that principal may see. Views, the REST base class and the MCP gateway call these;
selectors and services never switch tenants themselves.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings

from base.errors import NotFound
from base.redis_client import guarded
from tenants import ratelimit, rls, tokens
from tenants.models import ApiKey, Invitation, Membership, Tenant, User
from tenants.ratelimit import RateDecision
from tenants.services import apikey_touch

TOUCH_EVERY_SECONDS = 60


def tenant_for_member(*, user: User, slug: str) -> tuple[Tenant, Membership]:
    """The tenant ``slug`` and the user's membership in it; RLS switched to that tenant.

    Not a member and no such tenant are the same 404: outsiders learn nothing about slugs.
    """
    membership = (
        Membership.objects.select_related("tenant").filter(user=user, tenant__slug=slug).first()
    )
    if membership is None:
        raise NotFound("There is no such workspace, or you are not a member of it.")
    rls.activate(tenant_id=membership.tenant_id, user_id=user.pk)
    return membership.tenant, membership


def apikey_authenticate(*, secret: str, tenant_slug: str | None = None) -> ApiKey | None:
    """The active key for a bearer secret, RLS switched to its tenant; None if not valid.

    With ``tenant_slug`` (the MCP URL), a key of another tenant is as invalid as a wrong one.
    """
    prefix = tokens.api_key_prefix(secret)
    if prefix is None:
        return None
    rls.activate(apikey_prefix=prefix)
    for key in ApiKey.objects.select_related("tenant").filter(prefix=prefix):
        if tokens.digests_match(secret, key.digest) and key.is_active:
            if tenant_slug is not None and key.tenant.slug != tenant_slug:
                break
            rls.activate(tenant_id=key.tenant_id)
            return key
    rls.activate()
    return None


@dataclass(frozen=True)
class KeyAccess:
    """The outcome of presenting a key: the key (or None) and its rate decision (if valid)."""

    key: ApiKey | None
    rate: RateDecision | None

    @property
    def allowed(self) -> bool:
        return self.key is not None and self.rate is not None and self.rate.allowed


def apikey_access(
    *, secret: str, tenant_slug: str | None = None, ip: str | None = None
) -> KeyAccess:
    """Authenticate, count against the key's rate limit, and note its use — for REST and MCP alike.

    Bad keys count against the client address: past AUTH_FAILURES_PER_CLIENT a minute the
    answer is a refused rate (429) without checking the key, so guessing keys is slow. The use
    is written at most once a minute per key, whichever worker sees it (a Redis gate), so busy
    agents never queue on the key's row.
    """
    blocked = ratelimit.auth_failures(ip=ip, add=False)
    if not blocked.allowed:
        return KeyAccess(None, blocked)
    key = apikey_authenticate(secret=secret, tenant_slug=tenant_slug)
    if key is None:
        ratelimit.auth_failures(ip=ip, add=True)
        return KeyAccess(None, None)
    decision = ratelimit.hit(key)
    gate = f"mnemo:{settings.PROFILE}:touch:{key.pk}"
    # Redis away: True, and the database's own once-a-minute check decides
    first_this_minute = guarded(
        "the key-use gate",
        lambda redis: bool(redis.set(gate, 1, nx=True, ex=TOUCH_EVERY_SECONDS)),
        True,
    )
    if first_this_minute:
        apikey_touch(key=key)
    return KeyAccess(key, decision)


def invitation_for_token(*, token: str, user: User | None = None) -> Invitation | None:
    """The invitation behind an emailed link (seen through the ``app.invite_digest`` policy)."""
    digest = tokens.digest(token)
    rls.activate(invite_digest=digest, user_id=user.pk if user is not None else None)
    return Invitation.objects.select_related("tenant").filter(token_digest=digest).first()
