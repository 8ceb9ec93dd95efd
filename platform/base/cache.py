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
from collections.abc import Callable
from functools import cached_property
from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis.exceptions import RedisError

from base.redis_client import UNAVAILABLE, redis_breaker

log = logging.getLogger(__name__)


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

    def _guarded[T](self, what: str, call: Callable[[], T], default: T) -> T:
        """``call()``, or ``default`` while Redis is failing (see ``base.redis_client``)."""
        if redis_breaker.away():
            return default
        try:
            answer = call()
        except (RedisError, OSError) as exc:
            if isinstance(exc, UNAVAILABLE):
                redis_breaker.failed()
            log.warning("cache %s failed (Redis unavailable?): %s", what, exc)
            return default
        redis_breaker.ok()
        return answer

    def get(self, key: Any, default: Any = None, version: int | None = None) -> Any:
        return self._guarded(
            "get", lambda: super(ResilientRedisCache, self).get(key, default, version), default
        )

    def get_many(self, keys: Any, version: int | None = None) -> dict[Any, Any]:
        return self._guarded(
            "get_many", lambda: super(ResilientRedisCache, self).get_many(keys, version), {}
        )

    def set(self, key: Any, value: Any, timeout: Any = 300, version: int | None = None) -> None:
        self._guarded(
            "set", lambda: super(ResilientRedisCache, self).set(key, value, timeout, version), None
        )

    def add(self, key: Any, value: Any, timeout: Any = 300, version: int | None = None) -> bool:
        # unavailable: as if it was added, so callers skip their fallback (incr)
        return self._guarded(
            "add", lambda: super(ResilientRedisCache, self).add(key, value, timeout, version), True
        )

    def incr(self, key: Any, delta: int = 1, version: int | None = None) -> int:
        return self._guarded(
            "incr", lambda: super(ResilientRedisCache, self).incr(key, delta, version), 0
        )

    def set_many(self, data: Any, timeout: Any = 300, version: int | None = None) -> list[Any]:
        return self._guarded(
            "set_many",
            lambda: super(ResilientRedisCache, self).set_many(data, timeout, version),
            [],
        )

    def delete(self, key: Any, version: int | None = None) -> bool:
        return self._guarded(
            "delete", lambda: super(ResilientRedisCache, self).delete(key, version), False
        )

    def delete_many(self, keys: Any, version: int | None = None) -> None:
        self._guarded(
            "delete_many", lambda: super(ResilientRedisCache, self).delete_many(keys, version), None
        )
