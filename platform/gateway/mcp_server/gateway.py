"""ASGI front of the MCP server: authenticate the key against the tenant in the URL, then serve.

``/t/<slug>/mcp`` with ``Authorization: Bearer <key>``. A missing, unknown, revoked or expired key,
or a key of another tenant, is 401 (never a hint that the tenant exists). Rate limits are the
same per-key budget as REST.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import MutableMapping
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import InterfaceError, OperationalError, close_old_connections, transaction
from starlette.types import ASGIApp, Receive, Scope, Send

from audit import context
from base.errors import error_body
from gateway.mcp_server import sessions
from gateway.mcp_server.principal import SCOPE_KEY, Principal
from gateway.rest.auth import BEARER_REALM, bearer_token
from tenants.access import apikey_access

log = logging.getLogger(__name__)


def _authenticate(slug: str, token: str, request_id: str, ip: str | None) -> Principal | str:
    """A Principal, or the reason for refusal: ``"invalid"`` or ``"rate:<seconds>"``."""
    close_old_connections()
    try:
        with transaction.atomic():
            access = apikey_access(secret=token, tenant_slug=slug, ip=ip)
            key = access.key
            if access.rate is not None and not access.rate.allowed:
                return f"rate:{access.rate.retry_after}"
            if key is None or access.rate is None:
                return "invalid"
            return Principal(
                tenant_id=key.tenant_id,
                tenant_slug=key.tenant.slug,
                tenant_name=key.tenant.name,
                key_id=key.pk,
                key_name=key.name,
                key_prefix=key.prefix,
                scopes=tuple(key.scopes),
                write_policy=key.write_policy,
                request_id=request_id,
                ip=ip,
            )
    finally:
        close_old_connections()


async def _send_json(
    send: Send, status: int, body: dict[str, Any], headers: list[tuple[bytes, bytes]]
) -> None:
    payload = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})


class McpGateway:
    """Wraps the SDK's streamable-HTTP app; mounted by config.asgi at ``/t/{slug}/mcp``."""

    def __init__(self, mcp_app: ASGIApp) -> None:
        self.mcp_app = mcp_app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        slug = scope.get("path_params", {}).get("slug", "")
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        request_id = context.clean_request_id(headers.get("x-request-id"))
        ip = scope["client"][0] if scope.get("client") else None
        rid = [(b"x-request-id", request_id.encode())]
        token = bearer_token(headers.get("authorization", ""))
        try:
            # a thread of its own per call: the shared "main" sync thread would serialise agents
            authenticate = sync_to_async(_authenticate, thread_sensitive=False)
            result = await authenticate(slug, token, request_id, ip) if token else None
        except (OperationalError, InterfaceError):
            log.warning("MCP: the database does not answer", exc_info=True)
            body = error_body("service_unavailable", "The database does not answer; retry soon.")
            await _send_json(send, 503, body, [(b"retry-after", b"5"), *rid])
            return
        if not isinstance(result, Principal):
            if isinstance(result, str) and result.startswith("rate:"):
                wait = result.split(":", 1)[1]
                body = error_body("rate_limited", f"Rate limit reached; retry in {wait} s.")
                await _send_json(send, 429, body, [(b"retry-after", wait.encode()), *rid])
                return
            message = (
                "Send 'Authorization: Bearer <api key>' for this workspace."
                if token is None
                else "The API key is unknown, revoked, expired or for another workspace."
            )
            code = "not_authenticated" if token is None else "invalid_api_key"
            auth_header = [(b"www-authenticate", BEARER_REALM.encode())]
            await _send_json(send, 401, error_body(code, message), [*auth_header, *rid])
            return
        session_id = sessions.clean_session_id(headers.get(sessions.HEADER))
        if scope["method"] == "DELETE" and session_id:
            await sync_to_async(sessions.session_end, thread_sensitive=False)(
                tenant_id=result.tenant_id, key_id=result.key_id, session_id=session_id
            )
            await send({"type": "http.response.start", "status": 204, "headers": rid})
            await send({"type": "http.response.body", "body": b""})
            return
        extra = list(rid)
        if scope["method"] == "POST" and session_id is None:
            receive, initialize = await _peek_initialize(receive)
            if initialize:
                session_id = sessions.new_session_id()
                extra.append((sessions.HEADER.encode(), session_id.encode()))
        inner = dict(scope)
        inner[SCOPE_KEY] = dataclasses.replace(result, session_id=session_id)
        inner["path"] = "/"
        inner["raw_path"] = b"/"
        inner["root_path"] = ""

        async def send_with_id(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.mcp_app(inner, receive, send_with_id)


async def _peek_initialize(receive: Receive) -> tuple[Receive, bool]:
    """Read the body (bounded) to see whether it is an ``initialize`` request, and hand the SDK
    a ``receive`` that replays it."""
    chunks: list[bytes] = []
    size, more = 0, True
    while more and size <= settings.MAX_REQUEST_BYTES:
        message = await receive()
        if message["type"] != "http.request":
            return _replay(chunks, message, receive), False
        chunks.append(message.get("body", b""))
        size += len(chunks[-1])
        more = message.get("more_body", False)
    body = b"".join(chunks)
    initialize = False
    if not more:
        try:
            payload = json.loads(body)
        except (ValueError, RecursionError):  # the SDK answers malformed JSON with its own error
            payload = None
        initialize = isinstance(payload, dict) and payload.get("method") == "initialize"
    return _replay([body], None, receive, more_body=more), initialize


def _replay(
    chunks: list[bytes], pending: Any, receive: Receive, *, more_body: bool = False
) -> Receive:
    queue: list[Any] = [{"type": "http.request", "body": b"".join(chunks), "more_body": more_body}]
    if pending is not None:
        queue.append(pending)

    async def replay() -> Any:
        if queue:
            return queue.pop(0)
        return await receive()

    return replay
