from __future__ import annotations

import logging

from django.apps import AppConfig
from django.db import DatabaseError, connections, transaction
from django.db.models.signals import post_migrate

log = logging.getLogger(__name__)


class TenantsConfig(AppConfig):
    name = "tenants"
    verbose_name = "Tenants"

    def ready(self) -> None:
        post_migrate.connect(_store_signing_key, sender=self)


def _store_signing_key(sender: object, using: str = "default", **kwargs: object) -> None:
    """After every migrate (run as the schema owner): the signing key follows SECRET_KEY."""
    from tenants import rls

    try:
        with transaction.atomic(using=using), connections[using].cursor() as cursor:
            rls.store_signing_key(cursor)
    except DatabaseError:  # not the owner, or not migrated that far: the migration stores it
        log.warning("could not store the row-level-security signing key", exc_info=True)
