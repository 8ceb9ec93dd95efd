"""Live updates: what changed in a tenant's memory, pushed to its open dashboards.

Services call ``publish`` inside their transaction; the event goes to the tenant's Channels
group (Redis layer) after commit, so a browser never hears of a write that was rolled back.
A failing layer is logged and never fails the write.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from typing import Any

from channels.layers import get_channel_layer
from django.core.cache import cache
from django.db import transaction

from base.redis_client import UNAVAILABLE, redis_breaker
from memory.selectors import counts_key, hubs_key

log = logging.getLogger(__name__)


def group_name(tenant_id: int) -> str:
    return f"memory.{tenant_id}"


PUBLISH_TIMEOUT = 2.0  # seconds
BACKLOG = 10_000  # events waiting for delivery; past this a write's event is dropped


def publish(tenant_id: int, event: dict[str, Any]) -> None:
    def send() -> None:
        try:
            cache.delete_many([counts_key(tenant_id), hubs_key(tenant_id)])
        except Exception:  # stale counts for 30 s beat failing a committed write
            log.warning("could not drop cached counts for tenant %s", tenant_id, exc_info=True)
        _publisher.hand_over(tenant_id, event)

    transaction.on_commit(send, robust=True)


async def _deliver(tenant_id: int, event: dict[str, Any]) -> None:
    if redis_breaker.away():
        return  # Redis just failed: no open dashboard is listening through it anyway
    try:
        layer = get_channel_layer()
        if layer is not None:
            message = {"type": "memory.event", "event": event}
            # bounded: a hung Redis must not hold the events behind this one for long
            await asyncio.wait_for(
                layer.group_send(group_name(tenant_id), message), PUBLISH_TIMEOUT
            )
            redis_breaker.ok()
    except Exception as exc:  # live updates are a convenience; the write has happened
        if isinstance(exc, UNAVAILABLE):
            redis_breaker.failed()
        log.warning("could not publish a memory event for tenant %s", tenant_id, exc_info=True)


class _Publisher:
    """One thread per process, with an event loop of its own, delivers the events in the order
    they were handed over; a write hands its event over and answers at once. (Waiting for the
    delivery cost every write Redis round trips, and, outside an event loop, a new loop and a
    new Redis connection each time: channels-redis keeps its connections per loop.)"""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pid = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._queue: asyncio.Queue[tuple[int, dict[str, Any]]] | None = None
        self._dropped = 0
        self._waiting = 0  # handed over, not yet delivered (or dropped)

    def hand_over(self, tenant_id: int, event: dict[str, Any]) -> None:
        loop, queue = self._started()
        with self._lock:
            self._waiting += 1
        loop.call_soon_threadsafe(self._enqueue, queue, (tenant_id, event))

    def _done(self) -> None:
        with self._lock:
            self._waiting -= 1

    def _enqueue(self, queue: asyncio.Queue[tuple[int, dict[str, Any]]], item: Any) -> None:
        try:
            queue.put_nowait(item)
        except asyncio.QueueFull:
            self._done()
            self._dropped += 1
            if self._dropped == 1 or self._dropped % 1000 == 0:
                log.warning("live updates behind: %s events dropped", self._dropped)

    def _started(
        self,
    ) -> tuple[asyncio.AbstractEventLoop, asyncio.Queue[tuple[int, dict[str, Any]]]]:
        with self._lock:  # once per process (a forked worker starts its own)
            if self._loop is None or self._queue is None or self._pid != os.getpid():
                loop = asyncio.new_event_loop()
                queue: asyncio.Queue[tuple[int, dict[str, Any]]] = asyncio.Queue(BACKLOG)
                threading.Thread(
                    target=self._run, args=(loop, queue), name="memory-live", daemon=True
                ).start()
                self._loop, self._queue, self._pid = loop, queue, os.getpid()
                self._waiting = 0
            return self._loop, self._queue

    def _run(self, loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[Any]) -> None:
        async def drain() -> None:
            while True:
                tenant_id, event = await queue.get()
                try:
                    await _deliver(tenant_id, event)
                finally:
                    self._done()

        asyncio.set_event_loop(loop)
        loop.run_until_complete(drain())

    def idle(self, timeout: float = 5.0) -> bool:
        """Wait until every event handed over has been delivered or given up (tests)."""
        deadline = time.monotonic() + timeout
        while self._waiting and time.monotonic() < deadline:
            time.sleep(0.01)
        return not self._waiting


_publisher = _Publisher()


def engram_summary(engram: Any) -> dict[str, Any]:
    return {
        "id": engram.pk,
        "content": engram.content[:240],
        "type": engram.type,
        "strength": round(engram.strength, 2),
        "status": engram.status,
        "source": engram.source,
    }
