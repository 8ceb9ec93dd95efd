from __future__ import annotations

from django.apps import AppConfig
from django.db.backends.base.base import BaseDatabaseWrapper


class MemoryConfig(AppConfig):
    name = "memory"
    verbose_name = "Memory"

    def ready(self) -> None:
        from django.db.backends.signals import connection_created

        from memory import checks  # noqa: F401  (registers the system checks)

        connection_created.connect(vector_search_settings, dispatch_uid="memory-hnsw")


def vector_search_settings(
    sender: object, connection: BaseDatabaseWrapper, **kwargs: object
) -> None:
    """Per database connection, once: HNSW scans keep going until enough rows pass the tenant
    and network filters (iterative scan), with a candidate list as big as recall's candidate
    count. Django sends ``connection_created`` each time a request draws a connection from the
    pool; the settings are session-wide (set outside any transaction), so a pooled connection
    that has them is not sent them again (a round trip saved per request)."""
    if getattr(connection, "vendor", "") != "postgresql":
        return
    raw = connection.connection
    if raw is not None and getattr(raw, "mnemo_vector_settings", False):
        return
    with connection.cursor() as cursor:
        cursor.execute("SET hnsw.ef_search = 80; SET hnsw.iterative_scan = relaxed_order")
    if raw is not None:
        raw.mnemo_vector_settings = True
