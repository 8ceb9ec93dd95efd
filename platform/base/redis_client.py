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
    rate limits count in the process, background work waits in memory) instead of every request
    waiting out a socket timeout of its own while Redis is hung. After the pause one caller
    probes Redis (the others keep skipping it); its success (``ok``) closes the breaker."""

    def __init__(self, pause: float = 5.0) -> None:
        self.pause = pause
        self._until = 0.0
        self._lock = threading.Lock()

    def away(self) -> bool:
        if not self._until:
            return False
        now = time.monotonic()
        if now < self._until:
            return True
        with self._lock:
            if self._until and now >= self._until:  # this caller probes; the others wait
                self._until = now + self.pause
                return False
        return bool(self._until)

    def ok(self) -> None:
        if self._until:
            with self._lock:
                self._until = 0.0

    def failed(self) -> None:
        with self._lock:
            self._until = time.monotonic() + self.pause

    def reset(self) -> None:
        with self._lock:
            self._until = 0.0


redis_breaker = Breaker()
log = logging.getLogger(__name__)
# Redis not answering; an error Redis answers (OOM, a wrong type) is a bug, not an outage
UNAVAILABLE = (redis.ConnectionError, redis.TimeoutError, OSError)


def guarded[T](what: str, operation: Callable[[redis.Redis], T], default: T) -> T:
    """``operation(client())``, or ``default`` while Redis is failing: every use of Redis that
    a request can do without (rate limits, gates, hints) goes through here, so one hung Redis
    costs the process one socket timeout every ``redis_breaker.pause`` seconds, not one per
    call."""
    if redis_breaker.away():
        return default
    try:
        answer = operation(client())
    except UNAVAILABLE as exc:
        redis_breaker.failed()
        log.warning("Redis unavailable for %s (%s); going on without it", what, exc)
        return default
    redis_breaker.ok()
    return answer


@cache
def client() -> redis.Redis:
    return redis.Redis.from_url(
        settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2, health_check_interval=30
    )
