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
    """Per connection, once: HNSW scans keep going until enough rows pass the tenant and network
    filters (iterative scan), with a candidate list as big as recall's candidate count."""
    if getattr(connection, "vendor", "") != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SET hnsw.ef_search = 80; SET hnsw.iterative_scan = relaxed_order")
