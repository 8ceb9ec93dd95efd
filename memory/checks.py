"""System checks: configuration that makes recall slow without making it wrong."""

from __future__ import annotations

from typing import Any

from django.core import checks
from django.db import connection
from django.db.utils import DatabaseError


@checks.register(checks.Tags.database)
def fulltext_is_leakproof(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """`tsvector @@ tsquery` must be LEAKPROOF for the full-text index to work under RLS."""
    if not kwargs.get("databases"):
        return []
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT proleakproof FROM pg_proc WHERE proname = 'ts_match_vq' "
                "AND pg_get_function_arguments(oid) = 'tsvector, tsquery'"
            )
            row = cursor.fetchone()
    except DatabaseError:
        return []
    if row and row[0]:
        return []
    return [
        checks.Warning(
            "ts_match_vq(tsvector, tsquery) is not LEAKPROOF: under row-level security the "
            "full-text index cannot be used and text recall scans whole networks.",
            hint="As a superuser: ALTER FUNCTION ts_match_vq(tsvector, tsquery) LEAKPROOF; "
            "(see deploy/postgres-init.sql)",
            id="memory.W001",
        )
    ]
