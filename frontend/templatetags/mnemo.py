"""Template helpers for the dashboard."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

from django import template
from django.utils import timezone
from django.utils.timesince import timesince

register = template.Library()


@register.filter
def pretty_json(value: Any) -> str:
    """JSON as people read it (the audit log's before/after), not Python's repr."""
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True, default=str)


@register.filter
def as_json(value: Any) -> str:
    """A value as JSON on one line (``["Maya", "Lisbon"]``, ``null``), not Python's repr."""
    return json.dumps(value, ensure_ascii=False, default=str)


@register.filter
def ago(moment: datetime | None) -> str:
    """How long ago, as the live feed says it: "just now" under a minute, else "3 minutes ago"
    (the largest unit or two, as Django's ``timesince``)."""
    if moment is None:
        return ""
    if timezone.is_naive(moment):
        moment = timezone.make_aware(moment, UTC)
    if timezone.now() - moment < timedelta(minutes=1):
        return "just now"
    return f"{timesince(moment)} ago"


@register.filter
def get_item(mapping: dict[str, Any], key: str) -> Any:
    """``mapping[key]`` in a template (None when absent)."""
    return mapping.get(key) if isinstance(mapping, dict) else None


@register.filter
def split_words(value: str) -> list[str]:
    """ "a,b,c" -> ["a", "b", "c"] (choices written in a template)."""
    return [part.strip() for part in str(value).split(",") if part.strip()]
