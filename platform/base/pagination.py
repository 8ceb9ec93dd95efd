"""Keyset (cursor) pagination on ``(created_at, id)``, newest first: stable and fast at depth."""

from __future__ import annotations

import base64
from datetime import UTC, date, datetime, timedelta
from typing import Any, TypeVar

from django.db.models import Model, QuerySet

from base.errors import ValidationFailed

M = TypeVar("M", bound=Model)
MAX_LIMIT = 200


def encode_cursor(row: Any) -> str:
    raw = f"{row.created_at.isoformat()}|{row.pk}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


MAX_ID = 2**63 - 1


def decode_cursor(cursor: str) -> tuple[datetime, int]:
    """A cursor this API returned; anything else (edited, forged, out of range) is a 400."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        stamp, _, ident = raw.partition("|")
        moment, pk = datetime.fromisoformat(stamp), int(ident)
        if moment.tzinfo is None or moment.astimezone(UTC).year < 2 or not 0 < pk <= MAX_ID:
            raise ValueError("out of range")
        return moment, pk
    except (ValueError, UnicodeDecodeError, OverflowError) as exc:
        raise ValidationFailed.field("cursor", "not a cursor returned by this API") from exc


def older_than[M: Model](rows: QuerySet[M], cursor: str) -> QuerySet[M]:
    """Rows after the cursor, as a row comparison so Postgres starts the index walk there."""
    created_at, pk = decode_cursor(cursor)
    table = rows.model._meta.db_table
    return rows.extra(
        where=[f'("{table}"."created_at", "{table}"."id") < (%s, %s)'], params=[created_at, pk]
    )


def day_after(day: date) -> date | None:
    """The day after ``day``, or None past the calendar's end (an "until 9999-12-31" filter)."""
    return None if day >= date.max else day + timedelta(days=1)


def page_of[M: Model](
    rows: QuerySet[M], *, cursor: str = "", limit: int = 50
) -> tuple[list[M], str | None]:
    """One page of ``rows`` (already ordered newest first) and the cursor of the next, if any."""
    if cursor:
        rows = older_than(rows, cursor)
    items = list(rows[: limit + 1])
    more = len(items) > limit
    items = items[:limit]
    return items, encode_cursor(items[-1]) if more and items else None
