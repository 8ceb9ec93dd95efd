"""The dashboard's websocket: ``/ws/t/<slug>/memory/`` streams the tenant's memory events to a
logged-in member (anyone else is refused before the socket opens)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.db import transaction
from django.urls import path
from redis.exceptions import RedisError

from base.errors import MnemoError
from memory.live import group_name
from tenants import rls
from tenants.access import tenant_for_member


@database_sync_to_async
def _tenant_id(user: Any, slug: str) -> int | None:
    if user is None or not user.is_authenticated:
        return None
    try:
        with transaction.atomic():  # row-level security is switched per transaction
            rls.activate(user_id=user.pk)  # as TenantTransactionMiddleware does for pages
            tenant, _ = tenant_for_member(user=user, slug=slug)
    except MnemoError:
        return None
    return int(tenant.pk)


MAX_AGE_SECONDS = 300
log = logging.getLogger(__name__)


class MemoryEvents(AsyncJsonWebsocketConsumer):
    group: str | None = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """Channels reads every consumer's inbox from Redis; without Redis that loop fails.
        The page then gets a socket closed with 4503 (try later) instead of a server error."""
        try:
            await super().__call__(scope, receive, send)
        except (RedisError, OSError):
            log.warning("live updates unavailable: Redis cannot be reached", exc_info=True)
            with contextlib.suppress(Exception):
                await send({"type": "websocket.accept"})
            with contextlib.suppress(Exception):
                await send({"type": "websocket.close", "code": 4503})

    async def connect(self) -> None:
        slug = self.scope["url_route"]["kwargs"]["slug"]
        tenant_id = await _tenant_id(self.scope.get("user"), slug)
        if tenant_id is None:
            await self.close(code=4403)
            return
        try:
            await self.channel_layer.group_add(group_name(tenant_id), self.channel_name)
        except Exception:  # Redis away: the page works without live updates and retries later
            log.warning("live updates unavailable: could not join the group", exc_info=True)
            await self.accept()  # accepted, then closed: the page reads the code (4503)
            await self.close(code=4503)
            return
        self.group = group_name(tenant_id)
        await self.accept()
        # Membership is checked when the socket opens; closing it after a while makes the page
        # reconnect and be checked again, so a removed member stops hearing within MAX_AGE.
        self.expiry = asyncio.get_running_loop().call_later(
            MAX_AGE_SECONDS, lambda: asyncio.ensure_future(self.close(code=4000))
        )

    async def disconnect(self, code: int) -> None:
        expiry = getattr(self, "expiry", None)
        if expiry is not None:
            expiry.cancel()
        if self.group:
            with contextlib.suppress(Exception):  # Redis away: the group entry expires by itself
                await self.channel_layer.group_discard(self.group, self.channel_name)

    async def memory_event(self, message: dict[str, Any]) -> None:
        await self.send_json(message["event"])


websocket_urlpatterns = [path("ws/t/<slug:slug>/memory/", MemoryEvents.as_asgi())]
