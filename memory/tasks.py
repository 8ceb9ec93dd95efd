"""Celery tasks for memory: thin, idempotent adapters around services."""

from __future__ import annotations

from celery import shared_task

from tenants import rls


@shared_task(
    bind=True, autoretry_for=(OSError, ConnectionError), retry_backoff=True, max_retries=8,
    acks_late=True,
)  # fmt: skip
def embed_engrams(self: object, tenant_id: int, network_id: int, engram_ids: list[int]) -> int:
    """Embed these engrams (and the network's cues that have no vector yet). Re-running only
    fills what is still missing, so retries and duplicate deliveries are harmless."""
    from memory.services.embedding import embed_missing

    with rls.tenant_scope(tenant_id):
        return embed_missing(tenant_id=tenant_id, network_id=network_id, engram_ids=engram_ids)
