"""MCP sessions, kept in Redis, so a stateless server still remembers an agent's active role.

The SDK runs stateless (any worker answers any request), so it issues no session ids. The
gateway issues one on ``initialize`` (``Mcp-Session-Id``); clients that keep sessions send it
back on every request, and ``DELETE`` ends it. State is keyed by tenant, API key and a hash of
the id, so an id is worthless with another key, and expires a day after its last use.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from typing import Any

from django.core.cache import cache

HEADER = "mcp-session-id"
TTL_SECONDS = 24 * 3600
_VALID = re.compile(r"[\x21-\x7e]{8,200}")  # visible ASCII, as the MCP spec requires


def new_session_id() -> str:
    return secrets.token_urlsafe(24)


def clean_session_id(raw: str | None) -> str | None:
    return raw if raw and _VALID.fullmatch(raw) else None


def _key(tenant_id: int, key_id: int, session_id: str) -> str:
    digest = hashlib.sha256(session_id.encode()).hexdigest()[:32]
    return f"mcp:session:{tenant_id}:{key_id}:{digest}"


def session_state(*, tenant_id: int, key_id: int, session_id: str | None) -> dict[str, Any]:
    if session_id is None:
        return {}
    return cache.get(_key(tenant_id, key_id, session_id)) or {}


def session_update(*, tenant_id: int, key_id: int, session_id: str, **values: Any) -> None:
    key = _key(tenant_id, key_id, session_id)
    state = cache.get(key) or {}
    state.update(values)
    cache.set(key, state, TTL_SECONDS)


def session_touch(*, tenant_id: int, key_id: int, session_id: str) -> None:
    cache.touch(_key(tenant_id, key_id, session_id), TTL_SECONDS)


def session_end(*, tenant_id: int, key_id: int, session_id: str) -> None:
    cache.delete(_key(tenant_id, key_id, session_id))
