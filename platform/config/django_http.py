"""Django behind the ASGI app, served in one trip to a worker thread per request.

Every Mnemo view and most middleware are synchronous (the ORM is). Django's own ASGI handler
builds an async middleware chain and adapts at each sync-only middleware, and it runs
``request_started``, the chain and ``response.close()`` as separate trips to a thread it creates
for each request (and joins at the end, blocking the event loop). Measured on an authenticated
GET that takes 2.9 ms in process: 7.2 ms over HTTP, of which ~4 ms were those trips (each a
wake-up of another thread and of the event loop again).

Here one call on a thread of Django's own pool does it all: ``request_started`` (which returns stale
database connections), the request built from the ASGI scope, the synchronous chain (the
transaction middleware, the view), and, for an ordinary response, ``close()`` — whose
``request_finished`` gives the database connection back to the pool before a byte is sent. The
request's database work stays on one thread and one connection, as before. A streamed response
(the memory export) is sent and closed the way Django does: its body opens what it reads itself
(see ``tenants.middleware``), so the view's connection goes back to the pool first.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.db import close_old_connections
from django.http import FileResponse, HttpResponseBase
from django.urls import set_script_prefix


class OneHopASGIHandler(ASGIHandler):
    def __init__(self) -> None:
        super().__init__()
        # Threads of Django's own: the admission gate lets WEB_SLOTS requests in at once, and
        # the loop's default pool (cores + 4 threads) also serves probes and MCP tools.
        self.threads = ThreadPoolExecutor(
            max_workers=max(8, 2 * settings.WEB_SLOTS), thread_name_prefix="django"
        )

    def load_middleware(self, is_async: bool = False) -> None:
        super().load_middleware(is_async=False)  # one synchronous chain, entered once

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise ValueError(f"Django serves HTTP here, not {scope['type']}")
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        with closing(body_file):
            respond = sync_to_async(self._respond, thread_sensitive=False, executor=self.threads)
            response = await respond(scope, body_file)
            await self.send_response(response, send)
            if response.streaming:
                close = sync_to_async(response.close, thread_sensitive=False, executor=self.threads)
                await close()

    def _respond(self, scope: dict[str, Any], body_file: Any) -> HttpResponseBase:
        set_script_prefix(get_script_prefix(scope))
        signals.request_started.send(sender=self.__class__, scope=scope)
        request, response = self.create_request(scope, body_file)
        if request is not None:
            response = self.get_response(request)
            response._handler_class = self.__class__  # type: ignore[attr-defined]
            if isinstance(response, FileResponse):
                response.block_size = self.chunk_size
        assert response is not None
        if response.streaming:
            close_old_connections()  # the body reads on its own connection
        else:
            response.close()  # request_finished: the connection goes back to the pool
        return response
