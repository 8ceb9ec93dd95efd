"""The rules for what a client may send, in one place for REST, MCP and imports.

Errors name the field as the client wrote it (``engrams[3].strength``) and nothing is written
when any item is invalid.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.utils.dateparse import parse_datetime

from base.errors import ValidationFailed
from memory.models import Engram

MAX_BATCH = 1000
MAX_CONTENT_CHARS = 16_000
MAX_SCHEMA_WORDS = 32
MAX_WORD_CHARS = 100
MAX_QUERY_CHARS = 2000
MAX_METADATA_BYTES = 8_192
MAX_EXTERNAL_ID = 200
NETWORK_KEY_RE = re.compile(r"^[a-z0-9][a-z0-9_.:@-]{0,99}$")
TYPES = {t.value for t in Engram.Type}


@dataclass(frozen=True)
class EngramInput:
    content: str
    schema: list[str] | None = None
    type: str = Engram.Type.ATOMIC
    strength: float = 0.5
    importance: float = 0.5
    occurred_at: datetime | None = None
    external_id: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


def network_key(raw: object, *, field_name: str = "network") -> str:
    key = str(raw if raw is not None else "default").strip().lower()
    if not NETWORK_KEY_RE.match(key):
        raise ValidationFailed.field(
            field_name,
            "Use 1–100 lowercase letters, digits and . _ - : @, starting with a letter or digit "
            "(for example default, role:writer, user:42).",
        )
    return key


def _fail(index: int, name: str, message: str) -> ValidationFailed:
    return ValidationFailed.field(f"engrams[{index}].{name}", message)


def _unit_interval(index: int, name: str, value: object, default: float) -> float:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _fail(index, name, "must be a number from 0 to 1")
    if not 0.0 <= float(value) <= 1.0:
        raise _fail(index, name, f"must be from 0 to 1, not {value}")
    return float(value)


def _schema(index: int, value: object) -> list[str] | None:
    if value is None or value == "" or value == []:
        return None
    if isinstance(value, str):  # PromptX clients often send "a b c" or "a\nb\nc"
        value = [part for part in re.split(r"[\n,]+|\s{2,}", value) if part.strip()]
        if len(value) == 1:
            value = value[0].split()
    if not isinstance(value, list) or not all(isinstance(w, str) for w in value):
        raise _fail(index, "schema", "must be a list of words")
    words = [no_nul(index, "schema", w.strip()) for w in value if w.strip()]
    if len(words) > MAX_SCHEMA_WORDS:
        raise _fail(index, "schema", f"at most {MAX_SCHEMA_WORDS} words")
    if any(len(w) > MAX_WORD_CHARS for w in words):
        raise _fail(index, "schema", f"each word at most {MAX_WORD_CHARS} characters")
    return words or None


def parse_instant(value: object) -> datetime | None:
    """An ISO 8601 date-time, or None if it is not one (impossible dates included)."""
    if not isinstance(value, str):
        return None
    try:
        return parse_datetime(value)
    except ValueError:  # well-formed but impossible, like 2024-02-30
        return None


def no_nul(index: int, name: str, value: str) -> str:
    if "\x00" in value:
        raise _fail(index, name, "may not contain NUL characters")
    return value


def _occurred_at(index: int, value: object) -> datetime | None:
    if value in (None, ""):
        return None
    parsed = parse_instant(value)
    if parsed is None:
        raise _fail(index, "occurred_at", "must be an ISO 8601 date-time")
    if parsed.tzinfo is None:
        raise _fail(index, "occurred_at", "must include a time zone (for example Z)")
    return parsed


def _metadata(index: int, value: object) -> dict[str, Any]:
    if value in (None, ""):
        return {}
    if not isinstance(value, dict):
        raise _fail(index, "metadata", "must be a JSON object")
    encoded = json.dumps(value)
    if len(encoded) > MAX_METADATA_BYTES:
        raise _fail(index, "metadata", f"at most {MAX_METADATA_BYTES} bytes as JSON")
    if "\\u0000" in encoded:
        raise _fail(index, "metadata", "may not contain NUL characters")
    return value


def engram_input(index: int, raw: object) -> EngramInput:
    if not isinstance(raw, dict):
        raise ValidationFailed.field(f"engrams[{index}]", "must be an object")
    content = raw.get("content")
    if not isinstance(content, str) or not content.strip():
        raise _fail(index, "content", "is required and may not be empty")
    if len(content) > MAX_CONTENT_CHARS:
        raise _fail(index, "content", f"at most {MAX_CONTENT_CHARS} characters")
    no_nul(index, "content", content)
    kind = str(raw.get("type") or Engram.Type.ATOMIC).upper()
    if kind not in TYPES:
        raise _fail(index, "type", f"must be one of {', '.join(sorted(TYPES))}")
    external_id = raw.get("external_id")
    if external_id is not None and (
        not isinstance(external_id, str) or not 0 < len(external_id) <= MAX_EXTERNAL_ID
    ):
        raise _fail(index, "external_id", f"a string of 1–{MAX_EXTERNAL_ID} characters")
    if external_id is not None:
        no_nul(index, "external_id", external_id)
    unknown = set(raw) - {
        "content", "schema", "type", "strength", "importance", "occurred_at", "external_id",
        "metadata",
    }  # fmt: skip
    if unknown:
        raise _fail(index, sorted(unknown)[0], "is not a field of an engram")
    return EngramInput(
        content=content.strip(),
        schema=_schema(index, raw.get("schema")),
        type=kind,
        strength=_unit_interval(index, "strength", raw.get("strength"), 0.5),
        importance=_unit_interval(index, "importance", raw.get("importance"), 0.5),
        occurred_at=_occurred_at(index, raw.get("occurred_at")),
        external_id=external_id,
        metadata=_metadata(index, raw.get("metadata")),
    )


def engram_batch(raw: object) -> list[EngramInput]:
    if not isinstance(raw, list) or not raw:
        raise ValidationFailed.field("engrams", "a non-empty list of engrams")
    if len(raw) > MAX_BATCH:
        raise ValidationFailed.field("engrams", f"at most {MAX_BATCH} engrams per call")
    items = [engram_input(i, item) for i, item in enumerate(raw)]
    seen: dict[str, int] = {}
    for i, item in enumerate(items):
        if item.external_id is not None:
            if item.external_id in seen:
                raise _fail(i, "external_id", f"repeats engrams[{seen[item.external_id]}]")
            seen[item.external_id] = i
    return items


def network_from(*, network: object = None, role: object = None) -> str:
    """The network a request means: ``network`` if given, else ``role:<role>``, else default
    (PromptX's per-role memory)."""
    if network not in (None, ""):
        return network_key(network)
    if role not in (None, ""):
        return network_key(f"role:{str(role).strip().lower()}", field_name="role")
    return "default"


RECALL_MODES = ("balanced", "creative", "focused")
MAX_K = 50
MAX_TOKEN_BUDGET = 32_000


def recall_options(
    *, mode: object = None, k: object = None, token_budget: object = None, now: object = None,
    channels: object = None,
) -> dict[str, Any]:  # fmt: skip
    """Validated keyword arguments for RecallOptions."""
    out: dict[str, Any] = {}
    if mode not in (None, ""):
        if mode not in RECALL_MODES:
            raise ValidationFailed.field("mode", f"one of {', '.join(RECALL_MODES)}")
        out["mode"] = mode
    for name, value, top in (("k", k, MAX_K), ("token_budget", token_budget, MAX_TOKEN_BUDGET)):
        if value in (None, ""):
            continue
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= top:
            raise ValidationFailed.field(name, f"an integer from 1 to {top}")
        out[name] = value
    if now not in (None, ""):
        parsed = parse_instant(now)
        if parsed is None or parsed.tzinfo is None:
            raise ValidationFailed.field("now", "an ISO 8601 date-time with a time zone")
        out["now"] = parsed
    if channels not in (None, "", []):
        allowed = {"text", "vector", "activation"}
        if (
            not isinstance(channels, list)
            or not channels
            or not all(isinstance(c, str) for c in channels)
            or not set(channels) <= allowed
        ):
            raise ValidationFailed.field("channels", "a list drawn from text, vector, activation")
        out["channels"] = frozenset(channels)
    return out


def recall_query(raw: object) -> str | None:
    """A recall query: text (at most MAX_QUERY_CHARS), or null/empty for "what is this about"."""
    if raw is None:
        return None
    if not isinstance(raw, str):
        raise ValidationFailed.field("query", "a string, or null to start from the hub cues")
    if len(raw) > MAX_QUERY_CHARS:
        raise ValidationFailed.field("query", f"at most {MAX_QUERY_CHARS} characters")
    if "\x00" in raw:
        raise ValidationFailed.field("query", "may not contain NUL characters")
    return raw.strip() or None
