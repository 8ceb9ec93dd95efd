"""The shared Redis client for rate limits and health checks (Celery and Channels have theirs)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from functools import cache

import redis
from django.conf import settings


class Breaker:
    """Redis seen failing: for the next ``pause`` seconds this process skips it (cache misses,
    rate limits let requests through, background work waits in memory) instead of every request
    waiting out a socket timeout of its own while Redis is hung. The first call after the pause
    tries Redis again."""

    def __init__(self, pause: float = 5.0) -> None:
        self.pause = pause
        self._until = 0.0
        self._lock = threading.Lock()

    def away(self) -> bool:
        return time.monotonic() < self._until

    def failed(self) -> None:
        with self._lock:
            self._until = time.monotonic() + self.pause

    def reset(self) -> None:
        with self._lock:
            self._until = 0.0


redis_breaker = Breaker()
log = logging.getLogger(__name__)
UNAVAILABLE = (redis.RedisError, OSError)


def guarded[T](what: str, operation: Callable[[redis.Redis], T], default: T) -> T:
    """``operation(client())``, or ``default`` while Redis is failing: every use of Redis that
    a request can do without (rate limits, gates, hints) goes through here, so one hung Redis
    costs the process one socket timeout every ``redis_breaker.pause`` seconds, not one per
    call."""
    if redis_breaker.away():
        return default
    try:
        return operation(client())
    except UNAVAILABLE as exc:
        redis_breaker.failed()
        log.warning("Redis unavailable for %s (%s); going on without it", what, exc)
        return default


@cache
def client() -> redis.Redis:
    return redis.Redis.from_url(
        settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2, health_check_interval=30
    )
