"""The one ASGI application: Starlette outside, MCP at /t/<slug>/mcp, Django (+ Channels) inside.

Served by uvicorn: ``uvicorn config.asgi:application``.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import html
import json
import os
import re
from collections.abc import AsyncIterator
from typing import Any, cast

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup(set_prefix=False)  # before anything imports models

from config.django_http import OneHopASGIHandler  # noqa: E402

django_http = OneHopASGIHandler()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.conf import settings  # noqa: E402
from django.urls import re_path  # noqa: E402
from starlette.applications import Starlette  # noqa: E402
from starlette.routing import Mount, Route  # noqa: E402
from starlette.staticfiles import StaticFiles  # noqa: E402
from starlette.types import ASGIApp, Message, Receive, Scope, Send  # noqa: E402

from base.errors import error_body  # noqa: E402
from config.admission import Admission  # noqa: E402
from gateway.health import healthz, livez  # noqa: E402
from gateway.mcp_server.gateway import McpGateway  # noqa: E402
from gateway.mcp_server.server import build_app, server  # noqa: E402
from memory.consumers import websocket_urlpatterns  # noqa: E402
from memory.embeddings import warm_up  # noqa: E402


class BodySizeLimit:
    """413 with a JSON error once a request body passes ``settings.MAX_REQUEST_BYTES``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = settings.MAX_REQUEST_BYTES
        declared = dict(scope["headers"]).get(b"content-length")
        if (
            declared is not None
            and re.fullmatch(rb"[0-9]{1,20}", declared)
            and int(declared) > limit
        ):
            await _too_large(send, limit)
            return
        seen = 0
        exceeded = False
        started = False

        async def limited_receive() -> Message:
            # Past the limit the app is told the client went away; we answer 413 ourselves.
            nonlocal seen, exceeded
            if exceeded:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    exceeded = True
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if exceeded and not started:
                return
            started = started or message["type"] == "http.response.start"
            await send(message)

        await self.app(scope, limited_receive, guarded_send)
        if exceeded and not started:
            await _too_large(send, limit)


async def _too_large(send: Send, limit: int) -> None:
    message = f"The request body is larger than {limit} bytes."
    body = json.dumps(error_body("payload_too_large", message)).encode()
    headers: list[tuple[bytes, bytes]] = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
    ]
    await send({"type": "http.response.start", "status": 413, "headers": headers})
    await send({"type": "http.response.body", "body": body})


CONTROL = re.compile(r"[\x00-\x1f\x7f]")  # never meaningful in a path, and routes choke on them


class InputGuard:
    """Refuse a NUL character in the path or the query string (and any control character in the
    path), for every route at once.

    Postgres cannot store or compare text holding NUL, so such a value reaching a query is a
    500 wherever a view forgot to check; it is never meaningful input. API and MCP paths get the
    JSON error, pages a short HTML one.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            query = scope.get("query_string", b"").lower()
            path = scope.get("path", "")
            if CONTROL.search(path) or b"%00" in query or b"\x00" in query:
                if scope["type"] == "http":
                    message = "The address holds a NUL or another control character."
                    await _bad_request(scope, send, message)
                else:
                    await send({"type": "websocket.close", "code": 4400})
                return
        await self.app(scope, receive, send)


async def _bad_request(scope: Scope, send: Send, message: str) -> None:
    path = scope.get("path", "")
    if path.startswith("/api/") or "/mcp" in path:
        body = json.dumps(error_body("malformed_request", message)).encode()
        kind = b"application/json"
    else:
        page = (
            "<!doctype html><title>Bad request</title><h1>Bad request</h1>"
            f"<p>{html.escape(message)}</p>"
        )
        body, kind = page.encode(), b"text/html; charset=utf-8"
    headers = [(b"content-type", kind), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 400, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class DjangoStaticFiles(StaticFiles):
    """Static files served by Starlette (async, ETag, ranges) from where Django finds them.

    With ``STATIC_ROOT`` set (production, after ``collectstatic``) only that folder is served;
    otherwise every app's ``static/`` folder, as ``runserver`` would.
    """

    def get_directories(self, directory: Any = None, packages: Any = None) -> list[Any]:
        from django.contrib.staticfiles import finders

        if settings.STATIC_ROOT:
            return [settings.STATIC_ROOT]
        folders: list[Any] = []
        for finder in finders.get_finders():
            folders += [storage.location for storage in getattr(finder, "storages", {}).values()]
            folders += [path for _, path in getattr(finder, "locations", [])]
        return folders


async def no_socket_here(scope: Scope, receive: Receive, send: Send) -> None:
    """An unknown websocket path: refused at the handshake (channels' router would raise)."""
    await receive()  # websocket.connect
    await send({"type": "websocket.close", "code": 4404})


mcp_app = build_app()
mcp_gateway = McpGateway(mcp_app)
django_app = ProtocolTypeRouter(
    {
        "http": django_http,
        # the dashboard's live updates: session-authenticated, same-origin only
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(
                URLRouter([*websocket_urlpatterns, re_path(r"", cast(Any, no_socket_here))])
            )
        ),
    }
)


def ready_to_serve() -> None:
    """What a worker does before its first request. It loads the query model, which the first
    recall would otherwise wait for (~1 s). Then it takes what is loaded so far out of the
    garbage collector's sight (``gc.freeze``): ~200k objects from imports and the model, which
    every full collection walked again, 100–160 ms each in which the worker answered no one (2
    such pauses in 300 recalls at 100k engrams; 2 ms each once frozen)."""
    warm_up()
    gc.collect()
    gc.freeze()


@contextlib.asynccontextmanager
async def lifespan(app: Any) -> AsyncIterator[None]:
    await asyncio.to_thread(ready_to_serve)
    async with server.session_manager.run():
        yield


application = InputGuard(
    BodySizeLimit(
        Admission(
            Starlette(
                routes=[
                    Route("/healthz", healthz, methods=["GET", "HEAD"]),
                    Route("/livez", livez, methods=["GET", "HEAD"]),
                    Route("/t/{slug}/mcp", mcp_gateway),
                    Route("/t/{slug}/mcp/", mcp_gateway),
                    Mount(settings.STATIC_URL.rstrip("/"), app=DjangoStaticFiles(), name="static"),
                    Mount("/", app=django_app),
                ],
                lifespan=lifespan,
            ),
            slots=settings.WEB_SLOTS,
        )
    )
)
