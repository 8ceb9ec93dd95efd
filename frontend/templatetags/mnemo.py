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
