"""Template helpers for the dashboard."""

from __future__ import annotations

import json
from typing import Any

from django import template

register = template.Library()


@register.filter
def pretty_json(value: Any) -> str:
    """JSON as people read it (the audit log's before/after), not Python's repr."""
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True, default=str)


@register.filter
def get_item(mapping: dict[str, Any], key: str) -> Any:
    """``mapping[key]`` in a template (None when absent)."""
    return mapping.get(key) if isinstance(mapping, dict) else None


@register.filter
def split_words(value: str) -> list[str]:
    """ "a,b,c" -> ["a", "b", "c"] (choices written in a template)."""
    return [part.strip() for part in str(value).split(",") if part.strip()]
