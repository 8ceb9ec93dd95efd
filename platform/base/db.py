"""Running a unit of work in a transaction, once more when Postgres asks for it."""

from __future__ import annotations

from collections.abc import Callable

from django.db import IntegrityError, OperationalError, transaction

RETRY_SQLSTATES = frozenset({"40P01", "40001"})  # deadlock detected, serialization failure


def _retryable(exc: Exception) -> bool:
    if isinstance(exc, IntegrityError):  # a concurrent insert of the same unique key
        return True
    return getattr(exc.__cause__, "sqlstate", None) in RETRY_SQLSTATES


def atomic_with_retry[T](work: Callable[[], T]) -> T:
    """``work()`` in a transaction (a savepoint when nested), retried once after a deadlock, a
    serialization failure or a concurrent insert of the same key: the second run sees the
    first's winner and updates it instead."""
    for attempt in (1, 2):
        try:
            with transaction.atomic():
                return work()
        except (IntegrityError, OperationalError) as exc:
            if attempt == 2 or not _retryable(exc):
                raise
    raise AssertionError("unreachable")
