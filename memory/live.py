"""Live updates: what changed in a tenant's memory, pushed to its open dashboards.

Services call ``publish`` inside their transaction; the event goes to the tenant's Channels
group (Redis layer) after commit, so a browser never hears of a write that was rolled back.
A failing layer is logged and never fails the write.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.core.cache import cache
from django.db import transaction

from base.redis_client import UNAVAILABLE, redis_breaker

log = logging.getLogger(__name__)


def group_name(tenant_id: int) -> str:
    return f"memory.{tenant_id}"


PUBLISH_TIMEOUT = 2.0  # seconds


def publish(tenant_id: int, event: dict[str, Any]) -> None:
    def deliver() -> None:
        if redis_breaker.away():
            return  # Redis just failed: no open dashboard is listening through it anyway
        try:
            layer = get_channel_layer()
            if layer is not None:
                message = {"type": "memory.event", "event": event}
                # bounded: a hung Redis must not hold a committed write's answer back
                async_to_sync(asyncio.wait_for)(
                    layer.group_send(group_name(tenant_id), message), PUBLISH_TIMEOUT
                )
                redis_breaker.ok()
        except Exception as exc:  # live updates are a convenience; the write has happened
            if isinstance(exc, UNAVAILABLE):
                redis_breaker.failed()
            log.warning("could not publish a memory event for tenant %s", tenant_id, exc_info=True)

    def send() -> None:
        try:
            cache.delete(f"memory:counts:{tenant_id}")  # memory.selectors.counts_key
        except Exception:  # stale counts for 30 s beat failing a committed write
            log.warning("could not drop cached counts for tenant %s", tenant_id, exc_info=True)
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # the usual case: a worker thread with no loop of its own
            deliver()
            return
        # Sync code called from a thread that runs an event loop cannot block on it: hand the
        # delivery to a short-lived thread.
        worker = threading.Thread(target=deliver, name="memory-live", daemon=True)
        worker.start()
        worker.join(timeout=2)

    transaction.on_commit(send, robust=True)


def engram_summary(engram: Any) -> dict[str, Any]:
    return {
        "id": engram.pk,
        "content": engram.content[:240],
        "type": engram.type,
        "strength": round(engram.strength, 2),
        "status": engram.status,
        "source": engram.source,
    }
