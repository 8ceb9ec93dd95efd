"""Error pages of the dashboard."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def _message(exc: Exception | None, default: str) -> str:
    text = getattr(exc, "message", None) or (str(exc) if exc and str(exc) else "")
    return text if text and not text.startswith("{") else default


def page_not_found(request: HttpRequest, exc: Exception | None = None) -> HttpResponse:
    context = {"title": "Not found", "message": _message(exc, "There is nothing here.")}
    return render(request, "frontend/error.html", context, status=404)


def permission_denied(request: HttpRequest, exc: Exception | None = None) -> HttpResponse:
    context = {"title": "Not allowed", "message": _message(exc, "Your role cannot do this.")}
    return render(request, "frontend/error.html", context, status=403)


def bad_request(request: HttpRequest, exc: Exception | None = None) -> HttpResponse:
    context = {"title": "That did not work", "message": _message(exc, "The request was invalid.")}
    status = getattr(exc, "status", 400)
    return render(request, "frontend/error.html", context, status=status)


def method_not_allowed(request: HttpRequest) -> HttpResponse:
    context = {
        "title": "Use the button",
        "message": "This address only answers to a form in the dashboard; go back and use it.",
    }
    return render(request, "frontend/error.html", context, status=405)


def server_error(request: HttpRequest) -> HttpResponse:
    context = {"title": "Something broke", "message": "The error has been logged."}
    return render(request, "frontend/error.html", context, status=500)
