"""Django's Redis cache, made a convenience rather than a dependency.

Everything Mnemo caches (rendered personas, network counts, dashboard plots, the persona
generation) can be computed again, so an unreachable or hung Redis makes a cache call a miss, with
a warning in the log, instead of a 500. Socket timeouts (settings) bound how long a hung Redis
can hold a request.
"""

from __future__ import annotations

import logging
import re
import threading
from functools import cached_property
from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis.exceptions import RedisError

from base.redis_client import redis_breaker

log = logging.getLogger(__name__)
UNAVAILABLE = (RedisError, OSError)


def _warn(operation: str, exc: BaseException) -> None:
    redis_breaker.failed()
    log.warning("cache %s failed (Redis unavailable?): %s", operation, exc)


_CLIENTS: dict[tuple[str, str], RedisCacheClient] = {}
_CLIENTS_LOCK = threading.Lock()


class ResilientRedisCache(RedisCache):
    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._location = server
        self._client_options: dict[str, Any] = dict(params.get("OPTIONS", {}))

    @cached_property
    def _cache(self) -> RedisCacheClient:
        """One client (and connection pool) per process. Django keeps a cache object per
        thread, and under ASGI each request runs in a thread of its own: a client per cache
        object meant a new Redis connection for every request."""
        key = (self._location, repr(sorted(self._client_options.items())))
        with _CLIENTS_LOCK:
            client = _CLIENTS.get(key)
            if client is None:
                servers = re.split("[;,]", self._location)
                client = _CLIENTS[key] = RedisCacheClient(servers, **self._client_options)
            return client

    def get(self, key: Any, default: Any = None, version: int | None = None) -> Any:
        if redis_breaker.away():
            return default
        try:
            return super().get(key, default, version)
        except UNAVAILABLE as exc:
            _warn("get", exc)
            return default

    def get_many(self, keys: Any, version: int | None = None) -> dict[Any, Any]:
        if redis_breaker.away():
            return {}
        try:
            return super().get_many(keys, version)
        except UNAVAILABLE as exc:
            _warn("get_many", exc)
            return {}

    def set(self, key: Any, value: Any, timeout: Any = 300, version: int | None = None) -> None:
        if redis_breaker.away():
            return
        try:
            super().set(key, value, timeout, version)
        except UNAVAILABLE as exc:
            _warn("set", exc)

    def add(self, key: Any, value: Any, timeout: Any = 300, version: int | None = None) -> bool:
        if redis_breaker.away():
            return True
        try:
            return super().add(key, value, timeout, version)
        except UNAVAILABLE as exc:
            _warn("add", exc)
            return True  # as if it was added: callers then skip their fallback (incr)

    def incr(self, key: Any, delta: int = 1, version: int | None = None) -> int:
        if redis_breaker.away():
            return 0
        try:
            return super().incr(key, delta, version)
        except UNAVAILABLE as exc:
            _warn("incr", exc)
            return 0

    def delete(self, key: Any, version: int | None = None) -> bool:
        if redis_breaker.away():
            return False
        try:
            return super().delete(key, version)
        except UNAVAILABLE as exc:
            _warn("delete", exc)
            return False

    def delete_many(self, keys: Any, version: int | None = None) -> None:
        if redis_breaker.away():
            return
        try:
            super().delete_many(keys, version)
        except UNAVAILABLE as exc:
            _warn("delete_many", exc)
