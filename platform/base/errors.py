"""Errors raised by services, with a stable ``code``; gateways turn them into JSON or MCP errors.

Services never build HTTP responses. They raise one of these, and REST, MCP and the dashboard
each render it their way: ``{"error": {"code", "message", "fields"?}}`` with ``status``.
"""

from __future__ import annotations

from typing import Any


class MnemoError(Exception):
    status = 400
    code = "bad_request"

    def __init__(self, message: str, *, fields: dict[str, str] | None = None, code: str = ""):
        super().__init__(message)
        self.message = message
        self.fields = fields or {}
        if code:
            self.code = code

    def as_dict(self) -> dict[str, object]:
        body: dict[str, object] = {"code": self.code, "message": self.message}
        if self.fields:
            body["fields"] = self.fields
        return body


class ValidationFailed(MnemoError):
    status = 400
    code = "validation_error"

    @classmethod
    def field(cls, name: str, message: str) -> ValidationFailed:
        return cls(f"{name}: {message}", fields={name: message})


class Unprocessable(MnemoError):
    """Well-formed, and refused for what it says (the memory firewall's ``reject``)."""

    status = 422
    code = "unprocessable"


class NotFound(MnemoError):
    status = 404
    code = "not_found"


class PermissionDenied(MnemoError):
    status = 403
    code = "permission_denied"


class Conflict(MnemoError):
    status = 409
    code = "conflict"


def error_body(code: str, message: str, fields: dict[str, Any] | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if fields:
        error["fields"] = fields
    return {"error": error}


class ServiceUnavailable(MnemoError):
    """A service Mnemo needs (the database) does not answer: try again shortly."""

    status = 503
    code = "service_unavailable"
