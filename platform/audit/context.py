"""Request id and client address of the work in progress, for the audit trail."""

from __future__ import annotations

import contextvars
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass(frozen=True)
class RequestInfo:
    request_id: str
    ip: str | None


_current: contextvars.ContextVar[RequestInfo | None] = contextvars.ContextVar(
    "mnemo_request", default=None
)


def new_request_id() -> str:
    return uuid.uuid4().hex


def current() -> RequestInfo | None:
    return _current.get()


@contextmanager
def bound(request_id: str, ip: str | None) -> Iterator[RequestInfo]:
    info = RequestInfo(request_id=request_id, ip=ip)
    token = _current.set(info)
    try:
        yield info
    finally:
        _current.reset(token)


def clean_request_id(raw: str | None) -> str:
    """Accept a caller's X-Request-ID when it is short and printable, else make one."""
    if raw and len(raw) <= 64 and raw.isascii() and raw.replace("-", "").isalnum():
        return raw
    return new_request_id()
