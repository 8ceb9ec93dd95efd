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


def hit(key: ApiKey) -> RateDecision:
    """Count one request for ``key``; fails open (with a warning) if Redis is unreachable."""
    limit = limit_for(key)
    now = time.time()
    window = int(now // WINDOW_SECONDS)
    name = f"mnemo:{settings.PROFILE}:rl:{key.pk}:{window}"
    try:
        pipe = client().pipeline()  # MULTI/EXEC; SET NX EX instead of EXPIRE NX (Redis < 7)
        pipe.set(name, 0, ex=WINDOW_SECONDS + 5, nx=True)
        pipe.incr(name)
        count = int(pipe.execute()[1])
    except redis.RedisError as exc:
        log.warning("rate limiter unavailable (%s); letting key %s through", exc, key.prefix)
        return RateDecision(True, limit, limit, 0)
    retry_after = max(1, int((window + 1) * WINDOW_SECONDS - now))
    return RateDecision(count <= limit, limit, max(0, limit - count), retry_after)
