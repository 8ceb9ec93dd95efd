"""Per-key request budgets in a fixed one-minute window, counted in Redis (shared by workers)."""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass

from django.conf import settings
from redis import Redis

from base.redis_client import guarded
from tenants.models import ApiKey

log = logging.getLogger(__name__)
WINDOW_SECONDS = 60


@dataclass(frozen=True)
class RateDecision:
    allowed: bool
    limit: int
    remaining: int
    retry_after: int


def limit_for(key: ApiKey) -> int:
    """The tenant's own limit, else the one set for every plan, else its plan's."""
    override = (key.tenant.settings or {}).get("rate_limit_per_minute")
    if override:
        return int(override)
    if settings.API_RATE_LIMIT_PER_MINUTE:
        return int(settings.API_RATE_LIMIT_PER_MINUTE)
    plans: dict[str, int] = settings.API_RATE_LIMITS
    return int(plans.get(key.tenant.plan, plans["free"]))


def count(bucket: str, *, limit: int, window: int = WINDOW_SECONDS) -> RateDecision:
    """Count one event in ``bucket`` for the current fixed window and say if it is allowed.

    With Redis unreachable the count is kept in this process instead (``LocalCounts``): a
    limit per web process rather than per deployment, but never no limit (a password guesser
    must not gain from a Redis outage).
    """
    now = time.time()
    slot = int(now // window)
    name = _bucket_name(bucket, slot)

    def counted(redis: Redis) -> int:
        pipe = redis.pipeline()  # MULTI/EXEC; SET NX EX instead of EXPIRE NX (Redis < 7)
        pipe.set(name, 0, ex=window + 5, nx=True)
        pipe.incr(name)
        return int(pipe.execute()[1])

    seen = guarded(f"the rate limit of {bucket}", counted, -1)
    if seen < 0:
        seen = local_counts.add(name, slot)
    retry_after = max(1, int((slot + 1) * window - now))
    return RateDecision(seen <= limit, limit, max(0, limit - seen), retry_after)


class LocalCounts:
    """Fixed-window counts in this process, for while Redis is away (old windows forgotten)."""

    def __init__(self, keep: int = 100_000) -> None:
        self.keep = keep
        self._counts: dict[str, tuple[int, int]] = {}  # name -> (slot, count)
        self._lock = threading.Lock()

    def add(self, name: str, slot: int) -> int:
        with self._lock:
            if len(self._counts) >= self.keep:
                self._counts = {k: v for k, v in self._counts.items() if v[0] == slot}
            seen_slot, seen = self._counts.get(name, (slot, 0))
            seen = seen + 1 if seen_slot == slot else 1
            self._counts[name] = (slot, seen)
            return seen

    def clear(self) -> None:
        with self._lock:
            self._counts.clear()

    def get(self, name: str) -> int:
        with self._lock:
            return self._counts.get(name, (0, 0))[1]


local_counts = LocalCounts()


def _bucket_name(bucket: str, slot: int) -> str:
    return f"mnemo:{settings.PROFILE}:rl:{bucket}:{slot}"


def hit(key: ApiKey) -> RateDecision:
    """Count one request for ``key`` (REST and MCP share the budget)."""
    return count(f"key:{key.pk}", limit=limit_for(key))


AUTH_FAILURES_PER_CLIENT = 30  # unknown, revoked or expired keys per client address a minute


def auth_failures(*, ip: str | None, add: bool) -> RateDecision:
    """Bad keys from one client address: ``add`` counts one more; without it, only looks. A
    client past the budget is refused before its key is even checked, until the minute ends."""
    bucket = f"badkey:{ip or 'unknown'}"
    if add:
        return count(bucket, limit=AUTH_FAILURES_PER_CLIENT)
    now = time.time()
    slot = int(now // WINDOW_SECONDS)
    name = _bucket_name(bucket, slot)
    seen = guarded("the bad-key budget", lambda redis: int(redis.get(name) or 0), -1)
    if seen < 0:
        seen = local_counts.get(name)
    retry_after = max(1, int((slot + 1) * WINDOW_SECONDS - now))
    limit = AUTH_FAILURES_PER_CLIENT
    return RateDecision(seen < limit, limit, max(0, limit - seen), retry_after)


LOGIN_ATTEMPTS_PER_ADDRESS = 10  # per email and client address
LOGIN_ATTEMPTS_PER_CLIENT = 100  # per client address, any email
LOGIN_WINDOW_SECONDS = 15 * 60


def login_attempt(*, email: str, ip: str | None) -> RateDecision:
    """Count a login attempt before checking the password (so parallel guesses count too).

    Keyed on the address *and* the client, so a stranger cannot lock someone else out; a looser
    per-client budget stops one client from walking through many addresses.
    """
    client_key = ip or "unknown"
    pair = count(
        f"login:{email.lower()}:{client_key}",
        limit=LOGIN_ATTEMPTS_PER_ADDRESS,
        window=LOGIN_WINDOW_SECONDS,
    )
    anyone = count(
        f"login-client:{client_key}", limit=LOGIN_ATTEMPTS_PER_CLIENT, window=LOGIN_WINDOW_SECONDS
    )
    return pair if not pair.allowed else anyone


def login_succeeded(*, email: str, ip: str | None) -> None:
    """A correct password clears the address's counter for this client."""
    slot = int(time.time() // LOGIN_WINDOW_SECONDS)
    name = _bucket_name(f"login:{email.lower()}:{ip or 'unknown'}", slot)
    guarded("the login budget", lambda redis: redis.delete(name), 0)
