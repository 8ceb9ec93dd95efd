"""Per-key request budgets in a fixed one-minute window, counted in Redis (shared by workers)."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

import redis
from django.conf import settings

from config.redis_client import client
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
    override = (key.tenant.settings or {}).get("rate_limit_per_minute")
    return int(override) if override else int(settings.API_RATE_LIMIT_PER_MINUTE)


def count(
    bucket: str, *, limit: int, window: int = WINDOW_SECONDS, peek: bool = False
) -> RateDecision:
    """Count one event in ``bucket`` for the current fixed window (``peek``: look, don't count).

    Fails open, with a warning, if Redis is unreachable.
    """
    now = time.time()
    slot = int(now // window)
    name = f"mnemo:{settings.PROFILE}:rl:{bucket}:{slot}"
    try:
        if peek:
            seen = int(client().get(name) or 0)
        else:
            pipe = client().pipeline()  # MULTI/EXEC; SET NX EX instead of EXPIRE NX (Redis < 7)
            pipe.set(name, 0, ex=window + 5, nx=True)
            pipe.incr(name)
            seen = int(pipe.execute()[1])
    except redis.RedisError as exc:
        log.warning("rate limiter unavailable (%s); letting %s through", exc, bucket)
        return RateDecision(True, limit, limit, 0)
    retry_after = max(1, int((slot + 1) * window - now))
    allowed = seen < limit if peek else seen <= limit
    return RateDecision(allowed, limit, max(0, limit - seen), retry_after)


def hit(key: ApiKey) -> RateDecision:
    """Count one request for ``key`` (REST and MCP share the budget)."""
    return count(f"key:{key.pk}", limit=limit_for(key))


LOGIN_FAILURES_ALLOWED = 10
LOGIN_WINDOW_SECONDS = 15 * 60


def login_blocked(email: str) -> RateDecision:
    """Has this address failed to log in too often in the last window? (Does not count.)"""
    return count(f"login:{email.lower()}", limit=LOGIN_FAILURES_ALLOWED,
                 window=LOGIN_WINDOW_SECONDS, peek=True)  # fmt: skip


def login_failed(email: str) -> None:
    count(f"login:{email.lower()}", limit=LOGIN_FAILURES_ALLOWED, window=LOGIN_WINDOW_SECONDS)
